"""The mining loop's state in the workspace database: loops, the frontier, pages,
documents and their fingerprints, links, sites, robots.txt records.

workspace.py opens the workspace and keeps the seed documents and the search cache;
this module reads and writes what a run harvests (tables of the `mining` migration).
Every batch of fetched pages is recorded in one transaction, so a run killed at any
moment leaves each page either still queued (fetched again on resume) or recorded with
its document: never half.

Near-duplicates: a new target document is compared with every earlier target document
that is not itself a duplicate: by exact key (an indexed column), then by simhash within
`dedup.max_distance` through a `Deduplicator` built from the stored fingerprints when a
run first needs it and kept up to date as documents are recorded. Measured against four
indexed 16-bit block columns in SQLite (benchmarks/bench_dedup.py): random inserts into
four B-trees rewrite most of their pages at every commit, 43 s for 200,000 documents and
growing faster than linearly, while this design takes 45 s for 1,000,000 (insert and
query, 319 MB peak). A failed batch resets the index, rebuilt from what was committed.
"""

from __future__ import annotations

from collie.store.corpus import CorpusStore
from collie.store.reviews import ReviewStore
from collie.store.robots import RobotsStore
from collie.store.sites import SiteStore


class Store(SiteStore, CorpusStore, ReviewStore, RobotsStore):
    """Reads and writes of the mining tables of one open workspace, one module per group
    of tables, all on the same connection (store/base.py): frontier <- pages <- sites
    (recording needs the frontier; sites set pages aside), corpus, reviews, robots."""


__all__ = ["Store"]
