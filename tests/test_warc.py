"""The workspace's WARC files (collie.archive.writer): what standard readers accept, records
found at their offsets, revisits, rotation and a torn record cut off (issue 33)."""

from __future__ import annotations

import gzip
import io
import subprocess
from pathlib import Path

import pytest

from collie.archive.writer import WarcArchive, payload_digest, repair
from collie.models import Exchange

from .warchelp import record_at
from .warchelp import warcio_check as check_files

PAGE = b"<!DOCTYPE html><html><body><p>Ji duto onyuol ka gin thuolo.</p></body></html>"


def exchange(url: str, body: bytes = PAGE, status: int = 200, **changes: object) -> Exchange:
    packed = gzip.compress(body, mtime=0)
    values: dict[str, object] = {
        "url": url,
        "request_headers": (("User-Agent", "collie/0.1"), ("Accept-Encoding", "gzip, deflate")),
        "status": status,
        "reason": "OK" if status == 200 else "Not Found",
        "http_version": "HTTP/1.1",
        "headers": (("Content-Type", "text/html; charset=utf-8"), ("Content-Encoding", "gzip"),
                    ("Transfer-Encoding", "chunked"), ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2")),
        "body": packed,
        "fetched_at": 1_795_700_000.25,
    }  # fmt: skip
    values.update(changes)
    return Exchange(**values)  # type: ignore[arg-type]


def warcio_check(folder: Path) -> subprocess.CompletedProcess[str]:
    """`warcio check` over every WARC file of a folder."""
    return check_files(sorted(folder.glob("*.warc.gz")))


def test_exchanges_become_records_standard_readers_accept(tmp_path: Path) -> None:
    folder = tmp_path / "warc"
    with WarcArchive(folder, max_bytes=10_000_000) as archive:
        first = archive.write(exchange("http://ramogi.example.ke/a"))
        missing = archive.write(exchange("http://ramogi.example.ke/gone", b"gone", status=404))
        again = archive.write(exchange("http://ramogi.example.ke/a?print=1"))
    checked = warcio_check(folder)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    record, payload = record_at(folder / first.file, first.offset)
    headers = record.rec_headers  # type: ignore[attr-defined]
    assert headers.get_header("WARC-Type") == "response"
    assert headers.get_header("WARC-Record-ID") == first.record_id
    assert headers.get_header("WARC-Target-URI") == "http://ramogi.example.ke/a"
    assert headers.get_header("WARC-Date") == "2026-11-26T13:33:20.250000Z"
    assert headers.get_header("WARC-Payload-Digest") == payload_digest(gzip.compress(PAGE, mtime=0))
    assert payload == gzip.compress(PAGE, mtime=0)  # the bytes received, still gzipped
    http = record.http_headers  # type: ignore[attr-defined]
    assert [v for k, v in http.headers if k == "Set-Cookie"] == ["a=1", "b=2"]
    assert http.get_header("X-Collie-Orig-Transfer-Encoding") == "chunked"
    assert http.get_header("Transfer-Encoding") is None
    record, _ = record_at(folder / missing.file, missing.offset)
    assert record.http_headers.get_statuscode() == "404"  # type: ignore[attr-defined]
    # the same payload again: a revisit record pointing at the first
    record, _ = record_at(folder / again.file, again.offset)
    headers = record.rec_headers  # type: ignore[attr-defined]
    assert headers.get_header("WARC-Type") == "revisit"
    assert headers.get_header("WARC-Refers-To") == first.record_id
    assert headers.get_header("WARC-Refers-To-Target-URI") == "http://ramogi.example.ke/a"
    assert "1.1/revisit/identical-payload-digest" in headers.get_header("WARC-Profile")


def test_each_response_has_its_request(tmp_path: Path) -> None:
    from warcio.archiveiterator import ArchiveIterator

    folder = tmp_path / "warc"
    with WarcArchive(folder, max_bytes=10_000_000) as archive:
        where = archive.write(exchange("http://ramogi.example.ke/path?q=1"))
    with (folder / where.file).open("rb") as handle:
        records = [(r.rec_type, r.rec_headers, r.http_headers) for r in ArchiveIterator(handle)]
    kinds = [kind for kind, _, _ in records]
    assert kinds == ["warcinfo", "response", "request"]
    _, headers, http = records[2]
    assert headers.get_header("WARC-Concurrent-To") == where.record_id
    assert http.protocol == "GET" and http.statusline == "/path?q=1 HTTP/1.1"
    assert http.get_header("Host") == "ramogi.example.ke"


def test_a_truncated_body_is_marked(tmp_path: Path) -> None:
    folder = tmp_path / "warc"
    with WarcArchive(folder, max_bytes=10_000_000) as archive:
        cut = archive.write(exchange("http://big.example/", truncated="length"))
        cut_again = archive.write(exchange("http://big.example/", truncated="length"))
    record, _ = record_at(folder / cut.file, cut.offset)
    assert record.rec_headers.get_header("WARC-Truncated") == "length"  # type: ignore[attr-defined]
    # a cut body is never the payload a revisit stands for
    record, _ = record_at(folder / cut_again.file, cut_again.offset)
    assert record.rec_headers.get_header("WARC-Type") == "response"  # type: ignore[attr-defined]
    assert warcio_check(folder).returncode == 0


def test_files_rotate_at_the_size_setting_and_sort_by_time(tmp_path: Path) -> None:
    folder = tmp_path / "warc"
    with WarcArchive(folder, max_bytes=1_500) as archive:
        places = [
            archive.write(exchange(f"http://s.example/{i}", PAGE + bytes([i]))) for i in range(6)
        ]
    files = sorted({p.file for p in places})
    assert len(files) >= 3 and files == WarcArchive(folder, 1_500).files()
    assert [p.file for p in places] == sorted(p.file for p in places)
    assert all(name.startswith("collie-") and name.endswith(".warc.gz") for name in files)
    assert warcio_check(folder).returncode == 0


@pytest.mark.parametrize("cut", [1, 7, 40, 200])
def test_a_torn_last_record_is_cut_off_on_reopening(tmp_path: Path, cut: int) -> None:
    """A process killed in the middle of a record: the file ends inside a gzip member.
    Reopening the archive repairs it; the records written before are all there."""
    folder = tmp_path / "warc"
    with WarcArchive(folder, max_bytes=10_000_000) as archive:
        kept = archive.write(exchange("http://s.example/1"))
        torn = archive.write(exchange("http://s.example/2", PAGE * 3))
    path = folder / kept.file
    end = torn.offset + torn.length
    with path.open("r+b") as handle:  # the response record half written, no request after
        handle.truncate(end - cut)
    with pytest.raises(EOFError):  # the last gzip member ends before its trailer
        gzip.decompress(path.read_bytes())
    archive = WarcArchive(folder, max_bytes=10_000_000)
    assert path.stat().st_size == torn.offset
    later = archive.write(exchange("http://s.example/3", b"<p>new</p>"))
    archive.close()
    assert warcio_check(folder).returncode == 0
    record, _ = record_at(folder / kept.file, kept.offset)
    assert record.rec_headers.get_header("WARC-Record-ID") == kept.record_id  # type: ignore[attr-defined]
    assert later.file != kept.file  # a new file, after the repaired one
    assert repair(path) == 0


def test_fastwarc_reads_them_too(tmp_path: Path) -> None:
    fastwarc = pytest.importorskip("fastwarc.warc")
    folder = tmp_path / "warc"
    with WarcArchive(folder, max_bytes=10_000_000) as archive:
        archive.write(exchange("http://s.example/1"))
        archive.write(exchange("http://s.example/2", b"<p>two</p>", status=404))
    kinds = []
    for path in sorted(folder.glob("*.warc.gz")):
        with path.open("rb") as handle:
            for record in fastwarc.ArchiveIterator(handle, parse_http=False):
                assert record.verify_block_digest()  # the whole block, HTTP headers included
                kinds.append(record.headers["WARC-Type"])
    assert kinds == ["warcinfo", "response", "request", "response", "request"]


# --- a run's WARC files ---------------------------------------------------------------


def test_a_run_keeps_every_exchange_in_warc_files(mined, capsys) -> None:  # type: ignore[no-untyped-def]
    """robots.txt, pages, sitemaps and error answers all archived; every fetched page
    points at its record, whose payload is the body the page was made from; no body
    cache beside them."""
    import hashlib
    import sqlite3

    from warcio.archiveiterator import ArchiveIterator

    from .warchelp import assert_archive

    root, _, _ = mined
    assert assert_archive(root) > 0 and not (root / "cache").exists()
    conn = sqlite3.connect(root / "collie.db")
    pages = conn.execute(
        "SELECT url, status, warc_file, warc_offset, body_sha1 FROM pages "
        "WHERE status IN ('kept', 'wronglang', 'duplicate')"
    ).fetchall()
    conn.close()
    assert pages and all(name is not None for _, _, name, _, _ in pages)
    for _, _, name, offset, sha1 in pages[:20]:
        record, payload = record_at(root / "warc" / name, offset)
        if record.rec_type == "response":  # the test world sends no Content-Encoding
            assert hashlib.sha1(payload).hexdigest() == sha1
    uris = set()
    for path in sorted((root / "warc").glob("*.warc.gz")):
        with path.open("rb") as handle:
            uris |= {
                r.rec_headers.get_header("WARC-Target-URI")
                for r in ArchiveIterator(handle)
                if r.rec_type == "response"
            }
    assert any(uri.endswith("/robots.txt") for uri in uris)
    # the size bill: status says what the WARC files take, beside the body cache
    import json

    from .clihelp import run_collie

    status = run_collie(capsys, "status", "--json")
    archive = json.loads(status.out)["archive"]
    on_disk = sum(p.stat().st_size for p in (root / "warc").glob("*.warc.gz"))
    assert archive["bytes"] == on_disk and archive["files"] >= 1 and archive["cache_bytes"] == 0
    assert archive["bytes_per_document"] > 0 and archive["keep"] == "all"
    loops = json.loads(status.out)["loops"]
    assert sum(loop["warc_bytes"] for loop in loops) == on_disk  # one run wrote them all
    assert all(loop["warc_bytes"] > 0 for loop in loops)
    text = run_collie(capsys, "status").out
    assert "warc        " in text and f"WARC: {loops[0]['warc_bytes']:,} bytes written" in text
    assert f"WARC files: {archive['files']}, {on_disk:,} bytes" in run_collie(capsys, "report").out


def test_exported_documents_point_at_their_records(mined, capsys) -> None:  # type: ignore[no-untyped-def]
    """JSON lines and the dir manifest carry each document's WARC record: the file, the
    offset and length of its gzip member (readable alone), its WARC-Record-ID."""
    import json

    from warcio.archiveiterator import ArchiveIterator

    from .clihelp import run_collie

    root, _, _ = mined
    assert run_collie(capsys, "export", "out.jsonl", "--format", "jsonl").code == 0
    assert run_collie(capsys, "export", "out-dir", "--format", "dir").code == 0
    docs = [json.loads(line) for line in (root / "out.jsonl").read_text().splitlines()]
    manifest = (root / "out-dir" / "manifest.jsonl").read_text().splitlines()
    assert docs and [json.loads(line)["warc"] for line in manifest] == [d["warc"] for d in docs]
    for doc in docs:
        pointer = doc["warc"]
        with (root / pointer["file"]).open("rb") as handle:
            handle.seek(pointer["offset"])
            member = handle.read(pointer["length"])
        record = next(iter(ArchiveIterator(io.BytesIO(member))))
        assert record.rec_headers.get_header("WARC-Record-ID") == pointer["record_id"]
        assert record.rec_headers.get_header("WARC-Target-URI") == doc["final_url"]


@pytest.mark.parametrize("keep", ["target", "none"])
def test_warc_keep_limits_what_is_archived(  # type: ignore[no-untyped-def]
    tmp_path: Path, capsys, web, world, monkeypatch, keep: str
) -> None:
    """warc.keep=target archives only the fetches of target documents (and of pages a
    later pass may make one: too short to judge, relative suspects); none, nothing (the
    bodies go to the body cache, which reprocess reads)."""
    import sqlite3

    from .clihelp import run_collie
    from .warchelp import assert_archive
    from .zuluworld import zulu_workspace

    root, _ = zulu_workspace(tmp_path, capsys, web, world)
    monkeypatch.chdir(root)
    result = run_collie(capsys, "--set", f"warc.keep={keep}", "run", "--loops", "2")
    assert result.code == 0, result.err
    conn = sqlite3.connect(root / "collie.db")
    pointed = dict(conn.execute("SELECT status, COUNT(warc_file) FROM pages GROUP BY status"))
    again = conn.execute(
        "SELECT COUNT(*) FROM pages WHERE warc_file IS NOT NULL AND status = 'dropped' "
        "AND (reason = 'too-short' OR reason LIKE 'relative-suspected%')"
    ).fetchone()[0]
    conn.close()
    if keep == "none":
        assert not (root / "warc").exists() and not any(pointed.values())
        assert any((root / "cache").rglob("*.gz"))
        done = run_collie(capsys, "reprocess")
        assert done.code == 0 and "0 changed status" in done.err, done.err
        return
    assert not (root / "cache").exists()
    assert pointed["kept"] > 0 and assert_archive(root) == pointed["kept"] + pointed.get(
        "duplicate", 0
    ) + pointed.get("dropped", 0)
    assert not pointed.get("wronglang") and pointed.get("dropped", 0) == again
    done = run_collie(capsys, "reprocess")  # the other-language pages' bodies are not kept
    assert done.code == 0 and "0 changed status" in done.err, done.err
    assert "had no body kept" in done.err


def test_export_format_warc_writes_the_corpus_answers(mined, capsys) -> None:  # type: ignore[no-untyped-def]
    """One WARC file of the exported documents' answers (revisits with the response they
    refer to), byte for byte from the workspace's files, which readers accept."""
    import json

    from warcio.archiveiterator import ArchiveIterator

    from .clihelp import run_collie

    root, _, _ = mined
    assert run_collie(capsys, "export", "corpus.jsonl", "--format", "jsonl").code == 0
    done = run_collie(capsys, "export", "corpus.warc.gz", "--format", "warc")
    assert done.code == 0, done.err
    checked = check_files([root / "corpus.warc.gz"])
    assert checked.returncode == 0, checked.stdout + checked.stderr
    docs = [json.loads(line) for line in (root / "corpus.jsonl").read_text().splitlines()]
    with (root / "corpus.warc.gz").open("rb") as handle:
        records = [(r.rec_type, r.rec_headers) for r in ArchiveIterator(handle)]
    kinds = [kind for kind, _ in records]
    assert kinds[0] == "warcinfo" and set(kinds[1:]) <= {"response", "revisit", "request"}
    ids = {headers.get_header("WARC-Record-ID") for _, headers in records}
    assert {doc["warc"]["record_id"] for doc in docs} <= ids
    for kind, headers in records:  # every revisit's original is in the file too
        if kind == "revisit":
            assert headers.get_header("WARC-Refers-To") in ids
    assert kinds.count("request") == len(kinds) - 1 - kinds.count("request")  # pairs
    refused = run_collie(capsys, "export", "corpus.warc.gz", "--format", "warc")
    assert refused.code != 0 and "already exists" in refused.err  # never replaced silently


# --- reprocess from the WARC files ------------------------------------------------------


def _wipe_derived(root: Path) -> None:
    """Forget what was made of the pages: their texts, languages and decisions."""
    import sqlite3

    conn = sqlite3.connect(root / "collie.db")
    with conn:
        conn.execute("UPDATE documents SET text = '', paragraphs = '[]', words = 0, sketch = NULL")
        conn.execute(
            "UPDATE pages SET lang = NULL, lang_prob = NULL, target_share = NULL, title = NULL "
            "WHERE body_sha1 IS NOT NULL"
        )
    conn.close()


def test_the_corpus_rebuilt_from_the_warc_files_is_the_export(mined, capsys) -> None:  # type: ignore[no-untyped-def]
    """With every text the run made forgotten, reprocess reads the pages from the WARC
    files alone (no cache/) and the export comes out byte for byte the same."""
    from .clihelp import run_collie

    root, _, _ = mined
    assert not (root / "cache").exists()
    before = {
        fmt: run_collie(capsys, "export", "-", "--format", fmt).out for fmt in ("jsonl", "txt")
    }
    assert before["jsonl"].count("\n") > 3
    _wipe_derived(root)
    assert run_collie(capsys, "export", "-", "--format", "txt").out != before["txt"]
    done = run_collie(capsys, "reprocess")
    assert done.code == 0, done.err
    assert "had no body" not in done.err and not (root / "cache").exists()
    after = {
        fmt: run_collie(capsys, "export", "-", "--format", fmt).out for fmt in ("jsonl", "txt")
    }
    assert after == before


def test_an_old_workspace_body_cache_moves_into_warc_files(  # type: ignore[no-untyped-def]
    tmp_path: Path, capsys, web, world, monkeypatch
) -> None:
    """A workspace from before the WARC files (its bodies in cache/): the first reprocess
    moves them into resource records (with a metadata record saying the headers were not
    kept), points every page at them, removes cache/, and the corpus stays the same; an
    export --format warc then carries them."""
    import json
    import sqlite3

    from warcio.archiveiterator import ArchiveIterator

    from .clihelp import run_collie
    from .runhelp import exported
    from .zuluworld import zulu_workspace

    root, _ = zulu_workspace(tmp_path, capsys, web, world)
    monkeypatch.chdir(root)
    assert run_collie(capsys, "--set", "warc.keep=none", "run", "--loops", "2").code == 0
    assert any((root / "cache").rglob("*.gz")) and not (root / "warc").exists()
    corpus = exported(capsys, root)
    moved = run_collie(capsys, "reprocess")
    assert moved.code == 0, moved.err
    assert "moved from cache/ into the WARC files" in moved.err and "0 changed status" in moved.err
    assert not (root / "cache").exists()
    checked = warcio_check(root / "warc")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    conn = sqlite3.connect(root / "collie.db")
    unpointed = conn.execute(
        "SELECT COUNT(*) FROM pages WHERE body_sha1 IS NOT NULL AND warc_file IS NULL"
    ).fetchone()[0]
    conn.close()
    assert unpointed == 0
    assert exported(capsys, root) == corpus
    docs = [
        json.loads(line)
        for line in run_collie(capsys, "export", "-", "--format", "jsonl").out.splitlines()
    ]
    record, _ = record_at(root / docs[0]["warc"]["file"], docs[0]["warc"]["offset"])
    assert record.rec_type == "resource"  # type: ignore[attr-defined]
    assert run_collie(capsys, "export", "c.warc.gz", "--format", "warc").code == 0
    with (root / "c.warc.gz").open("rb") as handle:
        kinds = [r.rec_type for r in ArchiveIterator(handle)]
    assert kinds[0] == "warcinfo" and kinds[1:] == ["resource", "metadata"] * (len(kinds) // 2)
    _wipe_derived(root)  # and read back from the moved records alone
    assert run_collie(capsys, "reprocess").code == 0
    assert exported(capsys, root) == corpus


# --- the CDXJ index and replay by pywb ----------------------------------------------------

SURT_URLS = [
    "http://www.Ramogi.example.ke/A/b?z=1&a=2",
    "http://127.0.0.1:8080/x/",
    "https://www2.example.org/",
    "http://example.org",
    "http://example.org/?",
    "http://example.org/a#frag",
    "http://example.org/a%20b?q=%C3%A9&jsessionid=1",
    "http://user@example.org:80/p;x?b&a",
    "http://example.org/a/./b/../c//d/",
    "http://example.org/%41%2541?B=1&a=2",
    "https://sw.wikipedia.org/wiki/Dholuo_(lugha)",
    "http://example.org/ñ?q=é",
    "http://bücher.example/a b",
    "http://EXAMPLE.org./a?jsessionid=0123456789abcdef0123456789abcdef&x=1",
    "http://example.org/a?b=2&a",
    "http://example.org/a?q=a+b%20c",
    "example.org/no-scheme",
]


@pytest.mark.parametrize("url", SURT_URLS)
def test_index_keys_are_the_surt_package_keys(url: str) -> None:
    import surt

    from collie.archive.index import surt_key

    assert surt_key(url) == surt.surt(url)


def test_the_index_is_the_one_cdxj_indexer_writes(mined, capsys) -> None:  # type: ignore[no-untyped-def]
    """`collie replay --index-only` writes warc/index.cdxj: sorted, line for line what
    webrecorder's cdxj-indexer makes of the same files; written again when a WARC file
    is newer."""
    import os
    import sys

    from .clihelp import run_collie

    root, _, _ = mined
    done = run_collie(capsys, "replay", "--index-only")
    assert done.code == 0, done.err
    index = Path(done.out.strip())
    assert index == root / "warc" / "index.cdxj"
    lines = index.read_text().splitlines()
    assert lines == sorted(lines) and len(lines) > 10
    files = sorted(str(p) for p in (root / "warc").glob("collie-*.warc.gz"))
    indexer = Path(sys.executable).parent / "cdxj-indexer"
    theirs = subprocess.run([str(indexer), *files], capture_output=True, text=True, check=True)
    assert lines == sorted(theirs.stdout.splitlines())
    newest = Path(files[-1])
    os.utime(newest, ns=(index.stat().st_mtime_ns + 10**9,) * 2)
    index.write_text("stale\n")
    os.utime(index, ns=(newest.stat().st_mtime_ns - 10**9,) * 2)
    assert run_collie(capsys, "replay", "--index-only").code == 0
    assert index.read_text().splitlines() == lines


def test_pywb_replays_the_bytes_the_crawler_received(mined, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A real pywb over the run's WARC files (collie.corpus.replay) gives back, for the
    exported documents, the bytes each page was made from; `collie review` starts it
    and the review page links each document to its archived page."""
    import hashlib
    import sqlite3
    import sys
    import time

    import requests

    from collie.corpus.replay import ReplayServer

    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    root, _, _ = mined
    conn = sqlite3.connect(root / "collie.db")
    pages = conn.execute(
        "SELECT COALESCE(p.final_url, p.url), p.fetched_at, p.body_sha1 FROM documents d "
        "JOIN pages p ON p.id = d.page_id WHERE d.kind = 'target' ORDER BY d.id LIMIT 5"
    ).fetchall()
    conn.close()
    assert len(pages) == 5
    with ReplayServer(root) as server:
        for url, fetched_at, sha1 in pages:
            answer = requests.get(server.url_for(url, fetched_at, raw=True), timeout=30)
            assert answer.status_code == 200, url
            assert hashlib.sha1(answer.content).hexdigest() == sha1
    port = _free_port()
    review = subprocess.Popen(
        [sys.executable, "-m", "collie", "-w", str(root), "review", "--sample", "3",
         "--port", str(port)], stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert review.stderr is not None
        assert f"http://127.0.0.1:{port}/" in review.stderr.readline()
        assert "replayed by pywb" in review.stderr.readline()
        deadline = time.monotonic() + 30
        while True:
            try:
                state = requests.get(f"http://127.0.0.1:{port}/api/next", timeout=30).json()
                break
            except requests.ConnectionError:
                assert time.monotonic() < deadline
                time.sleep(0.2)
        link = state["document"]["replay"]
        assert link.startswith("http://127.0.0.1:") and link.endswith(state["document"]["url"])
        shown = requests.get(link, timeout=30)
        assert shown.status_code == 200 and "wb_frame" in shown.text  # pywb's page with banner
        children = _children(review.pid)
        assert children  # pywb
    finally:
        review.terminate()
        review.wait(timeout=20)
    deadline = time.monotonic() + 15  # pywb goes with the review that started it
    while any(_alive(pid) for pid in children):
        assert time.monotonic() < deadline, "pywb outlived collie review"
        time.sleep(0.2)


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for a parent that does not reap it is not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (Linux /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_an_interrupted_move_of_the_body_cache_loses_nothing(  # type: ignore[no-untyped-def]
    tmp_path: Path, capsys, web, world, monkeypatch
) -> None:
    """Killed in the middle of moving cache/ into the WARC files: every page that points
    at a record finds its body there, the others still have theirs in cache/, and the
    next reprocess finishes the move with the corpus unchanged."""
    import collie.archive.keeping as archive_module
    from collie.archive.bodies import read_kept
    from collie.archive.keeping import migrate_body_cache
    from collie.store import Store
    from collie.workspace.folder import open_workspace

    from .clihelp import run_collie
    from .runhelp import exported
    from .zuluworld import zulu_workspace

    root, _ = zulu_workspace(tmp_path, capsys, web, world)
    monkeypatch.chdir(root)
    assert run_collie(capsys, "--set", "warc.keep=none", "run", "--loops", "2").code == 0
    corpus = exported(capsys, root)
    monkeypatch.setattr(archive_module, "MIGRATE_CHUNK", 3)
    written = WarcArchive.write_resource
    calls = []

    def dies_on_the_fifth(self: WarcArchive, *args: object) -> object:
        calls.append(args)
        if len(calls) == 5:
            raise KeyboardInterrupt
        return written(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(WarcArchive, "write_resource", dies_on_the_fifth)
    with open_workspace(root, {}, {}) as ws, pytest.raises(KeyboardInterrupt):
        migrate_body_cache(Store(ws.db).pages, "all", 1_000_000_000)
    monkeypatch.setattr(WarcArchive, "write_resource", written)
    with open_workspace(root, {}, {}) as ws:
        pages = Store(ws.db).pages.kept_pages()
    moved = [p for p in pages if p.warc_file is not None]
    assert 0 < len(moved) < len(pages)
    for page in pages:  # from its record, or from cache/
        assert read_kept(root, page, 5 * 1024 * 1024) is not None, page.url
    done = run_collie(capsys, "reprocess")
    assert done.code == 0 and "0 changed status" in done.err, done.err
    assert not (root / "cache").exists() and exported(capsys, root) == corpus
    checked = warcio_check(root / "warc")
    assert checked.returncode == 0, checked.stdout + checked.stderr
