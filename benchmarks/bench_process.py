"""Page processing (decode + extract, no network): throughput and extraction quality.

Pages: collie/mininet/pages.py templates (blog, news, legacy table layout, bare-div portal, docs
with <main>, phpBB-like forum, MediaWiki-like article) around UDHR paragraphs in 16
language/encoding pairs (UTF-8, windows-1250/1251/1252, ISO-8859-1/2/15, KOI8-R,
Shift_JIS, GB2312, EUC-KR), declared in the header, in <meta>, both, neither, or
wrongly; 17-51 KB each.

1. Throughput on one core, side by side in the same run with the naive pipeline
   (`chardet.detect` on the whole body + `html2text.html2text` on the whole page), best
   of 5 alternating rounds, CPU time (the machine is shared) and wall clock. Targets:
   ours >= 3x naive and >= 100 pages/s, on 240 pages of 48 sites (5 pages each, sharing
   menus and footers, as crawling out of a site gives: collie caches line decisions, so
   a site's repeated boilerplate lines are decided once); the figure for 240 pages of
   240 different sites is printed beside it. Caches are emptied before every round.
2. Extraction quality: token F1 (bag of words; Han and kana characters count one token
   each) of the kept text against the known main text, rules on; beside it rules off and
   plain html2text. Target: F1 >= 0.90 with rules on. Caveat: the same person wrote the
   templates and the rules; the forum and wiki templates were written after the rules and
   first scored 0.70 and 0.80, which led to four more rules.
3. Encoding decisions on the undeclared pages of the set, and on one undeclared legacy
   page per UDHR translation with non-ASCII text (chardet alone vs verified guesses).

    python benchmarks/bench_process.py
"""

from __future__ import annotations

import os
import statistics
import time
from collections import Counter
from collections.abc import Callable

import chardet
import html2text

from collie.encoding import decode_html
from collie.extract import extract_html
from collie.fetch import FetchResult
from collie.mininet.pages import LabelledPage, build_corpus
from collie.mininet.pages import token_f1 as f1
from collie.process import clear_caches, process
from collie.udhr import Declaration, load_declarations

PAGES = 240
PAGES_PER_SITE = 5  # crawling out of a site fetches many of its pages
ROUNDS = 5


def naive(body: bytes) -> str:
    guess = chardet.detect(body)
    text = body.decode(guess.get("encoding") or "utf-8", errors="replace")
    return html2text.html2text(text)


def ours(page: LabelledPage) -> str:
    response = FetchResult(page.url, page.url, 200, {"content-type": page.content_type}, page.body)
    return process(page.url, response).text


def ours_without_rules(page: LabelledPage) -> str:
    response = FetchResult(page.url, page.url, 200, {"content-type": page.content_type}, page.body)
    return process(page.url, response, boilerplate="none").text


def seconds(
    pages: list[LabelledPage], run: Callable[[LabelledPage], object]
) -> tuple[float, float]:
    """(wall-clock, CPU) seconds to run over every page."""
    wall, cpu = time.perf_counter(), time.process_time()
    for page in pages:
        run(page)
    return time.perf_counter() - wall, time.process_time() - cpu


def report_throughput(pages: list[LabelledPage], label: str) -> tuple[float, float]:
    """Best of ROUNDS for each, the two alternating so both see the same machine.

    The machine is shared: wall-clock figures move with other processes' load, so the
    targets are checked on CPU time (pages per CPU-second of one pinned core); both are
    printed."""
    naive(pages[0].body), ours(pages[0])  # warm up (chardet loads its models)
    best = {"naive": [float("inf")] * 2, "ours": [float("inf")] * 2}
    for _ in range(ROUNDS):
        for name, run in (("naive", lambda p: naive(p.body)), ("ours", ours)):
            clear_caches()  # every round starts cold: no page is seen twice
            timing = seconds(pages, run)
            best[name] = [min(old, new) for old, new in zip(best[name], timing, strict=True)]
    n = len(pages)
    (theirs_wall, theirs), (mine_wall, mine) = [[n / t for t in best[k]] for k in ("naive", "ours")]
    print(f"throughput, {label}, one core, best of {ROUNDS} alternating rounds (CPU | wall):")
    print(
        f"  naive (chardet whole body + html2text whole page): {theirs:7.1f} | "
        f"{theirs_wall:7.1f} pages/s"
    )
    print(
        f"  collie process() (decode + extract + rules):       {mine:7.1f} | "
        f"{mine_wall:7.1f} pages/s"
    )
    print(
        f"  ratio: {mine / theirs:.2f}x CPU, {mine_wall / theirs_wall:.2f}x wall  "
        "(targets, on CPU time: >= 3x and >= 100 pages/s)"
    )
    return mine, theirs


