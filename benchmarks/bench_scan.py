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

Run: python benchmarks/bench_scan.py [--records N] [--files N] [--skip-baseline]
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

from collie.langid.learn import load_model_for
from collie.mininet.ccarchive import write_archive
from collie.mininet.demo import demo_options, ensure_world, run_demo, write_seed_docs
from collie.mininet.score import MAINLY, SOME
from collie.mininet.worldfile import WorldFile
from collie.mining.executor import DaskExecutor, LocalExecutor, start_cluster
from collie.mining.scan import expand_sources, scan
from collie.store import CorpusStore
from collie.workspace.folder import open_workspace

CACHE = Path(os.environ.get("COLLIE_CACHE_DIR", Path.home() / ".cache" / "collie")) / "mininet"


def build_archive(records: int, files: int) -> tuple[Path, Path, Path]:
    """(archive folder, world file, seed folder), built once and cached."""
    world, _ = ensure_world(demo_options(sites=300))
    out = CACHE / f"cc-{world.stem}-{records}-{files}"
    seeds = out / "seeds"
    if not (out / "done").exists():
        started = time.monotonic()
        summary = write_archive(world, out, records=records, target_pages=records // 1000,
                                files=files)  # fmt: skip
        file = WorldFile(world)
        try:
            write_seed_docs(file, seeds)
        finally:
            file.close()
        (out / "done").write_text(json.dumps(summary.__dict__))
        print(f"archive built in {time.monotonic() - started:.0f} s: {out}")
    return out, world, seeds


def workspace(tmp: Path, name: str, seeds: Path) -> Path:
    from click.testing import CliRunner

    from collie.cli import cli

    root = tmp / name
    args = ["-q", "-w", str(root), "init", "--lang", "zul", "--docs", str(seeds),
            "--search", "searxng", "--search-url", "http://127.0.0.1:9/",
            "--set", "warc.keep=none"]  # fmt: skip
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    return root


def run_scan(
    root: Path, sources: list[str], executor: Any, prefilter: bool = True
) -> dict[str, Any]:
    model = load_model_for(root)
    with open_workspace(root, os.environ, {}) as ws:
        started = time.perf_counter()
        report = scan(ws, model, executor, sources, prefilter=prefilter)
        wall = time.perf_counter() - started
        docs = {row.final_url or row.url for row in CorpusStore(ws.conn).export_rows()}
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
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--files", type=int, default=10)
    parser.add_argument("--skip-baseline", action="store_true")
    args = parser.parse_args()
    out, world, seeds = build_archive(args.records, args.files)
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
        if not args.skip_baseline:
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
    from collie.mininet.demo import DEMO_SETTINGS, _proxy_env
    from collie.mininet.server import MiniWebServer
    from collie.mininet.worldfile import StoredWorld

    stored = StoredWorld(world)
    with MiniWebServer(stored) as server:
        sets = (*DEMO_SETTINGS, "fetch.delay=0", f"search.url={server.search_url}")
        flags = [a for s in sets for a in ("--set", s)]
        command = [sys.executable, "-m", "collie", "-q", "-w", str(root), *flags, "run",
                   "--loops", "2"]  # fmt: skip
        subprocess.run(command, env=_proxy_env(server.proxy_url), check=True)
    stored.close()
    with open_workspace(root, os.environ, {}) as ws:
        return {row.final_url or row.url for row in CorpusStore(ws.conn).export_rows()}


def cluster_client(cluster: Any) -> Any:
    from distributed import Client

    return Client(cluster)


if __name__ == "__main__":
    main()
