"""What a workspace's runs found: a text summary, and one self-contained HTML page.

The data comes from the workspace (loop counts, languages, sites, queries, seed lists);
this module only shapes it. Plots are inline SVG drawn here (bar charts), so the HTML
file needs nothing else: no plotting library, no scripts, no fonts or assets from the
internet.
"""

from __future__ import annotations

import datetime as dt
import html
import math
import textwrap
from collections import Counter
from collections.abc import Sequence
from typing import Any

from collie.corpus.review.audit import audit_lines
from collie.corpus.sites import label_share_lines
from collie.errors import CollieError
from collie.langid.model import NO_LANGUAGE, OTHER, UNDETERMINED
from collie.languages import get_language
from collie.reasons import NEAR_DUPLICATE

BAR_COLOURS = ("#2f6f9f", "#9fc5e8", "#c0504d", "#9bbb59", "#8064a2", "#f79646")
# One colour, one meaning, across the page's plots.
SERIES_COLOURS = {
    "from search": "#2f6f9f",
    "from crawling": "#9fc5e8",
    "from web archives": "#b4a7d6",
    "target documents": "#4f8f3a",
    "other pages": "#c9c9c9",
    "pages": "#8064a2",
    "pages dropped": "#c0504d",
    "documents": "#f79646",
}
LENGTH_BINS = (50, 100, 200, 500, 1000, 2000, 5000)  # words: the document-length plot's edges


def language_label(code: str) -> str:
    """ "zul (Zulu)": a language code with its English name."""
    if code == UNDETERMINED:
        return f"{code} (undetermined: too little text)"
    if code == NO_LANGUAGE:
        return f"{code} (no linguistic content: numbers, addresses, code)"
    if code == OTHER:
        return f"{code} (another language)"
    try:
        return f"{code} ({get_language(code).name})"
    except (KeyError, LookupError, CollieError):
        return code


def length_bins(words: Sequence[int]) -> list[tuple[str, int]]:
    """Documents per length class (LENGTH_BINS), for the length plot."""
    edges = [0, *LENGTH_BINS]
    bins = []
    for low, high in zip(edges, [*LENGTH_BINS, None], strict=True):
        n = sum(1 for w in words if w >= low and (high is None or w < high))
        bins.append((f"{low}-{high - 1} words" if high else f"{low}+ words", n))
    return bins