def report_quality(pages: list[LabelledPage]) -> float:
    """Extraction alone, on the page as written (decoding is measured separately)."""
    scores: dict[str, list[float]] = {"rules": [], "none": [], "naive": []}
    by_template: dict[str, list[float]] = {}
    for page in pages:
        scores["rules"].append(f1(extract_html(page.html, page.url).text, page.main_text))
        scores["none"].append(f1(extract_html(page.html, page.url, "none").text, page.main_text))
        scores["naive"].append(f1(html2text.html2text(page.html), page.main_text))
        by_template.setdefault(page.template, []).append(scores["rules"][-1])
    print(f"extraction quality, token F1 vs known main text, {len(pages)} pages (mean):")
    print(
        f"  collie, boilerplate = rules: {statistics.mean(scores['rules']):.3f}  (target >= 0.90)"
    )
    print(f"  collie, boilerplate = none:  {statistics.mean(scores['none']):.3f}")
    print(f"  plain html2text (naive):     {statistics.mean(scores['naive']):.3f}")
    print(
        f"  rules, worst page: {min(scores['rules']):.3f}; by template: "
        + ", ".join(f"{t} {statistics.mean(v):.3f}" for t, v in sorted(by_template.items()))
    )
    return statistics.mean(scores["rules"])


def report_outcomes(pages: list[LabelledPage]) -> None:
    """What process() decided for every page (encodings, drops)."""
    outcomes: Counter[str] = Counter()
    for page in pages:
        response = FetchResult(
            page.url, page.url, 200, {"content-type": page.content_type}, page.body
        )
        result = process(page.url, response)
        right = result.outcome == "kept" and f1(result.text, page.main_text) > 0.5
        outcomes[
            f"{result.outcome}:{result.reason or result.encoding_method}:{'ok' if right else '-'}"
        ] += 1
    print(
        "process() outcomes (outcome:reason-or-encoding-method:text-right): "
        + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items()))
    )


LEGACY = ("cp1252", "iso8859-2", "cp1250", "cp1251", "koi8-r", "iso8859-15", "cp1257", "cp1254")


def report_undeclared(translations: dict[str, Declaration]) -> None:
    """Every UDHR translation with non-ASCII text, as an undeclared page (1,500 characters
    of text) in the first legacy encoding that can hold it: what decode_html decides."""
    outcomes: Counter[str] = Counter()
    confidences: list[float] = []
    for name in sorted(translations):
        text = " ".join(translations[name].training_paragraphs())[:1500]
        codec = next((c for c in LEGACY if _encodable(text, c)), None)
        if text.isascii() or codec is None:
            continue
        page = f"<html><body><p>{text}</p></body></html>"
        decoded = decode_html(page.encode(codec))
        verdict = (
            "dropped" if decoded.text is None else "right" if decoded.text == page else "wrong"
        )
        outcomes[f"{verdict}:{decoded.method}"] += 1
        confidences.append(decoded.confidence if decoded.method.startswith("chardet") else 1.0)
    total = sum(outcomes.values())
    print(f"undeclared legacy pages, one per UDHR translation with non-ASCII text ({total}):")
    print("  " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))
    chardet_conf = sorted(c for c in confidences if c < 1.0)
    at_07 = sum(1 for c in chardet_conf if c >= 0.7)
    print(
        f"  chardet (visible text) below 1.0 on {len(chardet_conf)} pages; >= 0.7 on {at_07}; "
        f"median {statistics.median(chardet_conf):.2f}"
    )


def _encodable(text: str, codec: str) -> bool:
    try:
        text.encode(codec)
    except UnicodeEncodeError:
        return False
    return True


def report_chardet(pages: list[LabelledPage]) -> None:
    undeclared = [p for p in pages if p.declaration == "none" and p.encoding != "utf-8"]
    decided = [decode_html(p.body, p.content_type) for p in undeclared]
    print(f"undeclared legacy pages of the set: {len(undeclared)}; decode_html decisions:")
    print("  " + ", ".join(
        f"{p.encoding}->{d.encoding}:{d.method}:{d.confidence:.2f}"
        for p, d in zip(undeclared, decided, strict=True)
    ))  # fmt: skip
    whole = sorted(round(float(chardet.detect(p.body)["confidence"] or 0), 2) for p in undeclared)
    print(f"  (chardet on the whole body instead: confidences {whole[0]}-{whole[-1]})")


def main() -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {0})
    translations = load_declarations()
    pages = build_corpus(translations, PAGES)
    crawl = build_corpus(translations, PAGES, pages_per_site=PAGES_PER_SITE)
    sizes = sorted(len(p.body) for p in pages)
    print(f"{len(pages)} pages, {sizes[0] // 1024}-{sizes[-1] // 1024} KB "
          f"(median {sizes[len(sizes) // 2] // 1024} KB)")  # fmt: skip
    mine, theirs = report_throughput(
        crawl, f"{len(crawl)} pages of {len(crawl) // PAGES_PER_SITE} sites (as crawled)"
    )
    report_throughput(pages, f"{len(pages)} pages of {len(pages)} different sites")
    quality = report_quality(pages)
    report_outcomes(pages)
    report_chardet(pages)
    report_undeclared(translations)
    ok = mine >= 3 * theirs and mine >= 100 and quality >= 0.90
    print("targets met" if ok else "TARGETS MISSED")


if __name__ == "__main__":
    main()
