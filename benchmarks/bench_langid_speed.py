"""The bundled language model's speed and memory: this checkout's scorer beside an older
one's (default: main's), in one run, on the same sentences and the same model file
(issue 53: 30,000 sentences/s in batch on one core, start-up under 0.7 s, a model file
of at most 40 MB, memory bounded for any length of text).

Each collie is measured in child processes (`--code` trees: this checkout, and the
older tree taken with `git archive REV collie`), pinned to one core, turn by turn, best
of --rounds:

- batch: sentences/s of `identify_batch` over NTREX-128's held-out sentences (every
  seventh of each language, shuffled: mixed languages, as bench_ntrex.py measures
  them), process time after a first batch, the best of PASSES passes; and whether both
  trees give the same labels;
- single calls: sentences/s of `identify` one sentence a call (the first 1,000);
- start-up: `collie langid identify` of one line, start to exit (wall time, and the
  child's CPU time: on a machine shared with other work the wall time waits for them);
- a long text: `collie.identify` of a 7.6 MB text (a sentence repeated), its seconds
  and the child's peak resident memory (what once asked for 66.7 GiB).

The sentences are development data (../shared/data/ntrex, never committed); without them
the UDHR's held-out snippets are used and the benchmark says so.

    python benchmarks/bench_langid_speed.py                 # against main (~3 min)
    python benchmarks/bench_langid_speed.py --baseline HEAD~1 --rounds 5
    python benchmarks/bench_langid_speed.py --baseline none # this checkout alone
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

HERE = Path(__file__).resolve().parent.parent
MODEL = HERE / "collie" / "data" / "langid" / "model.npz"
LONG_SENTENCE = "The quick brown fox jumps over the lazy dog near the river bank. "
LONG_CHARS = 7_600_000
SINGLE = 1000
PASSES = 3  # a child measures this many passes, its best kept
STARTUP_LINE = "Kila mtu ana haki ya kupumzika\n"
TARGET_RATE, TARGET_STARTUP, TARGET_MB = 30_000, 0.7, 40


def sentences() -> tuple[list[str], str]:
    """The test sentences and what they are."""
    sys.path[:0] = [str(HERE)]
    from langmodel.ntrex import NTREX, ntrex_split

    if (NTREX / "DOCUMENT_IDS.tsv").exists():
        split = ntrex_split()
        mixed = [s for _, test in split.values() for s in test[::7]]
        random.Random(1).shuffle(mixed)
        return mixed, f"NTREX-128 held-out sentences, every 7th, shuffled: {len(mixed):,}"
    from collie.langid.corpus import udhr_heldout_texts
    from collie.langid.evaluate import heldout_snippets

    snippets = [s.text for s in heldout_snippets(udhr_heldout_texts())]
    random.Random(1).shuffle(snippets)
    return snippets, (
        f"{NTREX} is not there (development data): the UDHR's held-out snippets "
        f"instead: {len(snippets):,}"
    )


def worker(task: str, model: Path, texts_file: Path | None) -> None:
    """One measure in this process (run by `child` with the tree under test first on
    sys.path); prints a JSON line."""
    pin()
    from collie.langid import load_model

    loaded = load_model(model)
    import collie

    out: dict[str, object] = {"code": str(Path(collie.__file__).parent.parent)}
    if task == "batch":
        assert texts_file is not None
        texts = json.loads(texts_file.read_text(encoding="utf-8"))
        loaded.identify_batch(texts[:256])
        spent = []
        for _ in range(PASSES):
            began = time.process_time()
            labels = loaded.identify_batch(texts)
            spent.append(time.process_time() - began)
        out["rate"] = len(texts) / min(spent)
        out["labels"] = [code for code, _ in labels]
    elif task == "single":
        assert texts_file is not None
        texts = json.loads(texts_file.read_text(encoding="utf-8"))[:SINGLE]
        loaded.identify(texts[0])
        spent = []
        for _ in range(PASSES):
            began = time.process_time()
            for text in texts:
                loaded.identify(text)
            spent.append(time.process_time() - began)
        out["rate"] = len(texts) / min(spent)
    elif task == "long":
        text = (LONG_SENTENCE * (LONG_CHARS // len(LONG_SENTENCE) + 1))[:LONG_CHARS]
        began = time.perf_counter()
        code, probability = loaded.identify(text)
        out["seconds"] = time.perf_counter() - began
        out["answer"] = f"{code} {probability:.2f}"
        out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))


def pin() -> str:
    try:
        core = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {core})
        return f"pinned to CPU {core}"
    except (AttributeError, OSError) as exc:
        return f"not pinned ({exc})"


def child(code: Path, task: str, model: Path, texts_file: Path) -> dict[str, Any]:
    """Run `worker` with the collie of `code` (a tree holding collie/)."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", task]
    command += ["--model", str(model), "--texts", str(texts_file)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"{code}: the {task} measure failed:\n{done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def startup(code: Path, model: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of `collie langid identify` on one line, start to exit."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    command = [sys.executable, "-m", "collie", "langid", "identify", "--model", str(model)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    subprocess.run(command, input=STARTUP_LINE, env=env, cwd=code, text=True,
                   capture_output=True, check=True)  # fmt: skip
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu


def older_tree(revision: str, into: Path) -> Path | str:
    """collie/ at `revision` extracted under `into`, or why not."""
    try:
        archive = subprocess.run(
            ["git", "-C", str(HERE), "archive", revision, "collie"],
            capture_output=True,
            check=False,
        )
    except OSError as exc:
        return f"git archive {revision}: {exc}"
    if archive.returncode:
        return archive.stderr.decode(errors="replace").strip() or f"git archive {revision} failed"
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", default="main", help="git revision, or none")
    parser.add_argument("--model", type=Path, default=MODEL, help="the model file (both)")
    parser.add_argument("--rounds", type=int, default=3, help="best of this many")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--texts", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.model, args.texts)
        return
    print(pin())
    texts, what = sentences()
    print(what)
    with tempfile.TemporaryDirectory(prefix="collie-speed-") as scratch:
        texts_file = Path(scratch) / "texts.json"
        texts_file.write_text(json.dumps(texts), encoding="utf-8")
        trees: dict[str, Path] = {"this checkout": HERE}
        if args.baseline != "none":
            older = older_tree(args.baseline, Path(scratch))
            if isinstance(older, str):
                print(f"baseline skipped: {older}")
            else:
                trees[args.baseline] = older
        size = args.model.stat().st_size / 1e6
        print(f"model file: {args.model.name} {size:.1f} MB (target <= {TARGET_MB} MB)")
        best: dict[str, dict[str, float]] = {name: {} for name in trees}
        labels: dict[str, list[str]] = {}
        long: dict[str, dict[str, Any]] = {}
        for _ in range(args.rounds):  # turn by turn: the machine's load falls on both
            for name, code in trees.items():
                mine = best[name]
                batch = child(code, "batch", args.model, texts_file)
                labels[name] = list(batch["labels"])
                mine["batch"] = max(mine.get("batch", 0.0), float(batch["rate"]))
                single = child(code, "single", args.model, texts_file)
                mine["single"] = max(mine.get("single", 0.0), float(single["rate"]))
                wall, cpu = startup(code, args.model)
                mine["startup"] = min(mine.get("startup", 1e9), wall)
                mine["startup_cpu"] = min(mine.get("startup_cpu", 1e9), cpu)
        for name, code in trees.items():
            long[name] = child(code, "long", args.model, texts_file)
    names = list(trees)
    print(
        f"{'':28s}" + "".join(f"{n:>18s}" for n in names) + ("   ratio" if len(names) > 1 else "")
    )

    def row(label: str, values: list[float], form: str, higher: bool = True) -> None:
        line = f"{label:28s}" + "".join(f"{format(v, form):>18s}" for v in values)
        if len(values) > 1 and values[1] and values[0]:
            line += f"   {values[0] / values[1] if higher else values[1] / values[0]:.2f}x"
        print(line)

    row("batch, sentences/s", [best[n]["batch"] for n in names], ",.0f")
    row("single calls, sentences/s", [best[n]["single"] for n in names], ",.0f")
    row("start-up, one line, s", [best[n]["startup"] for n in names], ".2f", higher=False)
    row("start-up, its CPU s", [best[n]["startup_cpu"] for n in names], ".2f", higher=False)
    row("7.6 MB text, s", [float(long[n]["seconds"]) for n in names], ".1f", False)
    row("7.6 MB text, peak RSS MB", [float(long[n]["peak_mb"]) for n in names], ",.0f", False)
    print("7.6 MB text, answer:        " + "".join(f"{long[n]['answer']!s:>18s}" for n in names))
    if len(names) > 1:
        ours, theirs = labels[names[0]], labels[names[1]]
        same = sum(a == b for a, b in zip(ours, theirs, strict=True))
        print(f"same labels in batch: {same:,} of {len(ours):,}")
    mine = best[names[0]]
    print(
        f"targets: batch {TARGET_RATE:,}/s {'met' if mine['batch'] >= TARGET_RATE else 'NOT met'};"
        f" start-up {TARGET_STARTUP} s {'met' if mine['startup'] < TARGET_STARTUP else 'NOT met'};"
        f" model {TARGET_MB} MB {'met' if size <= TARGET_MB else 'NOT met'}"
    )


if __name__ == "__main__":
    main()