def summary_lines(data: dict[str, Any]) -> list[str]:
    """The text report (stdout of `collie report`)."""
    lines = [
        f"collie report: {data['language']} ({data['language_name']}), "
        f"{len(data['loops'])} loop(s)",
        "",
    ]
    lines += loop_lines(data["loops"])
    scanned = data.get("scan") or {}
    if scanned.get("files"):
        lines += [
            "",
            f"web archives scanned: {scanned['files']} files, {scanned['records']:,} "
            f"records ({scanned['candidates']:,} past the first filter), "
            f"{scanned['documents']:,} target documents in the corpus"
            + (
                f" ({scanned['partial']} files partial: scan them again once complete)"
                if scanned.get("partial")
                else ""
            ),
        ]
    archive = data.get("archive") or {}
    if archive.get("files"):
        per_doc = archive["bytes_per_document"]
        lines += [
            "",
            f"WARC files: {archive['files']}, {archive['bytes']:,} bytes compressed "
            f"(warc.keep {archive['keep']}; the body cache {archive['cache_bytes']:,} bytes)"
            + (f", {per_doc:,} bytes per target document" if per_doc else ""),
        ]
    runs = (data.get("search") or {}).get("runs") or []
    if runs:
        lines += ["", "search cost (each run's requests, priced on the backend's plan):"]
        lines += [f"  {cost_line(run)}" for run in runs]
    fetched = ", ".join(f"{language_label(code)} {n}" for code, n in data["languages"].items())
    lines += ["", f"languages of the pages fetched: {fetched or '-'}"]
    lines += ["", "best sites (target documents / pages fetched):"]
    lines += [f"  {site:<40} {docs:>5} / {pages}" for site, docs, pages in data["sites"]] or ["  -"]
    lines += ["", "best queries (target documents among the URLs they found first):"]
    lines += [f"  {q[:60]:<60} {d:>4} / {n}" for q, d, n in data["queries"]] or ["  -"]
    lines += [
        "",
        "queries that led furthest (loop; target sites new to the search; target "
        "documents on the sites they surfaced first, crawling included):",
    ]
    leads = data.get("query_leads", [])
    lines += [f"  {q[:60]:<60} {loop:>2} {s:>4} {d:>6}" for q, loop, s, d in leads] or ["  -"]
    words = data.get("seed_yields", {})
    for side, title in (("best", "best"), ("worst", "worst")):
        lines += ["", f"{title} seed words (queries that brought a target document / queries):"]
        lines += [f"  {w:<30} {h:>4} / {n}" for w, h, n in words.get(side, [])] or ["  -"]
    for loop, words in data["seeds"].items():
        lines += ["", f"seed words of loop {loop} {seed_words_text(words, 30)}"]
    if (data.get("rights") or {}).get("documents"):
        lines += ["", "rights the pages state (collie.page.rights):"]
        lines += [f"  {line}" for line in rights_lines(data["rights"])]
    if data.get("site_labels"):
        lines += ["", "what the corpus is made of (site labels; `collie export --format sites`):"]
        lines += label_share_lines(data["site_labels"])
    if data.get("audit") is not None:
        lines += ["", "audit by a speaker (`collie review`; 95% Wilson intervals):"]
        lines += [f"  {line}" for line in audit_lines(data["audit"], data["language_name"])]
    return lines


def cost_line(run: dict[str, Any]) -> str:
    """One run's search bill in words."""
    head = f"run {run['started_at'][:16].replace('T', ' ')} UTC, {run['backend']}: " + (
        f"{run['requests']:,} search requests"
    )
    if run["price_usd"] is None:
        return head + " (the plan's price is not known: set search.price_per_1000)"
    if not run["price_per_1000"]:
        return head + " (free)"
    allowance = run["monthly_allowance"]
    within = f"; {allowance:,} a month free" if allowance else ""
    return (
        head + f", ${run['price_usd']:,.2f} ({run['billed_requests']:,} billed at "
        f"${run['price_per_1000']:g} per 1,000{within})"
    )


def rights_lines(rights: dict[str, Any]) -> list[str]:
    """The corpus's rights in words: licensed, open and TDM-reserved shares."""
    documents = rights.get("documents") or 0
    if not documents:
        return []
    licences = ", ".join(f"{name} {n}" for name, n in rights["licences"].items())
    where = ", ".join(f"{name} {n}" for name, n in rights["tdm_sources"].items())
    return [
        f"{rights['licensed']:,} of {documents:,} documents state a licence "
        f"({rights['licensed_share']:.1%}; {licences or 'none'}); "
        f"{rights['open']:,} an open one ({rights['open_share']:.1%}: `export --rights open`)",
        f"{rights['tdm_reserved']:,} reserve text and data mining "
        f"({rights['tdm_reserved_share']:.1%}{'; ' + where if where else ''}: `export "
        "--exclude tdm-reserved`)",
    ]


NO_SEED_WORDS = "none stored, as the loop recorded no query (a scan loop, or its search never ran)"


def seed_words_text(words: list[str], shown: int) -> str:
    """A loop's seed words as its queries stored them (the first `shown`), or that it
    stored none, in words."""
    if not words:
        return f"(0): {NO_SEED_WORDS}"
    more = " ..." if len(words) > shown else ""
    return f"({len(words)}, as its queries stored them): {' '.join(words[:shown])}{more}"


