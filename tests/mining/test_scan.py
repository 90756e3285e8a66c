"""`collie scan` over a Common-Crawl-like archive of a closed world (collie.mininet.ccarchive:
the world's pages diluted with GENERATED other-language pages): WARC and WET files,
local, streamed over HTTP and from a paths list; the pages found recorded with their
provenance, resumed at the file, the same on a Dask cluster (issue 34)."""

from __future__ import annotations

import contextlib
import functools
import gzip
import io
import json
import shutil
import sqlite3
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from collie.cli import main
from collie.mininet.ccarchive import write_archive
from collie.mininet.demo import demo_options, ensure_world, write_seed_docs
from collie.mininet.worldfile import WorldFile
from collie.mining.config import RunConfig

from ..clihelp import Run, run_collie
from ..runhelp import InterruptedExecutor
from ..warchelp import record_at

RECORDS = 3000

# one worker runs the module: its archive fixture is made once (make test: --dist loadgroup)
pytestmark = pytest.mark.xdist_group("scan")


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A 12-site world's archive: 3,000 captures in 3 files, 3 of them its target pages."""
    world, _ = ensure_world(demo_options(sites=12))
    out = tmp_path_factory.mktemp("cc")
    summary = write_archive(world, out, records=RECORDS, target_pages=3, files=3)
    seeds = tmp_path_factory.mktemp("seeds")
    file = WorldFile(world)
    try:
        write_seed_docs(file, seeds)
    finally:
        file.close()
    truth = json.loads((out / "truth.json").read_text())
    return {"out": out, "summary": summary, "truth": truth, "seeds": seeds, "world": world}


def init_args(root: Path, archive: dict[str, Any]) -> list[str]:
    return ["-w", str(root), "init", "--lang", "zul", "--docs", str(archive["seeds"]),
            "--search", "searxng", "--search-url", "http://127.0.0.1:9/"]  # fmt: skip


def new_workspace(tmp_path: Path, capsys: Any, archive: dict[str, Any], name: str = "ws") -> Path:
    root = tmp_path / name
    root.mkdir()
    made = run_collie(capsys, *init_args(root, archive))
    assert made.code == 0, made.err
    return root


def run_captured(*args: str) -> Run:
    """`collie ARGS` with its output captured where no test's capsys reaches (a fixture
    shared by the module's tests)."""
    out, err = io.StringIO(), io.StringIO()
    with (
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
        pytest.raises(SystemExit) as info,
    ):
        main(list(args))
    code = info.value.code if isinstance(info.value.code, int) else 1
    return Run(code, out.getvalue(), err.getvalue())


