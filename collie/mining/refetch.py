"""Fetching again the pages whose body was lost with a damaged WARC file (`collie check
--repair` marks them: collie.archive.repair), politely (the run's fetcher: robots.txt,
each host's delay), their exchanges written to the WARC files and the page rows
pointing at the new records (issue 45).

Nothing is decided again: the page's outcome and document stay as they are. What came
back is compared with what the page was made from (its HTTP status and body SHA-1):
'same', or 'changed' (the web changed since; `collie reprocess` decides the page again
from the new body), or 'failed:REASON' (the page stays lost; `collie run
--refetch-lost` tries it again). Each answer is a response record of its own, never a
revisit: a revisit's payload is looked up by the first page with its digest, which a
page fetched again out of order could make a revisit. Chunks of pages: records on disk,
then their rows in one transaction, so a run killed midway keeps what was fetched.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from collie.archive.pointers import CHANGED, FAILED, SAME, ArchiveStore, LostPage
from collie.archive.reader import WARC_FOLDER
from collie.archive.writer import WarcArchive
from collie.fetch.pool import fetch_all
from collie.mining.config import KeepConfig
from collie.mining.records import RunEvents
from collie.models import FetchResult, WarcLocation
from collie.version import __version__

if TYPE_CHECKING:  # types only: the caller hands these in
    from collie.fetch.fetcher import Fetcher
    from collie.workspace.folder import Workspace

CHUNK = 200  # pages a transaction


@dataclass
class RefetchReport:
    """What fetching the lost pages again gave."""

    asked: int = 0
    same: int = 0
    changed: int = 0
    failed: Counter[str] = field(default_factory=Counter)  # reason -> pages

    @property
    def fetched(self) -> int:
        return self.same + self.changed


def refetch_lost(
    ws: Workspace,
    fetcher: Fetcher,
    keep: KeepConfig,
    events: RunEvents,
    retry_failed: bool = False,
) -> RefetchReport:
    """Fetch the lost pages again (module docstring): those never tried, and with
    `retry_failed` those whose last try failed."""
    store = ArchiveStore(ws.db)
    pages = store.lost_pages(retry_failed)
    report = RefetchReport(len(pages))
    if not pages or keep.warc == "none":
        return report
    events.stage(0, "fetching lost pages again", len(pages))
    software = f"collie/{__version__}"
    with WarcArchive(ws.root / WARC_FOLDER, keep.warc_max_bytes, software) as archive:
        for start in range(0, len(pages), CHUNK):
            if events.should_stop():
                break
            chunk = {page.url: page for page in pages[start : start + CHUNK]}
            settled = [
                _settle(chunk[result.url], result, archive)
                for result in fetch_all(fetcher, list(chunk))
            ]
            archive.flush()  # on disk before any row points at a record
            with ws.db.batch():
                for page, outcome, where, at in settled:
                    store.set_refetched(page.page_id, outcome, where, at)
                    _count(report, outcome)
            events.advance(len(settled))
    return report


def _settle(
    page: LostPage, result: FetchResult, archive: WarcArchive
) -> tuple[LostPage, str, WarcLocation | None, float]:
    """Write a fetch's exchanges; the page, what came back, the record of its answer."""
    where = None
    for exchange in result.exchanges:
        location = archive.write(exchange, revisit=False)
        if exchange.url == result.final_url:
            where = location
    if where is None:
        return page, f"{FAILED}:{result.reason or 'no answer'}", None, 0.0
    body = hashlib.sha1(result.body).hexdigest()
    same = page.body_sha1 is None or body == page.body_sha1
    return page, SAME if same else CHANGED, where, result.fetched_at


def _count(report: RefetchReport, outcome: str) -> None:
    if outcome == SAME:
        report.same += 1
    elif outcome == CHANGED:
        report.changed += 1
    else:
        report.failed[outcome.split(":", 1)[1]] += 1
