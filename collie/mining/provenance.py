"""Which language model identified a page, kept with the page (issue 57): the model's
version and the SHA-256 of its file, and the langid.threshold it ran with, beside the
figures of the page's own labels (classify.language_figures: the margin between the
top two languages, the characters classified), which the worker sets.

    stamp = model_stamp(ws.root, model)    # ModelStamp("bundled, collie 0.1.0", "9f…", 0.5)
    stamp.apply(outcomes)                  # on every outcome the model labelled

The version names the file: the bundled model (with collie's version, which ships it)
or the workspace's own (models/langid.npz: learnt from the seed documents, or by the
relatives pass). The hash is the file's as `collie report` shows it, so a document's
hash says whether the corpus's model is still the one that classified it. A model is
written to its file before pages are judged with it (init, the relatives pass), so the
file is the model in use; its threshold is a setting, not in the file.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from collie.decide.classify import language_figures
from collie.langid.learn import workspace_model_path
from collie.langid.model import LangModel
from collie.langid.modelfile import BUNDLED
from collie.models import PageOutcome
from collie.version import __version__

_HASHES: dict[tuple[str, int, int], str] = {}  # (path, size, mtime_ns) -> SHA-256


@dataclass(frozen=True)
class ModelStamp:
    """The model that identified a page: its version, its file's SHA-256, its threshold."""

    version: str
    sha256: str | None
    threshold: float | None

    def apply(self, outcomes: Iterable[PageOutcome]) -> None:
        """Stamp the outcomes the model labelled (those with characters classified)."""
        for outcome in outcomes:
            if outcome.lid_chars is not None:
                outcome.lid_model, outcome.lid_sha256 = self.version, self.sha256
                outcome.lid_threshold = self.threshold


def model_file(root: Path | None) -> tuple[str, Path]:
    """The version and the file of the model a workspace at `root` identifies with."""
    own = workspace_model_path(root) if root is not None else None
    if own is not None and own.is_file():
        return "workspace", own
    return f"bundled, collie {__version__}", Path(str(resources.files("collie") / BUNDLED))


def file_sha256(path: Path) -> str | None:
    """The SHA-256 of a file (remembered while its size and time stay), None if absent."""
    try:
        stat = path.stat()
    except OSError:
        return None
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key not in _HASHES:
        _HASHES[key] = hashlib.sha256(path.read_bytes()).hexdigest()
    return _HASHES[key]


def model_stamp(root: Path | None, model: LangModel | None = None) -> ModelStamp:
    """The stamp of the model a workspace at `root` identifies with (`model`: the one
    loaded from it, for its threshold)."""
    version, path = model_file(root)
    threshold = float(model.threshold) if model is not None else None
    return ModelStamp(version, file_sha256(path), threshold)


def stamped_figures(
    stamp: ModelStamp, pages: Iterable[tuple[int, Sequence[Any]]]
) -> list[tuple[str, str | None, float | None, float, int, int]]:
    """The provenance rows of pages labelled again by the stamp's model ((page id,
    paragraphs as the documents row holds them: [text, language, probability, ...])),
    for the store's `set_langid`."""
    rows = []
    for page_id, paragraphs in pages:
        chars, margin = language_figures([(p[0], p[1], p[2]) for p in paragraphs])
        rows.append((stamp.version, stamp.sha256, stamp.threshold, margin, chars, page_id))
    return rows
