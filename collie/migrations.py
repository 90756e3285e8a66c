"""The workspace database's schema: ordered migrations, recorded in table `migrations`.

Never edit a migration that has been released; append a new one. A database whose schema
is newer than this collie knows is refused rather than guessed at.
"""

from __future__ import annotations

import datetime as dt
import sqlite3

from collie import __version__
from collie.errors import WorkspaceError

MIGRATIONS: list[tuple[str, list[str]]] = [
    (
        "initial",
        [
            """CREATE TABLE workspace_info (
                key TEXT PRIMARY KEY,
                value TEXT NOT NULL
            )""",
            """CREATE TABLE seed_documents (
                id INTEGER PRIMARY KEY,
                role TEXT NOT NULL CHECK (role IN ('target', 'wronglang')),
                lang TEXT,
                path TEXT NOT NULL UNIQUE,
                source TEXT NOT NULL,
                sha256 TEXT NOT NULL,
                encoding TEXT NOT NULL,
                encoding_method TEXT NOT NULL,
                encoding_confidence REAL NOT NULL,
                chars INTEGER NOT NULL,
                words INTEGER NOT NULL,
                added_at TEXT NOT NULL
            )""",
            """CREATE TABLE loops (
                number INTEGER PRIMARY KEY CHECK (number >= 1),
                started_at TEXT NOT NULL,
                finished_at TEXT
            )""",
        ],
    ),
    (
        "search-cache",
        [
            # One row per distinct query; status 'pending' is written before the request
            # is sent, so a crash leaves 'pending' (turned 'lost', never re-sent).
            """CREATE TABLE queries (
                id INTEGER PRIMARY KEY,
                backend TEXT NOT NULL,
                text TEXT NOT NULL,
                params TEXT NOT NULL,
                loop INTEGER,
                words TEXT,
                status TEXT NOT NULL CHECK (status IN ('pending', 'done', 'failed', 'lost')),
                attempts INTEGER NOT NULL DEFAULT 0,
                created_at TEXT NOT NULL,
                finished_at TEXT,
                result_count INTEGER,
                raw TEXT,
                error TEXT,
                UNIQUE (backend, text, params)
            )""",
            """CREATE TABLE search_results (
                query_id INTEGER NOT NULL REFERENCES queries (id) ON DELETE CASCADE,
                rank INTEGER NOT NULL,
                url TEXT NOT NULL,
                canonical_url TEXT NOT NULL,
                title TEXT NOT NULL,
                snippet TEXT NOT NULL,
                PRIMARY KEY (query_id, rank)
            )""",
            "CREATE INDEX search_results_by_url ON search_results (canonical_url)",
        ],
    ),
]


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def schema_version(conn: sqlite3.Connection) -> int:
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'migrations'"
    ).fetchone()
    if not exists:
        return 0
    row = conn.execute("SELECT MAX(id) FROM migrations").fetchone()
    return int(row[0] or 0)


def migrate(conn: sqlite3.Connection) -> list[str]:
    """Apply pending migrations in order, one transaction each; return their names."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS migrations ("
        "id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
    )
    current = schema_version(conn)
    if current > len(MIGRATIONS):
        raise WorkspaceError(
            f"This workspace's database is at schema version {current}, newer than this "
            f"collie ({__version__}) knows ({len(MIGRATIONS)}).",
            "Upgrade collie to work with this workspace.",
        )
    applied = []
    for number, (name, statements) in enumerate(MIGRATIONS, start=1):
        if number <= current:
            continue
        with conn:
            for statement in statements:
                conn.execute(statement)
            conn.execute(
                "INSERT INTO migrations (id, name, applied_at) VALUES (?, ?, ?)",
                (number, name, _now()),
            )
        applied.append(name)
    return applied
