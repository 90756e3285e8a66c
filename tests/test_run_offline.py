"""`collie run` while the sites cannot be reached (robots.txt unreachable, RFC 9309
2.3.1.4): nothing is recorded as the sites' verdict, and a run with the network back
finds what a fresh workspace finds. Also a workspace poisoned by an older collie (a
failed robots.txt kept as 'disallow-all', its pages dropped as 'robots')."""

from __future__ import annotations

import socket
import sqlite3
import time
from pathlib import Path

import pytest

from collie.mininet.server import MiniWebServer, World

from .clihelp import rows, run_collie
from .runhelp import by_url, copy_of, exported
from .zuluworld import init_zulu, zulu_workspace


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def poison_like_an_older_collie(root: Path) -> None:
    """What collie before this fix left: every page tried dropped as 'robots', each
    origin's failed robots.txt kept as 'disallow-all' for 24 h (the fix's migration
    not applied yet)."""
    conn = sqlite3.connect(root / "collie.db")
    with conn:
        urls = [r[0] for r in conn.execute("SELECT url FROM pages WHERE status = 'queued'")]
        origins = {"/".join(url.split("/")[:3]) for url in urls}
        conn.execute("UPDATE pages SET status = 'dropped', reason = 'robots', "
                     "final_url = url, fetched_at = 1 WHERE status = 'queued'")  # fmt: skip
        conn.executemany(
            "INSERT INTO robots (origin, kind, body, status, fetched_at) "
            "VALUES (?, 'disallow-all', '', NULL, ?)",
            [(origin, time.time()) for origin in origins],
        )
        conn.execute(  # the fix's migration and those after it not applied yet
            "DELETE FROM migrations WHERE id >= (SELECT id FROM migrations "
            "WHERE name = 'robots-failures-forgotten')"
        )
        triggers = conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        for (trigger,) in triggers.fetchall():  # export-tallies
            conn.execute(f"DROP TRIGGER {trigger}")
        conn.execute("DROP TABLE corpus_version")
        conn.execute("DROP TABLE export_tallies")
        conn.execute("ALTER TABLE documents DROP COLUMN teasers")  # teaser-paragraphs
        conn.execute("ALTER TABLE search_results DROP COLUMN target")  # search-coverage
        conn.execute("ALTER TABLE queries DROP COLUMN new_sites")
        conn.execute("ALTER TABLE loops DROP COLUMN search_stopped")
        for column in ("file", "offset", "length", "record_id", "digest"):  # warc-records
            conn.execute(f"ALTER TABLE pages DROP COLUMN warc_{column}")
        conn.execute("ALTER TABLE loops DROP COLUMN warc_bytes")  # loop-warc-bytes
        conn.execute("DROP TABLE scanned_files")  # archive-scan
        conn.execute("DROP TABLE archive_pages")
        conn.execute("DROP TABLE lost_bodies")  # lost-bodies
        conn.execute("DROP TABLE site_labels_kept")  # site-labels-kept
        conn.execute("DROP TABLE search_runs")  # search-runs
        conn.execute("ALTER TABLE pages DROP COLUMN licence")  # page-rights
        conn.execute("ALTER TABLE pages DROP COLUMN tdm")
        for column in ("model", "sha256", "threshold", "margin", "chars"):  # page-langid
            conn.execute(f"ALTER TABLE pages DROP COLUMN lid_{column}")
        conn.execute("ALTER TABLE robots DROP COLUMN tdmrep")  # tdmrep-file
        conn.execute("ALTER TABLE pages DROP COLUMN tdm_file")
    conn.close()


def test_unreachable_robots_txt_holds_pages_back_until_the_network_is_back(
    tmp_path: Path, capsys, web: MiniWebServer, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, _ = zulu_workspace(tmp_path, capsys, web, world)
    fresh = tmp_path / "fresh"
    init_zulu(capsys, fresh, tmp_path / "zulu.txt", web)
    done = run_collie(capsys, "-w", str(fresh), "run", "--loops", "1")
    assert done.code == 0, done.err
    expected = by_url(exported(capsys, fresh))
    assert expected

    with monkeypatch.context() as offline:  # the sites' proxy is gone; search still answers
        dead = f"http://127.0.0.1:{closed_port()}"
        for name in ("HTTP_PROXY", "http_proxy"):
            offline.setenv(name, dead)
        for name in ("NO_PROXY", "no_proxy"):
            offline.setenv(name, "127.0.0.1")
        offline.setenv("COLLIE_FETCH_RETRIES", "0")
        offline.setenv("COLLIE_FETCH_ROBOTS_RETRY", "0.05")
        down = run_collie(capsys, "-w", str(root), "run", "--loops", "1")
    assert down.code == 1, down.err  # a run that could fetch nothing failed
    assert "robots.txt could not be fetched from any of the" in down.err
    assert "no answer" in down.err and "Run `collie run --loops 1` again" in down.err
    assert "robots " not in down.err  # no page is reported as dropped by robots.txt
    assert rows(root, "SELECT status, COUNT(*) FROM pages GROUP BY status")[0][0] == "queued"
    assert len(rows(root, "SELECT status FROM pages GROUP BY status")) == 1  # all queued
    assert rows(root, "SELECT * FROM robots") == []  # a failure is not the site's rules
    assert rows(root, "SELECT finished_at FROM loops") == [(None,)]  # loop 1 left open

    legacy = copy_of(root, tmp_path / "legacy")
    poison_like_an_older_collie(legacy)

    for workspace in (root, legacy):  # the network is back
        up = run_collie(capsys, "-w", str(workspace), "run", "--loops", "1")
        assert up.code == 0, up.err
        assert by_url(exported(capsys, workspace)) == expected
        assert rows(workspace, "SELECT COUNT(*) FROM robots WHERE kind = 'disallow-all'") == [(0,)]
        assert rows(workspace, "SELECT finished_at IS NOT NULL FROM loops") == [(1,)]
