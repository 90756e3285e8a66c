"""`collie scan` on a Common-Crawl-like archive (issue 34): the first filter's recall against
the full page decision on every record, the per-core rate on the other-language bulk,
and Dask LocalCluster with 1 and 2 workers (the same documents, records/s, memory).

The archive (collie.mininet.ccarchive, cached under the mininet cache): `make demo`'s
world (300 sites, GENERATED from UDHR text; Zulu the target) sampled so that its target
documents are 1 in 1,000 captures, diluted with GENERATED other-language pages (UDHR
articles 21-30 in Common Crawl's language mix); WARC files of request, response and
metadata records, as Common Crawl's. Every figure here is on GENERATED pages.

Runs, each in a new workspace made from the world's seed text (no search, no fetch):
1. the local executor (one process, one core), with the first filter;
2. the baseline: the full decision on every page record (--no-prefilter), on Dask with
   2 workers (it is slow);
3. Dask LocalCluster, 1 worker and 2 workers (one thread each), with the first filter.
Recall: the target documents of run 1 among those of run 2. Precision: the documents
exported that the world made as target documents.

With --world news (REAL TEXT, when ../shared/data/news-text is there; see
bench_relatives.py): the Zulu news world's archive (every answered page of the world,
its relatives' sites among them, diluted with GENERATED bulk pages), scanned from a
workspace that learnt Zulu from the world's seed documents (Zulu and its relatives
hidden from the model), without the passes a loop makes at its end and with them
(collie.mining.passes: the short pages' vote again, the relatives pass, the teaser
pass), in the same run, alternating: documents, precision (P(some), P(mainly): the
page's letters, collie.mininet.score), recall of the world's target pages and seconds
per record; then the live loop alone on the same world (`collie demo`'s run, 2 loops),
for what a run keeps.

With --world real (the default; REAL PAGES, issue 54): the archive of benchmarks/
real_archive.py (every page of ../shared/data/extraction-dev and wcxb-dev, about 2,440
real pages, and 1% target pages of real news text in the target's language, Zulu by
default, from ../shared/data/news-text; each set read when present, said when absent),
scanned by `collie scan` (the command, a process of its own, one core) from a workspace
made by `collie init --lang zul --docs` from the news file's head (held apart from the
pages). Printed, in one run: MB/s of compressed input per core (CPU time of the command:
start-up, reading, the first filter, the pages past it, the passes) and records/s; the
share of the real non-target pages past the first filter (target <= 0.5%) and the
needles they matched; the target pages found; the non-target documents kept; the reading
cost of warcio and FastWARC alone on the same files (a ratio: the scan's CPU time to
theirs); the WET files' rate; and (without --skip-baseline) the full decision on every
page record (--no-prefilter): the target pages a loop would keep, all of which the scan
must find.

Run: python benchmarks/bench_scan.py [--world real|demo|news|both|all] [--records N]
     [--files N] [--skip-baseline] [--news-records N] [--rounds N] [--lang CODE]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench_relatives import NEWS, news_options
from real_archive import build_real_archive, missing_sets

from collie.langid.learn import load_model_for
from collie.mininet.ccarchive import write_archive
from collie.mininet.demo import demo_options, ensure_world, hidden_for, run_demo, write_seed_docs
from collie.mininet.records import BuildOptions
from collie.mininet.score import MAINLY, SOME, Scores, read_jsonl, score
from collie.mininet.worldfile import WorldFile
from collie.mining.config import RunConfig
from collie.mining.executor import DaskExecutor, LocalExecutor, start_cluster
from collie.mining.scan import expand_sources, scan
from collie.store import CorpusStore
from collie.workspace.folder import open_workspace

CACHE = Path(os.environ.get("COLLIE_CACHE_DIR", Path.home() / ".cache" / "collie")) / "mininet"


def build_archive(
    records: int, files: int, options: BuildOptions | None = None, name: str = "cc"
) -> tuple[Path, Path, Path]:
    """(archive folder, world file, seed folder), built once and cached: the demo world's
    (its target documents 1 in 1,000 captures), or the world of `options` (every answered
    page of it: `records` at least ten times its other pages)."""
    world, _ = ensure_world(options or demo_options(sites=300))
    out = CACHE / f"{name}-{world.stem}-{records}-{files}"
    seeds = out / "seeds"
    target_pages = records // 1000 if options is None else records
    if not (out / "done").exists():
        started = time.monotonic()
        summary = write_archive(world, out, records=records, target_pages=target_pages,
                                files=files)  # fmt: skip
        file = WorldFile(world)
        try:
            write_seed_docs(file, seeds)
        finally:
            file.close()
        (out / "done").write_text(json.dumps(summary.__dict__))
        print(f"archive built in {time.monotonic() - started:.0f} s: {out}")
    return out, world, seeds


def workspace(
    tmp: Path,
    name: str,
    seeds: Path,
    settings: tuple[str, ...] = ("warc.keep=none",),
    lang: str = "zul",
) -> Path:
    """A new workspace for Zulu from `seeds` (with langid.hide in `settings`, init goes
    on with --force: the target is learnt)."""
    from click.testing import CliRunner

    from collie.cli import cli

    root = tmp / name
    sets = [a for setting in settings for a in ("--set", setting)]
    force = ["--force"] if any(s.startswith("langid.hide=") for s in settings) else []
    args = ["-q", "-w", str(root), "init", "--lang", lang, "--docs", str(seeds),
            "--search", "searxng", "--search-url", "http://127.0.0.1:9/", *sets,
            *force]  # fmt: skip
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    return root


def run_scan(
    root: Path, sources: list[str], executor: Any, prefilter: bool = True, passes: bool = True
) -> dict[str, Any]:
    model = load_model_for(root)
    with open_workspace(root, os.environ, {}) as ws:
        started = time.perf_counter()
        report = scan(
            ws, model, executor, sources, RunConfig.of(ws), prefilter=prefilter, passes=passes
        )
        wall = time.perf_counter() - started
        docs = {row.final_url or row.url for row in CorpusStore(ws.db).export_rows()}
    return {"report": report, "wall": wall, "docs": docs}


def precision(docs: set[str], truths: dict[str, Any]) -> tuple[float, float]:
    """Shares of `docs` whose page is some / mainly target (score.py's classes: 5% and
    50% of the main text's letters; a listing page, or a page the world never made, is
    no target)."""
    some = mainly = 0
    for url in docs:
        truth = truths.get(url)
        share = 0.0 if truth is None or truth.listing else truth.shares.get("zul", 0.0)
        some += share >= SOME
        mainly += share >= MAINLY
    return some / max(len(docs), 1), mainly / max(len(docs), 1)


def worker_memory(executor: DaskExecutor) -> list[float]:
    """Each worker process's peak resident memory (VmHWM), MB."""
    peaks = executor.client.run(_peak_kb)
    return sorted(kb / 1024 for kb in peaks.values())


