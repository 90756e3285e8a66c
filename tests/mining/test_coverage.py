"""When the search is exhausted (issue 31): the coverage estimate stops a loop's search,
waits for a long tail, asks for a query's next page only while it pays, tells the user
the cost, and reaches the same stop after kill -9.

The world: collie/mininet/longtail.py (real Zulu text; most target sites surface only
through rare seed words), served on 127.0.0.1; the real command line over HTTP.
"""

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

from collie.mininet.longtail import LongTail, build_long_tail
from collie.mininet.messages import Response
from collie.mininet.server import MiniWebServer, World
from collie.search.coverage import StopRule
from collie.udhr import load_declarations

from ..clihelp import rows, run_collie

# run.seed 6: one of the eight seeds of bench_search's long-tail rows, on which the
# default stop finds every tail site spending every query finds (on three others it
# misses one: docs/benchmarks.md)
SETTINGS = ["fetch.delay=0", "search.rate_limit=0", "queries.count=150", "run.seed=6"]


@pytest.fixture
def longtail(world: World) -> LongTail:
    d = load_declarations()
    return build_long_tail(world, d["zul"], d["eng"], d["xho"])


def init(capsys, root: Path, made: LongTail, web: MiniWebServer, *extra: str) -> None:
    root.parent.mkdir(parents=True, exist_ok=True)
    docs, words = root.parent / f"{root.name}-seed.txt", root.parent / f"{root.name}-words.txt"
    docs.write_text(made.seed_text, encoding="utf-8")
    words.write_text("\n".join(made.seed_words), encoding="utf-8")
    sets = [*SETTINGS, f"seeds.manual={words}", *extra]
    done = run_collie(capsys, "init", "-w", str(root), "--lang", "zul", "--docs", str(docs),
                      "--search", "searxng", "--search-url", web.search_url,
                      *[a for s in sets for a in ("--set", s)])  # fmt: skip
    assert done.code == 0, done.err


def mine(capsys, root: Path, made: LongTail, web: MiniWebServer, *extra: str) -> str:
    init(capsys, root, made, web, *extra)
    done = run_collie(capsys, "-w", str(root), "run", "--loops", "1")
    assert done.code == 0, done.err
    return done.err


def found(root: Path, made: LongTail) -> set[str]:
    conn = sqlite3.connect(root / "collie.db")
    kept = {u for (u,) in conn.execute("SELECT url FROM pages WHERE status = 'kept'")}
    conn.close()
    return kept & made.target_urls


def requests(root: Path) -> int:
    return int(rows(root, "SELECT SUM(attempts) FROM queries")[0][0])


@pytest.mark.slow
def test_the_stop_waits_for_the_long_tail(
    tmp_path: Path, capsys, web: MiniWebServer, longtail: LongTail
) -> None:
    everything = tmp_path / "every-query"
    mine(capsys, everything, longtail, web, "search.stop_rule=none", "search.max_fruitless=0")
    default = tmp_path / "default"
    err = mine(capsys, default, longtail, web)

    # the same target pages as spending every query, for less than half the requests
    assert found(default, longtail) == found(everything, longtail)
    assert requests(default) < requests(everything) / 2
    # it said why it stopped, with the figures, and what it cost
    assert "the search is saturated: found" in err and "(search.stop_rule)" in err
    assert "planned queries, which would bring about" in err
    assert "search: at most 300 searxng requests in this run" in err
    assert f"search: {requests(default)} requests sent in this run" in err
    # the stop waited: the estimate itself came close to the sites found while the tail
    # still came in; its interval's upper bound (what the rule reads) did not
    status = run_collie(capsys, "-w", str(default), "status", "--json")
    coverage = json.loads(status.out)["loops"][0]["coverage"]
    curve = coverage["curve"]
    close = [q for q, seen, est, high in curve if q >= 40 and seen >= 0.95 * est
             and seen < 0.9 * high]  # fmt: skip
    assert close and close[0] < coverage["queries"]
    assert coverage["observed"] > curve[close[0] - 1][1]  # sites found after that
    assert coverage["observed"] >= 0.9 * coverage["high"]
    assert coverage["sample_coverage"] >= 0.9
    assert coverage["jackknife"] >= coverage["at_least"] >= coverage["observed"]
    truth = len(longtail.head_sites) + len(longtail.tail_sites)
    assert coverage["observed"] <= truth <= coverage["high"]
    # what each query led to: every kept page is on a site some query surfaced first
    from collie.store import CorpusStore, Database

    conn = sqlite3.connect(default / "collie.db")
    leads = CorpusStore(Database(conn, default)).query_leads(limit=1000)
    conn.close()
    assert sum(docs for *_, docs in leads) == len(found(default, longtail))
    assert sum(sites for _, _, sites, _ in leads) <= coverage["observed"]
    shown = run_collie(capsys, "-w", str(default), "status")
    words = " ".join(shown.out.split())  # wrapped at 100 columns
    assert "found 22 target sites; at least 22 are reachable through searxng" in words
    assert "(lower bound; jackknife" in words and "sample coverage" in words


