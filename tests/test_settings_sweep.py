"""Every number setting at the ends of its range, and just outside them, as a user types
it (issue 46): the ends are taken and give a run configuration that works (no overflow,
no lost pages); a value just outside is a clear error naming the setting and its range,
from --set (exit 2) and from the environment (exit 1), never a traceback."""

from __future__ import annotations

import json
import math
import os
import threading
from pathlib import Path

import pytest

from collie.config import SETTINGS, Setting, load_settings, value_range
from collie.decide.dedup import BlockIndex
from collie.languages import get_language
from collie.mining.config import RunConfig

from .clihelp import Run, run_collie

NUMBERS = [s for s in SETTINGS if s.kind in (int, float)]


def literal(setting: Setting, value: float) -> str:
    return str(int(value)) if setting.kind is int else repr(float(value))


def ends(setting: Setting) -> list[float]:
    """The lowest and highest value, and the value that switches it off, if any."""
    low, high = value_range(setting) or (0, 0)
    return [low, high, *([] if setting.off is None else [setting.off])]


def outside(setting: Setting) -> list[float]:
    """A value just below the range and one just above it (never the off value)."""
    low, high = value_range(setting) or (0, 0)
    if setting.kind is int:
        return [low - 1, high + 1]
    below = math.nextafter(low, -math.inf) if low != setting.off else low - 1e-9
    if below == setting.off:
        below = math.nextafter(below, -math.inf)
    return [below, math.nextafter(high, math.inf)]


@pytest.fixture(autouse=True)
def outside_a_workspace(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith("COLLIE_"):
            monkeypatch.delenv(name)


def config(capsys, setting: Setting, *args: str) -> Run:
    return run_collie(capsys, "config", setting.key, "--json", *args)


@pytest.mark.parametrize("setting", NUMBERS, ids=lambda s: s.key)
def test_the_ends_of_every_range_are_taken_and_work(capsys, setting: Setting) -> None:
    for value in ends(setting):
        typed = literal(setting, value)
        result = config(capsys, setting, "--set", f"{setting.key}={typed}")
        assert result.code == 0, result.err
        assert json.loads(result.out)[setting.key]["value"] == value
        settings = load_settings({}, {}, {setting.key: (value, "--set")})
        run = RunConfig.from_settings(settings, get_language("zul"))  # what a run reads
        if setting.key == "search.rate_limit" and value:
            assert 1.0 / run.search.rate_limit < threading.TIMEOUT_MAX  # a wait it can sleep
        if setting.key == "dedup.max_distance":
            assert BlockIndex(int(value)).max_distance == value


@pytest.mark.parametrize("setting", NUMBERS, ids=lambda s: s.key)
def test_just_outside_every_range_is_a_clear_error(capsys, monkeypatch, setting: Setting) -> None:
    low, high = value_range(setting) or (0, 0)
    shown = [str(int(v)) if float(v).is_integer() else str(v) for v in (low, high)]
    for value in outside(setting):
        typed = literal(setting, value)
        flag = config(capsys, setting, "--set", f"{setting.key}={typed}")
        monkeypatch.setenv(setting.env_var, typed)
        env = config(capsys, setting)
        monkeypatch.delenv(setting.env_var)
        for result, code in ((flag, 2), (env, 1)):
            assert result.code == code, result.err
            said = " ".join(result.err.split())
            assert setting.key in said and f"at least {shown[0]} and at most {shown[1]}" in said
            assert "Traceback" not in result.err and "unexpected" not in result.err
            assert result.out == ""


def test_the_values_the_issue_met_are_refused_with_what_they_would_do(capsys) -> None:
    """fetch.max_bytes=1 lost 158 pages; dedup.max_distance=63 left 1 document;
    search.rate_limit=1e-300 ended in an OverflowError (issue 46)."""
    for assignment, effect in (
        ("fetch.max_bytes=1", "text after the cut is lost"),
        ("dedup.max_distance=63", "copies of each other"),
        ("search.rate_limit=1e-300", "would not end"),
    ):
        result = run_collie(capsys, "run", "--set", assignment)
        assert result.code == 2 and assignment.split("=")[0] in result.err, result.err
        assert effect in " ".join(result.err.split()), result.err
