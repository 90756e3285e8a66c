"""The workspace: a directory holding everything a project learns and produces.

    collie.toml   settings (see config.py)
    collie.db     SQLite (WAL, foreign keys); schema by ordered migrations (store/migrations.py)
    seed/         the user's documents, as UTF-8 text (docs/, wronglang/CODE/, seed-words.txt)
    cache/ models/ exports/ logs/

This module finds, creates, opens and locks workspaces and keeps the settings and the
seed documents' files; every table is read and written by store/ (the database itself:
store/database.py). `init` validates and reads all input before it writes anything,
writes `collie.toml` (the marker other commands look for) last and atomically, and
removes only what it created if it fails.
"""

from __future__ import annotations

import errno
import fcntl
import os
import secrets
import shutil
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from collie.config import Settings, load_settings, read_toml, render_toml
from collie.errors import ConfigError, SettingsFileMissing, UsageProblem, WorkspaceError
from collie.files import atomic_write
from collie.langid.learn import (
    MIN_DOCUMENT_CHARS,
    load_model_for,
    missing_model_error,
    workspace_model_path,
)
from collie.langid.model import LangModel
from collie.languages import Language, get_language, resolve_language
from collie.store.base import Database
from collie.store.database import (
    READ_ONLY_ERRNOS,
    WorkspaceRecords,
    create_database,
    open_database,
    read_init_facts,
    read_only_error,
    writable,
)
from collie.store.search import QueryCache
from collie.workspace.seedfiles import SeedDocument, SeedPlan

CONFIG_FILE = "collie.toml"
DB_FILE = "collie.db"
DIRECTORIES = ("seed", "models", "exports", "logs")  # warc/ (or cache/) comes with a run
WORKSPACE_ENV = "COLLIE_WORKSPACE"
SEED_WORDS_FILE = "seed/seed-words.txt"
LOCK_FILE = "collie.lock"


def is_workspace(path: Path) -> bool:
    return (path / CONFIG_FILE).is_file()


def settings_missing(path: Path) -> bool:
    """A workspace whose collie.toml is gone: collie.db is there, the settings file not."""
    return (path / DB_FILE).is_file() and not (path / CONFIG_FILE).exists()


def settings_missing_error(root: Path) -> SettingsFileMissing:
    """What every command says in a workspace whose collie.toml is gone (or in the
    leftovers of an interrupted `collie init`, whose database knows no language)."""
    try:
        interrupted = "language" not in read_stored_facts(root).info
    except WorkspaceError:
        interrupted = True
    if interrupted:
        return SettingsFileMissing(
            f"{root} has a {DB_FILE} but no {CONFIG_FILE}, and the database knows no "
            "language: an interrupted `collie init` left it; nothing was changed.",
            f"Move {DB_FILE} and seed/ aside (into another folder; nothing is lost), then "
            "run `collie init` again.",
        )
    return SettingsFileMissing(
        f"{root} is a collie workspace whose settings file, {CONFIG_FILE}, is missing "
        f"({DB_FILE} and seed/ are there, untouched).",
        f"Run `collie init --recover -w {root}`: it writes {CONFIG_FILE} again from what "
        f"{DB_FILE} and seed/ know and says which settings it could not recover. Or put "
        f"back {CONFIG_FILE} from a backup.",
    )


def find_workspace(explicit: Path | None, environ: Mapping[str, str], cwd: Path) -> Path:
    """The workspace root: `-w DIR`, else $COLLIE_WORKSPACE, else cwd or a parent of it."""
    given = explicit or (Path(environ[WORKSPACE_ENV]) if environ.get(WORKSPACE_ENV) else None)
    if given is not None:
        root = (cwd / given).resolve()
        if settings_missing(root):
            raise settings_missing_error(root)
        if not is_workspace(root):
            source = "-w/--workspace" if explicit else f"${WORKSPACE_ENV}"
            raise WorkspaceError(
                f"{root} ({source}) is not a collie workspace: it has no {CONFIG_FILE}.",
                "Run `collie init --lang CODE --docs PATH` there first.",
            )
        return root
    for candidate in (cwd.resolve(), *cwd.resolve().parents):
        if is_workspace(candidate):
            return candidate
        if settings_missing(candidate):
            raise settings_missing_error(candidate)
    raise WorkspaceError(
        f"No collie workspace in {cwd} or any parent directory.",
        "Run `collie init --lang CODE --docs PATH` to create one, or point to one "
        f"with -w DIR or ${WORKSPACE_ENV}.",
    )


