"""Every read and write of the workspace database, one module per group of tables, and
one object per user, so each gets a narrow interface. All of them share the
workspace's one `Database` handle (base.py), whose `batch()` is the only way a
transaction is opened:

- `Store` (the loop's, collie.mining) is composed of tables, each taking the handle and
  the tables it writes through: `frontier` (loops and the frontier: frontier.py),
  `pages` (fetched pages, their documents and suspects, the texts later loops learn
  seed words from: pages.py; it queues a batch's links in the frontier), `sites`
  (sites.py; a relative's site makes its pages' suspects), `robots` (robots.txt
  records: robots.py) and `scans` (the archive files `collie scan` read and where its
  pages came from: scans.py). An owner of the loop takes the tables it uses. Every
  batch of fetched pages is recorded in one `batch()`, so a run killed at any moment
  leaves each page either still queued (fetched again on resume) or recorded with its
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

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from collie.store.base import Database
from collie.store.corpus import CorpusStore
from collie.store.frontier import FrontierTable
from collie.store.pages import PageTable
from collie.store.reviews import ReviewStore
from collie.store.robots import RobotsTable
from collie.store.scans import ScanTable
from collie.store.search import QueryCache
from collie.store.sites import SiteTable


class Store:
    """The loop's tables of one open workspace, on its one database handle."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.frontier = FrontierTable(db)
        self.pages = PageTable(db, self.frontier)
        self.sites = SiteTable(db, self.pages)
        self.robots = RobotsTable(db)
        self.scans = ScanTable(db)

    @property
    def root(self) -> Path:
        """The workspace's folder."""
        return self.db.root

    @contextmanager
    def batch(self) -> Iterator[Store]:
        """One transaction for a batch's writes, whichever tables they go to; reads
        inside it see them. On any error everything is rolled back."""
        with self.db.batch():
            yield self


__all__ = ["CorpusStore", "Database", "QueryCache", "ReviewStore", "Store"]
