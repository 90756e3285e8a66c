"""store/base.py: the workspace's one database handle, whose `batch()` is the only way a
transaction is opened, and the Store composed of tables on it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from collie.models import QueueEntry
from collie.store import Database, Store
from collie.store.database import connect
from collie.store.migrations import migrate


def _store(tmp_path: Path) -> tuple[sqlite3.Connection, Store]:
    conn = connect(tmp_path / "collie.db")
    migrate(conn)
    return conn, Store(Database(conn, tmp_path))


def _entry(url: str) -> QueueEntry:
    return QueueEntry(url, url.split("/")[2], 1, "search", 0, 1.0)


def test_a_batch_is_written_whole_or_not_at_all(tmp_path: Path) -> None:
    conn, store = _store(tmp_path)
    store.frontier.open_loop()
    with pytest.raises(RuntimeError), store.batch():
        store.pages.enqueue_in_batch([_entry("http://a.ke/1")])
        raise RuntimeError("killed mid-batch")
    assert store.frontier.queued_count() == 0  # rolled back
    with store.batch():
        store.pages.enqueue_in_batch([_entry("http://a.ke/1"), _entry("http://a.ke/2")])
    other = sqlite3.connect(tmp_path / "collie.db")  # another reader sees it committed
    assert other.execute("SELECT COUNT(*) FROM pages").fetchone()[0] == 2
    other.close()
    conn.close()


def test_a_batch_inside_a_batch_is_part_of_it(tmp_path: Path) -> None:
    """A table's own write (enqueue opens a batch) inside an owner's batch commits
    nothing early: the outer batch's error takes it back too."""
    conn, store = _store(tmp_path)
    store.frontier.open_loop()
    with pytest.raises(RuntimeError), store.batch():
        assert store.frontier.enqueue([_entry("http://b.ke/1")]) == 1  # a batch of its own
        assert store.frontier.queued_count() == 1  # seen inside
        raise RuntimeError("killed after the inner batch ended")
    assert store.frontier.queued_count() == 0
    assert not conn.in_transaction
    conn.close()


def test_the_tables_share_the_one_handle(tmp_path: Path) -> None:
    conn, store = _store(tmp_path)
    tables = (store.frontier, store.pages, store.sites, store.robots, store.scans)
    assert {id(t.db) for t in tables} == {id(store.db)}
    assert store.pages.frontier is store.frontier and store.sites.pages is store.pages
    assert store.root == tmp_path
    conn.close()


def test_a_workspace_holds_one_handle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every store a workspace gives out is on its one handle (so one owner's batch holds
    the writes of another inside it)."""
    from collie.workspace.folder import Workspace

    conn = connect(tmp_path / "collie.db")
    migrate(conn)
    ws = Workspace(tmp_path, {}, conn)  # type: ignore[arg-type]
    assert ws.records.db is ws.db and ws.queries.db is ws.db
    assert Store(ws.db).pages.db is ws.db
    conn.close()
