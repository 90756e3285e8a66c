"""The README's command reference matches `--help`; its two commands are what CI runs.

Regenerate the reference with `python tests/test_readme.py`.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import click
from click.testing import CliRunner

from collie.cli import cli

README = Path(__file__).resolve().parent.parent / "README.md"
START, END = "<!-- cli-reference start -->", "<!-- cli-reference end -->"
COMMANDS = [
    [],
    ["init"],
    ["status"],
    ["config"],
    ["language"],
    ["seeds"],
    ["queries"],
    ["safetynet"],
    ["search"],
    ["run"],
    ["reprocess"],
    ["export"],
    ["report"],
    ["review"],
    ["extract"],
    ["langid"],
    ["langid", "identify"],
    ["langid", "languages"],
    ["langid", "train"],
    ["langid", "eval"],
    ["mininet"],
    ["mininet", "build"],
    ["mininet", "docs"],
    ["mininet", "manifest"],
    ["mininet", "serve"],
    ["mininet", "score"],
    ["demo"],
]


def reference() -> str:
    runner = CliRunner()
    parts = []
    for command in COMMANDS:
        result = runner.invoke(cli, [*command, "--help"], prog_name="collie", terminal_width=88)
        assert result.exit_code == 0, result.output
        title = " ".join(["collie", *command])
        parts.append(f"### {title}\n\n```text\n{result.output.rstrip()}\n```\n")
    return "\n".join(parts)


def replace_reference(text: str) -> str:
    before, rest = text.split(START, 1)
    _, after = rest.split(END, 1)
    return f"{before}{START}\n{reference()}{END}{after}"


def test_every_command_is_in_the_reference() -> None:
    names = {(name,) for name in cli.commands}
    for group in ("langid", "mininet"):
        commands = cli.commands[group]
        assert isinstance(commands, click.Group)
        names |= {(group, name) for name in commands.commands}
    assert names == {tuple(c) for c in COMMANDS if c}


def test_command_reference_is_current() -> None:
    text = README.read_text(encoding="utf-8")
    assert text == replace_reference(text), "run `python tests/test_readme.py` to regenerate"


def test_two_commands_and_ci() -> None:
    text = README.read_text(encoding="utf-8")
    section = text.split("## The two commands", 1)[1].split("##", 1)[0]
    commands = re.findall(r"^    (make \w+)", section, flags=re.M)
    assert commands == ["make demo", "make test"]
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert [line for line in ci.splitlines() if line.startswith("make")] == ["make test"]


if __name__ == "__main__":
    README.write_text(replace_reference(README.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"updated {README}", file=sys.stderr)
