"""`collie demo`: the whole story on a closed world, as a user would run it.

Builds the default world once (cached outside the repository, keyed by the generator's
source, so a changed generator builds a new one), serves it on a free port of 127.0.0.1
with a request log, then runs the real command line against it, over HTTP only:

    collie init --lang zul --docs SEED-DOCS --search searxng --search-url URL ...
    collie run --loops 2
    collie export corpus.txt            (and corpus.jsonl; and corpus/, for scoring)

and scores the corpus against the world's ground truth: the `--format dir` export, whose
files hold what corpus.txt holds, each named with its URL in the manifest. The mining
commands run in child processes with HTTP_PROXY pointing at the server: collie meets
this web exactly as it meets the real one.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from collie.errors import CollieError, InputError, WorkspaceError
from collie.mininet.build import build
from collie.mininet.languages import RELATIVES
from collie.mininet.records import BuildOptions
from collie.mininet.score import Scores, read_export_dir, read_jsonl, score
from collie.mininet.server import MiniWebServer
from collie.mininet.worldfile import StoredWorld, WorldFile
from collie.udhr import cache_dir

GENERATOR = (
    "build.py",
    "rights.py",
    "records.py",
    "languages.py",
    "sites.py",
    "newsroom.py",
    "labelled.py",
    "texts.py",
    "pages.py",
    "layouts.py",
    "worldfile.py",
    "reach.py",
)
DEMO_SETTINGS = ("search.rate_limit=0", "queries.count=20", "search.results=20", "run.seed=7")
LEARN_RELATIVE_SHARE = 1 / 3  # of the learn-the-target world's sites, in close relatives
LEARN_SEED_EVERY = 2  # every second paragraph of the target's UDHR text is a seed document


def hidden_for(target: str) -> tuple[str, ...]:
    """What the demo hides from the model: the target and its close relatives, so that
    the target is learnt from the seed documents among relatives nothing knows."""
    return (target, *RELATIVES.get(target, ()))


def demo_options(sites: int = 300, seed: int = 1, learn: bool = False) -> BuildOptions:
    """The demo's world (Zulu); with `learn`, the world of the case where Zulu is learnt
    from seed documents (half its UDHR text) among relatives nothing knows (a third of
    the sites), mined with `hidden_for("zul")` hidden."""
    if not learn:
        return BuildOptions(sites=sites, seed=seed)
    return BuildOptions(
        sites=sites, seed=seed, relative_share=LEARN_RELATIVE_SHARE, seed_every=LEARN_SEED_EVERY
    )


@dataclass(frozen=True)
class DemoResult:
    """Where the demo left its files, and the scores."""

    world: Path
    workspace: Path
    corpus: Path
    log: Path
    scores: Scores
    seconds: float


def world_path(options: BuildOptions, cache: Path | None = None) -> Path:
    """The cached world file for `options` (named by the generator's source digest)."""
    digest = hashlib.sha256()
    for name in GENERATOR:
        digest.update((Path(__file__).parent / name).read_bytes())
    key = f"{options.key()}-{digest.hexdigest()[:12]}"
    return (cache or cache_dir()) / "mininet" / f"world-{key}.db"


def ensure_world(options: BuildOptions, cache: Path | None = None) -> tuple[Path, bool]:
    """(the world file, whether it was built now)."""
    path = world_path(options, cache)
    if path.is_file():
        return path, False
    path.parent.mkdir(parents=True, exist_ok=True)
    build(options, path)
    return path, True


def write_seed_docs(world: WorldFile, folder: Path, replace: bool = False) -> int:
    """Write the target text the world kept out of its pages; returns the word count.
    An existing file of the same name is replaced only with `replace`: without it,
    nothing is written (issue 46)."""
    docs = world.seed_docs()
    taken = [folder / name for name, _text in docs if (folder / name).exists()]
    if taken and not replace:
        raise InputError(
            f"{taken[0]} already exists"
            + (f" (and {len(taken) - 1} more of the seed files)" if len(taken) > 1 else "")
            + "; nothing was written.",
            "Give a new or empty folder, or add --force to replace them.",
        )
    folder.mkdir(parents=True, exist_ok=True)
    words = 0
    for name, text in docs:
        (folder / name).write_text(text, encoding="utf-8")
        words += len(text.split())
    return words


def prepare_out(out: Path) -> None:
    """Make the demo's folder, refusing one that holds files: before the world is built,
    so a place where no folder can be made fails at once, not minutes later."""
    if out.exists() and any(out.iterdir()):
        raise WorkspaceError(f"{out} is not empty.", "Give a new or empty --out folder.")
    out.mkdir(parents=True, exist_ok=True)


def run_demo(
    world_file: Path,
    out: Path,
    *,
    delay: float,
    loops: int = 2,
    settings: Sequence[str] = (),
    quiet: bool = False,
    echo: TextIO = sys.stderr,
    hide: Sequence[str] = (),
    export: Sequence[str] = (),
) -> DemoResult:
    """Mine the served world from a new workspace in `out`/workspace and score the corpus
    (`out` must be new or empty: the demo writes its workspace, seed documents, corpus
    and request log there). `settings` (KEY=VALUE) go to `collie init` after the demo's;
    `quiet` runs the commands with -q (no progress bars). `hide` is the workspace's
    langid.hide (the model does not know them; init then goes on with --force whatever
    the seed documents' size, and says so). `export`: more options for every export
    (e.g. `--segments all`)."""
    workspace, docs = out / "workspace", out / "seed-docs"
    prepare_out(out)
    started = time.monotonic()
    world = StoredWorld(world_file)
    words = write_seed_docs(world, docs)
    echo.write(f"seed documents: {docs} ({words} words of {world.target} kept out of the world)\n")
    hidden = list(hide)
    if hidden:
        echo.write(
            f"hidden from the language model (langid.hide): {', '.join(hidden)}; "
            f"{world.target} is learnt from the seed documents\n"
        )
    log = out / "requests.jsonl"
    log.unlink(missing_ok=True)
    corpus, jsonl, folder = out / "corpus.txt", out / "corpus.jsonl", out / "corpus"
    with MiniWebServer(world, log_file=log) as server:
        echo.write(f"serving {len(world.hosts)} sites through the proxy {server.proxy_url}\n")
        env = proxy_env(server.proxy_url)
        hiding = [f"langid.hide={','.join(hidden)}"] if hidden else []
        sets = [
            a
            for s in (*DEMO_SETTINGS, *hiding, f"fetch.delay={delay}", *settings)
            for a in ("--set", s)
        ]
        ws = str(workspace)
        init = [
            "init",
            "-w",
            ws,
            "--lang",
            world.target,
            "--docs",
            str(docs),
            "--search",
            "searxng",
            "--search-url",
            server.search_url,
            *sets,
            *(["--force"] if hidden else []),
        ]
        for args in (
            init,
            ["-w", ws, "run", "--loops", str(loops)],
            ["-w", ws, "export", str(corpus), *export],
            ["-w", ws, "export", str(jsonl), "--format", "jsonl", *export],
            ["-w", ws, "export", str(folder), "--format", "dir", *export],
        ):
            _collie(args, env, echo, quiet)
    scores = score(world, read_export_dir(folder), read_jsonl(log), delay)
    world.close()
    return DemoResult(world_file, workspace, corpus, log, scores, time.monotonic() - started)


def proxy_env(proxy: str) -> dict[str, str]:
    """This process's environment with `proxy` the only way out (no workspace set)."""
    env = {**os.environ, "HTTP_PROXY": proxy, "http_proxy": proxy}
    for name in ("NO_PROXY", "no_proxy", "HTTPS_PROXY", "https_proxy", "COLLIE_WORKSPACE"):
        env.pop(name, None)
    return env


def _collie(args: list[str], env: dict[str, str], echo: TextIO, quiet: bool = False) -> None:
    """Run `collie ARGS` in a child process; its stdout goes to `echo`, its stderr is
    shared (`quiet`: kept, and shown only if the command fails)."""
    echo.write("$ collie " + " ".join(args) + "\n")
    echo.flush()
    done = subprocess.run(
        [sys.executable, "-m", "collie", *(["-q"] if quiet else []), *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE if quiet else None,
        text=True,
        check=False,
    )
    echo.write(done.stdout)
    if done.returncode != 0:
        said = f": {done.stderr.strip()[-2000:]}" if quiet and done.stderr else "; see above"
        name = args[0] if args[0] != "-w" else args[2]
        raise CollieError(f"`collie {name}` failed (exit status {done.returncode}){said}.")
