"""The teaser pass: each site's documents compared with each other, the truncated copies
of another document's paragraphs (collie.decide.teasers) marked in the store, and a page
left with nothing of its own dropped as `teaser` (extract.teasers).

When: at the end of every loop and whenever a run stops (loop.py), and at the end of
`collie reprocess`, never page by page at settle time. A teaser page is often fetched
before the article it cuts (the home page first), so a paragraph's fate depends on
documents that come later; the pass recomputes every site from the documents the
workspace holds, so its result depends only on that set, never on the order pages came
in, on where a run was killed or on whether the workspace was mined before this rule
existed: resume and reprocess give exactly what a fresh run gives. A run killed between
two passes leaves the last loop's new teasers unmarked until the next run (or
reprocess) ends; the corpus's documents are never lost meanwhile. With extract.teasers
off the pass clears every mark and puts the pages back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from collie.decide.teasers import find_teasers

if TYPE_CHECKING:  # types only: the caller hands these in
    from collie.store.pages import PageTable


@dataclass
class TeaserCount:
    paragraphs: int = 0  # teaser paragraphs marked in the corpus
    pages: int = 0  # pages left with nothing of their own (dropped as `teaser`)
    changed: int = 0  # documents whose marks or page status changed in this pass


def mark_teasers(table: PageTable, enabled: bool, short_chars: int) -> TeaserCount:
    """The pass over every site (see the module docstring), in the caller's transaction
    (`Store.batch()`: the pass is written whole or not at all). A document whose
    paragraphs left hold under `short_chars` characters (crawl.short_page_chars: less
    than a page needs to be judged on its own text) has nothing of its own left."""
    count = TeaserCount()
    updates = []
    for _, docs in table.teaser_candidates():
        found = find_teasers((doc_id, texts) for doc_id, _, _, _, texts in docs) if enabled else {}
        for doc_id, page_id, status, stored, texts in docs:
            teasers = sorted(found.get(doc_id, ()))
            left = "\n\n".join(t for i, t in enumerate(texts) if i not in found.get(doc_id, ()))
            empty = bool(teasers) and len(left) < short_chars
            count.paragraphs += len(teasers)
            count.pages += empty
            if teasers != stored or empty != (status != "kept"):
                updates.append((doc_id, page_id, teasers, empty))
    for update in updates:
        table.set_teasers(*update)
    count.changed = len(updates)
    return count
