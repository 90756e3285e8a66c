"""The verified site list and the site labels on real text (issue 44).

1. The site list on a REAL-TEXT world: bench_relatives' development world (Zulu news
   sentences from ../shared/data/news-text, its relatives' and neighbours' news; the
   pages around the text generated), mined with the real command line over HTTP
   (collie.mininet.demo.run_demo, 2 loops, the target and its relatives hidden from the
   model), then `collie export sites.tsv --format sites`. Scored against the world's
   ground truth, site by site (a site: its registered domain, as collie's `pages.site`):
   - a listed site is right when the world's pages there hold target text (a target or
     a mixed site: some page with at least 5% target text) and it is not a relative's
     site (most of its text in one of the target's relatives);
   - recall: of the target and mixed sites the run reached (fetched a page of), those
     listed.
   Targets: precision >= 0.95, recall >= 0.90; target sites never labelled `relative`.
2. The labels on REAL NEWS: every language of ../shared/data/news-text cut into
   documents of 15 sentences and pseudo-sites of 20 documents, labelled as collie labels
   a site. Real news is neither religious nor multilingual: every label is a false
   positive (what the church-vocabulary and scripture cues meet in real news).

Both parts need ../shared/data (never committed, never needed by `make test`) and say so
when it is not there. Labels' recall on religious and multilingual sites is measured on
the closed worlds that have them (benchmarks/bench_sitelabels.py: generated pages).

Run: python benchmarks/bench_sitelist.py [--part list|news|both]
"""

from __future__ import annotations

import argparse
import csv
import io
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from bench_relatives import NEWS, news_options

from collie.crawl.links import site_of
from collie.decide.sitelabels import SiteEvidence, label_site
from collie.mininet.demo import ensure_world, hidden_for, run_demo
from collie.mininet.languages import RELATIVES
from collie.mininet.worldfile import StoredWorld

TARGETS = "targets: precision >= 0.95, recall >= 0.90, target sites labelled relative: 0"
MIXED_SHARE = 0.05  # a page with this much target text makes its site hold the target


def site_truth(world_file: Path) -> tuple[str, dict[str, str]]:
    """The world's target and each site's kind: target (holds target text), relative (its
    text mostly a relative's), other."""
    world = StoredWorld(world_file)
    target = world.target
    relatives = set(RELATIVES.get(target, ()))
    holds: dict[str, bool] = defaultdict(bool)
    langs: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for truth in world.truths().values():
        if truth.kind != "page":
            continue
        site = site_of(truth.url)
        holds[site] |= truth.shares.get(target, 0.0) >= MIXED_SHARE and not truth.listing
        langs[site][truth.lang] += 1
    kinds = {}
    for site, counts in langs.items():
        main = max(counts.items(), key=lambda kv: kv[1])[0]
        kinds[site] = "relative" if main in relatives else ("target" if holds[site] else "other")
    world.close()
    return target, kinds


def listed_sites(workspace: Path, out: Path) -> list[dict[str, str]]:
    subprocess.run([sys.executable, "-m", "collie", "-w", str(workspace), "-q", "export",
                    str(out), "--format", "sites"], check=True)  # fmt: skip
    with out.open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def reached_sites(workspace: Path) -> set[str]:
    import sqlite3

    conn = sqlite3.connect(workspace / "collie.db")
    try:
        rows = conn.execute("SELECT DISTINCT site FROM pages WHERE status != 'queued'")
        return {site for (site,) in rows}
    finally:
        conn.close()


def relative_labels(workspace: Path) -> set[str]:
    """The sites of the workspace labelled `relative` (in the corpus or set aside)."""
    import os

    from collie.corpus.sites import site_labels
    from collie.workspace.folder import open_workspace

    with open_workspace(workspace, os.environ, {}) as ws:
        found = site_labels(ws)
    return {site for site, labels in found.items() if any(x.label == "relative" for x in labels)}