def axis_ticks(maximum: float, count: int = 5) -> list[float]:
    """Round tick values from 0 past `maximum` (steps of 1, 2 or 5 times a power of ten)."""
    if maximum <= 0:
        return [0.0, 1.0]
    rough = maximum / count
    power = 10 ** math.floor(math.log10(rough))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= rough)
    step = max(step, 1.0)
    return [k * step for k in range(math.ceil(maximum / step) + 1)]


def bar_chart(
    title: str, labels: Sequence[str], series: dict[str, Sequence[float]], width: int = 640
) -> str:
    """A stacked horizontal bar chart as inline SVG; `series` maps a legend to values.
    Under the bars, a numeric axis with its gridlines."""
    row, left, top = 22, 180, 40
    totals = [sum(values[i] for values in series.values()) for i in range(len(labels))]
    ticks = axis_ticks(max(totals, default=0))
    scale = (width - left - 60) / ticks[-1]
    bottom = top + row * len(labels)
    height = bottom + 34
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'role="img" aria-label="{html.escape(title)}">',
        f'<text x="4" y="16" font-weight="bold">{html.escape(title)}</text>',
    ]
    for tick in ticks:
        x = left + tick * scale
        parts.append(
            f'<line x1="{x:.1f}" y1="{top - 4}" x2="{x:.1f}" y2="{bottom + 2}" '
            f'stroke="#e4e4e4"/><text class="tick" x="{x:.1f}" y="{bottom + 16}" '
            f'font-size="10" text-anchor="middle">{tick:g}</text>'
        )
    parts.append(
        f'<line x1="{left}" y1="{bottom + 2}" x2="{left + ticks[-1] * scale:.1f}" '
        f'y2="{bottom + 2}" stroke="#888"/>'
    )
    colours = [
        SERIES_COLOURS.get(n, BAR_COLOURS[k % len(BAR_COLOURS)]) for k, n in enumerate(series)
    ]
    for k, name in enumerate(series):
        lx = left + k * 120
        colour = colours[k]
        legend = f'<text x="{lx + 14}" y="33" font-size="11">{html.escape(name)}</text>'
        parts.append(f'<rect x="{lx}" y="24" width="10" height="10" fill="{colour}"/>{legend}')
    for i, label in enumerate(labels):
        y, x = top + i * row, float(left)
        parts.append(
            f'<text x="{left - 6}" y="{y + 14}" font-size="12" text-anchor="end">'
            f"{html.escape(label[:28])}</text>"
        )
        for k, values in enumerate(series.values()):
            w = values[i] * scale
            if w > 0:
                parts.append(
                    f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{row - 6}" '
                    f'fill="{colours[k]}"/>'
                )
            x += w
        parts.append(
            f'<text x="{x + 4:.1f}" y="{y + 14}" font-size="11" '
            f'data-total="{totals[i]:g}">{totals[i]:g}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def saturation_chart(loops: list[dict[str, Any]], width: int = 640) -> str:
    """The saturation curve as inline SVG: target sites found against queries sent, with
    the coverage estimate (a lower bound), the upper bound of its 95% interval and, past
    the last query, the extrapolation of the sites more queries would find; a loop's
    start marked. "" when no query was answered."""
    points = [
        (p, loop["number"]) for loop in loops for p in (loop.get("coverage") or {}).get("curve", [])
    ]
    if not points:
        return ""
    searched = [loop["coverage"] for loop in loops if loop.get("coverage")]
    ahead: list[list[float]] = searched[-1].get("extrapolation", []) if searched else []
    left, top, height = 50, 40, 220
    bottom = top + height
    xs = axis_ticks(max([p[0] for p, _ in points] + [q for q, _ in ahead]))
    ys = axis_ticks(max(max(p[1], p[2], p[3]) for p, _ in points))
    sx, sy = (width - left - 20) / xs[-1], height / ys[-1]

    def at(q: float, v: float) -> str:
        return f"{left + q * sx:.1f},{bottom - v * sy:.1f}"

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{bottom + 30}" '
        'role="img" aria-label="Saturation of the search">',
        '<text x="4" y="16" font-weight="bold">Target sites found through search, and the '
        "estimate</text>",
    ]
    for tick in xs:
        x = left + tick * sx
        parts.append(
            f'<text class="tick" x="{x:.1f}" y="{bottom + 16}" font-size="10" '
            f'text-anchor="middle">{tick:g}</text>'
        )
    for tick in ys:
        y = bottom - tick * sy
        parts.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{width - 20}" y2="{y:.1f}" '
            f'stroke="#e4e4e4"/><text x="{left - 6}" y="{y + 4:.1f}" font-size="10" '
            f'text-anchor="end">{tick:g}</text>'
        )
    for (_, number), (before, last) in zip(points[1:], points[:-1], strict=True):
        if number != last:
            x = left + before[0] * sx
            parts.append(
                f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{bottom}" '
                f'stroke="#888" stroke-dasharray="2,3"/><text x="{x + 3:.1f}" '
                f'y="{top + 10}" font-size="10">loop {number}</text>'
            )
    lines = [
        ("found", [at(p[0], p[1]) for p, _ in points], "#1f6f8b", ""),
        ("estimate (lower bound)", [at(p[0], p[2]) for p, _ in points], "#c0392b", "6,3"),
        ("upper bound (95%)", [at(p[0], p[3]) for p, _ in points], "#e59866", "2,3"),
        ("extrapolation", [at(q, v) for q, v in ahead], "#1f6f8b", "1,3"),
    ]
    for k, (name, path, colour, dash) in enumerate(lines):
        if not path:
            continue
        parts.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="2" '
            f'stroke-dasharray="{dash}" points="{" ".join(path)}"/>'
            f'<text x="{left + 10 + 145 * k}" y="33" font-size="11" '
            f'fill="{colour}">{name}</text>'
        )
    parts.append(
        f'<text x="{width - 20}" y="{bottom + 28}" font-size="10" '
        'text-anchor="end">queries sent</text></svg>'
    )
    return "".join(parts)