@pytest.fixture(scope="module")
def whole(archive: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One workspace that scanned the whole archive (its WARC files) in one go: the corpus
    the other ways of scanning must make. Tests only read it."""
    root = tmp_path_factory.mktemp("whole") / "ws"
    root.mkdir()
    made = run_captured(*init_args(root, archive))
    assert made.code == 0, made.err
    done = run_captured("-w", str(root), "scan", str(archive["out"] / "warc.paths.gz"))
    assert done.code == 0, done.err
    return {"root": root, "scan": done}


def exported_urls(capsys: Any, root: Path) -> dict[str, dict[str, Any]]:
    result = run_collie(capsys, "-w", str(root), "export", "-", "--format", "jsonl")
    assert result.code == 0, result.err
    return {d["final_url"]: d for d in map(json.loads, result.out.splitlines())}


def test_the_archive_looks_like_common_crawl(archive: dict[str, Any]) -> None:
    """warc.paths.gz / wet.paths.gz list the files; a WARC holds request, response and
    metadata records per capture, a WET a conversion record per capture naming its
    response; the target is rare (1 in 1,000)."""
    from warcio.archiveiterator import ArchiveIterator

    out, summary = archive["out"], archive["summary"]
    assert summary.records == RECORDS and summary.target == 3 and summary.bulk > 2900
    warcs = gzip.decompress((out / "warc.paths.gz").read_bytes()).decode().split()
    wets = gzip.decompress((out / "wet.paths.gz").read_bytes()).decode().split()
    assert len(warcs) == len(wets) == 3 and all(p.startswith("crawl-data/CC-MAIN-") for p in warcs)
    with (out / warcs[0]).open("rb") as handle:
        kinds = [r.rec_type for r in ArchiveIterator(handle)]
    assert kinds[0] == "warcinfo" and kinds[1:4] == ["request", "response", "metadata"]
    with (out / wets[0]).open("rb") as handle:
        records = list(ArchiveIterator(handle))
    conversions = [r for r in records if r.rec_type == "conversion"]
    assert len(conversions) == (len(kinds) - 1) // 3
    assert all(r.rec_headers.get_header("WARC-Refers-To") for r in conversions)


def test_scan_finds_the_target_pages_with_their_provenance(
    archive: dict[str, Any], whole: dict[str, Any], capsys: Any
) -> None:
    """Every target page of the archive is exported (source "archive"), no bulk page is;
    each page points at its record in the archive file, which holds its URL; status
    counts what the scan read."""
    root, done = whole["root"], whole["scan"]
    assert f"{RECORDS * 3 + 3:,} records" in done.err  # 3 records a capture, a warcinfo a file
    size = sum(p.stat().st_size for p in archive["out"].glob("crawl-data/**/warc/*.warc.gz"))
    assert f"Read {size / 1e6:,.1f} MB of archive files (compressed) in " in done.err
    assert "MB/s a core in the tasks." in done.err
    docs = exported_urls(capsys, root)
    targets = {url for url, t in archive["truth"].items() if t["target"]}
    assert len(targets & set(docs)) >= len(targets) - 1  # a short page has no votes here
    assert set(docs) <= set(archive["truth"])  # the archive's pages, and
    assert not [url for url in docs if not archive["truth"][url]["target"]]  # its targets
    assert {d["source"] for d in docs.values()} == {"archive"}
    conn = sqlite3.connect(root / "collie.db")
    rows = conn.execute(
        "SELECT p.url, a.source, a.offset, a.record_id FROM archive_pages a "
        "JOIN pages p ON p.id = a.page_id"
    ).fetchall()
    queued = conn.execute("SELECT COUNT(*) FROM pages WHERE status = 'queued'").fetchone()[0]
    conn.close()
    assert len(rows) >= len(targets) and queued > 0  # their sites, for `collie run`
    for url, source, offset, record_id in rows:
        record, _ = record_at(Path(source), offset)
        assert record.rec_headers.get_header("WARC-Record-ID") == record_id  # type: ignore[attr-defined]
        assert record.rec_headers.get_header("WARC-Target-URI") == url  # type: ignore[attr-defined]
    status = json.loads(run_collie(capsys, "-w", str(root), "status", "--json").out)
    assert status["scan"]["files"] == 3 and status["scan"]["documents"] == len(docs)
    assert "scanned     3 archive files" in run_collie(capsys, "-w", str(root), "status").out


def test_wet_files_find_the_same_pages(
    archive: dict[str, Any], tmp_path: Path, capsys: Any
) -> None:
    root = new_workspace(tmp_path, capsys, archive)
    done = run_collie(capsys, "-w", str(root), "scan", str(archive["out"] / "wet.paths.gz"))
    assert done.code == 0, done.err
    targets = {url for url, t in archive["truth"].items() if t["target"]}
    assert len(targets & set(exported_urls(capsys, root))) >= len(targets) - 1


def test_a_scan_resumes_at_the_file(
    archive: dict[str, Any], whole: dict[str, Any], tmp_path: Path, capsys: Any
) -> None:
    """Files scanned are recorded: a second scan skips them and reads the rest; the
    corpus is the one a single scan makes."""
    paths = str(archive["out"] / "warc.paths.gz")
    parts = new_workspace(tmp_path, capsys, archive, "parts")
    files = sorted(str(p) for p in archive["out"].rglob("*.warc.gz") if "/warc/" in str(p))
    assert run_collie(capsys, "-w", str(parts), "scan", files[0]).code == 0
    again = run_collie(capsys, "-w", str(parts), "scan", paths)
    assert again.code == 0 and "1 files were scanned before and skipped" in again.err
    assert "Scanned 2 files" in again.err
    assert set(exported_urls(capsys, parts)) == set(exported_urls(capsys, whole["root"]))


def test_the_first_filter_keeps_every_target_page(
    archive: dict[str, Any], whole: dict[str, Any], tmp_path: Path, capsys: Any
) -> None:
    """--no-prefilter examines every page record in full: the first filter lost none of
    the documents that finds (on an archive of 200 captures: the full examination of
    3,000 took two minutes of the suite), and let through a small share of the records
    (of the whole archive)."""
    small = tmp_path / "small"
    write_archive(archive["world"], small, records=200, target_pages=3, files=1)
    paths = str(small / "warc.paths.gz")
    full = new_workspace(tmp_path, capsys, archive, "full")
    slow = run_collie(capsys, "-w", str(full), "scan", paths, "--no-prefilter")
    assert slow.code == 0, slow.err
    fast = new_workspace(tmp_path, capsys, archive, "fast")
    quick = run_collie(capsys, "-w", str(fast), "scan", paths)
    assert quick.code == 0, quick.err
    found = set(exported_urls(capsys, fast))
    truth = json.loads((small / "truth.json").read_text())
    assert found == set(exported_urls(capsys, full))
    assert len(found & {url for url, t in truth.items() if t["target"]}) >= 2
    status = run_collie(capsys, "-w", str(whole["root"]), "status", "--json")
    scanned = json.loads(status.out)["scan"]
    assert scanned["pages"] == RECORDS and scanned["candidates"] < scanned["pages"] / 20


@pytest.fixture
def served(archive: dict[str, Any]) -> Iterator[str]:
    """The archive's folder over HTTP on 127.0.0.1 (as Common Crawl serves its files)."""
    handler = functools.partial(QuietHandler, directory=str(archive["out"]))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def test_files_streamed_over_http(
    archive: dict[str, Any], served: str, tmp_path: Path, capsys: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    local = tmp_path / "wet.paths.gz"
    shutil.copy(archive["out"] / "wet.paths.gz", local)
    root = new_workspace(tmp_path, capsys, archive)
    done = run_collie(capsys, "-w", str(root), "scan", str(local), "--base", served)
    assert done.code == 0, done.err
    assert "Scanned 3 files" in done.err and "error" not in done.err
    targets = {url for url, t in archive["truth"].items() if t["target"]}
    assert len(targets & set(exported_urls(capsys, root))) >= len(targets) - 1


def test_scan_on_a_dask_cluster_finds_the_same(
    archive: dict[str, Any], whole: dict[str, Any], tmp_path: Path, capsys: Any
) -> None:
    pytest.importorskip("distributed")
    paths = str(archive["out"] / "warc.paths.gz")
    local = whole["root"]
    dask = new_workspace(tmp_path, capsys, archive, "dask")
    done = run_collie(capsys, "-w", str(dask), "scan", paths, "--cluster", "local:2")
    assert done.code == 0, done.err
    assert set(exported_urls(capsys, dask)) == set(exported_urls(capsys, local))


def test_bad_input_is_named(tmp_path: Path, capsys: Any, archive: dict[str, Any]) -> None:
    root = new_workspace(tmp_path, capsys, archive)
    missing = run_collie(capsys, "-w", str(root), "scan", str(tmp_path / "nothing.warc.gz"))
    assert missing.code != 0 and "no such archive file" in missing.err
    no_list = run_collie(capsys, "-w", str(root), "scan", str(tmp_path / "wet.paths.gz"))
    assert no_list.code != 0 and "no such paths file" in no_list.err
    garbage = tmp_path / "garbage.warc.gz"
    garbage.write_bytes(gzip.compress(b"<html>not a WARC file at all</html>\n" * 50))
    done = run_collie(capsys, "-w", str(root), "scan", str(garbage))
    assert done.code == 1 and f"{garbage}: not a WARC or WET file" in done.err


def test_the_archive_index_lists_a_found_site_for_the_live_loop(
    archive: dict[str, Any], tmp_path: Path, capsys: Any, monkeypatch: Any
) -> None:
    """After a scan, `collie run` reads each found site's captures from a web archive's
    CDX index API (a real pywb over the archive's WARC files, crawl.cdx_api), queues
    them as a sitemap's, and fetches them from the live (closed) web, politely."""
    import requests

    from collie.corpus.replay import ReplayServer
    from collie.crawl.listings import cdx_query, parse
    from collie.mininet.server import MiniWebServer
    from collie.mininet.worldfile import StoredWorld

    warc_folder = next(archive["out"].rglob("warc"))
    names = sorted(p.name for p in warc_folder.glob("*.warc.gz"))
    truth = archive["truth"]
    site = next(url for url, t in sorted(truth.items()) if t["target"]).split("/")[2]
    site = site.removeprefix("www.")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    with ReplayServer(tmp_path, folder=warc_folder, files=names) as cdx:
        api = f"{cdx.base}/collie/cdx"
        answer = requests.get(cdx_query(api, site, 100), timeout=30)
        assert answer.status_code == 200, answer.text[:300]
        listed = set(parse(answer.content, api).pages)
        held = {url for url in truth if url.split("/")[2].removeprefix("www.") == site}
        assert listed == held and listed  # the site's pages the archive holds, all of them
        stored = StoredWorld(archive["world"])
        with MiniWebServer(stored) as web:
            monkeypatch.setenv("HTTP_PROXY", web.proxy_url)
            monkeypatch.setenv("http_proxy", web.proxy_url)
            root = tmp_path / "ws"
            root.mkdir()
            made = run_collie(capsys, "-w", str(root), "init", "--lang", "zul", "--docs",
                              str(archive["seeds"]), "--search", "searxng", "--search-url",
                              web.search_url, "--set", f"crawl.cdx_api={api}", "--set",
                              "fetch.allow_private=true", "--set", "fetch.delay=0")  # fmt: skip
            assert made.code == 0, made.err
            assert run_collie(capsys, "-w", str(root), "scan",
                              str(archive["out"] / "warc.paths.gz")).code == 0  # fmt: skip
            ran = run_collie(capsys, "-w", str(root), "run", "--loops", "1", "--set",
                             "search.max_queries_per_run=4", "--set", "crawl.depth=1")  # fmt: skip
            assert ran.code == 0, ran.err
        stored.close()
    conn = sqlite3.connect(root / "collie.db")
    read = conn.execute(
        "SELECT site, queued FROM listings WHERE url LIKE ?", (f"{api}%",)
    ).fetchall()
    fetched = conn.execute(
        "SELECT COUNT(*) FROM pages WHERE status != 'queued' AND http_status = 200"
    ).fetchone()[0]
    conn.close()
    assert read and fetched > 10


def test_an_interrupted_scan_resumes_at_the_file(
    archive: dict[str, Any], whole: dict[str, Any], tmp_path: Path, capsys: Any
) -> None:
    """Interrupted while recording its files, a scan leaves whole files recorded; run
    again, it skips them and ends with the corpus one uninterrupted scan makes."""
    from collie.langid.learn import load_model_for
    from collie.mining.scan import expand_sources, scan
    from collie.workspace.folder import open_workspace

    paths = str(archive["out"] / "warc.paths.gz")
    root = new_workspace(tmp_path, capsys, archive, "cut")
    sources = expand_sources([paths])
    with open_workspace(root, {}, {}) as ws, pytest.raises(KeyboardInterrupt):
        scan(ws, load_model_for(root), InterruptedExecutor(2), sources, RunConfig.of(ws))  # type: ignore[arg-type]
    conn = sqlite3.connect(root / "collie.db")
    done = [row[0] for row in conn.execute("SELECT source FROM scanned_files")]
    conn.close()
    assert done == sources[:2]  # two files recorded whole, the third not at all
    again = run_collie(capsys, "-w", str(root), "scan", paths)
    assert again.code == 0 and "2 files were scanned before and skipped" in again.err
    assert set(exported_urls(capsys, root)) == set(exported_urls(capsys, whole["root"]))