def _peak_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--world", choices=("real", "demo", "news", "both", "all"),
                        default="real", help="both: news and demo; all: the three")  # fmt: skip
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--files", type=int, default=10)
    parser.add_argument("--skip-baseline", action="store_true")
    parser.add_argument("--news-records", type=int, default=15_000)
    parser.add_argument("--rounds", type=int, default=2, help="of the news world's scans")
    parser.add_argument("--lang", default="zul", help="the real archive's target (news-text)")
    parser.add_argument("--learnt", action="store_true",
                        help="the real archive: the target and its relatives hidden from the "
                        "model (langid.hide), learnt from the documents")  # fmt: skip
    args = parser.parse_args()
    if args.world in ("real", "all"):
        scan_real(args.lang, args.skip_baseline, args.learnt)
    if args.world in ("news", "both", "all"):
        scan_news(args.news_records, args.files, args.rounds)
    if args.world in ("demo", "both", "all"):
        scan_demo(args.records, args.files, args.skip_baseline)


def scan_real(lang: str, skip_baseline: bool, learnt: bool = False) -> None:
    """The archive of real pages (module docstring): the figures of issue 54."""
    absent = missing_sets()
    if "news-text" in absent or len(absent) == 3:
        print(f"real pages: skipped, {', '.join(absent)} not in ../shared/data (development "
              "data; see each set's SOURCES.md)")  # fmt: skip
        return
    out = build_real_archive(CACHE / f"real-{lang}", lang)
    truth = json.loads((out / "truth.json").read_text())
    targets = {url for url, t in truth.items() if t["target"]}
    sets = Counter(t["lang"] for t in truth.values() if not t["target"])
    sources = expand_sources([str(out / "warc.paths.gz")])
    size = sum(Path(s).stat().st_size for s in sources)
    print(f"== real pages (REAL): {', '.join(f'{n:,} of {name}' for name, n in sets.items())}"
          f"{' (' + ', '.join(absent) + ' absent)' if absent else ''}, and {len(targets)} "
          f"target pages ({lang}, real news text from news-text, wrapped in HTML) in "
          f"{len(sources)} WARC files, {size / 1e6:,.1f} MB compressed")  # fmt: skip
    settings = (
        "warc.keep=none",
        *([f"langid.hide={','.join(hidden_for(lang))}"] if learnt else []),
    )
    seed_count = len(list((out / "seeds").iterdir()))
    print(f"workspace: collie init --lang {lang} --docs (the news file's head, {seed_count} "
          f"documents), --set {' '.join(settings)}")  # fmt: skip
    reading = {name: read_cost(sources, name) for name in ("warcio", "fastwarc")}
    for name, (seconds, records) in reading.items():
        print(f"reading alone, {name}: {records:,} records in {seconds:.2f} s of CPU: "
              f"{size / seconds / 1e6:,.1f} MB/s")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="collie-bench-scan-real-") as tmp_name:
        tmp = Path(tmp_name)
        root = workspace(tmp, "real", out / "seeds", settings, lang)
        cpu, wall, printed = scan_command(root, str(out / "warc.paths.gz"))
        passed, docs = candidates(root), documents(root)
        records = sum(1 for _ in truth) * 3
        bulk = len(truth) - len(targets)
        wrong = passed - targets
        print(f"collie scan (the command, first filter, the passes): {cpu:.2f} s of CPU "
              f"({wall:.1f} s wall): {size / cpu / 1e6:.1f} MB/s of compressed input per "
              f"core (target >= 15), {records / cpu:,.0f} records/s; "
              f"{cpu / reading['warcio'][0]:.1f}x warcio's reading cost, "
              f"{cpu / reading['fastwarc'][0]:.1f}x FastWARC's; the command said: "
              f"{printed}")  # fmt: skip
        print(f"first filter: {len(wrong)} of the {bulk:,} real non-target pages past it "
              f"({len(wrong) / bulk:.2%}; target <= 0.5%), by set: "
              f"{dict(Counter(truth[u]['lang'] for u in wrong))}; target pages past it "
              f"{len(passed & targets)} of {len(targets)}")  # fmt: skip
        if wrong:
            print(f"  the needles they held: {matched_needles(root, sources, wrong)}")
        print(f"documents kept: {len(docs & targets)} of the {len(targets)} target pages, "
              f"{len(docs - targets)} non-target documents "
              f"{sorted(docs - targets)[:5] if docs - targets else ''}")  # fmt: skip
        wet = expand_sources([str(out / "wet.paths.gz")])
        wet_size = sum(Path(s).stat().st_size for s in wet)
        wet_root = workspace(tmp, "wet", out / "seeds", settings, lang)
        wet_cpu, _, wet_said = scan_command(wet_root, str(out / "wet.paths.gz"))
        wet_docs = documents(wet_root)
        print(f"collie scan of the WET files ({wet_size / 1e6:.1f} MB): {wet_cpu:.2f} s of "
              f"CPU: {wet_size / wet_cpu / 1e6:.1f} MB/s a core, {len(truth) / wet_cpu:,.0f} "
              f"records/s; {len(wet_docs & targets)} target pages kept, "
              f"{len(wet_docs - targets)} non-target documents; the command said: "
              f"{wet_said}")  # fmt: skip
        if skip_baseline:
            return
        full_root = workspace(tmp, "full", out / "seeds", settings, lang)
        full_cpu, _, _ = scan_command(full_root, str(out / "warc.paths.gz"), "--no-prefilter")
        full = documents(full_root)
        print(f"baseline, the full decision on every page (--no-prefilter): {full_cpu:.1f} s "
              f"of CPU ({size / full_cpu / 1e6:.2f} MB/s a core; the first filter "
              f"{full_cpu / cpu:.1f}x faster); keeps {len(full & targets)} target pages and "
              f"{len(full - targets)} non-target documents; the first filter's scan finds "
              f"{len(full & targets & docs)} of the {len(full & targets)} target pages it "
              f"keeps")  # fmt: skip


