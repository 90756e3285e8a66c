"""`collie langid ...`: identify languages, list them, train a new one (click only)."""

from __future__ import annotations

import click

from collie.cli import CONTEXT


@click.group(context_settings=CONTEXT)
def langid() -> None:
    """Language identification over 400+ languages (ISO 639-3 codes).

    \b
    Example:
      echo "Abantu bonke bazalwa bekhululekile" | collie langid identify
      collie langid languages
    """


# langid eval: see collie/langid/evaluate.py
