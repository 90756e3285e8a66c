"""Scale-out on Dask: the same closed-world run on worker processes gives the same corpus
as the local executor, politely; `collie reprocess` gives back the run's documents.

One closed web and one 2-process LocalCluster serve the whole module (a cluster takes
seconds to start); the end-to-end run starts its own with `--cluster local:2`, as a user
would.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from collie.mininet.server import MiniWebServer, World

from .clihelp import run_collie
from .zuluworld import SETTINGS, ZuluWorld, build_zulu_world

distributed = pytest.importorskip("distributed")

DELAY = 0.15  # fetch.delay: small, but large enough to see in the server's log
_PROXY_VARS = ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy")


@pytest.fixture(scope="module")
def closed_web() -> Iterator[tuple[MiniWebServer, ZuluWorld]]:
    """The Zulu world behind the proxy, set in the environment before any worker starts
    (worker processes inherit it)."""
    world = World()
    made = build_zulu_world(world)
    with MiniWebServer(world) as server, pytest.MonkeyPatch.context() as patch:
        patch.setenv("HTTP_PROXY", server.proxy_url)
        patch.setenv("http_proxy", server.proxy_url)
        for name in _PROXY_VARS:
            patch.delenv(name, raising=False)
        yield server, made


@pytest.fixture(scope="module")
def cluster(closed_web) -> Iterator[Any]:
    from collie.executor import start_cluster

    with start_cluster("local:2", {}) as started:
        yield started


def cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The real `collie` in a subprocess (module-scoped fixtures have no capsys)."""
    return subprocess.run([sys.executable, "-m", "collie", "-w", str(root), *args],
                          capture_output=True, text=True, env=os.environ.copy(),
                          timeout=300)  # fmt: skip


def make_workspace(root: Path, made: ZuluWorld, web: MiniWebServer) -> Path:
    docs = root.parent / f"{root.name}-zulu.txt"
    docs.write_text(made.seed_text, encoding="utf-8")
    sets = [arg for s in [*SETTINGS, f"fetch.delay={DELAY}"] for arg in ("--set", s)]
    init = cli(root, "init", "--lang", "zul", "--docs", str(docs), "--search", "searxng",
               "--search-url", web.search_url, *sets)  # fmt: skip
    assert init.returncode == 0, init.stderr
    return root


def exported(capsys, root: Path) -> list[dict[str, Any]]:
    result = run_collie(capsys, "-w", str(root), "export", "-", "--format", "jsonl")
    assert result.code == 0, result.err
    records = [json.loads(line) for line in result.out.splitlines()]
    for record in records:
        record.pop("fetched_at", None)  # the only thing that differs between two runs
    return records


def page_rows(root: Path) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(root / "collie.db")
    rows = conn.execute("SELECT url, status, reason, lang, target_share, text_chars, body_sha1 "
                        "FROM pages ORDER BY id").fetchall()  # fmt: skip
    conn.close()
    return rows


def document_rows(root: Path) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(root / "collie.db")
    rows = conn.execute("SELECT id, page_id, kind, lang, text, paragraphs, words, exact_key, "
                        "simhash, duplicate_of FROM documents ORDER BY id").fetchall()  # fmt: skip
    conn.close()
    return rows


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
    corpus = exported(capsys, local["root"])
    assert corpus and exported(capsys, dask["root"]) == corpus
    assert page_rows(dask["root"]) == page_rows(local["root"])
    assert document_rows(dask["root"]) == document_rows(local["root"])
    kinds = {row[1] for row in page_rows(local["root"])}
    assert {"kept", "duplicate", "wronglang", "dropped"} <= kinds


def test_dask_run_is_polite(two_runs, closed_web) -> None:
    made = closed_web[1]
    log = two_runs["dask"]["log"]
    hosts = {entry.host for entry in log if entry.host.endswith(".za")}  # not the search API
    assert len(hosts) >= 4
    for host in hosts:
        times = [entry.time for entry in log if entry.host == host]
        gaps = [b - a for a, b in itertools.pairwise(times)]
        assert min(gaps, default=DELAY) >= DELAY * 0.9, (host, gaps)
    assert not made.disallowed & {entry.url for entry in log}  # robots.txt honoured
    robots = [e for e in log if e.url.endswith("/robots.txt")]
    assert len(robots) == len({e.host for e in robots})  # fetched once per host, not per task


def copy_of(root: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "ws"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns("collie.lock"))
    return copy