def read_cost(sources: list[str], reader: str) -> tuple[float, int]:
    """CPU seconds to read every record of `sources` with `reader` (warcio or FastWARC),
    each record's content read to its end; and the records."""
    records = 0
    started = time.process_time()
    for source in sources:
        with open(source, "rb") as stream:
            if reader == "warcio":
                from warcio.archiveiterator import ArchiveIterator

                for record in ArchiveIterator(stream):
                    record.content_stream().read()
                    records += 1
            else:
                from fastwarc.warc import ArchiveIterator as FastIterator

                for fast in FastIterator(stream, parse_http=True):
                    fast.reader.read()
                    records += 1
    return time.process_time() - started, records


def scan_command(root: Path, paths: str, *flags: str) -> tuple[float, float, str]:
    """`collie scan` in a process of its own: (its CPU seconds, wall seconds, the line it
    ends with)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    command = [sys.executable, "-m", "collie", "-w", str(root), "scan", paths, *flags]
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    lines = [line for line in done.stderr.splitlines() if line.startswith(("Scanned", "Read"))]
    return cpu, wall, " ".join(lines) if lines else done.stderr.strip().splitlines()[-1]


def candidates(root: Path) -> set[str]:
    """The URLs of the page records that passed the first filter (each is a page row)."""
    with open_workspace(root, os.environ, {}) as ws:
        rows = ws.conn.execute(
            "SELECT p.url FROM pages p JOIN archive_pages a ON a.page_id = p.id"
        ).fetchall()
    return {row[0] for row in rows}


def documents(root: Path) -> set[str]:
    with open_workspace(root, os.environ, {}) as ws:
        return {row.final_url or row.url for row in CorpusStore(ws.db).export_rows()}


def matched_needles(root: Path, sources: list[str], urls: set[str]) -> str:
    """The first filter's needles that the pages of `urls` hold, most often first."""
    from warcio.archiveiterator import ArchiveIterator

    from collie.langid.learn import load_model_for
    from collie.mining.scan import prefilter_for
    from collie.mining.scanfile import WORD, html_sample

    with open_workspace(root, os.environ, {}) as ws:
        needles = prefilter_for(ws, 1, RunConfig.of(ws), model=load_model_for(root)).needles
    held: Counter[str] = Counter()
    for source in sources:
        with open(source, "rb") as stream:
            for record in ArchiveIterator(stream):
                if record.rec_headers.get_header("WARC-Target-URI") in urls:
                    text = html_sample(record.content_stream().read())
                    held.update({m.group(0).lower() for m in WORD.finditer(text)} & needles)
    return ", ".join(f"{word} {n}" for word, n in held.most_common(15))


