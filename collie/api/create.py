"""Making a workspace: what `collie init` does (collie.workspace.create decides and
creates; this is its one call, for the command line and for Python)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from collie.api.options import Flags, Notes, log_note
from collie.workspace.create import Created, InitRequest, create
from collie.workspace.recover import Recovered, recover


def create_workspace(
    root: Path,
    lang: str,
    docs: Sequence[Path] = (),
    wronglang: Sequence[str] = (),
    seed_words: Path | None = None,
    encoding: str | None = None,
    force: bool = False,
    flags: Flags | None = None,
    notes: Notes = log_note,
) -> Created:
    """Make `root` a workspace for `lang` from its seed documents (`docs`, files or
    folders), wrong-language text (`wronglang`: `[CODE=]PATH` each) and seed words; the
    settings in `flags` are written into its collie.toml. Nothing is created when it is
    refused; `notes` hears the warnings and what the model learnt."""
    request = InitRequest(
        root, lang, tuple(docs), tuple(wronglang), seed_words, encoding, force, flags or {}
    )
    return create(request, notes)


def recover_settings(root: Path) -> Recovered:
    """Write the missing collie.toml of the workspace at `root` again (`collie init
    --recover`), from what its collie.db and seed/ know."""
    return recover(root)
