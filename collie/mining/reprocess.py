"""`collie reprocess`: extraction, language ID, near-duplicates and teasers again, over the raw
pages the workspace kept, without the network (after changing a setting, or the model).

The bodies are read back from the WARC files (bodies.py; a workspace from before them
has its body cache moved into them first: archive.py), or from cache/ when the
workspace keeps no WARC files. The pages are cut into shards in the order they lie in
the files and mapped by an executor (executor.py): a plain loop here, or a `dask.bag`
of shards on a cluster, whose workers read the bodies from the workspace's folder (on a
cluster: a file system they share) and return plain outcomes.
This process writes everything in one transaction (store/rewrite.py says what is
rewritten): an interrupted reprocess changes nothing, and a finished one leaves the
workspace as if the run had met every page with today's settings and model.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from collie.archive.keeping import migrate_body_cache
from collie.archive.reader import WARC_FOLDER, damage
from collie.decide.classify import PageRules
from collie.decide.dedup import Deduplicator, stored_sketch
from collie.langid.model import LangModel
from collie.mining.config import RunConfig
from collie.mining.examine import MISSING, examine_cached
from collie.mining.executor import Executor
from collie.mining.provenance import model_stamp
from collie.mining.records import RunEvents
from collie.mining.settle import Settler
from collie.mining.spider import Spider
from collie.mining.teasers import mark_teasers
from collie.models import CachedPage, Examined
from collie.store import Store
from collie.store.rewrite import Rewriter

if TYPE_CHECKING:  # types only: the caller hands these in
    from collie.workspace.folder import Workspace


SHARD_PAGES = 200  # pages of a task at least, when there are enough


@dataclass(frozen=True)
class CacheShard:
    """Pages whose bodies lie next to each other (in one WARC file, or cache/ subfolder)."""

    root: str  # absolute path of the workspace (as the workers see it)
    pages: list[CachedPage]
    rules: PageRules


@dataclass
class ReprocessReport:
    pages: int = 0
    missing: int = 0  # bodies not kept (or gone): pages left as they were
    # of those, the pages whose record is in a damaged WARC file: file -> (damage, pages)
    damaged: dict[str, tuple[str, int]] = field(default_factory=dict)
    migrated: int = 0  # bodies moved from the old body cache into the WARC files
    before: Counter[str] = field(default_factory=Counter)  # statuses
    after: Counter[str] = field(default_factory=Counter)
    changed: int = 0  # pages whose status changed
    documents: Counter[str] = field(default_factory=Counter)  # updated, added, removed, reviewed
    duplicates: int = 0
    teasers: int = 0  # teaser paragraphs marked (extract.teasers)
    keep: str = "all"  # warc.keep: what the workspace kept of each page to read back


def shard_pages(
    pages: list[CachedPage], root: Path, rules: PageRules, per_shard: int = 1
) -> list[CacheShard]:
    """The pages in the order their bodies lie (WARC file and offset; cache/ subfolder
    for those without a record), `per_shard` to a shard (a task per handful of pages
    costs more than the pages); deterministic."""

    def place(page: CachedPage) -> tuple[str, int, str, int]:
        if page.warc_file is not None:
            return (page.warc_file, page.warc_offset or 0, "", page.id)
        return ("~", 0, page.body_sha1, page.id)  # the body cache, after the WARC files

    ordered = sorted(pages, key=place)
    size = max(1, per_shard)
    return [
        CacheShard(str(root.resolve()), ordered[i : i + size], rules)
        for i in range(0, len(ordered), size)
    ]


def examine_shard(shard: CacheShard, model: LangModel) -> list[Examined]:
    """Decode, extract, identify and fingerprint a shard's kept pages (on a worker)."""
    root = Path(shard.root)
    return [examine_cached(page, root, model, shard.rules) for page in shard.pages]


