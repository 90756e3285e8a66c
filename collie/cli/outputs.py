"""--force: replace an output the user named (where a command may write is the API's
rule: collie/api/outputs.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


def force_option(func: F) -> F:
    """--force: replace an existing file (or an earlier export's folder)."""
    return click.option(
        "--force",
        is_flag=True,
        help="Replace the output if it exists (never one of the workspace's own files).",
    )(func)