@dataclass
class Workspace:
    """An open workspace: its root, effective settings and database connection."""

    root: Path
    settings: Settings
    conn: sqlite3.Connection
    migrated: list[str] = field(default_factory=list)
    read_only: bool = False  # this process can only read it (issue 46): no command writes
    search_run: int | None = None  # the run whose search requests are counted (search_runs)
    db: Database = field(init=False)  # the one handle every store of it shares

    def __post_init__(self) -> None:
        self.db = Database(self.conn, self.root)

    @property
    def language(self) -> Language:
        return get_language(self.settings["language.code"])

    def path(self, relative: str) -> Path:
        return self.root / relative

    def model(self) -> LangModel:
        """The workspace's language model (its own, else the bundled one) with its
        langid.threshold and langid.min_chars: what `run`, `reprocess` and `export`
        identify with. Its own model gone while init trained one is an error."""
        if not workspace_model_path(self.root).is_file() and self.model_expected():
            raise missing_model_error(workspace_model_path(self.root))
        return load_model_for(self.root).with_settings(
            self.settings["langid.threshold"], self.settings["langid.min_chars"]
        )

    def model_expected(self) -> bool:
        """Did init train a model of the workspace's own (models/langid.npz)? It does
        when langid.hide takes languages out, or the target seed documents hold
        MIN_DOCUMENT_CHARS characters (collie.langid.learn.ensure_workspace_model)."""
        if self.settings["langid.hide"]:
            return True
        return sum(len(text) for text in self.seed_texts("target")) >= MIN_DOCUMENT_CHARS

    @property
    def records(self) -> WorkspaceRecords:
        """What init recorded and the loops' history (store/database.py)."""
        return WorkspaceRecords(self.db)

    def seed_documents(self, role: str | None = None) -> list[sqlite3.Row]:
        return self.records.seed_documents(role)

    def seed_texts(self, role: str) -> list[str]:
        """The texts of the seed documents of one role ("target" or "wronglang")."""
        return [
            self.path(row["path"]).read_text(encoding="utf-8") for row in self.seed_documents(role)
        ]

    def completed_loops(self) -> int:
        return self.records.completed_loops()

    def manual_seed_words(self) -> list[str]:
        name = self.settings["seeds.manual"]
        if not name:
            return []
        path = self.path(name)
        if not path.is_file():
            raise WorkspaceError(
                f"seeds.manual names {name}, which does not exist in the workspace.",
                "Restore the file or clear seeds.manual in collie.toml.",
            )
        return read_word_list(path.read_text(encoding="utf-8"))

    @property
    def queries(self) -> QueryCache:
        """The search cache (store/search.py)."""
        return QueryCache(self.db, self.search_run)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_word_list(text: str) -> list[str]:
    """Words of a seed-word file: one per line; blank lines and `#` comments ignored."""
    words: list[str] = []
    for line in text.splitlines():
        word = line.split("#", 1)[0].strip().lower()
        if word and word not in words:
            words.append(word)
    return words