def part_list() -> None:
    options = news_options()
    if options is None:
        print(f"site list: skipped, {NEWS} is not there (development data, see "
              "../shared/data/news-text/SOURCES.md)")  # fmt: skip
        return
    world, built = ensure_world(options)
    target, kinds = site_truth(world)
    print(f"== site list, REAL TEXT (Zulu news): {world.name} ({'built now' if built else 'cached'}"
          f"); {sum(k == 'target' for k in kinds.values())} target or mixed sites, "
          f"{sum(k == 'relative' for k in kinds.values())} relatives' sites; 2 loops")  # fmt: skip
    print(TARGETS)
    with tempfile.TemporaryDirectory(prefix="collie-bench-sitelist-") as tmp:
        started = time.monotonic()
        result = run_demo(world, Path(tmp) / "run", delay=0.0, quiet=True, echo=io.StringIO(),
                          hide=hidden_for(target))  # fmt: skip
        rows = listed_sites(result.workspace, Path(tmp) / "sites.tsv")
        touched = reached_sites(result.workspace)
        reached = {s for s in touched if kinds.get(s) == "target"}
        relatives = {s for s in touched if kinds.get(s) == "relative"}
        labelled = relative_labels(result.workspace)
        seconds = time.monotonic() - started
    listed = {row["site"] for row in rows}
    right = {s for s in listed if kinds.get(s) == "target"}
    wrong = sorted(listed - right)
    target_relative = [r["site"] for r in rows if "relative" in r["labels"].split(",")
                       and kinds.get(r["site"]) == "target"]  # fmt: skip
    precision = len(right) / len(listed) if listed else 0.0
    recall = len(reached & listed) / len(reached) if reached else 0.0
    print(f"listed {len(listed)} sites: precision {precision:.4f} ({len(right)} of {len(listed)} "
          f"hold target text and are no relative's); recall {recall:.4f} ({len(reached & listed)}"
          f" of {len(reached)} target or mixed sites reached); target sites labelled relative: "
          f"{len(target_relative)}; {seconds:.0f} s")  # fmt: skip
    for site in wrong:
        print(f"  listed, not a target site: {site} ({kinds.get(site, 'not in the world')})")
    for site in sorted(reached - listed):
        print(f"  reached, not listed: {site}")
    print(f"relatives' sites reached: {len(relatives)}, labelled relative: "
          f"{len(relatives & labelled)}; other sites labelled relative: "
          f"{len(labelled - relatives)}")  # fmt: skip
    labels = defaultdict(int)
    for row in rows:
        for label in filter(None, row["labels"].split(",")):
            labels[label] += 1
    print(f"labels on the listed sites: {dict(labels) or 'none'} (the world has no religious "
          "or multilingual site)")  # fmt: skip


def part_news() -> None:
    if not NEWS.is_dir():
        print(f"labels on real news: skipped, {NEWS} is not there")
        return
    print("== labels on REAL NEWS (../shared/data/news-text): documents of 15 sentences, "
          "pseudo-sites of 20 documents; every label is a false positive")  # fmt: skip
    total = labelled = 0
    for path in sorted(NEWS.glob("*.txt")):
        lines = path.read_text(encoding="utf-8").splitlines()
        docs = ["\n".join(lines[i : i + 15]) for i in range(0, len(lines), 15)]
        sites = [docs[i : i + 20] for i in range(0, len(docs), 20)]
        found = [label_site(SiteEvidence(f"{path.stem}-{k}.example", s)) for k, s in
                 enumerate(sites)]  # fmt: skip
        hits = [labels for labels in found if labels]
        total, labelled = total + len(sites), labelled + len(hits)
        print(
            f"  {path.stem}: {len(sites)} sites ({len(docs)} documents), labelled "
            f"{len(hits)}" + (f": {hits[0][0].label}: {hits[0][0].reason}" if hits else "")
        )
    print(f"real news: {labelled} of {total} sites labelled (false positives)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("list", "news", "both"), default="both")
    args = parser.parse_args()
    if args.part in ("news", "both"):
        part_news()
    if args.part in ("list", "both"):
        part_list()


if __name__ == "__main__":
    main()
