"""A run killed with SIGKILL at several points and resumed ends where an uninterrupted
run ends: the same documents and exported URLs, no query sent twice, no recorded page
fetched again (only the requests on the wire at each kill), WARC files that standard
readers accept with every page's record where its row says."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from collie.mininet.server import MiniWebServer, Response, World

from .clihelp import run_collie
from .warchelp import assert_archive
from .zuluworld import build_zulu_world, init_zulu


def start_run(root: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "collie", "-q", "-w", str(root), "run", "--loops", "2"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=os.environ.copy(),
    )  # fmt: skip


def outcome(root: Path) -> dict[str, set[str]]:
    conn = sqlite3.connect(root / "collie.db")
    rows = conn.execute("SELECT url, status FROM pages WHERE status != 'queued'").fetchall()
    loops = conn.execute("SELECT COUNT(*) FROM loops WHERE finished_at IS NOT NULL").fetchone()
    conn.close()
    by_status: dict[str, set[str]] = {"loops": {str(loops[0])}}
    for url, status in rows:
        by_status.setdefault(status, set()).add(url)
    return by_status


def search_queries(web: MiniWebServer) -> list[tuple[str, str]]:
    """(query, page) of every search request (a query asks for page 2 when page 1 holds
    fewer than search.results)."""
    asked = [parse_qs(urlsplit(e.path).query) for e in web.log
             if urlsplit(e.path).path == "/search"]  # fmt: skip
    return [(q.get("q", [""])[0], q.get("pageno", ["1"])[0]) for q in asked]


def exported_urls(capsys, root: Path) -> set[str]:
    out = root.parent / f"{root.name}.jsonl"
    done = run_collie(capsys, "-w", str(root), "export", str(out), "--format", "jsonl")
    assert done.code == 0, done.err
    return {json.loads(line)["url"] for line in out.read_text(encoding="utf-8").splitlines()}


def page_requests(web: MiniWebServer) -> Counter[str]:
    """Requests for pages, sitemaps and feeds (not the search API, robots.txt or
    tdmrep.json), by URL."""
    skip = {"/search", "/robots.txt", "/.well-known/tdmrep.json"}
    return Counter(e.url for e in web.log if urlsplit(e.url).path not in skip)


@pytest.mark.slow
def test_killed_runs_resume_to_the_same_corpus(tmp_path: Path, capsys, web: MiniWebServer,
                                               world: World) -> None:  # fmt: skip
    made = build_zulu_world(world)
    docs = tmp_path / "zulu.txt"
    docs.write_text(made.seed_text, encoding="utf-8")

    clean = tmp_path / "clean"
    init_zulu(capsys, clean, docs, web)
    proc = start_run(clean)
    assert proc.wait(timeout=120) == 0, proc.stderr.read() if proc.stderr else ""
    expected = outcome(clean)
    total_requests = len(web.log)
    assert expected["loops"] == {"2"} and expected["kept"]
    once = sum(page_requests(web).values())
    exported = exported_urls(capsys, clean)

    web.clear_log()
    killed = tmp_path / "killed"
    init_zulu(capsys, killed, docs, web)
    kills = 0
    for fraction in (0.05, 0.2, 0.2, 0.2):  # during search, then further into fetching
        threshold = len(web.log) + max(1, int(total_requests * fraction))
        proc = start_run(killed)
        while proc.poll() is None and len(web.log) < threshold:
            time.sleep(0.002)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait(timeout=60)
    assert kills >= 3 and outcome(killed)["loops"] != {"2"}  # the kills interrupted it
    interrupted = False
    threshold = len(web.log) + max(1, int(total_requests * 0.1))
    proc = start_run(killed)  # Ctrl-C: the batch in hand is finished, exit status 130
    while proc.poll() is None and len(web.log) < threshold:
        time.sleep(0.002)
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 130
        assert proc.stderr is not None and b"run the command again" in proc.stderr.read()
        interrupted = True
    assert interrupted or outcome(killed) == expected
    proc = start_run(killed)
    assert proc.wait(timeout=120) == 0, proc.stderr.read() if proc.stderr else ""
    assert outcome(killed) == expected
    # the WARC files after the kills: every file one that readers accept (a record torn by
    # a kill cut off on resume), every page's record where its row says
    assert assert_archive(killed) >= len(expected["kept"])

    sent = Counter(q for q in search_queries(web) if q[0] != "collie preflight")  # free, SearXNG
    assert sent and max(sent.values()) == 1  # no query sent twice
    # robots.txt and tdmrep.json are asked again when a kill came before the host's
    # record was saved; tdmrep.json never more often than robots.txt (it comes with it)
    policy = ("/robots.txt", "/.well-known/tdmrep.json")
    pages = Counter(e.url for e in web.log if urlsplit(e.url).path not in policy
                    and urlsplit(e.url).path != "/search")  # fmt: skip
    asked = Counter((urlsplit(e.url).netloc, urlsplit(e.url).path) for e in web.log)
    hosts = {host for host, path in asked if path == policy[1]}
    assert hosts and all(asked[h, policy[1]] <= asked[h, policy[0]] for h in hosts)
    conn = sqlite3.connect(killed / "collie.db")
    stored = {r[0] for r in conn.execute("SELECT url FROM pages WHERE status != 'queued'")}
    stored |= {r[0] for r in conn.execute("SELECT url FROM listings")}  # sitemaps read
    conn.close()
    # a page (or a sitemap) is fetched again only when the kill came between fetching and
    # recording it
    refetched = {url for url, n in pages.items() if n > 1}
    assert refetched <= stored
    # what was fetched and not recorded is read back from the fetch journal: each kill
    # costs only the requests on the wire when it came, a few, never a batch
    assert sum(page_requests(web).values()) - once <= kills * 3, sorted(refetched)
    assert not (killed / "journal").exists()  # nothing left once everything is recorded
    # the same URLs exported: a near-duplicate's original is the copy with the lowest
    # URL, not the one that came first
    assert exported_urls(capsys, killed) == exported


def _slow_pages(world: World, delay: float) -> dict[str, Response]:
    """Make every page but robots.txt answer after `delay` seconds; returns the originals."""
    originals: dict[str, Response] = {}
    for url in world.urls():
        host, _, path = url.removeprefix("http://").partition("/")
        page = world.lookup(host, "/" + path)
        if isinstance(page, Response) and not url.endswith("/robots.txt"):
            originals[url] = page
            world.add(url, page.slowed(delay=delay))
    return originals


@pytest.mark.slow
def test_a_second_ctrl_c_stops_at_once_and_the_run_resumes(
    tmp_path: Path, capsys, web: MiniWebServer, world: World
) -> None:
    made = build_zulu_world(world)
    docs = tmp_path / "zulu.txt"
    docs.write_text(made.seed_text, encoding="utf-8")
    root = tmp_path / "ws"
    init_zulu(capsys, root, docs, web)
    originals = _slow_pages(world, delay=20.0)  # requests in flight for 20 s
    proc = start_run(root)
    deadline = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline:
        if any(e.url.endswith("/robots.txt") for e in web.log):
            break  # fetching has begun: pages are requested next
        time.sleep(0.05)
    time.sleep(1.0)
    assert proc.poll() is None
    proc.send_signal(signal.SIGINT)  # the first: let the requests in flight finish
    time.sleep(0.5)
    assert proc.poll() is None, "the first Ctrl-C waits for the requests in flight"
    proc.send_signal(signal.SIGINT)  # the second: stop at once
    began = time.monotonic()
    code = proc.wait(timeout=30)
    took = time.monotonic() - began
    err = proc.stderr.read().decode() if proc.stderr else ""
    assert code == 130, err
    assert took < 2.0, f"the second Ctrl-C took {took:.1f} s"
    assert "run the command again" in err

    for url, page in originals.items():  # the web is fast again
        world.add(url, page)
    status = run_collie(capsys, "-w", str(root), "status")
    assert status.code == 0, status.err
    conn = sqlite3.connect(root / "collie.db")
    assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    in_flight = conn.execute("SELECT COUNT(*) FROM pages WHERE status = 'queued'").fetchone()
    assert in_flight[0] > 0  # the pages cut off were not recorded: still queued
    conn.close()
    proc = start_run(root)
    assert proc.wait(timeout=120) == 0, proc.stderr.read() if proc.stderr else ""
    done = outcome(root)
    assert done["loops"] == {"2"} and done["kept"]
