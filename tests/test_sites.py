"""The site list and the site labels through the command line (issue 44): `export
--format sites` and `--format web-languages` on a mined workspace, `--exclude`, the
labels in jsonl and in `collie status`."""

from __future__ import annotations

import json
from pathlib import Path

from .clihelp import rows, run_collie
from .zuluworld import zulu_workspace


def test_the_site_list_and_the_labels(tmp_path: Path, capsys, web, world, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    root, _ = zulu_workspace(tmp_path, capsys, web, world)
    monkeypatch.chdir(root)
    assert run_collie(capsys, "run", "--loops", "1").code == 0
    done = run_collie(capsys, "export", str(tmp_path / "sites.tsv"), "--format", "sites")
    assert done.code == 0, done.err
    lines = (tmp_path / "sites.tsv").read_text(encoding="utf-8").splitlines()
    assert lines[0].split("\t") == ["site", "url", "documents", "words", "labels", "found",
                                    "audit", "reasons"]  # fmt: skip
    table = [line.split("\t") for line in lines[1:]]
    corpus = rows(root, "SELECT p.site, COUNT(*), SUM(d.words) FROM documents d JOIN pages p "
                        "ON p.id = d.page_id WHERE d.kind = 'target' AND d.duplicate_of IS "
                        "NULL AND p.status = 'kept' GROUP BY p.site")  # fmt: skip
    assert {(t[0], int(t[2]), int(t[3])) for t in table} == {(str(s), n, w) for s, n, w in corpus}
    assert all(t[1].startswith("http") and t[1].endswith("/") and t[5] for t in table)
    assert f"{len(table)} sites (" in done.err
    md = run_collie(capsys, "export", "-", "--format", "web-languages")
    assert md.code == 0 and md.out.startswith("# Web Language: Zulu\n"), md.out[:80]
    assert "- ISO-639-3 code: zul" in md.out
    assert all(f"- {t[1]} ({t[2]} documents" in md.out for t in table)
    jsonl = run_collie(capsys, "export", "-", "--format", "jsonl")
    assert all(json.loads(line)["site_labels"] == [] for line in jsonl.out.splitlines())
    bad = run_collie(capsys, "export", "x.txt", "--exclude", "sacred")
    assert bad.code == 2 and "sacred: not a site label" in bad.err
    kept = run_collie(capsys, "export", "-", "--exclude", "religious,multilingual")
    assert kept.code == 0 and kept.out == run_collie(capsys, "export", "-").out
    assert run_collie(capsys, "status").code == 0  # the labels are kept for the next status
    (first,) = rows(root, "SELECT fingerprint FROM site_labels_kept")
    assert run_collie(capsys, "status").code == 0
    assert rows(root, "SELECT fingerprint FROM site_labels_kept") == [first]
    assert run_collie(capsys, "run", "--loops", "2").code == 0  # new pages: decided again
    assert run_collie(capsys, "status").code == 0
    assert rows(root, "SELECT fingerprint FROM site_labels_kept") != [first]


def test_the_review_page_shows_a_documents_site_labels(tmp_path: Path) -> None:
    """The review page's next document carries its site's labels (shown beside its URL)."""
    import sqlite3
    import threading

    import requests

    from collie.corpus.review.server import ReviewServer
    from collie.store import Database, ReviewStore

    conn = sqlite3.connect(tmp_path / "r.db", check_same_thread=False)
    conn.executescript(
        "CREATE TABLE pages (id INTEGER PRIMARY KEY, url TEXT, title TEXT, site TEXT, "
        "warc_file TEXT, final_url TEXT, fetched_at REAL);"
        "CREATE TABLE documents (id INTEGER PRIMARY KEY, page_id INTEGER, text TEXT, "
        "paragraphs TEXT);"
        "CREATE TABLE reviews (id INTEGER PRIMARY KEY, position INTEGER, doc_id INTEGER, "
        "label TEXT, reviewer TEXT, judged_at TEXT);"
        "CREATE TABLE suspects (page_id INTEGER PRIMARY KEY, text TEXT, paragraphs TEXT, "
        "label TEXT);"
        "INSERT INTO pages VALUES (1, 'https://www.jw.org/luo/1', 't', 'jw.org', NULL, NULL, 0);"
        "INSERT INTO documents VALUES (1, 1, 'Yesu', '[[\"Yesu\", \"luo\", 1.0]]');"
        "INSERT INTO reviews VALUES (1, 1, 1, NULL, NULL, NULL);"
    )
    server = ReviewServer(ReviewStore(Database(conn, tmp_path)), "Dholuo", "me", target="luo",
                          site_labels={"jw.org": ["religious"]})  # fmt: skip
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        document = requests.get(server.url + "api/next", timeout=10).json()["document"]
        page = requests.get(server.url, timeout=10).text
    finally:
        server.shutdown()
        server.server_close()
        conn.close()
    assert document["site"] == "jw.org" and document["site_labels"] == ["religious"]
    assert "site_labels" in page  # the page shows them beside the URL