def test_reprocess_gives_the_run_documents(two_runs, closed_web, capsys, tmp_path) -> None:
    web = closed_web[0]
    root = copy_of(two_runs["local"]["root"], tmp_path)
    pages, documents = page_rows(root), document_rows(root)
    web.clear_log()
    result = run_collie(capsys, "-w", str(root), "reprocess")
    assert result.code == 0, result.err
    assert "0 changed status" in result.err and "near-duplicates" in result.err
    assert web.log == []  # no network
    assert page_rows(root) == pages and document_rows(root) == documents


def test_reprocess_on_a_cluster_as_a_bag_of_shards(two_runs, cluster, capsys, tmp_path) -> None:
    root = copy_of(two_runs["dask"]["root"], tmp_path)
    pages, documents = page_rows(root), document_rows(root)
    corpus = exported(capsys, root)
    result = run_collie(capsys, "-w", str(root), "reprocess", "--scheduler",
                        cluster.scheduler_address)  # fmt: skip
    assert result.code == 0, result.err
    assert page_rows(root) == pages and document_rows(root) == documents
    assert exported(capsys, root) == corpus


def test_reprocess_applies_new_settings_and_back(two_runs, capsys, tmp_path) -> None:
    root = copy_of(two_runs["local"]["root"], tmp_path)
    pages, documents = page_rows(root), document_rows(root)
    changed = run_collie(capsys, "-w", str(root), "--set", "dedup.max_distance=63",
                         "--set", "extract.boilerplate=none", "reprocess")  # fmt: skip
    assert changed.code == 0, changed.err
    statuses = [row[1] for row in page_rows(root)]
    assert statuses.count("kept") == 1 and statuses.count("duplicate") > 1  # all alike now
    assert len(exported(capsys, root)) == 1
    after = document_rows(root)
    assert [d[0] for d in after] == [d[0] for d in documents]  # ids kept
    longer = [len(new[4]) - len(old[4]) for new, old in zip(after, documents, strict=True)]
    assert min(longer) >= 0 and max(longer) > 0  # boilerplate kept
    again = run_collie(capsys, "-w", str(root), "reprocess")
    assert again.code == 0, again.err
    assert page_rows(root) == pages and document_rows(root) == documents


class _FailingExecutor:
    """A local executor whose workers are lost after the first shard."""

    name = "local"
    slots = 1

    def share(self, value: Any) -> Any:
        return value

    def map_batches(self, fn: Any, batches: Any, shared: Any = None) -> Iterator[Any]:
        yield fn(batches[0], shared)
        raise KeyboardInterrupt

    def close(self) -> None:
        pass


def test_interrupted_reprocess_changes_nothing(two_runs, tmp_path) -> None:
    from collie.langid.learn import load_model_for
    from collie.reprocess import reprocess
    from collie.workspace import open_workspace

    root = copy_of(two_runs["local"]["root"], tmp_path)
    pages, documents = page_rows(root), document_rows(root)
    flags = {"langid.min_share": (1.01, "test")}
    with open_workspace(root, {}, flags) as ws, pytest.raises(KeyboardInterrupt):
        reprocess(ws, load_model_for(root), _FailingExecutor())
    assert page_rows(root) == pages and document_rows(root) == documents


def test_cluster_workers_are_processes(cluster) -> None:
    with distributed.Client(cluster) as client:
        pids = client.run(os.getpid)
    assert len(set(pids.values())) == 2 and os.getpid() not in pids.values()


def test_worker_waits_for_the_pacing_handed_over(closed_web) -> None:
    from collie.classify import PageRules
    from collie.fetch import FetchConfig
    from collie.langid.model import load_model
    from collie.models import QueuedPage
    from collie.sitework import SiteBatch, WorkerContext, fetch_and_examine

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
    from collie.executor import ExecutorSpec, make_executor, parse_cluster_options

    with pytest.raises(ConfigError, match="unknown cluster"):
        make_executor(ExecutorSpec("dask", cluster="mars"))
    with pytest.raises(ConfigError, match="local:N"):
        make_executor(ExecutorSpec("dask", cluster="local:zero"))
    with pytest.raises(ConfigError, match="Both a Dask scheduler"):
        make_executor(ExecutorSpec("dask", scheduler="tcp://x:1", cluster="local:2"))
    assert parse_cluster_options(["cores=8", "memory=16GB", "processes=true", "jobs=2"]) == {
        "cores": 8, "memory": "16GB", "processes": True, "jobs": 2}  # fmt: skip
