"""Main text on the 2025 web, page type by page type: collie beside trafilatura, one run.

The pages: the development split of the Web Content Extraction Benchmark (WCXB) in
../shared/data/wcxb-dev (1,497 real pages collected in 2025, each from its own domain,
seven page types: article, forum, product, collection, listing, documentation, service;
see its SOURCES.md). It is read from ../shared when present; a fresh clone has none, and
the benchmark says so and stops.

Scoring: the benchmark's own scorer (its evaluate.py, imported from that folder, never
copied): word-level F1 of the extracted text against the page's main content, averaged
over pages; "with" / "without" snippet rates (the share of must-have snippets found, and
of boilerplate snippets found: lower is better); pages that came out empty.

The pages are split in two halves by page id (CRC-32 of the file id, even: development,
odd: held-out). Rules are decided on the development half; the held-out half is the
result. "running text" averages the five types that hold running text (article, forum,
product, documentation, service); listing and collection pages are crawled, not
documents of the corpus (decide/listing.py), but what `collie extract` and
`--segments all` give of them is measured too (issue 56: at least trafilatura's).

Rows: collie's default; "collie fast" (extract.main = "fast": trafilatura's fast mode
without the pre-cleaning of the whole page); "collie one run" (the default with one
trafilatura run a page, no second look with its fallbacks: the trade-off between the
two, issue 56); "collie no cards_text"; trafilatura's default and fast mode.

Every tool gets the same decoded text (collie's decoder). Speed: CPU seconds for
extraction alone on all pages of the run, one core, each tool in turn.

Targets (issue 43), on the held-out half: collie's running-text F1 at least trafilatura's
default + 0.02, no running-text type more than 0.01 below trafilatura's, boilerplate
snippets not above trafilatura's rate, pages/s at least trafilatura's default (the last
line: collie's pages/s over trafilatura default's, same run).

    python benchmarks/bench_wcxb.py [--half held|dev|all] [--limit N] [--tools collie,...]
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import sys
import time
import zlib
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from bench_extract import _trafilatura  # the same call on a page's decoded text and URL

from collie.page import extract
from collie.page.encoding import decode_html
from collie.page.extract import extract_html
from collie.page.process import clear_caches

WCXB = Path(__file__).resolve().parents[2] / "shared" / "data" / "wcxb-dev"
TYPES = ("article", "forum", "product", "documentation", "service", "collection", "listing")
RUNNING = TYPES[:5]  # the types that hold running text


@dataclass
class Page:
    id: str
    url: str
    text: str  # decoded by collie
    page_type: str
    truth: dict[str, object]

    @property
    def held_out(self) -> bool:
        """The held-out half: odd CRC-32 of the page's id."""
        return zlib.crc32(self.id.encode()) % 2 == 1


@dataclass
class Scores:
    """One tool's page scores, by type; CPU seconds for the extraction."""

    by_type: dict[str, list[tuple[float, float, float]]] = field(
        default_factory=lambda: defaultdict(list)
    )  # (F1, with rate, without rate) a page
    empty: int = 0
    seconds: float = 0.0
    pages: int = 0

    def mean(self, types: tuple[str, ...], column: int = 0) -> float:
        values = [s[column] for t in types for s in self.by_type.get(t, [])]
        return sum(values) / len(values) if values else float("nan")


