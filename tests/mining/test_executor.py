"""Scale-out on Dask: the same closed-world run on worker processes gives the same corpus
as the local executor, politely; `collie reprocess` gives back the run's documents.

One closed web and one 2-process LocalCluster serve the whole module (a cluster takes
seconds to start); the end-to-end run starts its own with `--cluster local:2`, as a user
would.
"""

from __future__ import annotations

import itertools
import os
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest

from ..clihelp import run_collie
from ..runhelp import (
    DELAY,
    by_url,
    cli,
    copy_of,
    document_rows,
    exported,
    make_workspace,
    page_rows,
    run_by_url,
)

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster(closed_web) -> Iterator[Any]:
    from collie.mining.executor import start_cluster

    with start_cluster("local:2", {}) as started:
        yield started


@pytest.fixture(scope="module")
def two_runs(closed_web, tmp_path_factory) -> dict[str, Any]:
    """The same workspace mined twice, locally and with --executor dask --cluster local:2."""
    web, made = closed_web
    out: dict[str, Any] = {}
    for name, extra in (("local", ["--executor", "local"]),
                        ("dask", ["--executor", "dask", "--cluster", "local:2"])):  # fmt: skip
        root = make_workspace(tmp_path_factory.mktemp(name) / "ws", made, web)
        web.clear_log()
        result = cli(root, "run", "--loops", "2", *extra)
        assert result.returncode == 0, result.stderr
        out[name] = {"root": root, "log": web.log, "err": result.stderr}
    return out


@pytest.mark.slow
def test_dask_run_gives_the_local_corpus(two_runs, capsys) -> None:
    local, dask = two_runs["local"], two_runs["dask"]
    assert "Dask executor on local:2: 2 worker thread(s)" in dask["err"]
    # The local run streams (pages recorded as they come, while the search goes on),
    # the Dask run fetches in batches: the same pages and documents, in another order.
    corpus = by_url(exported(capsys, local["root"]))
    assert corpus and by_url(exported(capsys, dask["root"])) == corpus
    assert run_by_url(dask["root"]) == run_by_url(local["root"])
    kinds = {row[1] for row in page_rows(local["root"])}
    assert {"kept", "duplicate", "wronglang", "dropped"} <= kinds


@pytest.mark.parametrize("executor", ["local", "dask"])
def test_run_is_polite(two_runs, closed_web, executor: str) -> None:
    """The local run's continuous scheduler and the Dask workers alike: no host ever
    gets two requests closer than the delay (read from the server's log)."""
    made = closed_web[1]
    log = two_runs[executor]["log"]
    hosts = {entry.host for entry in log if entry.host.endswith(".za")}  # not the search API
    assert len(hosts) >= 4
    for host in hosts:
        times = [entry.time for entry in log if entry.host == host]
        gaps = [b - a for a, b in itertools.pairwise(times)]
        assert min(gaps, default=DELAY) >= DELAY * 0.9, (host, gaps)
    assert not made.disallowed & {entry.url for entry in log}  # robots.txt honoured
    robots = [e for e in log if e.url.endswith("/robots.txt")]
    assert len(robots) == len({e.host for e in robots})  # fetched once per host, not per task


def test_reprocess_on_a_cluster_as_a_bag_of_shards(two_runs, cluster, capsys, tmp_path) -> None:
    root = copy_of(two_runs["dask"]["root"], tmp_path)
    pages, documents = page_rows(root), document_rows(root)
    corpus = exported(capsys, root)
    result = run_collie(capsys, "-w", str(root), "reprocess", "--scheduler",
                        cluster.scheduler_address)  # fmt: skip
    assert result.code == 0, result.err
    assert page_rows(root) == pages and document_rows(root) == documents
    assert exported(capsys, root) == corpus


def test_cluster_workers_are_processes(cluster) -> None:
    with distributed.Client(cluster) as client:
        pids = client.run(os.getpid)
    assert len(set(pids.values())) == 2 and os.getpid() not in pids.values()


def test_worker_waits_for_the_pacing_handed_over(closed_web) -> None:
    from collie.decide.classify import PageRules
    from collie.fetch.fetcher import FetchConfig
    from collie.langid.modelfile import load_model
    from collie.mining.examine import SiteBatch, WorkerContext, fetch_and_examine
    from collie.models import QueuedPage

    web = closed_web[0]
    url = "http://xhosa.example.co.za/2"
    web.clear_log()
    start = time.time()
    batch = SiteBatch([QueuedPage(1, url, "xhosa.example.co.za", 1, "search", 0)],
                      FetchConfig(delay=DELAY), PageRules("zul"),
                      not_before={"xhosa.example.co.za": start + 0.5})  # fmt: skip
    result = fetch_and_examine(batch, WorkerContext(load_model()))
    assert result.examined[0].outcome.status == "wronglang"
    assert min(entry.time for entry in web.log) >= start + 0.5
    assert result.not_before["xhosa.example.co.za"] >= max(e.time for e in web.log) + DELAY
    assert {r.origin for r in result.robots} == {"http://xhosa.example.co.za"}


def test_dask_without_the_extra_names_it(two_runs, capsys, tmp_path, monkeypatch) -> None:
    root = copy_of(two_runs["local"]["root"], tmp_path)
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if not installed
    result = run_collie(capsys, "-w", str(root), "reprocess", "--executor", "dask")
    assert result.code == 1 and "pip install 'collie[dask]'" in result.err


def test_cluster_settings_are_checked(capsys, tmp_path) -> None:
    from collie.errors import ConfigError
    from collie.mining.executor import ExecutorSpec, make_executor, parse_cluster_options

    with pytest.raises(ConfigError, match="unknown cluster"):
        make_executor(ExecutorSpec("dask", cluster="mars"))
    with pytest.raises(ConfigError, match="local:N"):
        make_executor(ExecutorSpec("dask", cluster="local:zero"))
    with pytest.raises(ConfigError, match="Both a Dask scheduler"):
        make_executor(ExecutorSpec("dask", scheduler="tcp://x:1", cluster="local:2"))
    assert parse_cluster_options(["cores=8", "memory=16GB", "processes=true", "jobs=2"]) == {
        "cores": 8, "memory": "16GB", "processes": True, "jobs": 2}  # fmt: skip
