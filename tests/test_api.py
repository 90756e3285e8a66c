"""The Python API (collie/api/, docs/api.md): every example of docs/api.md runs, one
after another as a reader would run them, against the small Zulu world behind the proxy
(tests/zuluworld.py, served on 127.0.0.1); and what the API answers is what the commands
print: the documents are the rows `collie export --format jsonl` writes, the languages
those `collie langid identify` prints, the status that of `collie status --json`.

The page's examples point at a SearXNG on localhost:8888, as a reader's would; the
environment (the settings layer above collie.toml) points the workspace at the closed
world's search engine instead, with the small world's settings (zuluworld.SETTINGS).
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import collie
from collie.config import lookup
from collie.errors import ConfigError, UsageProblem, WorkspaceError
from collie.mininet.server import MiniWebServer
from collie.udhr import load_declarations

from .clihelp import run_collie
from .zuluworld import SETTINGS, ZuluWorld, page

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "api.md"
ARCHIVE = "cc/CC-MAIN-example.warc.gz"  # the file the page's scan example reads
ARCHIVE_SITE = "http://www.umlando.example.za"  # a Zulu site only the archive holds
TEXTS = [
    "Kila mtu ana haki ya kupumzika na kupata burudani",
    "Abantu bonke bazalwa bekhululekile futhi balingana ngesithunzi nangamalungelo",
    "Toute personne a droit au repos et aux loisirs",
    "Everyone has the right to rest and leisure",
    "12345",
    "!!! ...",
    "ab",
]


def examples() -> list[str]:
    """The ```python blocks of docs/api.md, in order."""
    return re.findall(r"^```python\n(.*?)^```$", PAGE.read_text(encoding="utf-8"), re.M | re.S)


def write_archive(path: Path, pages: dict[str, str]) -> None:
    """A WARC file of `pages` (URL -> HTML), each a response record as Common Crawl's."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as out:
        writer = WARCWriter(out, gzip=True, warc_version="WARC/1.0")
        for url, html in pages.items():
            body = html.encode("utf-8")
            status = StatusAndHeaders(
                "200 OK", [("Content-Type", "text/html; charset=utf-8")], protocol="HTTP/1.1"
            )
            record = writer.create_warc_record(
                url, "response", payload=io.BytesIO(body), length=len(body), http_headers=status
            )
            writer.write_record(record)


@pytest.fixture(scope="module")
def documented(
    closed_web: tuple[MiniWebServer, ZuluWorld], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    """docs/api.md's examples run in a fresh folder holding the files they name; yields
    the names they made (`ws`, `report`...) and what they printed."""
    server, made = closed_web
    folder = tmp_path_factory.mktemp("reader")
    (folder / "zulu-texts").mkdir()
    (folder / "zulu-texts" / "zulu.txt").write_text(made.seed_text, encoding="utf-8")
    heldout = load_declarations()["zul"].heldout_paragraphs()
    write_archive(
        folder / ARCHIVE,
        {f"{ARCHIVE_SITE}/{n}": page(f"Umlando {n}", heldout[6 * n : 6 * n + 6]) for n in (0, 1)},
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        for assignment in [*SETTINGS, f"search.url={server.search_url}"]:
            key, value = assignment.split("=", 1)
            patch.setenv(lookup(key, "test").env_var, value)
        namespace: dict[str, Any] = {}
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            for number, code in enumerate(examples(), start=1):
                exec(compile(code, f"docs/api.md, example {number}", "exec"), namespace)
        namespace["printed"], namespace["folder"] = printed.getvalue(), folder
        yield namespace


def test_every_example_of_the_page_runs(documented: dict[str, Any]) -> None:
    printed = documented["printed"].splitlines()
    assert printed[0] == "swh 1.0"
    assert [line.split()[0] for line in printed[1:4]] == ["zul", "fra", "zxx"]
    assert any(line.startswith("loop 2: ") and "pages fetched" in line for line in printed)
    assert "True" in printed  # the second run had nothing to do
    report, scanned = documented["again"], documented["report"]
    assert report.already_done and not report.loops
    assert scanned.files == 1 and scanned.documents == 2
    assert "is not a collie workspace" in documented["printed"]


def test_documents_are_the_rows_export_writes(
    documented: dict[str, Any], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Row for row, key for key: a default JSON-lines export, and one with options."""
    ws = documented["ws"]
    for options in ([], ["--min-share", "0.5", "--segments", "all", "--source", "archive"]):
        out = tmp_path / f"export{len(options)}.jsonl"
        done = run_collie(capsys, "-w", str(ws.root), "export", str(out), "--format", "jsonl",
                          *options)  # fmt: skip
        assert done.code == 0, done.err
        written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        if options:
            documents = list(ws.documents(min_share=0.5, segments="all", source="archive"))
        else:
            documents = list(collie.Workspace(ws.root).documents())
        assert documents == written
        assert len(written) >= 2 and {"url", "text", "paragraphs", "warc"} <= set(written[0])
    sources = {d["source"] for d in ws.documents()}
    assert sources == {"search", "crawl", "archive"}


def shown_data(answer: collie.Identification, text: str) -> dict[str, Any]:
    """What `collie langid identify --json` prints of a text the API answered so."""
    return {
        "lang": answer.lang,
        "prob": round(answer.probability, 4),
        "chars": len(text),
        "top": [{"lang": c, "prob": round(p, 4)} for c, p in answer.top],
    }


def test_identify_answers_what_langid_identify_prints(
    documented: dict[str, Any], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A text on a line of its own (`collie.identify`), and all of them in one file
    (`identify_texts`, --top 3); with the bundled model and with a workspace's."""
    for number, text in enumerate(TEXTS):
        file = tmp_path / f"{number}.txt"
        file.write_text(text + "\n", encoding="utf-8")
        answer = collie.identify(text)
        shown = run_collie(capsys, "langid", "identify", str(file), "--json")
        assert json.loads(shown.out) == [shown_data(answer, text)]
        probs = run_collie(capsys, "langid", "identify", str(file), "--probs").out
        assert probs == f"{answer.lang}\t{answer.probability:.3f}\n"
    every = tmp_path / "every.txt"
    every.write_text("\n".join(TEXTS) + "\n", encoding="utf-8")
    ws = documented["ws"]
    for where, answers in (
        ([], collie.identify_texts(TEXTS, top=3)),
        (["-w", str(ws.root)], collie.identify_texts(TEXTS, top=3, workspace=ws.root)),
    ):
        shown = run_collie(capsys, *where, "langid", "identify", str(every), "--json", "--top", "3")
        assert json.loads(shown.out) == [
            shown_data(a, t) for a, t in zip(answers, TEXTS, strict=True)
        ]
        assert [a.lang for a in answers][:4] == ["swh", "zul", "fra", "eng"]
        assert [a.lang for a in answers[4:]] == ["zxx", "zxx", "und"]  # numbers, signs, "ab"
    alone = run_collie(capsys, "-w", str(ws.root), "langid", "identify", str(tmp_path / "1.txt"))
    assert alone.out == ws.identify(TEXTS[1]).lang + "\n" == "zul\n"


def test_status_is_what_status_prints(
    documented: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    ws = documented["ws"]
    shown = run_collie(capsys, "-w", str(ws.root), "status", "--json")
    assert shown.code == 0, shown.err
    assert ws.status() == json.loads(shown.out)
    assert [loop["number"] for loop in ws.status()["loops"]] == [1, 2, 3]  # 3: the scan's


def test_report_and_review_results_are_what_the_commands_print(
    documented: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    ws = documented["ws"]
    shown = run_collie(capsys, "-w", str(ws.root), "report", "--json")
    assert shown.code == 0, shown.err
    assert json.loads(json.dumps(ws.report())) == json.loads(shown.out)
    results = run_collie(capsys, "-w", str(ws.root), "review", "--results", "--json")
    assert results.code == 0, results.err
    assert json.loads(json.dumps(ws.review_results())) == json.loads(results.out)


def test_the_command_line_goes_on_with_a_workspace_the_api_made(
    documented: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    ws = documented["ws"]
    done = run_collie(capsys, "-w", str(ws.root), "run", "--loops", "2", "--json")
    assert done.code == 0, done.err
    assert json.loads(done.out)["already_done"] and "nothing to do" in done.err
    again = run_collie(capsys, "-w", str(ws.root), "scan", str(documented["folder"] / ARCHIVE))
    assert again.code == 0 and "1 files were scanned before and skipped" in again.err


def test_settings_and_options_are_checked(documented: dict[str, Any], tmp_path: Path) -> None:
    root = documented["ws"].root
    with pytest.raises(ConfigError, match=r"Did you mean fetch\.delay"):
        collie.Workspace(root, settings={"fetch.dealy": 2})
    with pytest.raises(ConfigError, match="must be a number"):
        collie.Workspace(root, settings={"fetch.delay": "slow"})
    with pytest.raises(ConfigError, match="loops="):
        collie.Workspace(root).run(loops=0)
    with pytest.raises(UsageProblem, match="source must be one of"):
        list(collie.Workspace(root).documents(source="web"))
    with pytest.raises(WorkspaceError, match="not a collie workspace"):
        collie.Workspace(tmp_path)
    ws = collie.Workspace(root, settings={"fetch.delay": 2})
    assert ws.status()["settings"]["fetch.delay"] == {
        "value": 2.0,
        "source": "flag (settings['fetch.delay'])",
    }


def test_import_collie_loads_only_what_is_used() -> None:
    """`import collie` loads no other collie module; `collie.identify` the language model
    and settings, not the loop, the corpus or the command line."""
    code = (
        "import sys, collie\n"
        "before = sorted(m for m in sys.modules if m.startswith('collie'))\n"
        "collie.identify('Abantu bonke bazalwa bekhululekile')\n"
        "after = {m.split('.', 1)[1] for m in sys.modules if m.startswith('collie.')}\n"
        "after |= {m.split('.')[0] for m in after}\n"
        "print(before, sorted(after & {'mining', 'corpus', 'cli', 'crawl', 'api.workspace'}))\n"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, cwd=ROOT)  # fmt: skip
    assert shown.stdout.split() == ["['collie',", "'collie.version']", "[]"]
