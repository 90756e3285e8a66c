"""A run killed with kill -9 six times and resumed, against an uninterrupted run (issue 58).

The real-news world of benchmarks/bench_neighbour.py (built once from ../shared/data/
news-text and cached outside the repository; Zulu the target, a third of the sites in
its relatives) is mined twice in this script, `collie run --loops 2` in a child process
each time, over HTTP through the closed world's proxy: once without a break, and once
killed with SIGKILL at six moments spread over the run (after 8%, 22%, 36%, 50%, 64%
and 78% of the uninterrupted run's requests, counted over every process of the killed
run) and run again to the end. Both corpora are exported as JSON lines.

Printed: the documents of each corpus, whether the exported URLs are the same set (and
how many differ), the page requests each way (every request but the search API's,
robots.txt and tdmrep.json), the pages asked more than once, and the extra page
requests of the killed run as a share of the uninterrupted run's (target: at most 2%).

Run: python benchmarks/bench_resume.py [--keep DIR]   (about five minutes on 2 cores;
says so and exits 0 when ../shared/data is absent; --keep leaves both workspaces and
their exports in DIR, a new folder)
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_neighbour import world_options
from bench_relatives import NEWS

from collie.mininet.demo import DEMO_SETTINGS, ensure_world, write_seed_docs
from collie.mininet.messages import LogEntry
from collie.mininet.server import MiniWebServer
from collie.mininet.worldfile import StoredWorld

TARGET = "zul"
KILLS = (0.08, 0.22, 0.36, 0.50, 0.64, 0.78)  # of the uninterrupted run's requests
POLICY = ("/robots.txt", "/.well-known/tdmrep.json")


def collie(env: dict[str, str], *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "collie", "-q", *args],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip


def finish(proc: subprocess.Popen[bytes]) -> None:
    _, err = proc.communicate(timeout=1800)
    if proc.returncode != 0:
        raise SystemExit(f"collie failed ({proc.returncode}): {err.decode()[-2000:]}")


def init(env: dict[str, str], web: MiniWebServer, root: Path, docs: Path) -> None:
    sets = [a for s in (*DEMO_SETTINGS, "fetch.delay=0") for a in ("--set", s)]
    finish(collie(env, "init", "-w", str(root), "--lang", TARGET, "--docs", str(docs),
                  "--search", "searxng", "--search-url", web.search_url, *sets))  # fmt: skip


def exported_urls(env: dict[str, str], root: Path) -> list[str]:
    out = root.parent / f"{root.name}.jsonl"
    finish(collie(env, "-w", str(root), "export", str(out), "--format", "jsonl"))
    with out.open(encoding="utf-8") as lines:
        return [json.loads(line)["url"] for line in lines if line.strip()]


def page_requests(log: list[LogEntry]) -> Counter[str]:
    """Every request for a page (or a sitemap or feed), by URL: not the search API's,
    not robots.txt or tdmrep.json."""
    return Counter(
        e.url
        for e in log
        if urlsplit(e.url).path not in POLICY and urlsplit(e.url).path != "/search"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="leave the workspaces in this new folder")
    args = parser.parse_args()
    options = world_options(TARGET)
    if options is None:
        print(f"resume benchmark skipped: {NEWS} is not there (development data, "
              "see ../shared/data/news-text/SOURCES.md)")  # fmt: skip
        return
    world_file, built = ensure_world(options)
    world = StoredWorld(world_file)
    print(f"world {world_file.name} ({'built now' if built else 'cached'}): {TARGET}, "
          f"{len(world.hosts)} sites, `collie run --loops 2`, fetch.delay=0")  # fmt: skip
    if args.keep:
        args.keep.mkdir(parents=True)
        place: contextlib.AbstractContextManager[str] = contextlib.nullcontext(str(args.keep))
    else:
        place = tempfile.TemporaryDirectory(prefix="collie-bench-resume-")
    with place as tmp, MiniWebServer(world) as web:
        env = {**os.environ, "HTTP_PROXY": web.proxy_url, "http_proxy": web.proxy_url}
        for name in ("NO_PROXY", "no_proxy", "HTTPS_PROXY", "https_proxy", "COLLIE_WORKSPACE"):
            env.pop(name, None)
        docs = Path(tmp) / "seed"
        write_seed_docs(world, docs)

        clean = Path(tmp) / "clean"
        init(env, web, clean, docs)
        web.clear_log()
        began = time.monotonic()
        finish(collie(env, "-w", str(clean), "run", "--loops", "2"))
        clean_seconds = time.monotonic() - began
        clean_log = list(web.log)
        clean_urls = exported_urls(env, clean)

        killed = Path(tmp) / "killed"
        init(env, web, killed, docs)
        web.clear_log()
        kills = 0
        killed_at: list[float] = []
        began = time.monotonic()
        for share in KILLS:
            threshold = int(len(clean_log) * share)
            proc = collie(env, "-w", str(killed), "run", "--loops", "2")
            while proc.poll() is None and len(web.log) < threshold:
                time.sleep(0.002)
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
                kills += 1
                killed_at.append(time.time())
            proc.wait(timeout=60)
        finish(collie(env, "-w", str(killed), "run", "--loops", "2"))
        killed_seconds = time.monotonic() - began
        killed_log = list(web.log)
        killed_urls = exported_urls(env, killed)
        if args.keep:
            for name, log in (("uninterrupted", clean_log), ("killed", killed_log)):
                with (args.keep / f"{name}-requests.jsonl").open("w", encoding="utf-8") as out:
                    out.writelines(json.dumps({"url": e.url, "time": e.time}) + "\n" for e in log)
            (args.keep / "kills.json").write_text(json.dumps(killed_at), encoding="utf-8")
    world.close()

    pages = {"uninterrupted": page_requests(clean_log), "killed": page_requests(killed_log)}
    same = set(clean_urls) == set(killed_urls)
    differ = len(set(clean_urls) ^ set(killed_urls))
    print(f"{'run':28} {'documents':>9} {'requests':>8} {'page requests':>13} "
          f"{'asked twice':>11} {'seconds':>7}")  # fmt: skip
    for name, urls, log, seconds in (
        ("uninterrupted", clean_urls, clean_log, clean_seconds),
        (f"killed x{kills} (kill -9), resumed", killed_urls, killed_log, killed_seconds),
    ):
        counted = pages["killed" if name.startswith("killed") else name]
        twice = sum(1 for n in counted.values() if n > 1)
        print(f"{name:28} {len(urls):9d} {len(log):8d} {sum(counted.values()):13d} "
              f"{twice:11d} {seconds:7.1f}")  # fmt: skip
    base, more = sum(pages["uninterrupted"].values()), sum(pages["killed"].values())
    print(f"exported URLs the same set: {'yes' if same else 'no'} ({differ} differ)")
    print(f"extra page requests: {more - base:+d} ({(more - base) / base:+.2%} of "
          f"{base}; target at most +2%)")  # fmt: skip


if __name__ == "__main__":
    main()