class RunLock:
    """One `collie run` per workspace: an exclusive lock on `collie.lock` (released by
    the system when the process ends, even by kill -9), holding the owner's PID."""

    def __init__(self, root: Path) -> None:
        self.path = root / LOCK_FILE
        self._fd: int | None = None

    def __enter__(self) -> RunLock:
        if not writable(self.path.parent / DB_FILE):
            raise read_only_error(self.path.parent)
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            if exc.errno in READ_ONLY_ERRNOS:
                raise read_only_error(self.path.parent) from exc
            raise
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            owner = os.read(fd, 32).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            raise WorkspaceError(
                f"Another collie run (PID {owner}) is working in this workspace.",
                "Wait for it to finish, or stop it (Ctrl-C) and run again.",
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fd is not None:
            os.ftruncate(self._fd, 0)
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


def read_settings(
    root: Path | None, environ: Mapping[str, str], flags: Mapping[str, tuple[Any, str]]
) -> Settings:
    """Effective settings of a workspace (or, with root None, outside any workspace)."""
    toml_values: dict[str, Any] = {}
    if root is not None:
        path = root / CONFIG_FILE
        try:
            text = path.read_bytes().decode("utf-8")
        except OSError as exc:
            raise WorkspaceError(f"Cannot read {path}: {exc.strerror}.") from exc
        except UnicodeDecodeError as exc:
            line = exc.object[: exc.start].count(b"\n") + 1
            raise ConfigError(
                f"{path} is not UTF-8 text: byte {exc.object[exc.start]:#04x} at offset "
                f"{exc.start} (line {line}) cannot be decoded; nothing was read.",
                "Save the file as UTF-8 (TOML requires it), or restore it from a copy.",
            ) from exc
        toml_values = read_toml(text, str(path))
    settings = load_settings(toml_values, environ, flags)
    if root is not None and "language.code" in toml_values:
        check_language_fixed(settings, toml_values["language.code"])
    return settings


def check_language_fixed(settings: Settings, fixed: str) -> None:
    """Refuse a language.code other than the one the workspace was made for (`fixed`),
    whether from --set, a COLLIE_ environment variable or an edited collie.toml: a
    workspace's corpus, model and seed words are of one language (issue 46)."""
    entry = settings.entry("language.code")
    if entry.value == fixed:
        return
    try:
        name = f"{get_language(fixed).display_name} ({fixed})"
    except KeyError:
        name = repr(fixed)
    if _names_language(str(entry.value), fixed):  # "Zulu" or "zu" in a zul workspace
        raise ConfigError(
            f"language.code takes the ISO 639-3 code: {entry.source} gives {entry.value!r}, "
            f"which names {name}, this workspace's language; nothing was changed.",
            (
                f'Write code = "{fixed}" under [language] in {CONFIG_FILE}.'
                if entry.source == CONFIG_FILE
                else f"Leave out the {entry.source}: language.code is {fixed} already."
            ),
        )
    raise ConfigError(
        f"language.code is fixed at init: this workspace was made for {name}, and "
        f"{entry.source} asks for {entry.value!r}; nothing was changed.",
        (
            f'Put back code = "{fixed}" under [language] in {CONFIG_FILE}.'
            if entry.source == CONFIG_FILE
            else f"Leave out the {entry.source}."
        )
        + " To mine "
        f"{entry.value or 'another language'}, make a new workspace in another folder: "
        f"`collie init --lang {entry.value or 'CODE'} --docs PATH -w NEW-FOLDER`.",
    )


def _names_language(value: str, code: str) -> bool:
    """Does `value` (a name, a 639-1 code) name the language `code`?"""
    try:
        return resolve_language(value).language.code == code
    except UsageProblem:
        return False


def open_workspace(
    root: Path, environ: Mapping[str, str], flags: Mapping[str, tuple[Any, str]]
) -> Workspace:
    """Open a workspace found by `find_workspace`, applying pending migrations."""
    settings = read_settings(root, environ, flags)
    code = settings["language.code"]
    try:
        lang = get_language(code)
    except KeyError:
        lang = None
    if lang is None or not lang.active:
        raise WorkspaceError(
            f"{root / CONFIG_FILE}: language.code {code!r} is not an active ISO 639-3 code.",
            'Set language.code to the target language\'s code, e.g. code = "luo".',
        )
    db = root / DB_FILE
    if not db.is_file():
        raise WorkspaceError(
            f"{root} has {CONFIG_FILE} but no {DB_FILE}: the workspace is broken.",
            "Restore collie.db from a backup, or create a new workspace with `collie init`.",
        )
    if db.stat().st_size == 0:  # SQLite would take it for a new database and fill it
        raise WorkspaceError(
            f"{db} is empty (0 bytes): the workspace's database was lost or truncated.",
            "Restore collie.db from a backup; or move this folder aside and create a new "
            "workspace with `collie init` (the seed/ and cache/ folders can be reused).",
        )
    read_only = not writable(db)
    conn, applied = open_database(db, read_only)
    workspace = Workspace(root, settings, conn, applied, read_only)
    try:
        fixed = workspace.records.info().get("language")
        if fixed:
            check_language_fixed(settings, fixed)
    except BaseException:
        conn.close()
        raise
    return workspace


def check_can_init(root: Path) -> None:
    """Refuse to initialise over an existing (or half-made) workspace."""
    if is_workspace(root):
        raise WorkspaceError(
            f"{root} is already a collie workspace; nothing was changed.",
            "Use `collie status` to see it, or choose another directory with -w DIR.",
        )
    if settings_missing(root):
        raise settings_missing_error(root)
    if (root / DB_FILE).exists():
        raise WorkspaceError(
            f"{root / DB_FILE} exists but is not a file; nothing was changed.",
            "Initialise the workspace in another directory with -w DIR.",
        )
    existing = next((p for p in (root, *root.parents) if p.exists()), root)
    if not writable(existing / DB_FILE):  # the folder (or the nearest one that exists)
        raise WorkspaceError(
            f"{existing} is read-only: `collie init` cannot create a workspace in "
            f"{root}; nothing was written.",
            "Initialise the workspace in a folder you can write, with -w DIR.",
        )
    seed = root / "seed"
    if seed.exists() and (not seed.is_dir() or any(seed.iterdir())):
        raise WorkspaceError(
            f"{seed} already exists and is not empty; collie keeps the seed documents there.",
            "Move it away or initialise the workspace in another directory with -w DIR.",
        )


STAGING_PREFIX = ".collie-init-"  # the folder `init` builds a workspace in (issue 58)


@contextmanager
def staged_workspace(root: Path) -> Iterator[Path]:
    """A new empty folder on `root`'s filesystem to build a workspace in, moved into
    place by `publish_workspace`; removed, with any folder made for it, when the block
    fails. Beside `root` when `root` is not there yet (then one rename publishes it
    whole), inside it when it is (the current directory, or a folder of the user's)."""
    made: list[Path] = []
    clear_stale_staging(root)
    token = f"{os.getpid()}-{secrets.token_hex(4)}"  # the PID: whether it is still alive
    staging = (
        root / f"{STAGING_PREFIX}{token}"
        if root.exists()
        else root.parent / f"{STAGING_PREFIX}{root.name}-{token}"
    )
    try:
        try:
            _make_parents(staging.parent, made)
            staging.mkdir()
        except OSError as exc:
            if exc.errno in (errno.ENOSPC, errno.EDQUOT):
                raise
            where = Path(exc.filename).parent if exc.filename else staging.parent
            raise WorkspaceError(
                f"cannot make a workspace at {root}: no folder can be made in "
                f"{where} ({exc.strerror}); nothing was written.",
                "Initialise the workspace in a folder you can write, with -w DIR.",
            ) from exc
        yield staging
    except BaseException:
        with suppress(OSError):  # (not there, or its place is no folder: /dev/null/x)
            _remove(staging)
        for folder in reversed(made):
            _rmdir_if_empty(folder)
        raise
    _remove(staging)  # (gone by now, unless the workspace is inside it)


def clear_stale_staging(root: Path) -> list[Path]:
    """Remove the folders an `init` of `root` was building in when it was killed (its
    process is gone: the PID in the folder's name); returns them."""
    places = [(root, STAGING_PREFIX), (root.parent, f"{STAGING_PREFIX}{root.name}-")]
    removed = []
    for folder, prefix in places:
        try:
            found = (
                [p for p in folder.iterdir() if p.name.startswith(prefix)]
                if folder.is_dir()
                else []
            )
        except OSError:
            continue
        for path in found:
            pid, _, token = path.name.removeprefix(prefix).partition("-")
            if not (pid.isdigit() and len(token) == 8 and path.is_dir()):
                continue
            if _alive(int(pid)):
                continue
            _remove(path)
            removed.append(path)
    return removed


def _alive(pid: int) -> bool:
    """Is there a process `pid` (on this machine)?"""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's
    return True


def publish_workspace(staging: Path, root: Path) -> None:
    """Move the workspace built in `staging` to `root`: one rename when `root` is not
    there; else each entry renamed into `root`, collie.toml (the marker other commands
    look for) last. Renames take no space, so a full disk cannot stop them halfway."""
    if not root.exists():
        staging.rename(root)
        return
    moved: list[Path] = []
    entries = sorted(staging.iterdir(), key=lambda p: p.name == CONFIG_FILE)
    try:
        for entry in entries:
            target = root / entry.name
            if target.is_dir() and not target.is_symlink() and entry.is_dir():
                for child in entry.iterdir():  # a folder of the user's (logs/, models/)
                    child.rename(target / child.name)
                    moved.append(target / child.name)
            else:
                entry.rename(target)
                moved.append(target)
    except BaseException:
        for path in reversed(moved):
            _remove(path)
        raise


def _make_parents(folder: Path, made: list[Path]) -> None:
    """Make `folder` and its missing parents, each added to `made` once made."""
    for path in [p for p in (folder, *folder.parents) if not p.exists()][::-1]:
        path.mkdir()
        made.append(path)


def _rmdir_if_empty(folder: Path) -> None:
    with suppress(OSError):
        folder.rmdir()


def create_workspace(
    root: Path, chosen: Mapping[str, Any], plan: SeedPlan, seed_words: list[str]
) -> None:
    """Create a workspace at `root` from validated input; all or nothing (`init` builds
    it in a staging folder, `staged_workspace`, and publishes it whole)."""
    check_can_init(root)
    created: list[Path] = []
    try:
        if not root.exists():
            root.mkdir(parents=True)
            created.append(root)
        for name in DIRECTORIES:
            if not (root / name).exists():
                (root / name).mkdir()
                created.append(root / name)
        created += [root / "seed" / name for name in ("docs", "wronglang", "seed-words.txt")]
        _write_seed_files(root, plan.documents, seed_words)
        created.append(root / DB_FILE)
        create_database(root / DB_FILE, chosen, plan.documents)
        write_settings_file(root, render_toml(chosen))
    except BaseException:
        for path in reversed(created):
            _remove(path)
        for leftover in _sqlite_sidecars(root / DB_FILE):
            _remove(leftover)
        raise


def write_settings_file(root: Path, text: str) -> None:
    """Write collie.toml atomically (a temporary file renamed over it)."""
    with atomic_write(root / CONFIG_FILE, "w") as handle:
        handle.write(text)


@dataclass(frozen=True)
class StoredFacts:
    """What a workspace's database and seed/ folder know of its settings."""

    info: dict[str, str]  # workspace_info: language, created_at, the settings chosen at init
    last_query: tuple[str, str, dict[str, Any]] | None  # backend, text, parameters
    seed_words: bool  # seed/seed-words.txt is there


def read_stored_facts(root: Path) -> StoredFacts:
    """Read what collie.db and seed/ know (for `collie init --recover`); changes nothing."""
    info, last = read_init_facts(root / DB_FILE)
    return StoredFacts(info, last, (root / SEED_WORDS_FILE).is_file())


def _write_seed_files(root: Path, documents: list[SeedDocument], seed_words: list[str]) -> None:
    for doc in documents:
        target = root / doc.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(doc.text, encoding="utf-8")
    if seed_words:
        (root / SEED_WORDS_FILE).write_text("\n".join(seed_words) + "\n", encoding="utf-8")


def _sqlite_sidecars(db: Path) -> list[Path]:
    return [db.with_name(db.name + suffix) for suffix in ("-wal", "-shm", "-journal")]


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)
