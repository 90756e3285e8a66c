"""What the tests that mine the small Zulu world in subprocesses share: the world behind
the proxy (a module-scoped fixture), the real `collie` in a subprocess, the rows to
compare."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from collie.mininet.server import MiniWebServer, World

from .clihelp import run_collie
from .zuluworld import SETTINGS, ZuluWorld, build_zulu_world

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
    for record in records:  # what differs between two runs: when, and where in warc/
        record.pop("fetched_at", None)
        warc = record.pop("warc", None)
        assert warc is None or {"file", "offset", "length", "record_id"} <= set(warc)
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


def run_by_url(root: Path) -> dict[str, tuple[Any, ...]]:
    """Each page (by URL) with its document: what two runs that recorded the same pages
    in another order share (ids differ; a near-duplicate names its original's URL)."""
    conn = sqlite3.connect(root / "collie.db")
    url_of_doc = dict(conn.execute(
        "SELECT d.id, p.url FROM documents d JOIN pages p ON p.id = d.page_id"))  # fmt: skip
    rows = conn.execute(
        "SELECT p.url, p.status, p.reason, p.lang, p.target_share, p.text_chars, p.body_sha1, "
        "d.kind, d.text, d.paragraphs, d.words, d.exact_key, d.simhash, d.duplicate_of "
        "FROM pages p LEFT JOIN documents d ON d.page_id = p.id").fetchall()  # fmt: skip
    conn.close()
    out = {}
    for url, status, reason, *rest, duplicate_of in rows:
        if reason and reason.startswith("near-duplicate:"):
            reason = "near-duplicate:" + url_of_doc[int(reason.split(":")[1])]
        out[url] = (status, reason, *rest, url_of_doc.get(duplicate_of))
    return out


def by_url(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Exported records without their ids, in URL order."""
    return sorted(({k: v for k, v in r.items() if k != "id"} for r in records),
                  key=lambda r: r["url"])  # fmt: skip


def copy_of(root: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "ws"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns("collie.lock"))
    return copy


class InterruptedExecutor:
    """A local executor interrupted (Ctrl-C) after handing over `batches` results."""

    name = "local"
    slots = 1

    def __init__(self, batches: int = 1) -> None:
        self.batches = batches

    def share(self, value: Any) -> Any:
        return value

    def map_batches(self, fn: Any, batches: Any, shared: Any = None) -> Iterator[Any]:
        for batch in batches[: self.batches]:
            yield fn(batch, shared)
        raise KeyboardInterrupt

    def close(self) -> None:
        pass