def test_a_next_page_only_while_the_first_brings_something_new(
    tmp_path: Path, capsys, web: MiniWebServer, world: World
) -> None:
    """search.results 20 over SearXNG's pages of 10: page 2 is a request of its own, asked
    only when page 1 brought a target-language result new to the search. The world: 30
    Zulu pages on 30 sites that every query finds (each holds a seed word)."""
    zul = load_declarations()["zul"].training_paragraphs()
    words = ["umuntu", "wonke", "unelungelo", "noma", "futhi"]
    pages = [p for p in zul if any(w in p.lower().split() for w in words)][:30]
    assert len(pages) == 30
    for i, text in enumerate(pages):
        world.add(f"http://site{i}.example.za/", Response.html(f"<title>Indaba {i}</title>"
                                                               f"<p>{text}</p>"))  # fmt: skip
    made = LongTail(seed_words=words, seed_text="\n\n".join(zul[-5:]))
    root = tmp_path / "ws"
    mine(capsys, root, made, web, "queries.count=10", "search.stop_rule=none")
    records = rows(root, "SELECT id, text, json_extract(params, '$.offset') FROM queries "
                         "ORDER BY id")  # fmt: skip
    seen: set[str] = set()
    asked = 0
    for query_id, text, offset in records:
        results = rows(root, f"SELECT url, target FROM search_results WHERE query_id = {query_id}")
        new = {u for u, t in results if t} - seen
        seen |= {u for u, t in results if t}
        if offset == 0:
            later = [r for r in records if r[1] == text and r[2] == 10]
            assert bool(later) == (bool(new) and len(results) == 10), text
            asked += bool(later)
    first_pages = len([r for r in records if r[2] == 0])
    assert first_pages == 10 and 1 <= asked < first_pages
    log = [parse_qs(urlsplit(e.path).query) for e in web.log if urlsplit(e.path).path == "/search"]
    numbers = Counter(q.get("pageno", ["1"])[0] for q in log if q["q"] != ["collie preflight"])
    assert numbers == {"1": first_pages, "2": asked} and requests(root) == first_pages + asked


def test_a_run_says_when_it_could_go_over_the_monthly_allowance(
    tmp_path: Path, capsys, web: MiniWebServer, longtail: LongTail
) -> None:
    root = tmp_path / "ws"
    init(capsys, root, longtail, web, "search.monthly_requests=100", "search.price_per_1000=5")
    done = run_collie(capsys, "-w", str(root), "run", "--loops", "1")
    assert done.code == 0, done.err
    assert "goes 200 over the plan's 100 a month (up to $1.00)" in done.err


def replayed_stop(root: Path) -> int:
    """The loop-1 query at which the stop rule fires on the stored judgements, replayed
    from the database alone (0: it never fires)."""
    from collie.config.table import SETTINGS_BY_KEY
    from collie.mining.coverage import coverage_by_loop
    from collie.workspace.folder import open_workspace

    ws = open_workspace(root, {}, {})
    curve = coverage_by_loop(ws)[1]
    planned = ws.settings["queries.count"]
    ws.close()
    fresh = [n for (n,) in rows(root, "SELECT COALESCE(SUM(new_sites), 0) FROM queries WHERE "
                                      "loop = 1 AND status = 'done' GROUP BY text ORDER BY "
                                      "MIN(id)")]  # fmt: skip
    rule = StopRule(*(SETTINGS_BY_KEY[f"search.{key}"].default for key in
                      ("saturation", "min_queries", "probe_queries", "stop_rule",
                       "min_new_sites")))  # fmt: skip
    quiet = 0
    for i, (estimate, new) in enumerate(zip(curve, fresh, strict=True), start=1):
        quiet = 0 if new else quiet + 1
        if rule.saturated(estimate, i, True, quiet, planned - i):
            return i
    return 0


@pytest.mark.slow
def test_killed_search_resumes_to_the_same_stop(
    tmp_path: Path, capsys, web: MiniWebServer, longtail: LongTail
) -> None:
    """kill -9 during the search stage, three times: no query is sent twice, and the stop
    falls where the stored answers say (the same rule replayed from the database), as in
    a run never killed."""
    clean = tmp_path / "clean"
    mine(capsys, clean, longtail, web)
    assert replayed_stop(clean) == len(rows(clean, "SELECT 1 FROM queries WHERE loop = 1 AND "
                                                   "status = 'done' GROUP BY text"))  # fmt: skip
    web.clear_log()
    killed = tmp_path / "killed"
    init(capsys, killed, longtail, web)
    kills = 0
    for searches in (5, 15, 30):
        proc = subprocess.Popen([sys.executable, "-m", "collie", "-q", "-w", str(killed), "run",
                                 "--loops", "1"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, env=os.environ.copy())  # fmt: skip
        while proc.poll() is None and search_requests(web) < searches:
            time.sleep(0.001)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait(timeout=60)
    assert kills >= 2
    done = run_collie(capsys, "-w", str(killed), "run", "--loops", "1")
    assert done.code == 0, done.err
    asked = Counter(
        (q.get("q", [""])[0], q.get("pageno", ["1"])[0])
        for q in (parse_qs(urlsplit(e.path).query) for e in web.log
                  if urlsplit(e.path).path == "/search")
    )  # fmt: skip
    assert all(n == 1 for key, n in asked.items() if key[0] != "collie preflight")
    answered = len(rows(killed, "SELECT 1 FROM queries WHERE loop = 1 AND status = 'done' "
                                "GROUP BY text"))  # fmt: skip
    assert replayed_stop(killed) == answered
    stopped = rows(killed, "SELECT search_stopped FROM loops")[0][0]
    assert stopped.startswith("the search is saturated: found")
    assert stopped.endswith("new target sites, are not spent (search.stop_rule)")
    if not rows(killed, "SELECT 1 FROM queries WHERE status = 'lost'"):
        assert stopped == rows(clean, "SELECT search_stopped FROM loops")[0][0]


def search_requests(web: MiniWebServer) -> int:
    return sum(1 for e in web.log if urlsplit(e.path).path == "/search")