def top_languages(counts: dict[str, int], shown: int = 15) -> tuple[list[tuple[str, int]], str]:
    """The languages the chart shows (the most pages first), and its caption: how many
    of how many, and the pages of the rest."""
    items = list(counts.items())
    top, rest = items[:shown], items[shown:]
    if not rest:
        return top, f"All {len(items)} languages of the pages fetched."
    return top, (
        f"{len(top)} of {len(items)} languages shown; the other {len(rest)}: "
        f"{sum(n for _, n in rest):,} pages ({', '.join(code for code, _ in rest)})."
    )


def html_report(data: dict[str, Any]) -> str:
    """One self-contained HTML page: six plots (target documents per loop, the search's
    saturation curve, pages by language, yield by site, drop reasons, document lengths)
    and the summary."""
    loops = data["loops"]
    labels = [f"loop {loop['number']}" for loop in loops]
    yield_chart = bar_chart(
        "Target documents per loop",
        labels,
        {
            "from search": [loop["documents"]["search"] for loop in loops],
            "from crawling": [loop["documents"]["crawl"] for loop in loops],
            "from web archives": [loop["documents"].get("archive", 0) for loop in loops],
        },
    )
    languages, language_caption = top_languages(data["languages"])
    language_chart = bar_chart(
        "Pages fetched by language",
        [language_label(c) for c, _ in languages],
        {"pages": [n for _, n in languages]},
    )
    sites = data["sites"][:15]
    site_chart = bar_chart(
        "Yield by site",
        [s for s, _, _ in sites],
        {
            "target documents": [d for _, d, _ in sites],
            "other pages": [n - d for _, d, n in sites],
        },
    )
    dropped: Counter[str] = Counter()
    for loop in loops:
        dropped.update({r: n for r, n in loop["dropped"].items() if r != NEAR_DUPLICATE})
    reasons = dropped.most_common(12)
    drop_chart = bar_chart(
        "Pages dropped, by reason",
        [r for r, _ in reasons],
        {"pages dropped": [n for _, n in reasons]},
    )
    lengths = length_bins(data.get("lengths", []))
    length_chart = bar_chart(
        "Target documents by length",
        [b for b, _ in lengths],
        {"documents": [n for _, n in lengths]},
    )
    saturation = saturation_chart(loops)
    text = html.escape("\n".join(summary_lines(data)))
    title = f"collie report: {html.escape(data['language_name'])}"
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
        "<style>body{font-family:sans-serif;margin:2em;max-width:60em}"
        "pre{background:#f4f4f4;padding:1em;overflow-x:auto}figure{margin:1.5em 0}</style>"
        f"</head><body><h1>{title}</h1>"
        f'<figure id="loops">{yield_chart}</figure>'
        + (f'<figure id="saturation">{saturation}</figure>' if saturation else "")
        + f'<figure id="languages">{language_chart}'
        f"<figcaption>{html.escape(language_caption)}</figcaption></figure>"
        f'<figure id="sites">{site_chart}</figure>'
        f'<figure id="dropped">{drop_chart}</figure>'
        f'<figure id="lengths">{length_chart}</figure>'
        f"<h2>Summary</h2><pre>{text}</pre></body></html>\n"
    )


