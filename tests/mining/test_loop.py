"""`collie run` end to end over a small closed world served by the local proxy."""

from __future__ import annotations

import json
import os
import re
import sqlite3
from pathlib import Path

from collie.mininet.server import MiniWebServer, Response, World
from collie.mining.config import RunConfig
from collie.reasons import is_known

from ..clihelp import run_collie
from ..zuluworld import init_zulu, zulu_workspace


def pages(root: Path) -> dict[str, tuple[str, str | None, str]]:
    conn = sqlite3.connect(root / "collie.db")
    rows = conn.execute("SELECT url, status, reason, source FROM pages").fetchall()
    conn.close()
    return {r[0]: (r[1], r[2], r[3]) for r in rows}


def test_two_loops_find_search_and_crawl_documents(mined_here, web: MiniWebServer) -> None:
    root, made, result = mined_here
    got = pages(root)
    kept = {url for url, (status, _, _) in got.items() if status == "kept"}
    trapped = {url for url in got if url.startswith(made.trap)}
    assert kept - trapped == made.target_urls, result.err
    assert 0 < len(trapped) <= 3  # the endless calendar ends at crawl.depth
    crawled = {url for url in kept if got[url][2] == "crawl"}
    assert made.crawl_only <= crawled
    assert {url for url in kept if got[url][2] == "search"}
    for url in made.duplicate_urls:
        assert got[url][0] == "duplicate" and got[url][1].startswith("near-duplicate:")
    for url in made.other_urls & set(got):
        assert got[url][0] == "wronglang"
    assert any(got[u][0] == "wronglang" for u in made.other_urls & set(got))
    fetched = {entry.url for entry in web.log}
    assert not made.disallowed & fetched  # robots.txt honoured
    conn = sqlite3.connect(root / "collie.db")
    robots = dict(conn.execute("SELECT origin, kind FROM robots").fetchall())
    conn.close()
    assert robots["http://www.izindaba.co.za"] == "rules"  # kept for the next run (24 h)
    assert robots["http://zulu-blog.example.za"] == "allow-all"  # its robots.txt is a 404
    assert "loop 2:" in result.err
    recorded = {reason for _, reason, _ in got.values() if reason}
    assert recorded and all(is_known(reason) for reason in recorded), recorded


def test_second_loop_seeds_by_odds_ratio(mined, capsys) -> None:
    first = json.loads(run_collie(capsys, "seeds", "--loop", "1", "--json").out)
    second = json.loads(run_collie(capsys, "seeds", "--loop", "2", "--json").out)
    assert first["method"] == "frequency" and second["method"] == "odds-ratio"
    assert [w["word"] for w in first["words"]] != [w["word"] for w in second["words"]]


def test_run_again_does_nothing_and_says_so(mined, capsys, web: MiniWebServer) -> None:
    web.clear_log()
    again = run_collie(capsys, "run", "--loops", "2")
    assert again.code == 0 and "nothing to do" in again.err
    fewer = run_collie(capsys, "run", "--loops", "1")  # loops in all, not more loops
    assert fewer.code == 0, fewer.err
    assert "has 2 completed loops already; --loops 1 asks for 1 in all" in fewer.err
    assert "`collie run --loops 3` runs one more" in fewer.err
    assert web.log == []
    status = run_collie(capsys, "status").out
    assert "`collie run --loops 3` for more" in status
    cut = run_collie(capsys, "run", "--loops", "3", "--max-time", "0.001")  # the advice
    assert cut.code == 0 and "Run `collie run --loops 3` again to go on" in cut.err, cut.err
    status = run_collie(capsys, "status").out
    assert "next: `collie run --loops 3` finishes loop 3 where it stopped" in status
    plain = run_collie(capsys, "run")  # run.loops is 2: loop 3 needs --loops 3
    assert "run.loops = 2 (default) asks for 2 in all" in plain.err
    more = run_collie(capsys, "run", "--loops", "3", "--json")
    assert more.code == 0, more.err
    assert [loop["loop"] for loop in json.loads(more.out)["loops"]] == [3]


