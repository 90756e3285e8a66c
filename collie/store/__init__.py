"""Every read and write of the workspace database, one module per group of tables, and
one object per user, so each gets a narrow interface:

- `Store` (the loop's, collie.mining): loops and the frontier (frontier.py) <- fetched
  pages, their documents and suspects, the texts later loops learn seed words from
  (pages.py) <- sites (sites.py); robots.txt records (robots.py); the archive files
  `collie scan` read and where its pages came from (scans.py). Every batch of
  fetched pages is recorded in one transaction, so a run killed at any moment leaves
  each page either still queued (fetched again on resume) or recorded with its
  document: never half.
- `Rewriter` (rewrite.py): what `collie reprocess` rewrites.
- `CorpusStore` (corpus.py): what the corpus's use cases read (collie.corpus: export,
  status, report).
- `ReviewStore` (reviews.py): the review sample and its judgements.
- `QueryCache` (search.py): the search cache, every query stored before it is sent.
- database.py: connecting, opening (migrations.py: the schema, never edited once
  released), creating the database at init, what init recorded and the loops' history.

The store makes no decision. Near-duplicates in particular are the loop's: the store
keeps each document's exact key, simhash and paragraph sketch as plain columns and reads
out the originals a new document is compared with (`original_fingerprints`,
`exact_original`); the comparison is collie.decide.dedup's, over an in-memory index the
loop builds from them. Measured against four indexed 16-bit block columns in SQLite
(benchmarks/bench_dedup.py): random inserts into four B-trees rewrite most of their
pages at every commit, 43 s for 200,000 documents and growing faster than linearly,
while the in-memory index takes 45 s for 1,000,000 (insert and query, 319 MB peak).
"""

from __future__ import annotations

from collie.store.corpus import CorpusStore
from collie.store.reviews import ReviewStore
from collie.store.robots import RobotsStore
from collie.store.scans import ScanStore
from collie.store.search import QueryCache
from collie.store.sites import SiteStore


class Store(SiteStore, RobotsStore, ScanStore):
    """The loop's reads and writes of one open workspace, all on the same connection
    (store/base.py): frontier <- pages <- sites (recording needs the frontier; sites set
    pages aside), robots."""


__all__ = ["CorpusStore", "QueryCache", "ReviewStore", "Store"]
