"""The command line: help, exit codes, error lines, config sources, language lookups."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from collie import cli as cli_module
from collie.corpus import status as corpus_status

from .clihelp import run_collie


@pytest.fixture
def workspace(tmp_path: Path, capsys, monkeypatch) -> Path:
    doc = tmp_path / "doc.txt"
    doc.write_text("Ng'ato ka ng'ato nyalo bedo gi thuolo.\n", encoding="utf-8")
    root = tmp_path / "ws"
    result = run_collie(
        capsys, "init", "-w", str(root), "--lang", "luo", "--force", "--docs", str(doc)
    )
    assert result.code == 0, result.err
    monkeypatch.chdir(root)
    for name in list(os.environ):
        if name.startswith("COLLIE_"):
            monkeypatch.delenv(name)
    return root


def test_help_lists_the_commands(capsys) -> None:
    result = run_collie(capsys, "--help")
    assert result.code == 0
    for command in ("init", "status", "config", "language"):
        assert f"  {command} " in result.out
    bare = run_collie(capsys)  # `collie` alone: the same help, on stdout, status 0
    assert (bare.code, bare.out, bare.err) == (0, result.out, "")


@pytest.mark.parametrize(
    "command",
    sorted(cli_module.cli.commands)
    + [f"langid {name}" for name in sorted(cli_module.cli.commands["langid"].commands)],
)
def test_every_command_has_help_with_an_example(capsys, command: str) -> None:
    result = run_collie(capsys, *command.split(), "--help")
    assert result.code == 0
    assert "Example:" in result.out and f"collie {command}" in result.out


def test_version(capsys) -> None:
    result = run_collie(capsys, "--version")
    assert result.code == 0 and "collie" in result.out


def test_usage_errors_exit_2(capsys) -> None:
    assert run_collie(capsys, "init").code == 2  # missing --lang
    assert run_collie(capsys, "no-such-command").code == 2
    assert run_collie(capsys, "--set", "nope=1", "config").code == 2
    assert run_collie(capsys, "config", "fetch.dealy").code == 2
    unknown = run_collie(capsys, "language", "xx-nonsense")
    assert unknown.code == 2 and "Closest matches" in unknown.err


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e999", "Infinity"])
def test_number_options_refuse_nan_and_inf(capsys, tmp_path: Path, value: str) -> None:
    """click's FloatRange lets nan and inf through its bounds."""
    demo = run_collie(capsys, "demo", "--out", str(tmp_path / "d"), "--delay", value)
    assert demo.code == 2 and "Invalid value for '--delay'" in demo.err, demo.err
    assert not (tmp_path / "d").exists()
    export = run_collie(capsys, "export", "--min-share", value, str(tmp_path / "c.txt"))
    assert export.code == 2 and "Invalid value for '--min-share'" in export.err, export.err


