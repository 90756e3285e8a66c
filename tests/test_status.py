"""`collie status` and `collie report` read what the runs and the export stored: each
loop's seed words as its queries stored them, and the export's per-loop counts kept
while nothing they depend on has changed (store/tallies.py); never the language model
when the counts are kept, and never a failed write on a workspace it cannot write."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from collie.corpus import export as corpus_export
from collie.corpus import status as corpus_status
from collie.workspace.folder import Workspace, open_workspace

from .clihelp import rows, run_collie


def stored_seed_words(root: Path) -> dict[int, list[str]]:
    """Per loop, the words of its queries in the order they were first used."""
    words: dict[int, list[str]] = {}
    for loop, stored in rows(root, "SELECT loop, words FROM queries WHERE words IS NOT NULL "
                                   "ORDER BY id"):  # fmt: skip
        used = words.setdefault(int(loop), [])  # type: ignore[call-overload]
        used += [w for w in json.loads(str(stored)) if w not in used]
    return words


def exported_by_loop(capsys: pytest.CaptureFixture[str]) -> dict[int, dict[str, int]]:
    """Per loop, the documents by source and the words `collie export` writes."""
    result = run_collie(capsys, "export", "-", "--format", "jsonl")
    assert result.code == 0, result.err
    out: dict[int, Counter[str]] = {}
    for line in result.out.splitlines():
        record = json.loads(line)
        counts = out.setdefault(record["loop"], Counter())
        counts[record["source"]] += 1
        counts["words"] += record["words"]
    return {loop: dict(counts) for loop, counts in out.items()}


def status_by_loop(capsys: pytest.CaptureFixture[str]) -> dict[int, dict[str, int]]:
    """Per loop, what `collie status --json` says an export writes (as exported_by_loop)."""
    result = run_collie(capsys, "status", "--json")
    assert result.code == 0, result.err
    out = {}
    for loop in json.loads(result.out)["loops"]:
        counts = {source: n for source, n in loop["documents"].items() if n}
        if counts:
            out[loop["number"]] = {**counts, "words": loop["words"]}
    return out


def take_a_document_out(root: Path) -> None:
    """The first document of the corpus taken out (as a later decision would)."""
    conn = sqlite3.connect(root / "collie.db")
    with conn:
        conn.execute(
            "UPDATE pages SET status = 'duplicate' WHERE id = (SELECT MIN(p.id) FROM pages p "
            "JOIN documents d ON d.page_id = p.id WHERE p.status = 'kept')"
        )
    conn.close()


def forbid_the_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any load of a language model fails the test."""

    def loaded(*_args: Any) -> Any:
        raise AssertionError("the language model was loaded")

    monkeypatch.setattr(Workspace, "model", loaded)
    monkeypatch.setattr(corpus_export, "load_model_for", loaded)


