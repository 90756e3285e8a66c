"""`collie scan FILES...`: mining web-archive files (Common Crawl's WARC or WET files,
any WARC) for the workspace's language, feeding the live loop (issue 34).

Each file is one task on the run's executor (scanfile.py, in this process or on Dask
workers: one task per file, streaming, so a worker holds one record at a time and the
pages that passed the first filter). This process alone writes: a file's pages are
recorded when its task comes back, through the loop's own settle path (settle.py: the
site judgement, near-duplicates against the whole corpus, the crawl links of new target
documents queued), each with where its record is in the archive (archive_pages), then
the file is marked scanned (scanned_files). A killed scan resumes at the file: the
files marked are skipped, and a file half-recorded is read again (its pages recorded
already are known and skipped).

A file is known by its name, its size and the hash of its first bytes (plan_sources). A
file that ends mid-record (a partial download) keeps the records read before the cut and
is marked partial, with the offset after its last whole record: scanned again once
complete (or grown), it is read on from there. A file that is not a WARC or WET file, or
cannot be opened, is not marked: it is named in the report (`failed`), and the command
line exits with 1 on it, or on a partial file, once the other files are recorded.

Pages found enter the workspace's open loop (a new one after the last finished loop), as
crawled pages with their archive provenance; their sites' home pages are queued for the
live loop (`collie run` fetches them politely, robots.txt obeyed, and crawls the sites
out), and their text feeds the next loop's seed words like any document.

Once the files are recorded, the loop's pages are judged again by the passes a loop
makes when nothing is left to fetch (passes.py, the loop's own code: the short pages'
vote, the relatives pass, the teaser pass; issue 43), reading a page's body back from
the workspace's WARC files or body cache, or from its record in the archive file
(bodies.py), so the scan's corpus is the one a run would keep. A scan killed in its
passes finishes them when run again (the passes run even when every file was scanned
before).
"""

from __future__ import annotations

import glob
import gzip
import logging
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from collie.archive.keeping import open_archive
from collie.crawl.links import site_of
from collie.errors import InputError, UsageProblem
from collie.langid.model import LangModel
from collie.mining.config import RunConfig
from collie.mining.executor import Executor
from collie.mining.passes import LoopPasses, PassCount
from collie.mining.records import LoopReport, RunEvents
from collie.mining.scanfile import FileResult, Prefilter, ScanTask, file_identity, scan_file
from collie.mining.settle import Settler
from collie.mining.spider import Spider
from collie.models import Examined, QueueEntry
from collie.search.queries import query_domains
from collie.search.seeds import count_tokens, distinctive_words
from collie.store import Store

if TYPE_CHECKING:  # types only: the caller hands these in
    from collie.workspace.folder import Workspace


log = logging.getLogger(__name__)
NEEDLES = 300  # words the first filter looks for
MIN_NEEDLES = 2  # distinct ones a record's text must hold (any host of a target country's)
NEIGHBOUR_SHARE = 0.1  # of the target's paragraphs whose runner-up a language is: a neighbour
SITE_PRIORITY = 1.5  # a found site's home page, for the live loop (search results: 2.0)


@dataclass
class ScanReport:
    loop: int = 0
    files: int = 0  # scanned now
    skipped: int = 0  # scanned before
    records: int = 0
    pages: int = 0
    candidates: int = 0
    documents: int = 0  # target documents recorded (near-duplicates not counted)
    known: int = 0  # pages recorded before (fetched, or from an earlier scan)
    sites_queued: int = 0  # home pages of the sites found, queued for the live loop
    pages_queued: int = 0  # pages the scan queued for the live loop (those home pages too)
    errors: list[str] = field(default_factory=list)  # "URL: error:Kind", a page the code failed on
    seconds: float = 0.0  # in the tasks (summed over workers)
    archive_bytes: int = 0  # of the archive files read whole, as stored (compressed)
    wall: float = 0.0  # the whole scan, its passes included
    resumed: int = 0  # partial (or grown) files read on from where an earlier scan stopped
    partial: list[str] = field(default_factory=list)  # "FILE: ends after K records at ..."
    failed: list[str] = field(default_factory=list)  # "FILE: not a WARC or WET file (...)"
    passes: PassCount | None = None  # what the passes after the scan changed (passes.py)
    pass_seconds: float = 0.0  # in the passes (this process)
    kept: int = 0  # after them: documents found in web archives that the corpus keeps