WIDTH = 100  # columns: what `collie status` and `collie report` keep to
COLUMNS = (
    ("queries", 9),
    ("URLs", 7),
    ("fetched", 8),
    ("docs", 7),
    ("search", 8),
    ("crawl", 7),
    ("dups", 6),
    ("other", 7),
    ("words", 10),
)
LEGEND = (
    "started: UTC; took: until the loop finished (-: not finished; all: the first start to "
    "the last finish); URLs: new search result "
    "URLs; docs: target-language documents in the corpus, found by search, by crawling "
    "out or in web archives (collie scan), and words: theirs, as `collie export` writes "
    "them (near-duplicates, site boilerplate and paragraphs not in the target language "
    "left out); dups: "
    "near-duplicates, copies of a document kept; other: pages in other languages (their "
    "text feeds the next loop's seed words)"
)


def duration(started: str | None, finished: str | None) -> str:
    """ "35s", "12m05s", "3h07m", "2d04h": the time from one ISO 8601 stamp to another."""
    if not started or not finished:
        return "-"
    elapsed = dt.datetime.fromisoformat(finished) - dt.datetime.fromisoformat(started)
    seconds = int(elapsed.total_seconds())
    minutes, hours, days = seconds // 60, seconds // 3600, seconds // 86400
    if seconds < 60:
        return f"{max(seconds, 0)}s"
    if seconds < 3600:
        return f"{minutes}m{seconds % 60:02d}s"
    if seconds < 86400:
        return f"{hours}h{minutes % 60:02d}m"
    return f"{days}d{hours % 24:02d}h"


def _loop_row(label: str, started: str, took: str, rows: list[dict[str, Any]]) -> str:
    docs = {k: sum(r["documents"].get(k, 0) for r in rows) for k in ("search", "crawl", "archive")}
    values = [
        sum(r["queries"] for r in rows),
        sum(r["search_urls"] for r in rows),
        sum(r["fetched"] for r in rows),
        sum(docs.values()),
        docs["search"],
        docs["crawl"],
        sum(r["pages"].get("duplicate", 0) for r in rows),
        sum(r["pages"].get("wronglang", 0) for r in rows),
    ]
    numbers = "".join(f"{v:>{w}}" for v, (_, w) in zip(values, COLUMNS, strict=False))
    words = f"{sum(r['words'] for r in rows):>{COLUMNS[-1][1]},}"
    return f"{label:>4}  {(started or '-')[:16].replace('T', ' '):<16}  {took:>6}{numbers}{words}"