def reprocess(
    ws: Workspace,
    model: LangModel,
    executor: Executor,
    config: RunConfig,
    events: RunEvents | None = None,
) -> ReprocessReport:
    """Reprocess every kept page of the workspace (see the module docstring); events
    get the stage ("reprocess", with the page count) and each shard's pages as done."""
    events = events or RunEvents()
    config = config.judging_with(model)
    rules = config.rules
    rewriter = Rewriter(ws.db)
    store = Store(ws.db)  # the Settler's: the same votes and site judgements as a run
    settler = Settler(store, config, Spider(store, config), model)
    migrated = migrate_body_cache(rewriter.pages, config.keep.warc, config.keep.warc_max_bytes)
    pages = rewriter.cached_pages()
    report = ReprocessReport(pages=len(pages), before=Counter(p.status for p in pages))
    report.keep = config.keep.warc
    report.migrated = migrated
    per_task = min(SHARD_PAGES, len(pages) // (8 * executor.slots) + 1)  # 8+ tasks a slot
    shards = shard_pages(pages, ws.root, rules, per_task)
    events.stage(0, "reprocess", len(pages))
    shared = executor.share(model)
    stamp = model_stamp(ws.root, model)  # the model's version and hash, for each page
    files = {p.id: p.warc_file for p in pages if p.warc_file is not None}
    lost: Counter[str] = Counter()  # WARC file -> pages whose body could not be read
    short: list[Examined] = []
    with rewriter.transaction():
        for examined in executor.map_batches(examine_shard, shards, shared):
            for one in examined:
                if one.outcome.reason == MISSING and one.queued.id in files:
                    lost[files[one.queued.id]] += 1
                if one.short_text is not None:
                    short.append(one)  # voted on once every other page is rewritten
            done = [one for one in examined if one.short_text is None]
            settler.decide(done)
            for one in done:
                stamp.apply([one.outcome])
                _rewrite(rewriter, one, report, one.queued.id in files)
            events.advance(len(examined))
        settler.decide(short)  # the vote of the pages linking to each, as they are now
        for one in short:
            stamp.apply([one.outcome])
            _rewrite(rewriter, one, report, one.queued.id in files)
        rewriter.keep_site_suspects()
        report.duplicates = _redo_duplicates(rewriter, settler.fresh_originals())
        teasers = mark_teasers(rewriter.pages, config.keep.teasers, config.crawl.short_page_chars)
        report.teasers = teasers.paragraphs
        rewriter.recount_sites()
    after = {p.id: p.status for p in rewriter.cached_pages()}
    report.after = Counter(after.values())
    report.changed = sum(after[p.id] != p.status for p in pages)
    report.damaged = {
        name: (damage(ws.root / WARC_FOLDER / name) or "a record unreadable", count)
        for name, count in lost.items()
    }
    return report


def _rewrite(
    rewriter: Rewriter, examined: Examined, report: ReprocessReport, headers_read: bool = True
) -> None:
    """One page examined again into the store (`headers_read`: its answer's headers were
    read back from its WARC record: collie.store.rewrite.Rewriter.update_page)."""
    outcome = examined.outcome
    if outcome.reason == MISSING:
        report.missing += 1
        return
    rewriter.update_page(outcome, headers_read)
    rewriter.put_suspect(outcome)
    if outcome.document is not None:
        report.documents[rewriter.put_document(outcome.page_id, outcome.document)] += 1
    else:
        dropped = rewriter.drop_document(outcome.page_id)
        if dropped is not None:
            report.documents[dropped] += 1


def _redo_duplicates(rewriter: Rewriter, originals: Deduplicator) -> int:
    """Every target document against the earlier originals, in their pages' URL order
    (so the lowest URL of a group is its original, as in a run), with the
    Settler's rule (collie.decide.dedup: the same exact key, else a simhash within
    dedup.max_distance, else the paragraph sketch with dedup.paragraphs); returns how
    many are near-duplicates."""
    decisions: list[tuple[int, int]] = []
    for doc_id, key, fingerprint, stored, paragraphs in rewriter.target_fingerprints():
        sketch = stored_sketch(stored, paragraphs)
        duplicate_of = originals.find(key, fingerprint, sketch)
        if duplicate_of is None:
            originals.add(doc_id, key, fingerprint, sketch)
        else:
            decisions.append((duplicate_of, doc_id))
    rewriter.set_duplicates(decisions)
    return len(decisions)
