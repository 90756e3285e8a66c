"""A small Zulu workspace for the mining parts' unit tests: made once a session by
`collie init`, copied for each test, opened, and its Store and RunConfig at hand."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from collie.cli import main
from collie.langid.model import LangModel
from collie.langid.modelfile import load_model
from collie.mining.config import RunConfig
from collie.mining.records import RunEvents
from collie.workspace.folder import Workspace, open_workspace

ZULU = (
    "Bonke abantu bazalwa bekhululekile futhi belingana ngesithunzi nangamalungelo. "
    "Bahlanganiswe wumcabango nangunembeza futhi kufanele baphathane ngomoya wobunye. "
    "Wonke umuntu unelungelo lokuphila, lenkululeko nokuvikeleka komuntu siqu. "
    "Akekho umuntu oyobanjwa ebugqilini noma ekusebenziseni ngendluzula."
)


class Lines(RunEvents):
    """A run's events that keep the lines it prints."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def line(self, text: str) -> None:
        self.lines.append(text)


@pytest.fixture(scope="session")
def template_ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("mining-template")
    docs = folder / "zulu.txt"
    docs.write_text(ZULU + "\n", encoding="utf-8")
    root = folder / "ws"
    with pytest.raises(SystemExit) as done:
        main(["init", "-w", str(root), "--lang", "zul", "--docs", str(docs)])
    assert done.value.code == 0
    return root


@pytest.fixture(scope="session")
def model() -> LangModel:
    return load_model()


def open_copy(template: Path, tmp_path: Path, **flags: object) -> Workspace:
    """A fresh copy of the template workspace, opened with `flags` as settings."""
    root = tmp_path / "ws"
    shutil.copytree(template, root)
    chosen = {name.replace("__", "."): (value, "test") for name, value in flags.items()}
    return open_workspace(root, os.environ, chosen)


@pytest.fixture
def ws(template_ws: Path, tmp_path: Path) -> Iterator[Workspace]:
    with open_copy(template_ws, tmp_path) as opened:
        yield opened


def at_depth(config: RunConfig, depth: int) -> RunConfig:
    """`config` crawling `depth` links deep (crawl.depth)."""
    return replace(config, crawl=replace(config.crawl, depth=depth))
