"""`collie status` and `collie report` on the demo workspace: their time beside the
command line's start-up, measured in the same run.

A copy of the workspace is measured (the original is never opened: a newer collie
would migrate it), by the collie in --code (default: this checkout), each command in a
child process as a user runs it, best of --rounds:

- start-up: `collie --version` (importing the command line, nothing else);
- status, first: on the fresh copy (an older collie's workspace has no counts kept: the
  export's per-loop counts are computed, and kept);
- status and report with the counts kept;
- status after a change of the corpus (the corpus version moved: the counts computed
  again, and kept), when the collie measured keeps them;
- status_data in one process (no start-up), the same three ways, and whether the
  language model was loaded.

Figures before and after a change of collie: run it once with --code pointing at a copy
of the older tree (`git archive REV | tar -x -C DIR`), once without, on the same
workspace. Without --workspace, `collie demo` builds one first (about 30 s).

    python benchmarks/bench_status.py [--workspace build/demo/workspace] [--code DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROUNDS = 5
HERE = Path(__file__).resolve().parent.parent
# Where the child processes run: `python -m` puts the current folder first on sys.path,
# so a checkout's own folder would shadow --code.
NEUTRAL = Path(tempfile.gettempdir())


def collie(code: Path, *args: str) -> float:
    """Seconds of one `collie ARGS` in a child process running the collie in `code`."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    env.pop("COLLIE_WORKSPACE", None)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "collie", *args], env=env, cwd=NEUTRAL,
                          capture_output=True, text=True)  # fmt: skip
    seconds = time.perf_counter() - started
    if done.returncode:
        raise SystemExit(f"collie {' '.join(args)} failed:\n{done.stderr}")
    return seconds


def best(code: Path, rounds: int, *args: str, before: str | None = None) -> float:
    """The best of `rounds` runs of `collie ARGS` (`before`: a workspace whose corpus
    version is moved before each run)."""
    times = []
    for _ in range(rounds):
        if before is not None:
            move_corpus_version(Path(before))
        times.append(collie(code, *args))
    return min(times)


def move_corpus_version(root: Path) -> bool:
    """Count one change of the corpus, as a run or reprocess would (False: the
    workspace keeps no counts, an older collie's)."""
    conn = sqlite3.connect(root / "collie.db")
    try:
        with conn:
            conn.execute("UPDATE corpus_version SET version = version + 1")
    except sqlite3.OperationalError:
        return False
    finally:
        conn.close()
    return True


IN_PROCESS = """
import json, sys, time
from pathlib import Path
from collie.corpus.status import status_data
from collie.workspace.folder import Workspace, open_workspace
loads = []
model = Workspace.model
def counted(self):
    loads.append(1)
    return model(self)
Workspace.model = counted
root = Path(sys.argv[1])
out = {}
with open_workspace(root, {}, {}) as ws:
    for label in ("first", "again", "after a change"):
        if label == "after a change":
            try:
                with ws.conn:
                    ws.conn.execute("UPDATE corpus_version SET version = version + 1")
            except Exception:
                pass
        del loads[:]
        started = time.perf_counter()
        status_data(ws)
        out[label] = [time.perf_counter() - started, bool(loads)]
print(json.dumps(out))
"""


def in_process(code: Path, root: Path) -> dict[str, list[float | bool]]:
    """status_data's seconds (and whether the model was loaded) in one process: first,
    again (the counts kept, by a collie that keeps them), after a change of the corpus."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    done = subprocess.run([sys.executable, "-c", IN_PROCESS, str(root)], env=env,
                          cwd=NEUTRAL, capture_output=True, text=True)  # fmt: skip
    if done.returncode:
        raise SystemExit(f"status_data failed:\n{done.stderr}")
    return dict(json.loads(done.stdout))


def demo_workspace(folder: Path, code: Path) -> Path:
    """A demo workspace built by `collie demo` into `folder`."""
    print("building the demo workspace (collie demo)...", file=sys.stderr)
    env = {**os.environ, "PYTHONPATH": str(code)}
    subprocess.run([sys.executable, "-m", "collie", "-q", "demo", "--out", str(folder)],
                   env=env, cwd=NEUTRAL, check=True, capture_output=True)  # fmt: skip
    return folder / "workspace"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workspace", type=Path, help="a workspace to copy (default: a demo)")
    parser.add_argument("--code", type=Path, default=HERE, help="the collie tree to run")
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    args = parser.parse_args()
    code, rounds = args.code.resolve(), args.rounds
    with tempfile.TemporaryDirectory(prefix="bench-status-") as tmp:
        source = args.workspace or demo_workspace(Path(tmp) / "demo", code)
        root = Path(tmp) / "workspace"
        shutil.copytree(source, root)
        ws = str(root)
        print(f"collie: {code}; workspace: a copy of {source}; best of {rounds}")
        start = best(code, rounds, "--version")
        first = collie(code, "-w", ws, "status")
        kept = best(code, rounds, "-w", ws, "status")
        report = best(code, rounds, "-w", ws, "report")
        keeps = move_corpus_version(root)
        changed = best(code, rounds, "-w", ws, "status", before=ws) if keeps else None
        figures = [
            ("start-up (collie --version)", start),
            ("status, first on the copy", first),
            ("status, again" + (" (counts kept)" if keeps else ""), kept),
            ("report, again" + (" (counts kept)" if keeps else ""), report),
        ]
        if changed is not None:
            figures.append(("status after a change (counts computed, kept)", changed))
        for label, seconds in figures:
            after = (
                "" if label.startswith("start-up") else f"  {seconds - start:6.3f} s after start-up"
            )
            print(f"  {label:<48} {seconds:6.3f} s{after}")
        fresh = Path(tmp) / "again"
        shutil.copytree(source, fresh)
        timed = in_process(code, fresh)
        print("  status_data in one process (no start-up):")
        for label, (seconds, loaded) in timed.items():
            model = "yes" if loaded else "no"
            print(f"    {label:<16} {seconds:6.3f} s  language model loaded: {model}")


if __name__ == "__main__":
    main()
