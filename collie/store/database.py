"""The workspace database itself: connecting, opening (pending migrations applied),
creating it at init, and what init recorded there (workspace_info, seed_documents) and
the loops table's history.

The workspace (collie.workspace) keeps the folder, the lock and the settings; every
table is read and written here and in the other store modules. Nothing here imports
the workspace: it passes paths and the connection.
"""

from __future__ import annotations

import errno
import json
import os
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from collie.errors import WorkspaceError, disk_full_error, disk_is_full
from collie.store.base import Database, now_iso
from collie.store.migrations import MIGRATIONS, migrate, schema_version
from collie.store.search import QueryCache
from collie.version import __version__


@dataclass(frozen=True)
class SeedSummary:
    role: str
    lang: str | None
    documents: int
    words: int
    chars: int


@dataclass(frozen=True)
class LoopRow:
    number: int
    started_at: str
    finished_at: str | None
    search_stopped: str | None = None  # why its search stage stopped early, if it did
    warc_bytes: int = 0  # appended to the WARC files (compressed)


class SeedFile(Protocol):
    """What init records of a seed document (collie.workspace.seedfiles.SeedDocument)."""

    # read-only (properties), as a frozen dataclass's fields are
    @property
    def role(self) -> str: ...
    @property
    def lang(self) -> str | None: ...
    @property
    def path(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def sha256(self) -> str: ...
    @property
    def encoding(self) -> str: ...
    @property
    def method(self) -> str: ...
    @property
    def confidence(self) -> float: ...
    @property
    def text(self) -> str: ...
    @property
    def words(self) -> int: ...


SQLITE_IOERR, SQLITE_FULL = 10, 13  # SQLite's primary result codes


def connect(path: Path) -> sqlite3.Connection:
    """A connection to a workspace database: rows by name, WAL, foreign keys on."""
    conn = sqlite3.connect(path, timeout=30.0)
    conn.row_factory = sqlite3.Row
    try:
        conn.execute("PRAGMA journal_mode=WAL")  # the first read: fails on a non-database
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA synchronous=NORMAL")
    except sqlite3.DatabaseError:
        conn.close()
        raise
    return conn


def is_io_error(exc: sqlite3.DatabaseError) -> bool:
    """SQLite's SQLITE_IOERR (any extended code) or SQLITE_FULL: the disk, not the file."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:  # Python before 3.11: the message
        return "disk I/O error" in str(exc) or "disk is full" in str(exc)
    return code & 0xFF in (SQLITE_IOERR, SQLITE_FULL)


READ_ONLY_ERRNOS = (errno.EACCES, errno.EPERM, errno.EROFS)


def writable(db: Path) -> bool:
    """Whether this process may write the database and create its journal beside it
    (False in a read-only folder or mount, or a colleague's copy it can only read)."""
    effective = os.access in os.supports_effective_ids
    paths = (db, db.parent) if db.exists() else (db.parent,)
    return all(os.access(path, os.W_OK, effective_ids=effective) for path in paths)


def read_only_error(root: Path, what: str = "this command") -> WorkspaceError:
    """What a command that writes says in a workspace it can only read (issue 46)."""
    return WorkspaceError(
        f"the workspace is read-only ({root}): {what} writes to it, so it cannot run "
        "here; nothing was changed.",
        "status, export, report and review --results work in a read-only workspace. To "
        f"go on mining, work in a copy you can write (cp -r {root} NEW-FOLDER), or "
        "where the workspace's owner can write.",
    )


def connect_read_only(db: Path) -> sqlite3.Connection:
    """A read-only connection to a database this process cannot write: `mode=ro`, else
    (a WAL database whose -shm file cannot be made in a read-only folder) `immutable=1`,
    which reads the database file as it is."""
    uri = db.resolve().as_uri()
    for query in ("mode=ro", "immutable=1"):
        conn = sqlite3.connect(f"{uri}?{query}", uri=True, timeout=30.0)
        conn.row_factory = sqlite3.Row
        try:
            conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
            conn.execute("PRAGMA query_only=ON")
            return conn
        except sqlite3.OperationalError:
            conn.close()
            if query == "immutable=1":
                raise
            _check_no_wal(db)  # immutable=1 would not see what the -wal file holds
        except BaseException:
            conn.close()
            raise
    raise AssertionError("unreachable")  # pragma: no cover


def _check_no_wal(db: Path) -> None:
    """Refuse to read a database as immutable while its -wal file holds changes that
    reading it so would miss (the owner's run is going on, or ended without closing)."""
    wal = db.with_name(db.name + "-wal")
    if wal.exists() and wal.stat().st_size > 0:
        raise WorkspaceError(
            f"the workspace is read-only ({db.parent}), and its latest changes are still "
            f"in {wal.name}, which cannot be read without writing beside it; nothing was "
            "changed.",
            "Wait for the run working in it to end, or ask its owner to run `collie "
            "status` there once (which folds them into collie.db); then try again.",
        )


def open_database(db: Path, read_only: bool = False) -> tuple[sqlite3.Connection, list[str]]:
    """Connect to an existing workspace database and apply pending migrations; return
    the connection and the migrations applied. `read_only`: open it for reading only
    (a workspace this process cannot write), migrating nothing."""
    conn: sqlite3.Connection | None = None
    try:
        conn = connect_read_only(db) if read_only else connect(db)
        applied = _check_schema(conn, db) if read_only else migrate(conn)
    except sqlite3.DatabaseError as exc:
        if conn is not None:
            conn.close()
        if is_io_error(exc) and disk_is_full(db.parent):  # the WAL's index could not be made
            raise disk_full_error(db.parent) from exc
        raise WorkspaceError(
            f"{db} is not a usable SQLite database: {exc}.",
            "Restore collie.db from a backup, or create a new workspace with `collie init` "
            "in another folder.",
        ) from exc
    except BaseException:
        if conn is not None:
            conn.close()
        raise
    return conn, applied


def _check_schema(conn: sqlite3.Connection, db: Path) -> list[str]:
    """A read-only database must be at this collie's schema: it cannot be migrated."""
    current = schema_version(conn)
    if current < len(MIGRATIONS):
        raise WorkspaceError(
            f"the workspace is read-only ({db.parent}), and its database is at schema "
            f"version {current}, older than this collie's ({len(MIGRATIONS)}): it must be "
            "upgraded, which writes to it; nothing was changed.",
            "Run any collie command once where the workspace can be written (or in a "
            "copy you can write), or use the collie version that made it.",
        )
    if current > len(MIGRATIONS):
        raise WorkspaceError(
            f"This workspace's database is at schema version {current}, newer than this "
            f"collie ({__version__}) knows ({len(MIGRATIONS)}).",
            "Upgrade collie to work with this workspace.",
        )
    return []


def create_database(path: Path, chosen: Mapping[str, Any], docs: Iterable[SeedFile]) -> None:
    """A new workspace database: the schema, workspace_info (language, the settings
    chosen at init) and the seed documents' rows, in one transaction."""
    conn = connect(path)
    try:
        migrate(conn)
        stamp = now_iso()
        with Database(conn, path.parent).batch():
            conn.executemany(
                "INSERT INTO workspace_info (key, value) VALUES (?, ?)",
                [
                    ("created_at", stamp),
                    ("created_with", f"collie {__version__}"),
                    ("language", str(chosen["language.code"])),
                    ("settings", json.dumps(dict(chosen), sort_keys=True)),
                ],
            )
            conn.executemany(
                "INSERT INTO seed_documents (role, lang, path, source, sha256, encoding, "
                "encoding_method, encoding_confidence, chars, words, added_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        d.role,
                        d.lang,
                        d.path,
                        d.source,
                        d.sha256,
                        d.encoding,
                        d.method,
                        d.confidence,
                        len(d.text),
                        d.words,
                        stamp,
                    )
                    for d in docs
                ],
            )
    finally:
        conn.close()


