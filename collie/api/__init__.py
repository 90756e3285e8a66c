"""collie's Python API (docs/api.md): what the commands do, for a program or a notebook.

    import collie
    collie.identify("Kila mtu ana haki ya kupumzika").lang         # 'swh'
    ws = collie.init("zulu-corpus", "zul", docs="zulu-texts/")
    ws.run(loops=2); ws.status(); list(ws.documents())

One module a use case: langid.py (identify), create.py (init), mine.py (run),
archives.py (scan), corpus.py (status, documents, export); workspace.py is the face
(`Workspace`, `init`, `scan`), options.py what every use case takes (settings
overrides, the workspace a path names), outputs.py where one may write. The command line
(collie/cli/) parses, calls these same functions, and prints.

The names below are imported when first asked for, so that `import collie` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collie.api.langid import Identification, identify, identify_texts
    from collie.api.workspace import Workspace, init, scan
    from collie.mining.records import RunEvents

__all__ = ["Identification", "RunEvents", "Workspace", "identify", "identify_texts", "init", "scan"]


def __getattr__(name: str) -> Any:
    """An API name, its module imported on first use."""
    if name in ("Identification", "identify", "identify_texts"):
        import collie.api.langid as module
    elif name in ("Workspace", "init", "scan"):
        import collie.api.workspace as module  # type: ignore[no-redef]
    elif name == "RunEvents":
        import collie.mining.records as module  # type: ignore[no-redef]
    else:
        raise AttributeError(f"module 'collie.api' has no attribute {name!r}")
    value = getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