def forbid_the_pipeline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any run of the export pipeline by status fails the test."""

    def ran(*_args: Any) -> Any:
        raise AssertionError("status ran the export pipeline")

    monkeypatch.setattr(corpus_status, "tally_by_loop", ran)


def test_status_and_report_show_the_seed_words_each_loops_queries_stored(
    mined, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, _, _ = mined
    stored = stored_seed_words(root)
    assert set(stored) == {1, 2} and all(stored.values())
    monkeypatch.setenv("COLLIE_SEEDS_MIN_LENGTH", "9")  # today's seed list would differ
    data = json.loads(run_collie(capsys, "status", "--json").out)
    assert {loop["number"]: loop["seed_words"] for loop in data["loops"]} == stored
    text = " ".join(run_collie(capsys, "status").out.split())
    for loop in (1, 2):
        shown = " ".join(stored[loop][:12])
        assert f"seed words ({len(stored[loop])}, as its queries stored them): {shown}" in text
    report = json.loads(run_collie(capsys, "report", "--json").out)
    assert {int(loop): words for loop, words in report["seeds"].items()} == stored
    assert "seed words of loop 2 (" in run_collie(capsys, "report").out
    # A loop that recorded no query (a scan loop, one cut before its search) says so.
    conn = sqlite3.connect(root / "collie.db")
    with conn:
        conn.execute("INSERT INTO loops (number, started_at) VALUES (3, '2026-01-01T00:00:00')")
    conn.close()
    data = json.loads(run_collie(capsys, "status", "--json").out)
    assert data["loops"][2]["seed_words"] == []
    said = "none stored, as the loop recorded no query (a scan loop, or its search never ran)"
    assert said in " ".join(run_collie(capsys, "status").out.split())
    assert f"seed words of loop 3 (0): {said}" in run_collie(capsys, "report").out


def test_status_counts_what_export_writes_as_the_documents_change(
    mined, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, _, _ = mined
    assert rows(root, "SELECT COUNT(*) FROM export_tallies") == [(0,)]
    first = status_by_loop(capsys)  # computed and kept
    assert first and first == exported_by_loop(capsys)
    with monkeypatch.context() as kept:
        forbid_the_pipeline(kept)
        assert status_by_loop(capsys) == first  # read back
        assert json.loads(run_collie(capsys, "report", "--json").out)["loops"]
    # A document leaves the corpus: recounted.
    take_a_document_out(root)
    fewer = status_by_loop(capsys)
    assert fewer == exported_by_loop(capsys) != first
    assert run_collie(capsys, "reprocess").code == 0  # decided again from the WARC files
    assert status_by_loop(capsys) == exported_by_loop(capsys)
    # Another setting of the export's: recounted.
    monkeypatch.setenv("COLLIE_EXTRACT_SITE_REPEATS", "2")
    assert status_by_loop(capsys) == exported_by_loop(capsys)
    # langid.min_target_words above the shorter documents' (issue 43): the export leaves
    # them out and says so, status counts them apart, and the two agree.
    monkeypatch.setenv("COLLIE_LANGID_MIN_TARGET_WORDS", "60")
    thin = sum(loop["too_little_target_text"] for loop in
               json.loads(run_collie(capsys, "status", "--json").out)["loops"])  # fmt: skip
    exported = run_collie(capsys, "export", "-")
    assert thin and f"{thin} document{'s' if thin > 1 else ''} with fewer than" in exported.err
    assert status_by_loop(capsys) == exported_by_loop(capsys)
    assert "too little target text:" in run_collie(capsys, "report").out
    monkeypatch.delenv("COLLIE_LANGID_MIN_TARGET_WORDS")
    # Another loop: recounted; then the export keeps its own counts, which status reads.
    monkeypatch.delenv("COLLIE_EXTRACT_SITE_REPEATS")
    assert run_collie(capsys, "run", "--loops", "3").code == 0
    conn = sqlite3.connect(root / "collie.db")
    with conn:
        conn.execute("DELETE FROM export_tallies")
    conn.close()
    exported = exported_by_loop(capsys)
    with monkeypatch.context() as kept:
        forbid_the_pipeline(kept)
        assert status_by_loop(capsys) == exported


def test_status_loads_no_language_model_once_the_counts_are_kept(
    mined, capsys, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root, _, _ = mined
    assert run_collie(capsys, "export", "corpus.txt").code == 0
    moved = tmp_path / "moved"
    shutil.copytree(root, moved)  # a workspace moved elsewhere keeps its counts too
    assert (moved / "models" / "langid.npz").is_file()  # with its own model
    forbid_the_model(monkeypatch)
    forbid_the_pipeline(monkeypatch)
    assert run_collie(capsys, "status").code == 0
    assert run_collie(capsys, "report").code == 0
    assert run_collie(capsys, "-w", str(moved), "status").code == 0


def test_status_on_a_workspace_it_cannot_write_still_counts(
    mined, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, _, _ = mined
    written = exported_by_loop(capsys)  # the export keeps its counts
    take_a_document_out(root)  # then a document changes: the counts kept are stale
    kept = rows(root, "SELECT fingerprint, tally FROM export_tallies")
    with open_workspace(root, os.environ, {}) as ws:
        ws.conn.execute("PRAGMA query_only = ON")  # every write fails, as on a read-only disk
        data = corpus_status.status_data(ws)
        again = corpus_status.status_data(ws)
    assert data == again
    assert rows(root, "SELECT fingerprint, tally FROM export_tallies") == kept  # not written
    docs = sum(sum(loop["documents"].values()) for loop in data["loops"])
    assert docs == sum(n for counts in written.values() for k, n in counts.items()
                       if k != "words") - 1  # fmt: skip


def test_every_change_to_what_an_export_reads_moves_the_corpus_version(mined) -> None:
    root, _, _ = mined
    conn = sqlite3.connect(root / "collie.db")

    def version() -> int:
        return int(conn.execute("SELECT version FROM corpus_version").fetchone()[0])

    before = version()
    page, doc = conn.execute("SELECT p.id, d.id FROM pages p JOIN documents d ON "
                             "d.page_id = p.id WHERE d.kind = 'target'").fetchone()  # fmt: skip
    changes = [
        ("UPDATE documents SET teasers = '[0]' WHERE id = ?", doc),
        ("UPDATE documents SET paragraphs = paragraphs || ' ' WHERE id = ?", doc),
        ("UPDATE pages SET site = site || '.' WHERE id = ?", page),
        ("INSERT INTO archive_pages VALUES (?, 'cc.warc.gz', 0, 'urn:x', 'response')", page),
        ("UPDATE pages SET status = 'dropped' WHERE id = ?", page),
    ]
    for statement, key in changes:
        with conn:
            conn.execute(statement, (key,))
        assert version() == before + 1, statement
        before = version()
    with conn:  # no change: no move
        conn.execute("UPDATE documents SET teasers = teasers WHERE id = ?", (doc,))
        conn.execute("UPDATE pages SET priority = 1 WHERE id = ?", (page,))
    assert version() == before
    conn.close()
