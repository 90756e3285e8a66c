"""Loggers are named by their module; log lines keep the names users knew (one release)."""

from __future__ import annotations

import ast
import logging
from pathlib import Path

import pytest

from collie.api.mine import RUN_LOG, close_run_log, open_run_log
from collie.cli.options import configure_logging
from collie.lognames import LOGGER_ALIASES, AliasFormatter, shown_name

from .test_layout import PACKAGE, modules

# Modules that still name their logger by hand (the mining rewrite switches them).
HAND_NAMED: set[str] = set()


def logger_names(path: Path) -> list[str]:
    """What each module-level `logging.getLogger(...)` of a file is given, as source."""
    names = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        value = getattr(node, "value", None)
        if (
            isinstance(node, ast.Assign | ast.AnnAssign)
            and isinstance(value, ast.Call)
            and ast.unparse(value.func) == "logging.getLogger"
        ):
            names.append(ast.unparse(value.args[0]) if value.args else "")
    return names


def test_module_loggers_are_named_by_their_module() -> None:
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).as_posix() not in HAND_NAMED:
            assert set(logger_names(path)) <= {"__name__"}, path.relative_to(PACKAGE)


def test_every_alias_is_a_module_and_keeps_its_old_name() -> None:
    assert set(LOGGER_ALIASES) <= modules()
    assert shown_name("collie.fetch.fetcher") == "collie.fetch"
    assert shown_name("collie.mining.loop") == "collie.pipeline"
    assert shown_name("collie.pipeline") == "collie.pipeline"  # a hand-named one as it is
    assert shown_name("urllib3.connectionpool") == "urllib3.connectionpool"


def test_a_line_shows_the_old_name_and_the_record_keeps_the_module(
    caplog: pytest.LogCaptureFixture,
) -> None:
    record = logging.LogRecord("collie.search.base", logging.WARNING, "x", 1, "m %s", ("a",), None)
    assert AliasFormatter("%(levelname)s %(name)s: %(message)s").format(record) == (
        "WARNING collie.search: m a"
    )
    assert record.name == "collie.search.base"


def test_stderr_and_the_run_log_show_the_old_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    path, handler = open_run_log(tmp_path)
    try:
        configure_logging(0)
        logging.getLogger("collie.fetch.fetcher").warning("robots.txt could not be fetched")
        RUN_LOG.info("loop 1: 3 pages fetched")
    finally:
        close_run_log(handler)
        for added in [h for h in root.handlers if h not in handlers]:
            root.removeHandler(added)
        root.setLevel(level)
    assert "WARNING collie.fetch: robots.txt could not be fetched" in capsys.readouterr().err
    text = path.read_text(encoding="utf-8")
    assert " WARNING collie.fetch: robots.txt could not be fetched\n" in text
    assert " INFO collie.runlog: loop 1: 3 pages fetched\n" in text
