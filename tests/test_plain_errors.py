"""Ordinary failures as one clear line and the right exit code, each typed as a user
would (issue 58, point 2)."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from .clihelp import Run, rows, run_collie
from .zuluworld import zulu_workspace

ROOT = Path(__file__).resolve().parent.parent
ZULU = "Abantu bonke bazalwa bekhululekile belingana ngesithunzi nangamalungelo. "


@pytest.fixture
def quick(tmp_path: Path, capsys, monkeypatch) -> Path:  # type: ignore[no-untyped-def]
    """A Zulu workspace from a seed-word list (no model to train: quick to make)."""
    words = tmp_path / "words.txt"
    words.write_text("abantu\nbazalwa\nngesithunzi\nnangamalungelo\n", encoding="utf-8")
    root = tmp_path / "ws"
    made = run_collie(capsys, "init", "-w", str(root), "--lang", "zul", "--seed-words", str(words))
    assert made.code == 0, made.err
    monkeypatch.chdir(root)
    return root


def _fails(run: Run, code: int, start: str) -> None:
    assert run.code == code, run.err
    assert run.err.startswith(f"collie: error: {start}"), run.err
    assert "unexpected" not in run.err and "Traceback" not in run.err
    assert len(run.err.strip().splitlines()) == 2  # the error and what to do


@pytest.mark.parametrize("place", ["/proc/x", "/proc/x/y", "/dev/null/x"])
def test_init_where_no_folder_can_be_made(tmp_path: Path, capsys, place: str) -> None:  # type: ignore[no-untyped-def]
    docs = tmp_path / "zulu.txt"
    docs.write_text("Umuntu ngumuntu ngabantu.\n", encoding="utf-8")
    failed = run_collie(capsys, "init", "-w", place, "--lang", "zul", "--docs", str(docs))
    _fails(failed, 1, f"cannot make a workspace at {place}: no folder can be made in ")
    assert "nothing was written" in failed.err


@pytest.mark.parametrize("junk", [b"# caf\xe9\n", b"\x00\x01\xff\xfe binary"])
def test_a_settings_file_that_is_not_utf8_is_named_with_the_offset(  # type: ignore[no-untyped-def]
    quick, capsys, junk: bytes
) -> None:
    settings = quick / "collie.toml"
    before = settings.read_bytes()
    settings.write_bytes(before + junk)
    offset = len(before) + junk.index(next(b for b in junk if b >= 0x80).to_bytes(1, "big"))
    for command in (("status",), ("config",), ("run", "--loops", "1")):
        failed = run_collie(capsys, *command)
        _fails(failed, 1, f"{settings} is not UTF-8 text: byte 0x")
        assert f"at offset {offset} (line " in failed.err and "UTF-8" in failed.err


def test_init_refuses_an_encoding_python_does_not_know(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    docs = tmp_path / "zulu.txt"
    docs.write_text(ZULU, encoding="utf-8")
    root = tmp_path / "ws"
    failed = run_collie(capsys, "init", "-w", str(root), "--lang", "zul", "--docs", str(docs),
                        "--encoding", "klingon-8")  # fmt: skip
    _fails(failed, 2, "--encoding 'klingon-8' is not an encoding collie knows")
    assert not root.exists()


def test_an_empty_query_is_refused_as_such(quick, capsys) -> None:  # type: ignore[no-untyped-def]
    for query in ("", "   "):
        failed = run_collie(capsys, "search", query)
        _fails(failed, 2, "the query is empty")
        assert "later" not in failed.err
    assert rows(quick, "SELECT COUNT(*) FROM queries") == [(0,)]


def test_scan_of_a_folder_says_it_is_a_folder(quick, capsys) -> None:  # type: ignore[no-untyped-def]
    folder = quick.parent / "archives"
    folder.mkdir()
    failed = run_collie(capsys, "scan", str(folder))
    _fails(failed, 1, f"{folder} is a folder, not an archive file")
    assert "*.warc.gz" in failed.err and "no such" not in failed.err


def test_seeds_and_queries_refuse_a_loop_that_cannot_come_next(quick, capsys) -> None:  # type: ignore[no-untyped-def]
    for command in ("seeds", "queries"):
        failed = run_collie(capsys, command, "--loop", "99")
        _fails(failed, 2, "--loop 99: loop 99 cannot come next in this workspace")
        assert "the next is loop 1" in failed.err
        assert run_collie(capsys, command, "--loop", "1").code == 0


def test_a_macrolanguage_code_points_to_the_member_the_model_knows(  # type: ignore[no-untyped-def]
    tmp_path: Path, capsys
) -> None:
    docs = tmp_path / "swahili.txt"
    docs.write_text("Watu wote wamezaliwa huru, hadhi na haki zao ni sawa.\n", encoding="utf-8")
    failed = run_collie(capsys, "init", "-w", str(tmp_path / "ws"), "--lang", "swa", "--docs",
                        str(docs))  # fmt: skip
    _fails(failed, 2, "swa is the Swahili macrolanguage, which collie's model knows through")
    assert "Give --lang swh" in failed.err and "--lang Swahili names it too" in failed.err


def test_the_workspace_language_by_name_is_not_another_language(quick, capsys) -> None:  # type: ignore[no-untyped-def]
    for value in ("Zulu", "zu"):
        failed = run_collie(capsys, "--set", f"language.code={value}", "status")
        _fails(failed, 1, "language.code takes the ISO 639-3 code")
        assert "Zulu (zul), this workspace's language" in failed.err
        assert "To mine" not in failed.err and "new workspace" not in failed.err
    other = run_collie(capsys, "--set", "language.code=xho", "status")
    assert other.code == 1 and "To mine xho, make a new workspace" in other.err


def test_the_docs_say_what_is_true() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme.count("How much seed text") == 1
    api = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    assert "`replace=True` for\n`export`" in api


def _limited(limit: int, *args: str, cwd: Path) -> Run:
    """`python -m collie ARGS` with its address space limited to `limit` bytes."""
    if shutil.which("prlimit") is None:
        pytest.skip("no prlimit here")
    done = subprocess.run(
        ["prlimit", f"--as={limit}", sys.executable, "-m", "collie", *args],
        capture_output=True, text=True, cwd=cwd, check=False,
    )  # fmt: skip
    return Run(done.returncode, done.stdout, done.stderr)


def _big_text(chars: int) -> str:
    """One paragraph of `chars` characters of many different words."""
    import random

    rng = random.Random(1)
    words, length = [], 0
    while length < chars:
        words.append("".join(rng.choices("abcdefghiklmnopstuwyz", k=rng.randint(2, 9))))
        length += len(words[-1]) + 1
    return " ".join(words)


# Bytes of address space in which collie starts and a 1 MB paragraph of many different
# words does not fit in a scan (the page's extraction); `langid identify` scores any
# length in bounded memory (issue 53: a long text is counted in pieces).
MEMORY, LANGID_MEMORY = 1_000_000_000, 700_000_000


def test_a_long_paragraph_is_identified_in_bounded_memory(tmp_path: Path) -> None:
    """A 5 MB paragraph (once 9 GiB for 1 MB, then "collie ran out of memory") is
    identified in the address space a one-line text needs: one answer, exit 0. The
    out-of-memory message itself is the scan's test below."""
    small, big = tmp_path / "small.txt", tmp_path / "big.txt"
    small.write_text(ZULU + "\n", encoding="utf-8")
    big.write_text(_big_text(5_000_000) + "\n", encoding="utf-8")
    if _limited(LANGID_MEMORY, "langid", "identify", str(small), cwd=tmp_path).code != 0:
        pytest.skip("collie does not start in this address space here")
    done = _limited(LANGID_MEMORY, "langid", "identify", str(big), cwd=tmp_path)
    assert done.code == 0, done.err
    assert done.out.split() == ["und"], done.out[:200]  # made-up words: no language