def scorer() -> ModuleType:
    """The benchmark's evaluate.py, loaded from the data folder."""
    spec = importlib.util.spec_from_file_location("wcxb_evaluate", WCXB / "evaluate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_pages(half: str, limit: int, evaluate: ModuleType) -> list[Page]:
    pages = []
    for path in sorted((WCXB / "dev" / "ground-truth").glob("*.json"))[: limit or None]:
        data = json.loads(path.read_text(encoding="utf-8"))
        truth = data.get("ground_truth")
        if not isinstance(truth, dict):
            continue
        body = gzip.decompress((WCXB / "dev" / "html" / f"{path.stem}.html.gz").read_bytes())
        decoded = decode_html(body, None, 0.7)
        text = decoded.text or body.decode("utf-8", errors="replace")
        page = Page(path.stem, data.get("url", ""), text, evaluate.get_page_type(data), truth)
        if half == "all" or page.held_out == (half == "held"):
            pages.append(page)
    return pages


def _collie(page: Page) -> str:
    return extract_html(page.text, page.url).text


def _collie_no_cards(page: Page) -> str:
    return extract_html(page.text, page.url, cards_text=False).text


def _collie_fast(page: Page) -> str:
    return extract_html(page.text, page.url, engine="fast").text


def _collie_one_run(page: Page) -> str:
    """collie with one trafilatura run a page, its fast mode (no second look with its
    fallbacks at a short main text, extract.SHORT_MAIN), the pre-cleaning kept: between
    the two rows above (issue 56, speed)."""
    saved = extract.SHORT_MAIN
    extract.SHORT_MAIN = 0
    try:
        return extract_html(page.text, page.url).text
    finally:
        extract.SHORT_MAIN = saved


def tools() -> dict[str, Callable[[Page], str]]:
    found: dict[str, Callable[[Page], str]] = {
        "collie": _collie,
        "collie fast": _collie_fast,
        "collie one run": _collie_one_run,
        "collie no cards_text": _collie_no_cards,
    }
    try:
        import trafilatura

        found[f"trafilatura {trafilatura.__version__}"] = _trafilatura(False)
        found[f"trafilatura {trafilatura.__version__} fast"] = _trafilatura(True)
    except ImportError:
        print("(trafilatura is not installed: pip install '.[bench]')")
    return found


def measure(tool: Callable[[Page], str], pages: list[Page], evaluate: ModuleType) -> Scores:
    clear_caches()
    scores = Scores()
    texts = []
    start = time.process_time()
    for page in pages:
        texts.append(tool(page))
    scores.seconds = time.process_time() - start
    for page, text in zip(pages, texts, strict=True):
        truth = page.truth
        _, _, f1 = evaluate.word_f1(text, str(truth.get("main_content") or ""))
        with_rate = evaluate.snippet_check(text, truth.get("with") or [])
        without = truth.get("without") or []
        without_rate = evaluate.snippet_check(text, without) if without else 0.0
        scores.by_type[page.page_type].append((f1, with_rate, without_rate))
        scores.empty += not text.strip()
        scores.pages += 1
    return scores


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--half", choices=("held", "dev", "all"), default="held")
    parser.add_argument("--limit", type=int, default=0, help="only the first N pages")
    parser.add_argument("--tools", default="", help="comma-separated names (substring match)")
    args = parser.parse_args(argv)
    if not (WCXB / "evaluate.py").is_file():
        print(f"no WCXB development split in {WCXB.parent} (a fresh clone has none): skipped")
        return 0
    evaluate = scorer()
    pages = load_pages(args.half, args.limit, evaluate)
    counts = {t: sum(p.page_type == t for p in pages) for t in TYPES}
    print(
        f"{len(pages)} real pages of 2025 from ../shared/data/wcxb-dev, half: {args.half} "
        f"({', '.join(f'{t} {n}' for t, n in counts.items())})"
    )
    header = "".join(f" {t[:6]:>6}" for t in TYPES)
    print(
        f"{'extractor':<24} {'running':>7}{header} {'with':>5} {'w/out':>5} {'empty':>5}"
        f" {'pages/s':>7}"
    )
    wanted = [w for w in args.tools.split(",") if w]
    speeds: dict[str, float] = {}
    for name, tool in tools().items():
        if wanted and not any(w in name for w in wanted):
            continue
        s = measure(tool, pages, evaluate)
        speeds[name] = s.pages / max(s.seconds, 1e-9)
        per_type = "".join(f" {s.mean((t,)):>6.3f}" for t in TYPES)
        print(
            f"{name:<24} {s.mean(RUNNING):>7.4f}{per_type} {s.mean(RUNNING, 1):>5.3f}"
            f" {s.mean(RUNNING, 2):>5.3f} {s.empty:>5} {s.pages / max(s.seconds, 1e-9):>7.1f}",
            flush=True,
        )
    print("(running: the mean F1 over article, forum, product, documentation and service pages;")
    print(" with / w/out: the must-have and boilerplate snippets found on those pages)")
    default = next((n for n in speeds if n.startswith("trafilatura") and "fast" not in n), "")
    rows = ("collie", "collie fast", "collie one run")
    for name in (n for n in rows if n in speeds and default):
        print(
            f"speed: {name} {speeds[name]:.1f} pages/s, {default} {speeds[default]:.1f}"
            f" pages/s: {speeds[name] / speeds[default]:.2f}x (target: 1.00x or more)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
