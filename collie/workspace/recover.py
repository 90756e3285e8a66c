"""`collie init --recover`: write again what a workspace lost, from what it still
holds: its collie.toml (from collie.db and seed/), or its language model when the file
is damaged (trained again from the seed documents, as init did)."""

from __future__ import annotations

import json
import os
import secrets
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from collie.config import check_value, lookup, render_toml
from collie.errors import ConfigError, InputError, WorkspaceError
from collie.langid.learn import base_model, train_workspace_model, workspace_model_path
from collie.langid.modelfile import read_model
from collie.workspace.create import hidden_languages
from collie.workspace.folder import (
    CONFIG_FILE,
    DB_FILE,
    SEED_WORDS_FILE,
    STAGING_PREFIX,
    is_workspace,
    open_workspace,
    read_settings,
    read_stored_facts,
    settings_missing,
    write_settings_file,
)


@dataclass(frozen=True)
class Recovered:
    """What `collie init --recover` wrote: each setting recovered with where it came from,
    and what it could not recover (at its default now, or picked anew)."""

    sources: dict[str, tuple[Any, str]]  # key -> (value, where it came from)
    lost: list[str]
    model: str | None = None  # the damaged language model rebuilt instead (issue 58)


AT_INIT = f"{DB_FILE}, as chosen at init"
RECOVERED_HEADER = (
    "# Written again by `collie init --recover` from collie.db and seed/ (the file was\n"
    "# missing); `collie init --recover` printed what it could not recover.\n"
)


def recover(root: Path) -> Recovered:
    """Write the missing collie.toml of the workspace at `root` again from what collie.db
    and seed/ know; nothing else is read or changed."""
    if is_workspace(root):
        if _model_damaged(root):
            return _rebuild_model(root)
        raise WorkspaceError(
            f"{root} has its {CONFIG_FILE} and a readable language model; there is nothing "
            "to recover.",
            "`collie config` shows its settings.",
        )
    if not settings_missing(root):
        raise WorkspaceError(
            f"{root} has no {DB_FILE}: it is not a collie workspace, there is nothing to recover.",
            "Create a workspace with `collie init --lang CODE --docs PATH`.",
        )
    facts = read_stored_facts(root)
    found = _init_settings(facts.info.get("settings"))
    lost = [] if found else ["every setting given at init (--set, --search, --search-url)"]
    if "language.code" not in found and "language" in facts.info:
        found["language.code"] = (facts.info["language"], f"{DB_FILE} (the language)")
    if "language.code" not in found:
        raise WorkspaceError(
            f"{root / DB_FILE} does not know the workspace's language: it is from a "
            "`collie init` that was interrupted before it finished.",
            "Move this folder aside (nothing in it is lost) and run `collie init` again "
            "in a new one.",
        )
    if facts.seed_words and "seeds.manual" not in found:
        found["seeds.manual"] = (SEED_WORDS_FILE, SEED_WORDS_FILE)
    _from_last_query(found, facts.last_query)
    if "run.seed" not in found:
        found["run.seed"] = (secrets.randbelow(2**31 - 1) + 1, "picked anew")
        lost.append("run.seed (a new one was picked: queries already sent are never sent again)")
    lost.append(f"any change made to {CONFIG_FILE} after init (check with `collie config`)")
    chosen = {key: value for key, (value, _where) in found.items()}
    write_settings_file(root, RECOVERED_HEADER + render_toml(chosen))
    return Recovered(found, lost)


@dataclass(frozen=True)
class SeedText:
    """A seed document as the model's training reads it."""

    role: str
    lang: str | None
    text: str


def _model_damaged(root: Path) -> bool:
    """Is the workspace's own language model there but unreadable, or gone while init
    trained one?"""
    path = workspace_model_path(root)
    if not path.is_file():
        with open_workspace(root, os.environ, {}) as ws:
            return ws.model_expected()
    try:
        read_model(path)
    except InputError:
        return True
    return False


def _rebuild_model(root: Path) -> Recovered:
    """Train the workspace's model again from its seed documents, as `init` did (the
    langid.hide of its settings), written whole over the damaged file. What later loops
    added to it (the relatives' contrast, a fitted target's neighbours) is made again by
    the next loop's passes."""
    settings = read_settings(root, os.environ, {})
    code = settings["language.code"]
    hidden = hidden_languages(settings["langid.hide"], code)
    with open_workspace(root, os.environ, {}) as ws:
        documents = [
            SeedText(row["role"], row["lang"], ws.path(row["path"]).read_text(encoding="utf-8"))
            for row in ws.seed_documents()
        ]
    path = workspace_model_path(root)
    with tempfile.TemporaryDirectory(prefix=STAGING_PREFIX, dir=root) as scratch:
        train_workspace_model(Path(scratch), code, documents, base_model(hidden))
        made = workspace_model_path(Path(scratch))
        if made.is_file():
            os.replace(made, path)
        else:  # too little seed text to train on: the bundled model is the workspace's
            path.unlink(missing_ok=True)
    return Recovered({}, [], str(path))


def _init_settings(stored: str | None) -> dict[str, tuple[Any, str]]:
    """The settings `collie init` chose, as it stored them in collie.db (valid ones)."""
    try:
        values = json.loads(stored) if stored else {}
    except ValueError:
        return {}
    found: dict[str, tuple[Any, str]] = {}
    for key, value in values.items() if isinstance(values, dict) else ():
        try:
            found[key] = (check_value(lookup(key, DB_FILE), value, DB_FILE), AT_INIT)
        except ConfigError:
            continue  # a setting this collie no longer has, or a value it refuses
    return found


def _from_last_query(
    found: dict[str, tuple[Any, str]], last: tuple[str, str, dict[str, Any]] | None
) -> None:
    """The search backend (and country, and domain restriction) of the last query sent."""
    if last is None:
        return
    backend, text, params = last
    where = f"the last query in {DB_FILE}"
    previous = found.get("search.backend", ("searxng", ""))[0]
    if backend != previous:
        found.pop("search.url", None)  # the endpoint of another backend
    found["search.backend"] = (backend, where)
    if params.get("country"):
        found["search.country"] = (str(params["country"]), where)
    if "(site:" in text:
        found["queries.tld"] = ("auto", where)
