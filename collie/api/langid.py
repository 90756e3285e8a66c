"""Identifying the language of texts: what `collie langid identify` answers, for Python.

`identify` and `identify_texts` load the model as the command does (a model file, else
the workspace's, else the bundled one; the `und` rules of langid.threshold and
langid.min_chars from the workspace's settings, the environment and the overrides) and
answer through `identify_with`, which the command calls too.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from collie.api.options import Flags, PathLike, as_flags, workspace_root
from collie.langid.learn import load_model_for, workspace_model_path
from collie.langid.model import LangModel
from collie.langid.modelfile import read_model
from collie.workspace.folder import open_workspace, read_settings


@dataclass(frozen=True)
class Identification:
    """A text's language (ISO 639-3; `und` when unsure, too short or without letters)
    and its probability; `top`, the most probable languages with theirs (one: the
    answer itself)."""

    lang: str
    probability: float
    top: tuple[tuple[str, float], ...] = ()


def language_model(
    root: Path | None = None, model: PathLike | None = None, flags: Flags | None = None
) -> LangModel:
    """`model` (a .npz file), else the workspace's model at `root`, else the bundled
    one; with the `und` settings of the workspace (or, with none, of the defaults and
    the environment) under `flags`."""
    if model is None and root is not None and not workspace_model_path(root).is_file():
        with open_workspace(root, os.environ, flags or {}) as ws:
            ws.model()  # init trained one and it is gone: named, not the bundled one used
    loaded = read_model(Path(model)) if model is not None else load_model_for(root)
    settings = read_settings(root, os.environ, flags or {})
    return loaded.with_settings(settings["langid.threshold"], settings["langid.min_chars"])


def identify_with(model: LangModel, texts: Sequence[str], top: int = 1) -> list[Identification]:
    """The language of each text (`collie langid identify`: one text a line), with the
    `top` most probable languages when more than one is asked for."""
    labels = model.identify_batch(texts)
    ranked = model.top(texts, top) if top > 1 else [[label] for label in labels]
    return [
        Identification(lang, probability, tuple(row))
        for (lang, probability), row in zip(labels, ranked, strict=True)
    ]


def identify(
    text: str,
    *,
    workspace: PathLike | None = None,
    model: PathLike | None = None,
    settings: Mapping[str, Any] | None = None,
) -> Identification:
    """The language of `text`, as `collie langid identify` prints it for a line: with
    the bundled model, or the workspace's (`workspace`: its folder), or a model file
    (`model`); `settings` overrides langid.threshold and langid.min_chars."""
    return identify_texts([text], workspace=workspace, model=model, settings=settings)[0]


def identify_texts(
    texts: Iterable[str],
    *,
    top: int = 1,
    workspace: PathLike | None = None,
    model: PathLike | None = None,
    settings: Mapping[str, Any] | None = None,
) -> list[Identification]:
    """The language of each text (the model loaded once), with its `top` most probable
    languages: `collie langid identify --top K` over a file of these lines."""
    root = workspace_root(workspace) if workspace is not None else None
    chosen = language_model(root, model, as_flags(settings))
    return identify_with(chosen, list(texts), top)
