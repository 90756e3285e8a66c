"""What a workspace's runs found: a text summary, and one self-contained HTML page.

The data comes from the workspace (loop counts, languages, sites, queries, seed lists);
this module only shapes it. Plots are inline SVG drawn here (bar charts), so the HTML
file needs nothing else: no plotting library, no scripts, no fonts or assets from the
internet.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from collie.reasons import NEAR_DUPLICATE, RELATIVE_SUSPECTED

BAR_COLOURS = ("#2f6f9f", "#9fc5e8", "#c0504d", "#9bbb59", "#8064a2", "#f79646")


@dataclass
class LoopReport:
    number: int
    queries: Counter[str] = field(default_factory=Counter)  # sent, cached, failed, lost
    search_urls: int = 0
    pages: Counter[str] = field(default_factory=Counter)  # kept, duplicate, wronglang, dropped
    reasons: Counter[str] = field(default_factory=Counter)
    languages: Counter[str] = field(default_factory=Counter)  # of the pages with text
    search_stopped: str | None = None

    def line(self) -> str:
        """The line a run prints when a loop ends."""
        pages = self.pages
        reasons = ", ".join(
            f"{r} {n}" for r, n in self.reasons.most_common(6) if r != NEAR_DUPLICATE
        )
        why = f" ({reasons})" if reasons else ""
        return (
            f"loop {self.number}: {sum(pages.values())} pages fetched: {pages['kept']} "
            f"target documents, {pages['duplicate']} near-duplicates, {pages['wronglang']} in "
            f"other languages, {pages['dropped']} dropped{why}"
        )

    def nothing_found_line(self, target: str) -> str:
        """What a loop that found no target document saw instead."""
        seen = ", ".join(f"{code} {n}" for code, n in self.languages.most_common(8))
        suspected = self.reasons[RELATIVE_SUSPECTED]
        return (
            f"loop {self.number}: no {target} document among {sum(self.pages.values())} "
            f"pages fetched; their languages: {seen or 'none (no page had text)'}"
            + (
                f"; {suspected} pages look like a close relative of {target} "
                "(`collie export --suspects`)"
                if suspected
                else ""
            )
        )


def summary_lines(data: dict[str, Any]) -> list[str]:
    """The text report (stdout of `collie report`)."""
    lines = [
        f"collie report: {data['language']} ({data['language_name']}), "
        f"{len(data['loops'])} loop(s)",
        "",
    ]
    lines += loop_lines(data["loops"])
    lines += [
        "",
        "languages of the pages fetched: "
        + (", ".join(f"{code} {n}" for code, n in data["languages"].items()) or "-"),
    ]
    lines += ["", "best sites (target documents / pages fetched):"]
    lines += [f"  {site:<40} {docs:>5} / {pages}" for site, docs, pages in data["sites"]] or ["  -"]
    lines += ["", "best queries (target documents among the URLs they found first):"]
    lines += [f"  {q[:60]:<60} {d:>4} / {n}" for q, d, n in data["queries"]] or ["  -"]
    words = data.get("seed_yields", {})
    for side, title in (("best", "best"), ("worst", "worst")):
        lines += ["", f"{title} seed words (queries that brought a target document / queries):"]
        lines += [f"  {w:<30} {h:>4} / {n}" for w, h, n in words.get(side, [])] or ["  -"]
    for loop, words in data["seeds"].items():
        lines += [
            "",
            f"seed words of loop {loop} ({len(words)}): "
            + " ".join(words[:30])
            + (" ..." if len(words) > 30 else ""),
        ]
    return lines


def bar_chart(
    title: str, labels: Sequence[str], series: dict[str, Sequence[float]], width: int = 640
) -> str:
    """A stacked horizontal bar chart as inline SVG; `series` maps a legend to values."""
    row, left, top = 22, 180, 40
    totals = [sum(values[i] for values in series.values()) for i in range(len(labels))]
    scale = (width - left - 60) / max(max(totals, default=0), 1)
    height = top + row * len(labels) + 20
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'role="img" aria-label="{html.escape(title)}">',
        f'<text x="4" y="16" font-weight="bold">{html.escape(title)}</text>',
    ]
    for k, name in enumerate(series):
        lx = left + k * 120
        colour = BAR_COLOURS[k % len(BAR_COLOURS)]
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
                    f'fill="{BAR_COLOURS[k % len(BAR_COLOURS)]}"/>'
                )
            x += w
        parts.append(
            f'<text x="{x + 4:.1f}" y="{y + 14}" font-size="11" '
            f'data-total="{totals[i]:g}">{totals[i]:g}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def html_report(data: dict[str, Any]) -> str:
    """One self-contained HTML page: the summary as tables and three plots."""
    loops = data["loops"]
    labels = [f"loop {loop['number']}" for loop in loops]
    yield_chart = bar_chart(
        "Target documents per loop",
        labels,
        {
            "from search": [loop["documents"]["search"] for loop in loops],
            "from crawling": [loop["documents"]["crawl"] for loop in loops],
        },
    )
    languages = list(data["languages"].items())[:15]
    language_chart = bar_chart(
        "Pages fetched by language", [c for c, _ in languages], {"pages": [n for _, n in languages]}
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
    text = html.escape("\n".join(summary_lines(data)))
    title = f"collie report: {html.escape(data['language_name'])}"
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
        "<style>body{font-family:sans-serif;margin:2em;max-width:60em}"
        "pre{background:#f4f4f4;padding:1em;overflow-x:auto}figure{margin:1.5em 0}</style>"
        f"</head><body><h1>{title}</h1>"
        f'<figure id="loops">{yield_chart}</figure>'
        f'<figure id="languages">{language_chart}</figure>'
        f'<figure id="sites">{site_chart}</figure>'
        f"<h2>Summary</h2><pre>{text}</pre></body></html>\n"
    )


def loop_lines(loops: list[dict[str, Any]]) -> list[str]:
    """Per loop: when, queries, search URLs, pages fetched, what became of them, words."""
    if not loops:
        return [f"{'loop':>4}  {'started':<25}  finished", "   -  no loops run yet"]
    lines = [
        f"{'loop':>4}  {'started':<25}  {'finished':<25}  {'queries':>7}  {'URLs':>6}  "
        f"{'fetched':>7}  {'docs s+c':>9}  {'dups':>5}  {'other':>5}  {'words':>8}"
    ]
    for loop in loops:
        docs, pages = loop["documents"], loop["pages"]
        lines.append(
            f"{loop['number']:>4}  {loop['started_at']:<25}  {loop['finished_at'] or '-':<25}  "
            f"{loop['queries']:>7}  {loop['search_urls']:>6}  {loop['fetched']:>7}  "
            f"{docs['search']:>4}+{docs['crawl']:<4}  {pages.get('duplicate', 0):>5}  "
            f"{pages.get('wronglang', 0):>5}  {loop['words']:>8,}"
        )
        dropped = ", ".join(
            f"{reason} {n}" for reason, n in loop["dropped"].items() if reason != NEAR_DUPLICATE
        )
        if dropped:
            lines.append(f"{'':>6}dropped: {dropped}")
        if loop.get("relative_suspected"):
            lines.append(
                f"{'':>6}relative-suspected: {loop['relative_suspected']} pages set aside "
                "(`collie export --suspects`; `collie review` shows them first)"
            )
        linked = loop.get("linked_sites") or {}
        if linked.get("sites"):
            lines.append(
                f"{'':>6}through other sites' links: {linked['sites']} sites, "
                f"{linked['pages']} pages, {linked['documents']} target documents"
            )
        if pages.get("queued"):
            lines.append(f"{'':>6}still queued: {pages['queued']}")
    return lines