def scan_news(records: int, files: int, rounds: int) -> None:
    """The news world's archive scanned without the passes and with them (module
    docstring), `rounds` times each, alternating; each row's figures, its best time."""
    options = news_options()
    if options is None:
        print(f"news world: skipped, {NEWS} is not there (development data, see "
              "../shared/data/news-text/SOURCES.md)")  # fmt: skip
        return
    out, world, seeds = build_archive(records, files, options, "cc-news")
    truth = json.loads((out / "truth.json").read_text())
    sources = expand_sources([str(out / "warc.paths.gz")])
    hide = ",".join(hidden_for(options.target))
    targets = {url for url, t in truth.items() if t["target"]}
    print(f"== news world (REAL TEXT): {world.name}; archive {out.name}: {len(truth):,} "
          f"captures in {len(sources)} WARC files, {sum(not t['bulk'] for t in truth.values())} "
          f"pages of the world ({len(targets)} target documents), the rest GENERATED bulk; "
          f"workspace: Zulu learnt from the seed documents, langid.hide={hide}")  # fmt: skip
    best: dict[bool, float] = {}
    with tempfile.TemporaryDirectory(prefix="collie-bench-scan-news-") as tmp_name:
        tmp = Path(tmp_name)
        for number in range(rounds):
            for passes in (False, True):
                name = f"{'after' if passes else 'before'}-{number}"
                root = workspace(tmp, name, seeds, (f"langid.hide={hide}",))
                with LocalExecutor() as local:
                    run = run_scan(root, sources, local, passes=passes)
                rep = run["report"]
                per_record = run["wall"] / rep.records
                best[passes] = min(best.get(passes, per_record), per_record)
                s = score_export(root, world)
                label = "with the passes (after)" if passes else "without the passes (before)"
                print(f"{label:28} {s.exported:4d} documents, P(some) {s.precision_some:.4f}, "
                      f"P(mainly) {s.precision_mainly:.4f}, recall {s.recall_all:.4f} "
                      f"({s.found} of {s.target_pages} target pages); relatives' pages "
                      f"{s.relative_pages_exported}, listing pages {s.listing_pages_exported}; "
                      f"{per_record * 1e6:.1f} us a record ({rep.records:,} records in "
                      f"{run['wall']:.1f} s, {rep.pass_seconds:.1f} s of it the passes)",
                      flush=True)  # fmt: skip
                if rep.passes is not None:
                    c = rep.passes
                    print(f"{'':28} the passes: {c.voted} short pages decided by the vote, "
                          f"{c.relatives} relatives passes ({c.set_aside} pages set aside, "
                          f"{c.restored} restored), {c.teasers} teaser pages")  # fmt: skip
        live = run_demo(world, tmp / "live", delay=0.0, quiet=True, echo=io.StringIO(),
                        hide=hidden_for(options.target)).scores  # fmt: skip
        print(f"{'the live loop alone':28} {live.exported:4d} documents, P(some) "
              f"{live.precision_some:.4f}, P(mainly) {live.precision_mainly:.4f}, recall "
              f"{live.recall_all:.4f} ({live.found} of {live.target_pages} target pages); "
              f"relatives' pages {live.relative_pages_exported}, listing pages "
              f"{live.listing_pages_exported} (collie demo's run, 2 loops, the same "
              f"langid.hide)")  # fmt: skip
    print(f"seconds per record, with the passes / without (best of {rounds}): "
          f"{best[True] / best[False]:.3f}x (target <= 1.10x)")  # fmt: skip