def test_status_shows_each_loop(mined, capsys) -> None:
    data = json.loads(run_collie(capsys, "status", "--json").out)
    first, second = data["loops"]
    assert first["finished_at"] and second["finished_at"]
    assert first["documents"]["search"] > 0 and first["documents"]["crawl"] > 0
    assert first["pages"]["duplicate"] >= 1 and first["pages"]["wronglang"] >= 1
    assert first["dropped"]["robots"] == 1 and first["words"] > 500
    assert first["queries"] == 4 and first["search_urls"] >= 4
    text = run_collie(capsys, "status").out
    assert "dropped: " in text and "robots 1" in text
    table = text.split("\nloop ", 1)[1].splitlines()
    assert table[0].split()[-6:] == ["docs", "search", "crawl", "dups", "other", "words"]
    totals = table[1].split()  # all: the loops summed, first
    docs = sum(loop["documents"]["search"] + loop["documents"]["crawl"] for loop in data["loops"])
    assert totals[0] == "all" and int(totals[7]) == docs  # all, started (day, time), took
    assert "dups: near-duplicates, copies of a document kept" in " ".join(text.split())
    assert "next: `collie export corpus.txt`" in text.rstrip().split("\n\n")[-1]
    wide = [line for line in text.splitlines()[1:] if len(line) > 100]  # but the workspace's
    assert not wide and len(table[0]) <= 100  # path: the table fits 100 columns


def test_second_run_at_once_is_refused(mined, capsys) -> None:
    root = mined[0]
    from collie.workspace.folder import RunLock

    with RunLock(root):
        refused = run_collie(capsys, "run", "--loops", "3")
    assert refused.code == 1 and f"PID {os.getpid()}" in refused.err


def test_results_only_on_stdout(mined) -> None:
    result = mined[2]
    assert result.out == ""  # progress, stage lines and the summary go to stderr
    assert "loop 1: 4 queries" in result.err


def test_run_and_export_say_what_they_did_in_json(mined, capsys, tmp_path: Path) -> None:
    done = run_collie(capsys, "run", "--loops", "2", "--json")
    assert done.code == 0 and json.loads(done.out) == {
        "already_done": True,
        "stopped": None,
        "search_requests": 0,
        "loops": [],
    }
    exported = run_collie(capsys, "export", str(tmp_path / "c.txt"), "--json")
    data = json.loads(exported.out)
    assert exported.code == 0 and data["out"] == str(tmp_path / "c.txt")
    assert data["documents"] > 0 and f"{data['documents']} documents" in exported.err
    assert {"words", "site_boilerplate", "repeated"} <= set(data)
    to_stdout = run_collie(capsys, "export", "-", "--json")
    assert to_stdout.code == 2 and "stdout carries the corpus" in to_stdout.err


def test_export_formats(mined, capsys, tmp_path: Path) -> None:
    root = mined[0]
    got = pages(root)
    kept = {url for url, (status, _, _) in got.items() if status == "kept"}
    as_json = run_collie(capsys, "export", str(tmp_path / "c.jsonl"), "--format", "jsonl")
    assert as_json.code == 0, as_json.err
    records = [json.loads(line) for line in (tmp_path / "c.jsonl").read_text().splitlines()]
    assert {r["url"] for r in records} == kept  # near-duplicates never exported
    assert all(r["language"] == "zul" and r["text"] and len(r["simhash"]) == 16
               for r in records)  # fmt: skip
    assert {r["source"] for r in records} == {"search", "crawl"}
    assert all((r["query"] is None) == (r["source"] == "crawl") for r in records)
    text = run_collie(capsys, "export", str(tmp_path / "corpus.txt"))
    assert text.code == 0 and f"{len(records)} documents" in text.err
    body = (tmp_path / "corpus.txt").read_text(encoding="utf-8")
    assert len(body.strip().split("\n\n")) == len(records)
    assert "](" not in body and "©" not in body
    folder = run_collie(capsys, "export", str(tmp_path / "out"), "--format", "dir")
    assert folder.code == 0
    assert len(list((tmp_path / "out").glob("*.txt"))) == len(records)
    crawl_only = run_collie(capsys, "export", "-", "--source", "crawl", "--format", "jsonl")
    assert {json.loads(x)["source"] for x in crawl_only.out.splitlines()} == {"crawl"}
    refused = run_collie(capsys, "export", str(tmp_path / "out"), "--format", "dir")
    assert refused.code == 1 and "empty directory" in refused.err