INIT_WARNINGS = "init_warnings"  # workspace_info: what init warned of, for `collie status`


def record_init_warnings(db: Path, warnings: Sequence[str]) -> None:
    """Keep what `collie init` warned of in workspace_info (issue 46)."""
    conn = connect(db)
    try:
        with Database(conn, db.parent).batch():
            conn.execute(
                "INSERT OR REPLACE INTO workspace_info (key, value) VALUES (?, ?)",
                (INIT_WARNINGS, json.dumps(list(warnings), ensure_ascii=False)),
            )
    finally:
        conn.close()


def read_init_facts(db: Path) -> tuple[dict[str, str], tuple[str, str, dict[str, Any]] | None]:
    """(workspace_info, the last query's backend, text and parameters) of a database
    opened read-only (for `collie init --recover`); changes nothing."""
    conn: sqlite3.Connection | None = None
    try:
        conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
        info = dict(conn.execute("SELECT key, value FROM workspace_info").fetchall())
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        last = QueryCache(Database(conn, db.parent)).last_query() if "queries" in names else None
    except sqlite3.DatabaseError as exc:
        raise WorkspaceError(
            f"{db} is not a usable SQLite database: {exc}; the settings cannot be recovered "
            "from it.",
            "Restore collie.db from a backup, or create a new workspace with `collie init` "
            "in another folder (seed/ and cache/ can be reused).",
        ) from exc
    finally:
        if conn is not None:
            conn.close()
    return info, last


class WorkspaceRecords:
    """What init recorded and the loops' history, on one open connection."""

    def __init__(self, db: Database) -> None:
        self.db, self.conn = db, db.conn

    def seed_summary(self) -> list[SeedSummary]:
        rows = self.conn.execute(
            "SELECT role, lang, COUNT(*), SUM(words), SUM(chars) FROM seed_documents "
            "GROUP BY role, lang ORDER BY role DESC, lang"
        ).fetchall()
        return [SeedSummary(r[0], r[1], r[2], r[3] or 0, r[4] or 0) for r in rows]

    def seed_documents(self, role: str | None = None) -> list[sqlite3.Row]:
        query = "SELECT * FROM seed_documents"
        if role:
            return self.conn.execute(query + " WHERE role = ? ORDER BY id", (role,)).fetchall()
        return self.conn.execute(query + " ORDER BY id").fetchall()

    def completed_loops(self) -> int:
        row = self.conn.execute("SELECT COUNT(*) FROM loops WHERE finished_at IS NOT NULL")
        return int(row.fetchone()[0])

    def loops(self) -> list[LoopRow]:
        rows = self.conn.execute("SELECT * FROM loops ORDER BY number").fetchall()
        return [
            LoopRow(
                r["number"], r["started_at"], r["finished_at"], r["search_stopped"], r["warc_bytes"]
            )
            for r in rows
        ]

    def info(self) -> dict[str, str]:
        rows = self.conn.execute("SELECT key, value FROM workspace_info ORDER BY key")
        return {r[0]: r[1] for r in rows}

    def init_warnings(self) -> list[str]:
        """What `collie init` warned of (none for a workspace made before issue 46)."""
        row = self.conn.execute(
            "SELECT value FROM workspace_info WHERE key = ?", (INIT_WARNINGS,)
        ).fetchone()
        return [str(line) for line in json.loads(row[0])] if row else []