def _archive(path: Path, pages: dict[str, str]) -> None:
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    with path.open("wb") as out:
        writer = WARCWriter(out, gzip=True)
        for url, text in pages.items():
            html = f"<html lang='zu'><head><title>Izindaba</title></head><body><article>{text}"
            html += "<a href='/more'>okunye</a></article></body></html>"
            headers = StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8")],
                                       protocol="HTTP/1.0")  # fmt: skip
            record = writer.create_warc_record(
                url, "response", payload=io.BytesIO(html.encode()), http_headers=headers
            )
            writer.write_record(record)


def test_scan_counts_files_and_queued_pages_and_fails_on_a_page_error(  # type: ignore[no-untyped-def]
    quick, capsys
) -> None:
    """The summary counts the pages queued (not "0 sites queued"); a page the code
    failed on (here memory, in a limited address space) fails the scan, exit 1."""
    small = "".join(f"<p>{ZULU * 8}</p>" for _ in range(4))
    _archive(quick.parent / "one.warc.gz", {"http://izindaba.co.za/a": small})
    done = run_collie(capsys, "scan", str(quick.parent / "one.warc.gz"))
    assert done.code == 0, done.err
    assert "1 target document; 2 pages queued for `collie run`" in done.err, done.err
    assert "home pages of 1 site new to the frontier" in done.err
    big = f"<p>{ZULU * 8}</p><p>{_big_text(1_000_000)}</p>"
    _archive(quick.parent / "two.warc.gz", {"http://izindaba.co.za/b": big})
    failed = _limited(MEMORY, "scan", str(quick.parent / "two.warc.gz"), cwd=quick)
    errors = rows(quick, "SELECT url FROM pages WHERE reason LIKE 'error:%'")
    if not errors:
        pytest.skip("the page fits in this address space here")
    assert failed.code == 1, failed.err
    assert "collie: error: collie failed on 1 of the pages found" in failed.err
    assert "Traceback" not in failed.err and "unexpected" not in failed.err
    assert "failed on a page: http://izindaba.co.za/b: error:MemoryError" in failed.err