def expand_sources(sources: Iterable[str], base: str = "") -> list[str]:
    """The archive files named: paths, globs, http(s) URLs, and Common Crawl's path
    lists (warc.paths.gz, wet.paths.gz: one path a line, under `base`, a folder or a URL
    prefix such as https://data.commoncrawl.org/), in order, each once."""
    found: list[str] = []
    sources = list(sources)
    if base and not any(s.endswith((".paths.gz", ".paths")) for s in sources):
        raise UsageProblem(
            f"--base {base}: --base is where a Common Crawl paths file's paths are, and none "
            "of the files named is a paths file (.paths or .paths.gz): it would be ignored.",
            "Leave --base out, or name the crawl's wet.paths.gz (or warc.paths.gz) with it.",
        )
    for source in sources:
        if source.startswith(("http://", "https://")):
            found.append(source)
        elif source.endswith(".paths.gz") or source.endswith(".paths"):
            if not Path(source).is_file():
                raise InputError(
                    f"{source}: no such paths file.",
                    "Download a crawl's list first, e.g. https://data.commoncrawl.org/"
                    "crawl-data/CC-MAIN-2025-47/wet.paths.gz.",
                )
            opener = gzip.open if source.endswith(".gz") else open
            with opener(source, "rt", encoding="utf-8") as lines:
                root = base or str(Path(source).parent)
                for line in lines:
                    if line.strip():
                        found.append(_join(root, line.strip()))
        else:
            matches = sorted(glob.glob(source)) if glob.has_magic(source) else [source]
            folder = next((m for m in matches if Path(m).is_dir()), None)
            if folder is not None:
                raise InputError(
                    f"{folder} is a folder, not an archive file: collie scan reads the "
                    "files named, not folders.",
                    f"Name the files in it, e.g. collie scan '{Path(folder) / '*.warc.gz'}' "
                    "(globs work).",
                )
            if not matches or not all(Path(m).is_file() for m in matches):
                raise InputError(
                    f"{source}: no such archive file.",
                    "Name WARC or WET files (globs work), a Common Crawl paths file, or "
                    "https:// URLs.",
                )
            found += [str(Path(m).resolve()) for m in matches]
    return list(dict.fromkeys(found))


def _join(root: str, path: str) -> str:
    if root.startswith(("http://", "https://")):
        return root.rstrip("/") + "/" + path.lstrip("/")
    return str((Path(root) / path).resolve())


def prefilter_for(
    ws: Workspace,
    loop: int,
    config: RunConfig,
    off: bool = False,
    model: LangModel | None = None,
) -> Prefilter:
    """The first filter of the workspace's language (scanfile.Prefilter): its needles
    (`needle_words`), its countries' domains."""
    extra = list(config.queries.extra_domains)
    domains = tuple(query_domains(ws.language, extra, "auto"))
    country = tuple(d for d in domains if len(d.rsplit(".", 1)[-1]) == 2)  # ccTLDs only
    needles = needle_words(ws, loop, config, model)
    if not needles and not off:  # a script without spaces between words, or no text yet
        log.warning("no needle words for %s: every page record is examined", ws.language.code)
    return Prefilter(needles, MIN_NEEDLES, country, off or not needles)


def needle_words(
    ws: Workspace, loop: int, config: RunConfig, model: LangModel | None = None
) -> frozenset[str]:
    """The NEEDLES words (3 letters or more) that only the target uses, chosen as the
    seed words of later loops are (search.seeds.distinctive_words): the target's text
    (the seed documents and the corpus before `loop`) against every other language
    collie knows words of (the safetynet, the web's big languages to 5,000 words) and
    the workspace's wrong-language text, 100 times as likely in the target at least, so
    that "south", "city" or "league" in the user's news never let an English page
    through. Unlike seed words, words the target shares with its neighbours stay (the
    languages the model takes the target's text for when not the target, and
    langid.hide): the page decision tells them apart, the filter must not lose the
    target's pages."""
    store = Store(ws.db)
    texts = ws.seed_texts("target") + store.pages.document_texts("target", loop)
    wrong = ws.seed_texts("wronglang") + store.pages.document_texts("wronglang", loop)
    code = ws.language.code
    exempt = {*config.seeds.safetynet_ignore, *config.langid_hide}
    if model is not None:
        exempt |= neighbours(model, code, texts)
    words = distinctive_words(
        count_tokens(texts), NEEDLES, code, count_tokens(wrong) if wrong else None,
        exempt=exempt,
    )  # fmt: skip
    return frozenset(seed.word for seed in words)


