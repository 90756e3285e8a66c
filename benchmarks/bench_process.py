"""Page processing (decode + extract, no network): throughput and extraction quality.

Pages: collie/mininet/pages.py templates (blog, news, legacy table layout, bare-div portal, docs
with <main>, phpBB-like forum, MediaWiki-like article) around UDHR paragraphs in 16
language/encoding pairs (UTF-8, windows-1250/1251/1252, ISO-8859-1/2/15, KOI8-R,
Shift_JIS, GB2312, EUC-KR), declared in the header, in <meta>, both, neither, or
wrongly; 17-51 KB each.

1. Throughput on one core, side by side in the same run with the naive pipeline
   (`chardet.detect` on the whole body + `html2text.html2text` on the whole page), best
   of 5 alternating rounds, CPU time (the machine is shared) and wall clock, with the
   regular-expression engine collie used before (extract.main = "rules") beside it.
   Target (issue 18): >= 60 pages/s, on 240 pages of 48 sites (5 pages each, sharing
   menus and footers, as crawling out of a site gives); the figure for 240 pages of 240
   different sites is printed beside it. Caches are emptied before every round. The
   earlier target, >= 3x the naive pipeline, was the regex engine's; the DOM parse that
   real pages need costs it (benchmarks/bench_extract.py has the real-page figures).
2. Extraction quality: token F1 (bag of words; Han and kana characters count one token
   each) of the kept text against the known main text; beside it boilerplate rules off,
   the rules engine, plain html2text. Target: F1 >= 0.90. Caveat: these are the
   project's own templates, and the same person wrote them and the rules engine (0.99
   here, 0.83 on real pages): a flattering set; the real-page figure is bench_extract's.
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

from collie.mininet.pages import LabelledPage, build_corpus
from collie.mininet.pages import token_f1 as f1
from collie.models import FetchResult
from collie.page.encoding import decode_html
from collie.page.extract import extract_html
from collie.page.process import clear_caches, process
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


def ours_by_rules(page: LabelledPage) -> str:
    """The regular-expression pre-cleaning alone (extract.main = "rules", collie before
    the DOM engine)."""
    response = FetchResult(page.url, page.url, 200, {"content-type": page.content_type}, page.body)
    return process(page.url, response, engine="rules").text


def seconds(
    pages: list[LabelledPage], run: Callable[[LabelledPage], object]
) -> tuple[float, float]:
    """(wall-clock, CPU) seconds to run over every page."""
    wall, cpu = time.perf_counter(), time.process_time()
    for page in pages:
        run(page)
    return time.perf_counter() - wall, time.process_time() - cpu


RUNS: dict[str, Callable[[LabelledPage], object]] = {
    "naive (chardet whole body + html2text whole page)": lambda p: naive(p.body),
    "collie process() (decode + extract)": ours,
    "collie process(), extract.main = rules (before)": ours_by_rules,
}


def report_throughput(pages: list[LabelledPage], label: str) -> float:
    """Best of ROUNDS for each, alternating so all see the same machine; returns collie's
    pages per CPU-second.

    The machine is shared: wall-clock figures move with other processes' load, so the
    target is checked on CPU time (pages per CPU-second of one pinned core); both are
    printed."""
    for run in RUNS.values():
        run(pages[0])  # warm up (chardet loads its models, trafilatura its modules)
    best = {name: [float("inf")] * 2 for name in RUNS}
    for _ in range(ROUNDS):
        for name, run in RUNS.items():
            clear_caches()  # every round starts cold: no page is seen twice
            timing = seconds(pages, run)
            best[name] = [min(old, new) for old, new in zip(best[name], timing, strict=True)]
    n = len(pages)
    rates = {name: (n / cpu, n / wall) for name, (wall, cpu) in best.items()}
    print(f"throughput, {label}, one core, best of {ROUNDS} alternating rounds (CPU | wall):")
    for name, (cpu, wall) in rates.items():
        print(f"  {name:<50} {cpu:7.1f} | {wall:7.1f} pages/s")
    naive_cpu = rates[next(iter(RUNS))][0]
    mine = rates["collie process() (decode + extract)"][0]
    print(f"  ratio collie/naive: {mine / naive_cpu:.2f}x CPU  (target, issue 18: >= 60 pages/s)")
    return mine


def report_quality(pages: list[LabelledPage]) -> float:
    """Extraction alone, on the page as written (decoding is measured separately)."""
    scores: dict[str, list[float]] = {"collie": [], "none": [], "before": [], "naive": []}
    by_template: dict[str, dict[str, list[float]]] = {"collie": {}, "before": {}}
    for page in pages:
        url = page.url
        scores["collie"].append(f1(extract_html(page.html, url).text, page.main_text))
        scores["none"].append(f1(extract_html(page.html, url, "none").text, page.main_text))
        before = extract_html(page.html, url, engine="rules").text
        scores["before"].append(f1(before, page.main_text))
        scores["naive"].append(f1(html2text.html2text(page.html), page.main_text))
        for name in by_template:
            by_template[name].setdefault(page.template, []).append(scores[name][-1])
    print(f"extraction quality, token F1 vs known main text, {len(pages)} pages (mean):")
    labels = {
        "collie": "collie (main content on the DOM, then the rules)",
        "none": "collie, boilerplate = none",
        "before": "collie, extract.main = rules (before)",
        "naive": "plain html2text (naive)",
    }
    for name, label in labels.items():
        target = "  (target >= 0.90)" if name == "collie" else ""
        print(f"  {label:<50} {statistics.mean(scores[name]):.3f}{target}")
    for name, templates in by_template.items():
        print(
            f"  {name}, worst page: {min(scores[name]):.3f}; by template: "
            + ", ".join(f"{t} {statistics.mean(v):.3f}" for t, v in sorted(templates.items()))
        )
    return statistics.mean(scores["collie"])


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
    mine = report_throughput(
        crawl, f"{len(crawl)} pages of {len(crawl) // PAGES_PER_SITE} sites (as crawled)"
    )
    report_throughput(pages, f"{len(pages)} pages of {len(pages)} different sites")
    quality = report_quality(pages)
    report_outcomes(pages)
    report_chardet(pages)
    report_undeclared(translations)
    ok = mine >= 60 and quality >= 0.90
    print("targets met" if ok else "TARGETS MISSED")


if __name__ == "__main__":
    main()
