"""Running the real `collie` entry point in-process, with its exit-code mapping."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from collie.cli import main


@dataclass
class Run:
    code: int
    out: str
    err: str


def run_collie(capsys: pytest.CaptureFixture[str], *args: str) -> Run:
    capsys.readouterr()
    with pytest.raises(SystemExit) as info:
        main(list(args))
    captured = capsys.readouterr()
    code = info.value.code if isinstance(info.value.code, int) else 1
    return Run(code, captured.out, captured.err)