def neighbours(model: LangModel, code: str, texts: list[str], sample: int = 100) -> set[str]:
    """The languages the model takes for the target's runner-up on at least
    NEIGHBOUR_SHARE of the target's paragraphs (up to `sample` of them): its relatives,
    as the model sees them."""
    paragraphs = [p for text in texts for p in text.split("\n") if len(p) >= 40][:sample]
    if not paragraphs:
        return set()
    seconds = Counter(
        other for tops in model.top(paragraphs, 3) for other, _ in tops if other != code
    )
    return {other for other, n in seconds.items() if n >= NEIGHBOUR_SHARE * len(paragraphs)}


def scan(
    ws: Workspace,
    model: LangModel,
    executor: Executor,
    sources: list[str],
    config: RunConfig,
    events: RunEvents | None = None,
    prefilter: bool = True,
    passes: bool = True,
) -> ScanReport:
    """Scan `sources` into the workspace (module docstring), then judge the loop's pages
    again as a loop does at its end (passes.py; not with `passes` False, for a
    benchmark's before and after)."""
    started = time.monotonic()
    events = events or RunEvents()
    config = config.judging_with(model)
    store = Store(ws.db)
    loop = store.frontier.open_loop()
    report = ScanReport(loop=loop.number)
    plans = plan_sources(store, sources)
    report.skipped = len(sources) - len(plans)
    report.resumed = sum(1 for plan in plans if plan.start)
    settler = Settler(store, config, Spider(store, config), model)
    loop_report = LoopReport(loop.number)
    queued_before = store.frontier.queued_count()
    if plans:
        first = prefilter_for(ws, loop.number, config, not prefilter, model)
        tasks = [
            ScanTask(plan.source, config.rules, first, loop.number, plan.start) for plan in plans
        ]
        if config.keep.warc != "none":
            settler.archive = open_archive(store.pages, config.keep.warc_max_bytes)
        try:
            _scan_files(executor, tasks, plans, settler, loop_report, report, events)
        finally:
            if settler.archive is not None:
                settler.archive.close()
    if passes:  # a scan killed in its passes finishes them when run again
        passes_started = time.monotonic()
        report.passes = settle_scanned(ws, settler, loop_report, events)
        report.pass_seconds = time.monotonic() - passes_started
    report.kept = store.scans.scan_totals()["documents"]
    report.pages_queued = max(0, store.frontier.queued_count() - queued_before)
    report.wall = time.monotonic() - started
    return report


@dataclass(frozen=True)
class SourcePlan:
    """A file to scan: from where (0, or the end of the last whole record an earlier
    scan of it read), its identity now (size, first bytes' hash), and the counts of the
    earlier scan that this one goes on from."""

    source: str
    start: int = 0
    identity: tuple[int, str] | None = None
    before: dict[str, Any] = field(default_factory=dict)


def plan_sources(store: Store, sources: list[str]) -> list[SourcePlan]:
    """The files of `sources` to scan now, and from where. A file is known by its name,
    its size and its first bytes: one scanned whole is skipped while they are the same;
    one that ended mid-record (a partial download), or has grown since, is read on from
    the end of its last whole record while its first bytes are the same; any other file
    under a known name is scanned from its start. A URL is known by its name; a partial
    one is read on from its last whole record (a Range request)."""
    scanned = store.scans.scanned_files()
    plans = []
    for source in sources:
        identity = file_identity(source)
        before = scanned.get(source)
        if before is None:
            plans.append(SourcePlan(source, 0, identity))
            continue
        if before.size is None or identity is None:  # a URL (or a file scanned by name)
            if not before.whole and before.end and source.startswith(("http://", "https://")):
                plans.append(SourcePlan(source, before.end, None, before.counts))
            elif not before.whole or identity is not None:
                plans.append(SourcePlan(source, 0, identity))
            continue
        grown = identity[0] >= before.size
        same = grown and (file_identity(source, before.size) or (0, ""))[1] == before.head
        if same and before.whole and identity[0] == before.size:
            continue
        if same and before.end is not None:
            plans.append(SourcePlan(source, before.end, identity, before.counts))
        else:
            plans.append(SourcePlan(source, 0, identity))
    return plans