def score_export(root: Path, world: Path) -> Scores:
    """The workspace's corpus as `collie export --format jsonl` writes it, scored against
    the world (collie.mininet.score)."""
    corpus = root.parent / f"{root.name}.jsonl"
    command = [sys.executable, "-m", "collie", "-q", "-w", str(root), "export", str(corpus),
               "--format", "jsonl"]  # fmt: skip
    subprocess.run(command, check=True)
    file = WorldFile(world)
    try:
        return score(file, read_jsonl(corpus))
    finally:
        file.close()


def scan_demo(records: int, files: int, skip_baseline: bool) -> None:
    """The demo world's archive (GENERATED text): the figures of the module docstring."""
    out, world, seeds = build_archive(records, files)
    truth = json.loads((out / "truth.json").read_text())
    sources = expand_sources([str(out / "warc.paths.gz")])
    sizes = sum(Path(s).stat().st_size for s in sources)
    mix = Counter("target" if t["target"] else "world, other" if not t["bulk"] else "bulk"
                  for t in truth.values())  # fmt: skip
    langs = Counter(t["lang"] for t in truth.values() if t["bulk"])
    top = ", ".join(f"{code} {n / mix['bulk']:.0%}" for code, n in langs.most_common(6))
    print(f"archive: {len(truth):,} captures in {len(sources)} WARC files ({sizes / 1e6:,.0f} MB, "
          f"3 records a capture): {mix['target']} target documents of the world (1 in "
          f"{len(truth) // max(mix['target'], 1):,}), {mix['world, other']} other pages of the "
          f"world (relatives, English...), {mix['bulk']:,} GENERATED bulk pages in "
          f"{len(langs)} languages ({top}...)")  # fmt: skip
    targets = {url for url, t in truth.items() if t["target"]}
    truths = WorldFile(world).truths()
    with tempfile.TemporaryDirectory(prefix="collie-bench-scan-") as tmp_name:
        tmp = Path(tmp_name)
        with LocalExecutor() as local:
            one = run_scan(workspace(tmp, "local", seeds), sources, local)
        rep = one["report"]
        per_core = rep.records / rep.seconds
        print(f"local, first filter: {rep.records:,} records in {one['wall']:.1f} s: "
              f"{per_core:,.0f} records/s on one core ({rep.pages / rep.seconds:,.0f} captures/s, "
              f"{sizes / rep.seconds / 1e6:.1f} MB/s); "
              f"{rep.candidates:,} past the filter ({rep.candidates / rep.pages:.2%} of pages), "
              f"{len(one['docs'])} documents")  # fmt: skip
        wet_sources = expand_sources([str(out / "wet.paths.gz")])
        wet_bytes = sum(Path(s).stat().st_size for s in wet_sources)
        with LocalExecutor() as local:
            wet = run_scan(workspace(tmp, "wet", seeds), sources=wet_sources, executor=local)
        w = wet["report"]
        print(f"local, first filter, the WET files ({wet_bytes / 1e6:,.0f} MB): {w.records:,} "
              f"records in {wet['wall']:.1f} s: {w.records / w.seconds:,.0f} records/s on one "
              f"core ({wet_bytes / w.seconds / 1e6:.1f} MB/s); {len(wet['docs'])} documents, "
              f"{len(wet['docs'] & one['docs'])} of them the WARC scan's too")  # fmt: skip
        rates = {}
        for workers in (1, 2):
            with (
                start_cluster(f"local:{workers}", {}) as cluster,
                DaskExecutor(cluster_client(cluster)) as dask,
            ):
                run = run_scan(workspace(tmp, f"dask{workers}", seeds), sources, dask)
                memory = worker_memory(dask)
            rates[workers] = run["report"].records / run["wall"]
            same = (
                "the same documents as the local scan"
                if run["docs"] == one["docs"]
                else (f"DIFFERENT documents ({len(run['docs'] ^ one['docs'])} differ)")
            )
            print(f"Dask LocalCluster, {workers} worker(s): {rates[workers]:,.0f} records/s "
                  f"(wall, {run['wall']:.1f} s); {same}; peak memory a worker "
                  f"{', '.join(f'{m:,.0f}' for m in memory)} MB")  # fmt: skip
        print(f"2 workers / 1 worker: {rates[2] / rates[1]:.2f}x")
        baseline = None
        if not skip_baseline:
            with (
                start_cluster("local:2", {}) as cluster,
                DaskExecutor(cluster_client(cluster)) as dask,
            ):
                baseline = run_scan(workspace(tmp, "full", seeds), sources, dask, prefilter=False)
            base = baseline["report"]
            print(f"baseline, full decision on every page (Dask, 2 workers): {base.pages:,} pages "
                  f"in {baseline['wall']:.1f} s ({base.pages / base.seconds:,.0f} pages/s a core); "
                  f"{len(baseline['docs'])} documents")  # fmt: skip
            found, wanted = one["docs"] & baseline["docs"], len(baseline["docs"])
            print(f"recall of the first filter: {len(found)} of the {wanted} documents the "
                  f"full decision finds: {len(found) / max(wanted, 1):.4f}")  # fmt: skip
            pages = {u for u in baseline["docs"] if precision({u}, truths)[0]}
            print(f"recall of target pages (some target by the world's truth): "
                  f"{len(one['docs'] & pages)} of the {len(pages)} the full decision finds: "
                  f"{len(one['docs'] & pages) / max(len(pages), 1):.4f} (target >= 0.99); "
                  f"the documents it finds that the filter does not: "
                  f"{', '.join(sorted(baseline['docs'] - one['docs'])) or '-'}")  # fmt: skip
        for name, run in (("first filter", one), ("full decision", baseline), ("WET files", wet)):
            if run is None:
                continue
            some, mainly = precision(run["docs"], truths)
            print(f"precision ({name}): some target {some:.4f}, mainly target {mainly:.4f} "
                  f"({len(run['docs'])} documents; listing pages count as no target); the "
                  f"world's {len(targets)} target documents in the archive: "
                  f"{len(run['docs'] & targets)} found")  # fmt: skip
        live = run_demo(world, tmp / "live", delay=0.0, quiet=True, echo=io.StringIO()).scores
        print(f"precision of the live loop alone on the same world (collie demo, 2 loops): some "
              f"target {live.precision_some:.4f}, mainly {live.precision_mainly:.4f} "
              f"({live.exported} documents)")  # fmt: skip
        for name in ("local", "wet"):
            both = continue_live(tmp / name, world)
            some, mainly = precision(both, truths)
            print(f"the {'WET' if name == 'wet' else 'WARC'} scan's workspace, then `collie run "
                  f"--loops 2` on the same world (its sites crawled out, listing pages found "
                  f"out by the teaser pass, site boilerplate by the export): some target "
                  f"{some:.4f}, mainly {mainly:.4f} ({len(both)} documents)")  # fmt: skip


def continue_live(root: Path, world: Path) -> set[str]:
    """`collie run --loops 2` in a scanned workspace, the world served as in the demo."""
    from collie.mininet.demo import DEMO_SETTINGS, proxy_env
    from collie.mininet.server import MiniWebServer
    from collie.mininet.worldfile import StoredWorld

    stored = StoredWorld(world)
    with MiniWebServer(stored) as server:
        sets = (*DEMO_SETTINGS, "fetch.delay=0", f"search.url={server.search_url}")
        flags = [a for s in sets for a in ("--set", s)]
        command = [sys.executable, "-m", "collie", "-q", "-w", str(root), *flags, "run",
                   "--loops", "2"]  # fmt: skip
        subprocess.run(command, env=proxy_env(server.proxy_url), check=True)
    stored.close()
    with open_workspace(root, os.environ, {}) as ws:
        return {row.final_url or row.url for row in CorpusStore(ws.db).export_rows()}


def cluster_client(cluster: Any) -> Any:
    from distributed import Client

    return Client(cluster)


if __name__ == "__main__":
    main()