def test_report_text_json_and_html(mined, capsys, tmp_path: Path) -> None:
    status = json.loads(run_collie(capsys, "status", "--json").out)
    text = run_collie(capsys, "report")
    assert text.code == 0 and "best sites" in text.out and "seed words of loop 2" in text.out
    assert "zul (Zulu)" in text.out  # names beside codes
    data = json.loads(run_collie(capsys, "report", "--json").out)
    assert data["loops"] == status["loops"]
    # Seed words by the target documents their queries brought: [word, hits, queries].
    conn = sqlite3.connect("collie.db")
    hits = dict(conn.execute(
        "SELECT q.id, EXISTS (SELECT 1 FROM search_results r JOIN pages p ON p.url = "
        "r.canonical_url JOIN documents d ON d.page_id = p.id WHERE r.query_id = q.id AND "
        "d.kind = 'target') FROM queries q WHERE q.status = 'done'"))  # fmt: skip
    words = dict(conn.execute("SELECT id, words FROM queries WHERE status = 'done'"))
    conn.close()
    best, worst = data["seed_yields"]["best"], data["seed_yields"]["worst"]
    assert best and "best seed words" in text.out and "worst seed words" in text.out
    for word, brought, queries in best + worst:
        mine = [q for q, w in words.items() if word in json.loads(w)]
        assert (brought, queries) == (sum(hits[q] for q in mine), len(mine))
    assert data["languages"]["zul"] >= status["loops"][0]["documents"]["search"]
    out = tmp_path / "report.html"
    result = run_collie(capsys, "report", "--html", str(out))
    assert result.code == 0
    page = out.read_text(encoding="utf-8")
    assert (
        page.count("<svg") == 6
        and "<script" not in page
        and "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    )  # self-contained: no external assets
    legend = set(re.findall(r'fill="(#\w+)"/><text x="\d+" y="33" font-size="11">([^<]+)<', page))
    names, colours = {n for _, n in legend}, {c for c, _ in legend}
    assert len(names) == len(colours) == len(legend) >= 6  # one colour, one meaning
    assert {"Pages dropped, by reason", "Target documents by length"} <= set(
        re.findall(r'aria-label="([^"]+)"', page))  # fmt: skip
    saturation = page.split('<figure id="saturation">')[1].split("</figure>")[0]
    assert saturation.count("<polyline") == 4 and "upper bound (95%)" in saturation
    assert "estimate (lower bound)" in saturation and "extrapolation" in saturation
    loop_chart = page.split('<figure id="loops">')[1].split("</figure>")[0]
    totals = [float(t) for t in re.findall(r'data-total="([\d.]+)"', loop_chart)]
    expected = [loop["documents"]["search"] + loop["documents"]["crawl"]
                for loop in status["loops"]]  # fmt: skip
    assert totals == expected


def test_page_and_time_limits(tmp_path: Path, capsys, web: MiniWebServer, world: World,
                              monkeypatch) -> None:  # fmt: skip
    root, _ = zulu_workspace(tmp_path, capsys, web, world)
    monkeypatch.chdir(root)
    timed = run_collie(capsys, "run", "--loops", "1", "--max-time", "0.000001")
    assert (
        timed.code == 0
        and "time limit" in timed.err
        and "`collie run --loops 1` again" in timed.err
    )
    assert json.loads(run_collie(capsys, "status", "--json").out)["loops"][0]["finished_at"] is None
    built: list[str] = []  # the run's configuration is read once, where the run starts
    read = RunConfig.from_settings.__func__  # type: ignore[attr-defined]
    monkeypatch.setattr(
        RunConfig, "from_settings",
        classmethod(lambda cls, *args: built.append("built") or read(cls, *args)),
    )  # fmt: skip
    limited = run_collie(capsys, "run", "--loops", "1", "--max-pages", "3")
    assert limited.code == 0, limited.err
    assert built == ["built"]
    loop = json.loads(run_collie(capsys, "status", "--json").out)["loops"][0]
    assert loop["finished_at"] and loop["fetched"] == 3 and loop["pages"]["queued"] > 0


def test_the_run_query_budget_spans_its_loops(
    tmp_path: Path, capsys, web: MiniWebServer, world: World, monkeypatch
) -> None:
    root, _ = zulu_workspace(tmp_path, capsys, web, world)
    monkeypatch.chdir(root)
    result = run_collie(capsys, "--set", "search.max_queries_per_run=5", "run", "--loops", "2")
    assert result.code == 0, result.err
    conn = sqlite3.connect(root / "collie.db")
    sent = conn.execute("SELECT COUNT(*) FROM queries WHERE status = 'done'").fetchone()[0]
    conn.close()
    assert sent == 5  # 4 in loop 1 (queries.count), 1 in loop 2: not 4 + 4
    assert "query budget" in result.err


def test_short_page_is_decided_by_referrers_fetched_with_it(
    tmp_path: Path, capsys, web: MiniWebServer, world: World, monkeypatch
) -> None:
    """The about page comes in the same batch as the articles linking to it: only the
    home page had voted when it arrived, the articles' votes decide it at the loop's end."""
    from collie.udhr import load_declarations

    from ..zuluworld import hidden, page

    zul = load_declarations()["zul"].training_paragraphs()
    site = "http://www.ikhaya.co.za"
    articles = [(f"/a/{i}", f"Indaba {i}") for i in range(3)]
    world.add(
        f"{site}/", Response.html(page("Ikhaya", zul[0:8], [*articles, ("/about", "Mayelana")]))
    )
    for i, (path, title) in enumerate(articles):
        world.add(
            f"{site}{path}",
            hidden(page(title, zul[8 + 6 * i : 14 + 6 * i], [("/about", "Mayelana")])),
        )
    world.add(f"{site}/about", hidden(page("Mayelana", ["Sawubona, mngane wami!"])))
    docs = tmp_path / "zulu.txt"
    docs.write_text("\n\n".join(zul[30:]), encoding="utf-8")
    init_zulu(capsys, tmp_path / "ws", docs, web)
    monkeypatch.chdir(tmp_path / "ws")
    result = run_collie(capsys, "run", "--loops", "1")
    assert result.code == 0, result.err
    got = pages(tmp_path / "ws")
    assert got[f"{site}/about"][:2] == ("kept", None)
    assert "too-short" not in result.err
    assert len([e for e in web.log if e.path == "/about"]) == 1  # decided from cache/


def test_run_json_lists_each_loop() -> None:
    from collections import Counter

    from collie.cli.run import report_json
    from collie.mining.records import LoopReport, RunReport

    loop = LoopReport(1, Counter(sent=4), 9, Counter(kept=5, dropped=1), Counter(robots=1))
    loop.unreachable, loop.held = Counter({"http-503": 2}), 3  # robots.txt not fetched
    data = report_json(RunReport([loop], stopped="the run's time limit (60 s) was reached"))
    assert json.loads(json.dumps(data)) == {
        "already_done": False,
        "stopped": "the run's time limit (60 s) was reached",
        "search_requests": 0,
        "loops": [
            {"loop": 1, "queries": {"sent": 4}, "search_urls": 9,
             "pages": {"kept": 5, "dropped": 1}, "reasons": {"robots": 1},
             "languages": {}, "search_stopped": None, "search_requests": 0, "coverage": None,
             "robots_unreachable": {"http-503": 2}, "held_back": 3}
        ],
    }  # fmt: skip


def test_search_stops_when_queries_bring_nothing_new(
    tmp_path: Path, capsys, web: MiniWebServer, world: World, monkeypatch
) -> None:
    """Every query finds the same one page: after the first, search.max_fruitless
    queries in a row bring no new URL and the loop spends no more (the rule before
    issue 31, search.stop_rule = none; with a stop rule on, it decides once a target
    site is seen: test_coverage.py)."""
    from collie.udhr import load_declarations

    from ..zuluworld import page

    zul = load_declarations()["zul"].training_paragraphs()
    world.add("http://www.zonke.co.za/", Response.html(page("Zonke", zul)))
    docs = tmp_path / "zulu.txt"
    docs.write_text("\n\n".join(zul), encoding="utf-8")
    init_zulu(capsys, tmp_path / "ws", docs, web)
    monkeypatch.chdir(tmp_path / "ws")
    result = run_collie(capsys, "--set", "search.max_fruitless=3", "--set", "queries.count=10",
                        "--set", "search.stop_rule=none", "run", "--loops", "1")  # fmt: skip
    assert result.code == 0, result.err
    assert "the last 3 queries sent brought no new URL" in result.err
    conn = sqlite3.connect(tmp_path / "ws" / "collie.db")
    sent = conn.execute("SELECT COUNT(*) FROM queries WHERE status = 'done'").fetchone()[0]
    kept = conn.execute("SELECT COUNT(*) FROM pages WHERE status = 'kept'").fetchone()[0]
    conn.close()
    assert (sent, kept) == (4, 1)
    searches = [e for e in web.log if e.path.startswith("/search") and "pageno=1" in e.url
                and "preflight" not in e.url]  # fmt: skip
    assert len(searches) == 4


def test_bandit_draws_loop_two_from_loop_one_yields(
    tmp_path: Path, capsys, web: MiniWebServer, world: World, monkeypatch
) -> None:
    root, _ = zulu_workspace(tmp_path, capsys, web, world)
    monkeypatch.chdir(root)
    result = run_collie(capsys, "--set", "queries.bandit=true", "run", "--loops", "2")
    assert result.code == 0, result.err
    seeds = json.loads(run_collie(capsys, "seeds", "--loop", "2", "--json").out)
    loop2 = {w["word"] for w in seeds["words"]}
    conn = sqlite3.connect("collie.db")
    rows = conn.execute("SELECT loop, words FROM queries WHERE status = 'done'").fetchall()
    conn.close()
    combos = [frozenset(json.loads(w)) for _, w in rows]
    assert len(combos) == len(set(combos))  # never the same combination twice
    second = [set(json.loads(w)) for loop, w in rows if loop == 2]
    assert second and all(words <= loop2 for words in second)


def _discovery_world(world: World) -> list[str]:
    """Two indexed Zulu sites; a Zulu site only A's blogroll leads to (B), an English
    one (E); an old post only A's sitemap lists; D's sitemap in a folder its robots.txt
    forbids. Returns the seed text (all the Zulu UDHR: its queries find A and D)."""
    from collie.udhr import load_declarations

    from ..zuluworld import hidden, page

    zul = load_declarations()["zul"].training_paragraphs()
    eng = load_declarations()["eng"].training_paragraphs()
    a, b, d, e = ("http://www.ikhaya.co.za", "http://www.umngani.co.za",
                  "http://www.izindaba.co.za", "http://www.friends.example.com")  # fmt: skip
    world.add(f"{a}/", Response.html(page("Ikhaya", zul[0:6], [(f"{b}/", "Umngani"),
                                                               (f"{e}/", "Friends")])))  # fmt: skip
    world.add(f"{a}/robots.txt", Response.text(f"User-agent: *\nSitemap: {a}/sitemap.xml\n"))
    sitemap = f"<urlset><url><loc>{a}/</loc></url><url><loc>{a}/old.html</loc></url></urlset>"
    world.add(f"{a}/sitemap.xml", Response.text(sitemap, "application/xml"))
    world.add(f"{a}/old.html", hidden(page("Okudala", zul[6:12])))
    world.add(f"{b}/", hidden(page("Umngani", zul[12:18])))
    world.add(f"{e}/", hidden(page("Friends", eng[0:6])))
    world.add(f"{d}/", Response.html(page("Izindaba", zul[18:24])))
    world.add(f"{d}/robots.txt", Response.text(
        f"User-agent: *\nDisallow: /private/\nSitemap: {d}/private/map.xml\n"))  # fmt: skip
    return zul


def _discovery_workspace(tmp_path: Path, capsys, web: MiniWebServer, world: World,
                         monkeypatch) -> None:  # fmt: skip
    """A Zulu workspace on `_discovery_world`, the current directory."""
    seed = _discovery_world(world)
    docs = tmp_path / "zulu.txt"
    docs.write_text("\n\n".join(seed), encoding="utf-8")
    init_zulu(capsys, tmp_path / "ws", docs, web)
    monkeypatch.chdir(tmp_path / "ws")


def test_discovery_through_other_sites_links_and_sitemaps(
    tmp_path: Path, capsys, web: MiniWebServer, world: World, monkeypatch
) -> None:
    _discovery_workspace(tmp_path, capsys, web, world, monkeypatch)
    result = run_collie(capsys, "run", "--loops", "1")
    assert result.code == 0, result.err
    got = pages(tmp_path / "ws")
    assert got["http://www.umngani.co.za/"][0] == "kept"  # through A's blogroll
    assert got["http://www.ikhaya.co.za/old.html"][0] == "kept"  # through A's sitemap
    assert got["http://www.friends.example.com/"][0] == "wronglang"  # entered, not kept
    assert not web.requests_for("www.izindaba.co.za") or all(
        "/private/" not in e.path for e in web.requests_for("www.izindaba.co.za"))  # fmt: skip
    loop = json.loads(run_collie(capsys, "status", "--json").out)["loops"][0]
    linked = loop["linked_sites"]  # B (and its pages crawled out) and E
    assert (linked["sites"], linked["documents"]) == (2, 1) and linked["pages"] >= 2
    assert "through other sites' links: 2 sites" in run_collie(capsys, "report").out


def test_batches_on_an_executor_discover_as_the_stream_does(
    tmp_path: Path, capsys, web: MiniWebServer, world: World, monkeypatch
) -> None:
    """The batch scheduler (an executor's: each task a fresh fetcher, the pacing and
    robots.txt records handed over, as on Dask workers; here the tasks run in this
    process) reads sitemaps and enters other sites through links like the local stream."""
    from dataclasses import replace

    from collie.cli.options import workspace_model
    from collie.fetch.fetcher import Fetcher
    from collie.mining.config import RunConfig
    from collie.mining.executor import LocalExecutor
    from collie.mining.loop import run
    from collie.mining.records import RunLimits
    from collie.search import make_backend
    from collie.workspace.folder import open_workspace

    class Elsewhere(LocalExecutor):
        name = "elsewhere"  # not this process's fetcher: batches, as with --executor dask

    _discovery_workspace(tmp_path, capsys, web, world, monkeypatch)
    root = tmp_path / "ws"
    with open_workspace(root, os.environ, {}) as ws:
        backend = make_backend(ws.settings, os.environ, ws.language.part1 or "")
        model = workspace_model(ws)
        config = replace(RunConfig.of(ws, model), limits=RunLimits(1))
        with Fetcher(config.fetch) as fetcher:
            report = run(ws, backend, fetcher, model, config, executor=Elsewhere())
    assert report.stopped is None and len(report.loops) == 1
    got = pages(root)
    assert got["http://www.umngani.co.za/"][0] == "kept"  # through A's blogroll
    assert got["http://www.ikhaya.co.za/old.html"][0] == "kept"  # through A's sitemap
    assert got["http://www.friends.example.com/"][0] == "wronglang"  # entered, not kept
    assert not any("/private/" in e.path for e in web.requests_for("www.izindaba.co.za"))
    robots = [e for e in web.log if e.path == "/robots.txt"]
    assert len(robots) == len({e.host for e in robots})  # handed over, never fetched twice


def test_new_sites_per_loop_are_capped(
    tmp_path: Path, capsys, web: MiniWebServer, world: World, monkeypatch
) -> None:
    _discovery_workspace(tmp_path, capsys, web, world, monkeypatch)
    result = run_collie(capsys, "--set", "crawl.max_new_sites=1", "--set", "crawl.sitemaps=false",
                        "run", "--loops", "1")  # fmt: skip
    assert result.code == 0, result.err
    got = pages(tmp_path / "ws")
    entered = [u for u in ("http://www.umngani.co.za/", "http://www.friends.example.com/")
               if u in got]  # fmt: skip
    assert len(entered) == 1
    assert "http://www.ikhaya.co.za/old.html" not in got
    assert not any(e.path.endswith(".xml") for e in web.log)


def test_a_run_keeps_its_log_in_logs(mined) -> None:
    """logs/ holds the run's log: its count lines and what collie logged at INFO."""
    root, _, result = mined
    logs = sorted((root / "logs").glob("run-*.log"))
    assert len(logs) == 1 and str(logs[0].name) in result.err
    text = logs[0].read_text(encoding="utf-8")
    assert "loop 1: " in text and "loop 2: " in text and "pages fetched" in text


def test_export_to_a_directory_or_a_full_one_says_what_to_do(mined, capsys, tmp_path: Path) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    into_dir = run_collie(capsys, "export", str(folder))
    assert into_dir.code == 1 and "is a directory" in into_dir.err
    assert "corpus.txt" in into_dir.err and "unexpected" not in into_dir.err
    (folder / "x.txt").write_text("x", encoding="utf-8")
    full = run_collie(capsys, "export", str(folder), "--format", "dir")
    assert full.code == 1 and "not an empty directory" in full.err
    assert sorted(p.name for p in folder.iterdir()) == ["x.txt"]  # nothing else written


def test_a_failing_engine_fails_queries_which_are_sent_again_later(
    tmp_path: Path, capsys, web: MiniWebServer, world: World, monkeypatch
) -> None:
    """The closed world's SearXNG answers as the real one when its engine fails (200, no
    results, unresponsive_engines): the preflight and the queries fail, nothing is
    stored as answered; once the engine is back, the same queries bring their pages."""
    root, _ = zulu_workspace(tmp_path, capsys, web, world)
    monkeypatch.chdir(root)
    world.engine_error = "HTTP connection error"
    failed = run_collie(capsys, "run", "--loops", "1")
    assert (
        failed.code == 1 and "engines did not answer: mininet (HTTP connection error)" in failed.err
    )
    conn = sqlite3.connect("collie.db")
    assert conn.execute("SELECT COUNT(*) FROM queries WHERE status = 'done'").fetchone()[0] == 0
    conn.close()
    world.engine_error = ""
    again = run_collie(capsys, "run", "--loops", "1")
    assert again.code == 0, again.err
    kept = [s for s, _, _ in pages(root).values() if s == "kept"]
    assert kept