def _scan_files(
    executor: Executor,
    tasks: list[ScanTask],
    plans: list[SourcePlan],
    settler: Settler,
    loop_report: LoopReport,
    report: ScanReport,
    events: RunEvents,
) -> None:
    """Each file's task on the executor, its pages recorded as it comes back, the file
    then marked scanned."""
    store, loop = settler.store, loop_report.number
    events.stage(loop, "scan", len(tasks))
    shared = executor.share(settler.model)
    started = time.monotonic()
    by_source = {plan.source: plan for plan in plans}
    for result in executor.map_batches(scan_file, tasks, shared):
        events.advance(1)
        if result.state == "failed":  # not marked: named in the report, tried again next time
            report.failed.append(f"{result.source}: {result.error}")
            continue
        found = _record_file(store, settler, result, loop_report, report)
        report.files += 1
        report.records += result.records
        report.pages += result.pages
        report.candidates += result.candidates
        report.seconds += result.seconds
        report.archive_bytes += result.read
        if result.state == "partial":
            report.partial.append(f"{result.source}: {result.error}")
        plan = by_source[result.source]
        counts = {
            "records": result.records,
            "pages": result.pages,
            "candidates": result.candidates,
            "documents": found,
            "seconds": round(result.seconds, 3),
        }
        counts = {key: value + plan.before.get(key, 0) for key, value in counts.items()}
        whole = result.state == "whole"
        store.scans.mark_scanned(
            result.source, loop, {**counts, "error": result.error}, plan.identity, result.end, whole
        )
        rate = result.records / result.seconds if result.seconds else 0.0
        elapsed = time.monotonic() - started
        events.status(
            f"{report.records:,} records ({report.records / max(elapsed, 1e-9):,.0f}/s), "
            f"{report.documents} target documents"
        )
        events.line(
            f"{_short(result.source)}: {result.records:,} records ({rate:,.0f}/s), "
            f"{result.candidates:,} past the first filter, {found} target documents"
            + (
                f"; the download broke off {result.retries} times and was asked again from "
                "the last whole record"
                if result.retries
                else ""
            )
            + ("; a partial file: the records read are kept" if result.error else "")
        )


def settle_scanned(
    ws: Workspace, settler: Settler, report: LoopReport, events: RunEvents
) -> PassCount:
    """The passes a loop makes once nothing is left to fetch (passes.LoopPasses: the
    short pages' vote again, the relatives pass, the teaser pass), over the pages the
    scan recorded in the open loop, a line for each."""
    loop = report.number
    count = LoopPasses(ws, settler, events).settle_loop(report)
    events.line(f"loop {loop}: short pages decided by the vote after the scan: {count.voted}")
    if not count.relatives:
        events.line(f"loop {loop}: the relatives pass after the scan: nothing learnt")
    events.line(
        f"loop {loop}: the teaser pass after the scan: {count.teasers} pages left with "
        "nothing of their own"
    )
    return count


def _record_file(
    store: Store, settler: Settler, result: FileResult, loop_report: LoopReport, report: ScanReport
) -> int:
    """A file's pages into the workspace (module docstring); its new target documents."""
    loop = loop_report.number
    if not result.found:
        return 0
    urls = [examined.queued.url for examined, _ in result.found]
    entries = [QueueEntry(url, site_of(url), loop, "crawl", 0, 0.0) for url in urls]
    with store.batch():
        store.pages.enqueue_in_batch(entries)
        ids = store.scans.queued_ids(urls)
        pages: list[Examined] = []
        provenance = []
        for examined, hit in result.found:
            page_id = ids.pop(examined.queued.url, None)
            if page_id is None:  # recorded before (fetched, or twice in the archive)
                report.known += 1
                continue
            examined.queued = replace(examined.queued, id=page_id)
            examined.outcome.page_id = page_id
            pages.append(examined)
            provenance.append((page_id, hit.file, hit.offset, hit.record_id, hit.kind))
        store.scans.add_archive_pages(provenance)
    if not pages:
        return 0
    outcomes = settler.settle(pages, loop_report)
    urls_of = {p.outcome.page_id: p.queued.url for p in pages}
    report.errors += [
        f"{urls_of.get(o.page_id, o.page_id)}: {o.reason}"
        for o in outcomes
        if (o.reason or "").startswith("error:")
    ]
    found = [o for o in outcomes if o.status == "kept"]
    report.documents += len(found)
    homes = {_home(o.final_url or "") for o in found} - {""}
    report.sites_queued += store.frontier.enqueue(
        QueueEntry(url, site_of(url), loop, "crawl", 1, SITE_PRIORITY) for url in sorted(homes)
    )
    return len(found)


def _home(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}/" if parts.scheme and parts.netloc else ""


def _short(source: str) -> str:
    return source.rsplit("/", 1)[-1]