def _detail(text: str) -> list[str]:
    return textwrap.wrap(
        text, WIDTH, initial_indent=" " * 6, subsequent_indent=" " * 8, break_on_hyphens=False
    )


def loop_lines(loops: list[dict[str, Any]], seed_words: int = 0) -> list[str]:
    """Per loop, after a row of totals: when, queries, search URLs, pages fetched, what
    became of them, words (100 columns), with `seed_words` of its seed words (0: none);
    then a legend of the columns."""
    if not loops:
        return [f"{'loop':>4}  {'started':<16}  took", "   -  no loops run yet"]
    lines = [
        f"{'loop':>4}  {'started':<16}  {'took':>6}"
        + "".join(f"{name:>{width}}" for name, width in COLUMNS)
    ]
    finished = [loop for loop in loops if loop["finished_at"]]
    took = (
        duration(loops[0]["started_at"], loops[-1]["finished_at"])
        if len(finished) == len(loops)
        else "-"
    )
    lines.append(_loop_row("all", loops[0]["started_at"], took, loops))
    for loop in loops:
        pages = loop["pages"]
        took = duration(loop["started_at"], loop["finished_at"])
        lines.append(_loop_row(str(loop["number"]), loop["started_at"], took, [loop]))
        dropped = ", ".join(
            f"{reason} {n}" for reason, n in loop["dropped"].items() if reason != NEAR_DUPLICATE
        )
        if dropped:
            lines += _detail(f"dropped: {dropped}")
        if loop.get("boilerplate_only"):
            lines += _detail(
                f"boilerplate only: {loop['boilerplate_only']} documents hold nothing but "
                "their site's boilerplate (extract.site_repeats): not in docs, as export "
                "leaves them out"
            )
        if loop.get("no_target_text"):
            lines += _detail(
                f"no target text: {loop['no_target_text']} documents hold no paragraph in "
                "the target language: not in docs, as export leaves them out (--segments all "
                "keeps them)"
            )
        if loop.get("too_little_target_text"):
            lines += _detail(
                f"too little target text: {loop['too_little_target_text']} documents hold "
                "fewer than langid.min_target_words words of target-language text: not in "
                "docs, as export leaves them out"
            )
        if loop.get("relative_suspected"):
            lines += _detail(
                f"relative-suspected: {loop['relative_suspected']} pages set aside "
                "(`collie export --suspects`; `collie review` shows them first)"
            )
        linked = loop.get("linked_sites") or {}
        if linked.get("sites"):
            lines += _detail(
                f"through other sites' links: {linked['sites']} sites, "
                f"{linked['pages']} pages, {linked['documents']} target documents"
            )
        stopped = loop["search_stopped"] or ""
        said = "search.stop_rule" in stopped or "search.saturation" in stopped
        if loop.get("coverage") and not said:
            lines += _detail(f"search: {loop['coverage']['sentence']}")
        if loop.get("search_stopped"):
            lines += _detail(f"search stopped: {loop['search_stopped']}")
        if seed_words and "seed_words" in loop:
            lines += _detail(f"seed words {seed_words_text(loop['seed_words'], seed_words)}")
        if pages.get("queued"):
            lines += _detail(f"still queued: {pages['queued']}")
        if loop["documents"].get("archive"):
            lines += _detail(
                f"from web archives (collie scan): {loop['documents']['archive']} target "
                "documents (in docs, not in search or crawl)"
            )
        if loop.get("warc_bytes"):
            docs = sum(loop.get("documents", {}).values())
            per_doc = f", {loop['warc_bytes'] / docs:,.0f} per target document" if docs else ""
            lines += _detail(f"WARC: {loop['warc_bytes']:,} bytes written{per_doc}")
    return [*lines, "", *textwrap.wrap(LEGEND, WIDTH, break_on_hyphens=False)]