@pytest.fixture
def mined(tmp_path: Path, capsys, web, world, monkeypatch) -> Iterator[Path]:  # type: ignore[no-untyped-def]
    """A Zulu workspace after one loop, in a folder other users may enter."""
    home = Path(tempfile.mkdtemp(prefix="collie-plain-"))
    home.chmod(0o755)
    try:
        root, _ = zulu_workspace(home, capsys, web, world)
        monkeypatch.chdir(root)
        done = run_collie(capsys, "run", "--loops", "1")
        assert done.code == 0, done.err
        yield root
    finally:
        shutil.rmtree(home, ignore_errors=True)


def _as_nobody(*args: str, cwd: Path) -> Run:
    """`python -m collie ARGS` as the user nobody (root reads any file)."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to run as another user")
    done = subprocess.run(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-m",
         "collie", *args],
        capture_output=True, text=True, cwd=cwd, check=False,
        env={**os.environ, "HOME": str(cwd)},
    )  # fmt: skip
    return Run(done.returncode, done.stdout, done.stderr)


def test_status_names_queries_backends_and_an_unreadable_or_missing_warc(  # type: ignore[no-untyped-def]
    mined, capsys, web, monkeypatch
) -> None:
    # status counts queries, not requests, and names the backend they went to
    monkeypatch.setenv("BRAVE_API_KEY", "a-key")
    brave = run_collie(capsys, "search", "--search", "brave", "--search-url",
                       f"{web.search_url}/res/v1/web/search", "abantu bonke bazalwa")  # fmt: skip
    assert brave.code == 0, brave.err
    shown = run_collie(capsys, "status", "--json")
    search = json.loads(shown.out)["search"]
    firsts = rows(mined, "SELECT COUNT(*) FROM queries WHERE json_extract(params, '$.offset') = 0")
    assert sum(search["queries"].values()) == firsts[0][0] <= search["requests_sent"]
    assert search["backend"] == "searxng, brave"
    line = next(x for x in run_collie(capsys, "status").out.splitlines() if x.startswith("queries"))
    assert line.endswith("(searxng, brave)"), line
    # a WARC file another user owns, mode 600: one line naming it and chmod
    for path in [mined, *mined.rglob("*")]:
        os.chown(path, 65534, 65534)
    warc = sorted((mined / "warc").glob("*.warc.gz"))[0]
    os.chown(warc, 0, 0)
    warc.chmod(0o600)
    out = mined.parent / "out"
    out.mkdir()
    os.chown(out, 65534, 65534)
    for command in (
        ("status",),
        ("reprocess",),
        ("export", "--format", "warc", str(out / "c.warc.gz")),
    ):
        failed = _as_nobody(*command, cwd=mined)
        _fails(failed, 1, f"cannot read {warc}: permission denied")
        assert f"chmod u+r {warc}" in failed.err
    # the only WARC file gone: replay --index-only says so, not "run `collie run` first"
    for path in (mined / "warc").iterdir():
        path.unlink()
    failed = run_collie(capsys, "replay", "--index-only")
    _fails(failed, 1, "warc/ holds none of the 1 WARC file the fetched pages were kept in")
    assert "collie run` first" not in failed.err and "collie check --repair" in failed.err


def test_every_command_counts_the_corpus_alike_or_names_the_difference(  # type: ignore[no-untyped-def]
    mined, capsys, tmp_path: Path
) -> None:
    """Issue 58, point 6: status and the corpus export count the documents an export
    writes; the site list and the review count the corpus's documents as kept, and say
    how many of them an export writes. A high langid.min_target_words here leaves some
    kept documents out of the export, so the two counts differ."""
    least = sorted(w for (w,) in rows(mined, "SELECT words FROM documents"))
    sets = ("--set", f"langid.min_target_words={least[len(least) // 2]}")  # about half out
    corpus_sql = (
        "SELECT COUNT(*) FROM documents d JOIN pages p ON p.id = d.page_id "
        "WHERE d.kind = 'target' AND d.duplicate_of IS NULL AND p.status = 'kept'"
    )
    stored = rows(mined, corpus_sql)[0][0]
    corpus = run_collie(
        capsys, *sets, "export", str(tmp_path / "corpus.jsonl"), "--format", "jsonl"
    )
    assert corpus.code == 0, corpus.err
    written = len((tmp_path / "corpus.jsonl").read_text(encoding="utf-8").splitlines())
    assert 0 < written < stored, (written, stored)
    said = next(
        x for x in corpus.err.splitlines() if x.endswith(f"written to {tmp_path / 'corpus.jsonl'}.")
    )
    words = said.split(" documents, ")[1].split(" words")[0]
    assert said.startswith(f"{written:,} documents, ")
    status = json.loads(run_collie(capsys, *sets, "status", "--json").out)
    assert sum(sum(loop["documents"].values()) for loop in status["loops"]) == written
    sites = run_collie(capsys, *sets, "export", str(tmp_path / "sites.tsv"), "--format", "sites")
    assert sites.code == 0, sites.err
    assert f"({stored:,} documents," in sites.err
    assert f"a corpus export writes {written:,} of them ({words} words:" in sites.err
    assert "as `collie status` counts" in sites.err
    review = json.loads(run_collie(capsys, *sets, "review", "--results", "--json").out)
    assert review["exported_documents"] == written and review["documents"] == stored


def test_the_scan_progress_line_counts_files(capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from collie.cli import progress

    events = progress.CliEvents(quiet=False, terminal=False)
    events.stage(1, "scan", 4)
    monkeypatch.setattr(progress, "PLAIN_EVERY", 0.0)
    events.advance(1)
    assert "loop 1 scan: 1/4 files" in capsys.readouterr().err


# Found by benchmarks/bench_sweep.py (issue 58): each was "unexpected" or exit 0.


@pytest.mark.parametrize("place", ["/proc/x", "/dev/null/x"])
def test_an_output_where_no_folder_can_be_made_is_named(  # type: ignore[no-untyped-def]
    tmp_path: Path, capsys, place: str
) -> None:
    docs = tmp_path / "zulu.txt"
    docs.write_text(ZULU, encoding="utf-8")
    failed = run_collie(capsys, "langid", "train", "--lang", "zul", str(docs), "--out",
                        f"{place}/m.npz")  # fmt: skip
    _fails(failed, 1, f"cannot use {place}")
    assert "nothing more was written there" in failed.err and "chmod" in failed.err


def test_a_dask_scheduler_address_dask_cannot_parse_is_named(quick, capsys) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("distributed")
    archive = quick.parent / "one.warc.gz"
    _archive(archive, {"http://izindaba.co.za/a": f"<p>{ZULU * 8}</p>"})
    failed = run_collie(capsys, "scan", str(archive), "--scheduler", "nowhere")
    _fails(failed, 1, "Cannot reach the Dask scheduler at nowhere: missing port number")
    assert "tcp://10.0.0.5:8786" in failed.err


def test_refetch_lost_refuses_the_options_of_a_loop(quick, capsys) -> None:  # type: ignore[no-untyped-def]
    for option in (("--loops", "5"), ("--max-pages", "3"), ("--queries", "2")):
        failed = run_collie(capsys, "run", "--refetch-lost", *option)
        _fails(failed, 2, f"--refetch-lost runs no loop: {option[0]} would be ignored")


def test_scan_fails_on_an_empty_file_and_a_base_without_a_paths_file(quick, capsys) -> None:  # type: ignore[no-untyped-def]
    empty = quick.parent / "empty.warc.gz"
    empty.write_bytes(b"")
    failed = run_collie(capsys, "scan", str(empty))
    assert failed.code == 1 and "unexpected" not in failed.err, failed.err
    error = "collie: error: 1 of the files named could not be scanned to their end"
    assert f"{error} (1 unreadable, 0 partial): {empty}: an empty file (0 bytes)" in failed.err
    whole = quick.parent / "one.warc.gz"
    _archive(whole, {"http://izindaba.co.za/a": f"<p>{ZULU * 8}</p>"})
    failed = run_collie(capsys, "scan", str(whole), "--base", "https://data.commoncrawl.org/")
    _fails(failed, 2, "--base https://data.commoncrawl.org/: --base is where a Common Crawl")
    assert rows(quick, "SELECT COUNT(*) FROM pages") == [(0,)]


def test_an_empty_language_a_missing_text_and_a_non_world_say_what_to_do(  # type: ignore[no-untyped-def]
    tmp_path: Path, capsys
) -> None:
    for command in (("language", ""), ("safetynet", "")):
        failed = run_collie(capsys, *command)
        _fails(failed, 2, "No language given: the code or name is empty.")
        assert "e.g. `zul` or `Zulu`" in failed.err
    missing = tmp_path / "missing.txt"
    failed = run_collie(capsys, "langid", "identify", str(missing))
    _fails(failed, 1, f"Cannot read {missing}: No such file or directory.")
    assert "or - for standard input" in failed.err
    text = tmp_path / "zulu.txt"
    text.write_text(ZULU, encoding="utf-8")
    failed = run_collie(capsys, "mininet", "manifest", str(text))
    _fails(failed, 1, f"{text}: not a collie world file")
    assert "collie mininet build" in failed.err


def test_demo_refuses_its_folder_before_building_a_world(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """`collie demo --out /proc/x` built the 300-site world (minutes) before it failed."""
    failed = run_collie(capsys, "demo", "--out", "/proc/x", "--sites", "17", "--seed", "58")
    _fails(failed, 1, "cannot use /proc/x: no such file or folder")
    assert "world" not in failed.err
    full = tmp_path / "full"
    full.mkdir()
    (full / "notes.txt").write_text("mine\n", encoding="utf-8")
    failed = run_collie(capsys, "demo", "--out", str(full), "--sites", "17", "--seed", "58")
    _fails(failed, 1, f"{full} is not empty.")


def test_a_missing_seed_file_names_its_option(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    docs = tmp_path / "zulu.txt"
    docs.write_text(ZULU, encoding="utf-8")
    root, missing = tmp_path / "ws", tmp_path / "missing.txt"
    for option, args in (("--docs", (str(missing),)), ("--wronglang", (str(docs), str(missing)))):
        command = ["init", "-w", str(root), "--lang", "zul", "--docs", args[0]]
        command += ["--wronglang", args[1]] if option == "--wronglang" else []
        failed = run_collie(capsys, *command)
        _fails(failed, 1, f"{option} {missing}: no such file or folder.")
        assert not root.exists()


def test_a_group_option_without_its_value_says_where_help_is(capsys) -> None:  # type: ignore[no-untyped-def]
    failed = run_collie(capsys, "-w")
    assert failed.code == 2
    assert failed.err.splitlines() == [
        "Error: Option '-w' requires an argument.",
        "Try 'collie -h' for help.",
    ]


def test_export_refuses_to_replace_a_device(quick, capsys) -> None:  # type: ignore[no-untyped-def]
    """The export writes beside its output and renames: over /dev/full, as root, it would
    have replaced the device file (found by bench_sweep.py)."""
    for device in ("/dev/full", "/dev/null"):
        failed = run_collie(capsys, "export", device, "--force")
        _fails(failed, 1, f"Cannot write {device}: it is a device or special file")
        assert Path(device).is_char_device()
    assert run_collie(capsys, "export", "-", "--format", "jsonl").code == 0
