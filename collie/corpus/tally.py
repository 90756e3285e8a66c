"""What a default export's per-loop counts depend on (`tally_fingerprint`): the key
under which `collie export` and `collie status` keep them (store/tallies.py), so status
shows them without exporting again while nothing they depend on has changed."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from collie.langid.learn import WORKSPACE_MODEL, workspace_model_path
from collie.langid.modelfile import BUNDLED
from collie.store.tallies import TallyStore
from collie.version import __version__
from collie.workspace.folder import Workspace

# The settings an export's counts depend on: the target, the site-boilerplate rule, the
# target text a document must hold, and the language model's (the sentences of a
# code-switched paragraph).
SETTINGS = ("language.code", "extract.site_repeats", "langid.min_target_words",
            "langid.threshold", "langid.min_chars")  # fmt: skip


def tally_fingerprint(ws: Workspace) -> str:
    """The corpus's changes (store/tallies.py, `corpus_version`), the settings the export
    reads (SETTINGS), the language model file it marks paragraphs with (the workspace's,
    else the bundled one: its size and time) and collie's version, as one string."""
    model, name = workspace_model_path(ws.root), WORKSPACE_MODEL  # (a moved workspace's too)
    if not model.is_file():
        model, name = Path(str(resources.files("collie").joinpath(BUNDLED))), "bundled"
    try:
        stat = model.stat()
        stamp: list[Any] = [name, stat.st_size, stat.st_mtime_ns]
    except OSError:  # a model inside a zip file: its name (and collie's version)
        stamp = [name]
    return json.dumps(
        {
            "corpus": TallyStore(ws.db).corpus_version(),
            "settings": [ws.settings[key] for key in SETTINGS],
            "model": stamp,
            "collie": __version__,
        },
        sort_keys=True,
    )
