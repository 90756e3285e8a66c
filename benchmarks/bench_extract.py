"""Main-text extraction on real pages: collie beside trafilatura and html2text, one run.

The pages: the extraction development set in ../shared/data/extraction-dev (945 real
pages, news, blogs, magazines, company and government sites, mostly German and English;
each with snippets the main text must contain and must not contain; see its SOURCES.md).
It is read from ../shared when present; a fresh clone has no ../shared, and the benchmark
says so and stops.

Scoring as trafilatura's evaluation does: over all snippets of all pages, a `with`
snippet found in the extracted text is a true positive (missed: a false negative), a
`without` snippet found is a false positive; whitespace is normalised before matching.

The pages are split in two halves by page id (CRC-32 of the URL key, even: development,
odd: held-out); changes to collie's extraction are decided on the development half and
reported on both (columns "dev" and "held").

Every tool gets the same decoded text (collie's decoder); the speed column is CPU time per
page for extraction alone, and for collie also decode + extract from the bytes as a run
does it (`collie.process.process`). Target: F1 >= 0.95 and >= trafilatura's, decode +
extract >= 60 pages/s on one core for pages of 20-60 KB.

    python benchmarks/bench_extract.py [--limit N] [--tools collie,trafilatura,...]
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import html2text

from collie.models import FetchResult
from collie.page.encoding import decode_html
from collie.page.extract import extract_html
from collie.page.process import clear_caches, process

DEV = Path(__file__).resolve().parents[2] / "shared" / "data" / "extraction-dev"
_SPACE = re.compile(r"\s+")


@dataclass
class Page:
    url: str
    body: bytes
    text: str  # decoded by collie
    with_: list[str]
    without: list[str]

    @property
    def held_out(self) -> bool:
        """The held-out half: odd CRC-32 of the page's key (its URL)."""
        return zlib.crc32(self.url.encode()) % 2 == 1


@dataclass
class Score:
    tp: int = 0
    fn: int = 0
    fp: int = 0
    tn: int = 0
    seconds: float = 0.0
    pages: int = 0
    halves: dict[bool, Score] | None = None  # held_out -> the half's score

    def add(self, page: Page, extracted: str) -> None:
        if self.halves is not None:
            self.halves.setdefault(page.held_out, Score()).add(page, extracted)
        text = _SPACE.sub(" ", extracted)
        for snippet in page.with_:
            if _SPACE.sub(" ", snippet).strip() in text:
                self.tp += 1
            else:
                self.fn += 1
        for snippet in page.without:
            if _SPACE.sub(" ", snippet).strip() in text:
                self.fp += 1
            else:
                self.tn += 1

    def figures(self) -> tuple[float, float, float]:
        precision = self.tp / max(1, self.tp + self.fp)
        recall = self.tp / max(1, self.tp + self.fn)
        return precision, recall, 2 * precision * recall / max(1e-9, precision + recall)


def load_pages(limit: int) -> list[Page]:
    data = json.loads((DEV / "evaldata.json").read_text(encoding="utf-8"))
    pages = []
    for url, entry in sorted(data.items())[: limit or None]:
        body = gzip.decompress((DEV / "html" / entry["file"]).read_bytes())
        decoded = decode_html(body, None, 0.7)
        text = decoded.text or body.decode("utf-8", errors="replace")
        pages.append(Page(url, body, text, entry["with"], entry["without"]))
    return pages


def _html2text(page: Page) -> str:
    converter = html2text.HTML2Text()
    converter.body_width = 0
    converter.ignore_images = True
    converter.ignore_links = True
    return converter.handle(page.text)


def _collie(engine: str) -> Callable[[Page], str]:
    def run(page: Page) -> str:
        return extract_html(page.text, page.url, engine=engine).text

    return run


def _collie_bytes(page: Page) -> str:
    response = FetchResult(page.url, page.url, 200, {"content-type": "text/html"}, page.body)
    return process(page.url, response).text


def _trafilatura(fast: bool) -> Callable[[Page], str]:
    import trafilatura

    def run(page: Page) -> str:
        return trafilatura.extract(page.text, url=page.url, fast=fast) or ""

    return run


def tools() -> dict[str, Callable[[Page], str]]:
    found: dict[str, Callable[[Page], str]] = {
        "collie (decode + extract)": _collie_bytes,
        "collie": _collie("trafilatura"),
        "collie fast": _collie("fast"),
        "collie, rules (before)": _collie("rules"),
        "html2text alone": _html2text,
    }
    try:
        import trafilatura

        found[f"trafilatura {trafilatura.__version__} fast"] = _trafilatura(True)
        found[f"trafilatura {trafilatura.__version__}"] = _trafilatura(False)
    except ImportError:
        print("(trafilatura is not installed: pip install '.[bench]')")
    return found


def measure(name: str, tool: Callable[[Page], str], pages: list[Page]) -> Score:
    clear_caches()
    score = Score(halves={})
    start = time.process_time()
    for page in pages:
        score.add(page, tool(page))
        score.pages += 1
    score.seconds = time.process_time() - start
    return score


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=0, help="only the first N pages")
    parser.add_argument("--tools", default="", help="comma-separated names (substring match)")
    args = parser.parse_args(argv)
    if not (DEV / "evaldata.json").is_file():
        print(f"no extraction development set in {DEV.parent} (a fresh clone has none): skipped")
        return 0
    pages = load_pages(args.limit)
    sizes = sorted(len(p.body) for p in pages)
    print(
        f"{len(pages)} real pages from ../shared/data/extraction-dev, "
        f"median {sizes[len(sizes) // 2] / 1000:.0f} KB; "
        f"{sum(len(p.with_) for p in pages)} must-have and "
        f"{sum(len(p.without) for p in pages)} must-not-have snippets"
    )
    wanted = [w for w in args.tools.split(",") if w]
    print(
        f"{'extractor':<32} {'F1':>6} {'prec.':>6} {'recall':>6} {'ms/page':>8} {'pages/s':>8}"
        f" {'F1 dev':>7} {'F1 held':>7}"
    )
    for name, tool in tools().items():
        if wanted and not any(w in name for w in wanted):
            continue
        score = measure(name, tool, pages)
        precision, recall, f1 = score.figures()
        ms = 1000 * score.seconds / max(1, score.pages)
        halves = score.halves or {}
        dev, held = (halves.get(h, Score()).figures()[2] for h in (False, True))
        print(
            f"{name:<32} {f1:>6.3f} {precision:>6.3f} {recall:>6.3f} {ms:>8.1f} "
            f"{1000 / max(ms, 1e-9):>8.0f} {dev:>7.4f} {held:>7.4f}",
            flush=True,
        )
    speed(pages)
    return 0


def speed(pages: list[Page]) -> None:
    """Decode + extract from the bytes on the pages of 20-60 KB, beside trafilatura alone
    (extraction only, from the decoded text) on the same pages."""
    middle = [p for p in pages if 20_000 <= len(p.body) <= 60_000]
    if not middle:
        return
    ours = measure("collie", _collie_bytes, middle)
    line = (
        f"{len(middle)} pages of 20-60 KB, one core: collie decode + extract "
        f"{ours.pages / ours.seconds:.0f} pages/s (target >= 60)"
    )
    try:
        theirs = measure("trafilatura", _trafilatura(False), middle)
        rate = theirs.pages / theirs.seconds
        ratio = ours.seconds / theirs.seconds
        line += f"; trafilatura extract alone {rate:.0f} pages/s ({ratio:.2f}x its time)"
    except ImportError:
        pass
    print(line)


if __name__ == "__main__":
    sys.exit(main())