def test_unexpected_error_is_one_line_with_a_hint(capsys, workspace: Path, monkeypatch) -> None:
    def boom(*args: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(corpus_status, "status_data", boom)
    result = run_collie(capsys, "status")
    assert result.code == 1
    assert result.err.splitlines() == [
        "collie: error: unexpected RuntimeError: disk on fire",
        "Rerun with --traceback to see where.",
    ]
    traced = run_collie(capsys, "--traceback", "status")
    assert traced.code == 1 and "Traceback (most recent call last)" in traced.err


def test_ctrl_c_exits_130(capsys, workspace: Path, monkeypatch) -> None:
    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(corpus_status, "status_data", interrupted)
    result = run_collie(capsys, "status")
    assert result.code == 130 and "interrupted" in result.err


def test_config_shows_each_source(capsys, workspace: Path, monkeypatch) -> None:
    toml = workspace / "collie.toml"
    text = toml.read_text().replace("# depth = 5", "depth = 3")
    toml.write_text(text.replace("# delay = 1.0", "delay = 2.0"), encoding="utf-8")
    monkeypatch.setenv("COLLIE_FETCH_DELAY", "4")
    monkeypatch.setenv("COLLIE_SEEDS_COUNT", "50")
    result = run_collie(capsys, "--set", "seeds.count=60", "config", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["fetch.workers"] == {"value": 64, "source": "default"}
    assert data["crawl.depth"] == {"value": 3, "source": "collie.toml"}
    assert data["fetch.delay"] == {"value": 4.0, "source": "environment (COLLIE_FETCH_DELAY)"}
    assert data["seeds.count"] == {"value": 60, "source": "flag (--set seeds.count)"}
    one = run_collie(capsys, "config", "crawl.depth")
    assert one.out.split() == ["crawl.depth", "3", "collie.toml"]
    status = json.loads(run_collie(capsys, "status", "--json").out)
    expected = {"language.code", "run.seed", "crawl.depth", "fetch.delay", "seeds.count"}
    assert set(status["settings"]) == expected


def test_config_outside_a_workspace(capsys, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("COLLIE_WORKSPACE", raising=False)
    result = run_collie(capsys, "config", "--json")
    assert result.code == 0
    assert "Not in a workspace" in result.err
    assert json.loads(result.out)["fetch.delay"]["source"] == "default"


def test_bad_toml_value_is_an_error_naming_the_file(capsys, workspace: Path) -> None:
    toml = workspace / "collie.toml"
    toml.write_text(
        toml.read_text().replace("# workers = 64", "workers = 'lots'"), encoding="utf-8"
    )
    result = run_collie(capsys, "status")
    assert result.code == 1
    assert "collie.toml" in result.err and "fetch.workers must be an integer" in result.err


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_absurd_delays_are_refused_before_anything_is_fetched(
    capsys, workspace: Path, monkeypatch
) -> None:
    before = _files(workspace)
    flag = run_collie(capsys, "--set", "fetch.delay=inf", "run", "--loops", "1")
    assert flag.code == 2 and "fetch.delay must be a finite number" in flag.err
    assert "at least 0 and at most 3600, not 'inf'" in flag.err
    option = run_collie(capsys, "run", "--max-time", "nan")
    assert option.code == 1 and "--max-time: run.max_time must be a finite number" in option.err
    monkeypatch.setenv("COLLIE_FETCH_DELAY", "NaN")
    env = run_collie(capsys, "run")
    assert env.code == 1 and "COLLIE_FETCH_DELAY" in env.err and "'NaN'" in env.err
    monkeypatch.delenv("COLLIE_FETCH_DELAY")
    toml = workspace / "collie.toml"
    text = toml.read_text()
    toml.write_text(text.replace("# delay = 1.0", "delay = -inf"), encoding="utf-8")
    in_file = run_collie(capsys, "status")
    assert in_file.code == 1 and "collie.toml: fetch.delay must be a finite number" in in_file.err
    toml.write_text(text, encoding="utf-8")
    assert _files(workspace) == before  # no page stored, nothing changed
    huge = run_collie(capsys, "--set", "run.max_pages=99999999999999999999", "config")
    assert huge.code == 2 and "at most 2147483647" in huge.err


def test_init_persists_set_values(capsys, tmp_path: Path) -> None:
    doc = tmp_path / "doc.txt"
    doc.write_text("Ji duto onyuol ka gin thuolo.\n", encoding="utf-8")
    root = tmp_path / "ws"
    result = run_collie(
        capsys, "init", "-w", str(root), "--lang", "luo", "--force", "--docs", str(doc),
        "--set", "language.extra_domains=.tz,.ug",
    )  # fmt: skip
    assert result.code == 0, result.err
    assert 'extra_domains = [".tz", ".ug"]' in (root / "collie.toml").read_text()


def test_language_json(capsys) -> None:
    result = run_collie(capsys, "language", "luo", "--json")
    assert result.code == 0
    data = json.loads(result.out)
    assert data["code"] == "luo"
    assert {"code": "KE", "name": "Kenya", "domain": ".ke"} in data["countries"]
    assert data["domains"] == [".ke"]
    assert "Dholuo" in data["autonyms"]


def test_language_by_name_and_macrolanguage_note(capsys) -> None:
    by_name = run_collie(capsys, "language", "Dholuo")
    assert by_name.code == 0 and by_name.out.startswith("code           luo")
    assert "KE Kenya" in by_name.out and ".ke" in by_name.out
    sw = run_collie(capsys, "language", "sw")
    assert sw.out.startswith("code           swh") and "swa" in sw.err
    macro = run_collie(capsys, "language", "swa", "--json")
    assert json.loads(macro.out)["principal_member"] == "swh"


def test_progress_is_plain_lines_when_stderr_is_not_a_terminal(capsys, monkeypatch) -> None:
    """Redirected output (nohup, a batch job's log) gets a line every PLAIN_EVERY
    seconds, with what the stage holds, and no bar frames."""
    from collie.cli import progress

    monkeypatch.setattr(progress, "PLAIN_EVERY", 0.0)
    events = progress.CliEvents(quiet=False, terminal=False)
    events.stage(1, "fetch", None)
    events.status("3 target docs, 5 hosts in flight, 2 waiting, 40 queued")
    events.advance(7)
    events.close()
    err = capsys.readouterr().err
    assert "\r" not in err
    assert err.splitlines()[-1] == (
        "loop 1 fetch: 7 pages, 3 target docs, 5 hosts in flight, 2 waiting, 40 queued"
    )
    quiet = progress.CliEvents(quiet=True, terminal=False)
    quiet.stage(1, "fetch", None)
    quiet.advance(7)
    assert capsys.readouterr().err == ""


def test_global_flags_after_the_command_and_help_in_sections(capsys, tmp_path, monkeypatch) -> None:
    """-q, -v, -w and --set go before or after the command name; `collie --help` lists
    the commands by section, with the exit statuses."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("COLLIE_WORKSPACE", raising=False)
    after = run_collie(capsys, "status", "-q", "-v")
    before = run_collie(capsys, "-q", "-v", "status")
    assert after.code == before.code == 1 and "No collie workspace" in after.err
    help_text = run_collie(capsys, "--help").out
    sections = ["Mining:", "The corpus:", "Languages:", "The closed-world web:", "Exit status:"]
    assert all(s in help_text for s in sections)
    assert help_text.index("  init ") < help_text.index("  run ") < help_text.index("  export ")


@pytest.mark.parametrize("how", ["--set", "environment", "collie.toml"])
def test_a_workspace_language_is_fixed_at_init(
    workspace: Path, capsys, monkeypatch, how: str
) -> None:
    """`--set language.code=xho` (or COLLIE_LANGUAGE_CODE, or an edited collie.toml) on a
    Dholuo workspace is an error that says the language is fixed and how to mine another;
    nothing changes (issue 46)."""
    toml = workspace / "collie.toml"
    args = ["status"]
    if how == "--set":
        args += ["--set", "language.code=xho"]
    elif how == "environment":
        monkeypatch.setenv("COLLIE_LANGUAGE_CODE", "xho")
    else:
        toml.write_text(toml.read_text().replace('code = "luo"', 'code = "xho"'))
    before = toml.read_text()
    export = ["export", str(workspace / "exports" / "corpus.txt"), *args[1:]]
    for command in (args, export):
        result = run_collie(capsys, *command)
        assert result.code == 1, result.err
        assert "language.code is fixed at init" in result.err
        assert "made for Luo (luo)" in result.err and "collie init --lang xho" in result.err
        assert result.out == ""
    assert toml.read_text() == before
    assert not list((workspace / "exports").iterdir())
    same = run_collie(capsys, "status", "--set", "language.code=luo")  # no change: fine
    assert same.code == (1 if how == "collie.toml" else 0), same.err


def test_a_misspelt_environment_variable_is_named_with_the_setting_meant(
    workspace: Path, capsys, monkeypatch
) -> None:
    monkeypatch.setenv("COLLIE_FETCH_MAXBYTES", "1000")
    monkeypatch.setenv("COLLIE_WORKSPACE", str(workspace))  # not a setting, but known
    result = run_collie(capsys, "config")
    assert result.code == 0, result.err
    assert (
        "COLLIE_FETCH_MAXBYTES is not a collie setting and is ignored; did you mean "
        "COLLIE_FETCH_MAX_BYTES (fetch.max_bytes)?"
    ) in result.err
    assert "COLLIE_WORKSPACE" not in result.err
    assert "COLLIE_" not in result.out  # results only on stdout


def test_init_refuses_a_language_code_that_is_not_its_lang(tmp_path: Path, capsys) -> None:
    doc = tmp_path / "doc.txt"
    doc.write_text("Ng'ato ka ng'ato nyalo bedo gi thuolo.\n", encoding="utf-8")
    root = tmp_path / "ws"
    args = ["init", "-w", str(root), "--lang", "luo", "--force", "--docs", str(doc)]
    result = run_collie(capsys, *args, "--set", "language.code=xho")
    assert result.code == 2, result.err
    assert "--lang names Luo (luo), and flag (--set language.code) names 'xho'" in result.err
    assert not root.exists()
