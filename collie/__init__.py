"""collie: mine the web for clean text corpora in resource-scarce languages.

The Python API (docs/api.md) is named here: `collie.identify`, `collie.identify_texts`,
`collie.Workspace`, `collie.init`, `collie.scan` (collie/api/). Each is imported when
first used, so `import collie`, and the command line's start-up, stay as quick as they
were: this module imports collie.api only inside `__getattr__` (tests/test_layout.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from collie.version import __version__ as __version__

if TYPE_CHECKING:
    from collie.api import (
        Identification,
        RunEvents,
        Workspace,
        identify,
        identify_texts,
        init,
        scan,
    )

__all__ = ["Identification", "RunEvents", "Workspace", "identify", "identify_texts", "init", "scan"]


def __getattr__(name: str) -> Any:
    """An API name (`__all__`), from collie.api on first use."""
    if name not in __all__:
        raise AttributeError(f"module 'collie' has no attribute {name!r}")
    from collie import api

    value = getattr(api, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
