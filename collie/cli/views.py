"""What the informational commands print: plain data for --json, and lines of text.

Functions here take plain data (the workspace's status and report data come from
collie.corpus.status) and return dicts or lists of lines; they never print and never
write, and never open the workspace.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from collie.config import Value
from collie.corpus.report import WIDTH, cost_line, loop_lines, rights_lines
from collie.languages import Language, all_languages, get_language, members
from collie.search import SearchResult
from collie.search.seeds import SeedList, safetynet_languages
from collie.workspace.seedfiles import SeedPlan

RUNS_SHOWN = 3  # the last runs' search cost lines `collie status` shows (the report: all)
SCOPES = {"I": "individual language", "M": "macrolanguage", "S": "special code"}
TYPES = {
    "L": "living",
    "E": "extinct",
    "A": "ancient",
    "H": "historical",
    "C": "constructed",
    "S": "special",
}


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def init_lines(root: Path, language: Language, plan: SeedPlan, words: list[str]) -> list[str]:
    lines = []
    for doc in plan.documents:
        if doc.method not in ("utf-8", "bom"):
            how = (
                "as given"
                if doc.method == "given"
                else f"detected, confidence {doc.confidence:.2f}"
            )
            lines.append(f"converted {doc.source} from {doc.encoding} ({how}) to UTF-8")
    for skipped in plan.skipped:
        lines.append(f"skipped {skipped.source}: {skipped.reason}")
    if any(s.reason.startswith("encoding uncertain") for s in plan.skipped):
        lines.append(
            "(name the encoding of the skipped files with --encoding NAME to include them)"
        )
    summary = (
        f"Created a collie workspace in {root} for {language.code} ({language.display_name}): "
        f"{_plural(plan.count('target'), 'seed document')}, "
        f"{_plural(plan.words('target'), 'word')}"
    )
    if plan.count("wronglang"):
        summary += f"; {_plural(plan.count('wronglang'), 'wronglang document')}"
    if words:
        summary += f"; {_plural(len(words), 'seed word')}"
    return [*lines, summary + "."]


def status_lines(data: dict[str, Any]) -> list[str]:
    docs, wrong = data["seed_documents"], data["wronglang_documents"]
    lines = [
        f"workspace   {data['workspace']}",
        f"language    {data['language']} ({data['language_name']})",
        f"seed docs   {_plural(docs['count'], 'document')}, {_plural(docs['words'], 'word')}",
    ]
    if data.get("read_only"):
        lines.insert(1, "access      read-only: status, export, report and review --results work")
    for warning in data.get("init_warnings", []):  # what init warned of (issue 46)
        lines += textwrap.wrap(
            f"warning     {warning}", WIDTH, subsequent_indent=" " * 12, break_on_hyphens=False
        )
    if wrong["count"]:
        parts = [f"{code}: {v['count']}" for code, v in sorted(wrong["by_language"].items())]
        lines.append(
            f"wronglang   {_plural(wrong['count'], 'document')}, {_plural(wrong['words'], 'word')}"
            f" ({', '.join(parts)})"
        )
    if data["seed_words"]:
        lines.append(f"seed words  {data['seed_words']:,} (manual list)")
    search = data["search"]
    if search["queries"]:
        counts = ", ".join(f"{n} {status}" for status, n in sorted(search["queries"].items()))
        lines.append(
            f"queries     {counts}; {search['requests_sent']:,} search requests, "
            f"{search['result_urls']:,} distinct result URLs ({search['backend']})"
        )
    for run in (search.get("runs") or [])[-RUNS_SHOWN:]:
        lines += textwrap.wrap(
            f"search cost {cost_line(run)}", WIDTH, subsequent_indent=" " * 12,
            break_on_hyphens=False,
        )  # fmt: skip
    scanned = data.get("scan") or {}
    if scanned.get("files"):
        lines.append(
            f"scanned     {_plural(scanned['files'], 'archive file')}, {scanned['records']:,} "
            f"records, {scanned['candidates']:,} past the first filter, "
            f"{scanned['documents']:,} target documents in the corpus"
        )
    lines += label_lines(data.get("site_labels") or {})
    text = data.get("corpus_text") or {}
    if text.get("letters"):
        shares = [f"{code} {share:.1%}" for code, share in text["shares"].items()]
        lines.append(
            f"corpus text {text['letters']:,} letters by paragraph language: {', '.join(shares)}"
        )
    for line in rights_lines(data.get("rights") or {}):
        lines += textwrap.wrap(
            f"rights      {line}", WIDTH, subsequent_indent=" " * 12, break_on_hyphens=False
        )
    archive = data["archive"]
    if archive["files"]:
        per_doc = archive["bytes_per_document"]
        lines.append(
            f"warc        {_plural(archive['files'], 'file')}, {archive['bytes'] / 1e6:,.1f} MB "
            f"(the body cache: {archive['cache_bytes'] / 1e6:,.1f} MB)"
            + (f"; {per_doc:,} bytes per target document" if per_doc else "")
        )
    lines += archive_damage_lines(archive)
    settings = data["settings"]
    others = {k: v for k, v in settings.items() if k != "language.code"}
    if others:
        lines.append("settings    (differing from the defaults)")
        lines += [f"  {k} = {v['value']!r}  [{v['source']}]" for k, v in others.items()]
    else:
        lines.append("settings    all defaults (`collie config` lists them)")
    lines.append("")
    lines += loop_lines(data["loops"], seed_words=12)
    lines += [
        "",
        *textwrap.wrap(next_step(data), WIDTH, subsequent_indent="      ", break_on_hyphens=False),
    ]
    return lines


def next_step(data: dict[str, Any]) -> str:
    """What to do next, from what the workspace holds."""
    loops = data["loops"]
    if data.get("read_only"):
        return (
            "next: `collie export corpus.txt` or `collie report`; to mine on, copy the "
            "workspace where you can write (the read-only one cannot run)"
        )
    if not loops:
        return "next: `collie run --loops 2` (search, fetch and keep the target language)"
    last = loops[-1]
    if last["finished_at"] is None:
        number = last["number"]
        return f"next: `collie run --loops {number}` finishes loop {number} where it stopped"
    docs = sum(sum(loop["documents"].values()) for loop in loops)
    if not docs:
        return (
            "next: no target document yet; check the backend (`collie search WORD`) and the "
            "seed words (`collie seeds`), then `collie run --loops "
            f"{len(loops) + 1}`"
        )
    return (
        f"next: `collie export corpus.txt` ({docs:,} documents), `collie review --sample "
        f"100` for a native speaker, or `collie run --loops {len(loops) + 1}` for more"
    )


def config_lines(entries: list[Value]) -> list[str]:
    width = max(len(e.key) for e in entries)
    lines = []
    for entry in entries:
        value = (
            repr(entry.value)
            if isinstance(entry.value, str)
            else str(entry.value).lower()
            if isinstance(entry.value, bool)
            else str(entry.value)
        )
        lines.append(f"{entry.key:<{width}}  {value:<24}  {entry.source}")
    return lines


def language_data(lang: Language) -> dict[str, Any]:
    countries = [{"code": c.code, "name": c.name, "domain": c.tld} for c in lang.country_list()]
    data: dict[str, Any] = {
        "code": lang.code,
        "iso639_1": lang.part1,
        "iso639_2b": lang.part2b,
        "name": lang.name,
        "english_names": list(lang.english),
        "other_names": list(lang.other_names),
        "autonyms": list(lang.autonyms),
        "scope": SCOPES.get(lang.scope, lang.scope),
        "type": TYPES.get(lang.type, lang.type),
        "macrolanguage": lang.macrolanguage,
        "countries": countries,
        "domains": lang.domains(),
        "safetynet": _safetynet_coverage(lang.code),
    }
    if lang.is_macrolanguage:
        data["members"] = [m.code for m in members(lang)]
        data["principal_member"] = lang.principal
    return data


def language_lines(data: dict[str, Any]) -> list[str]:
    def joined(values: list[str]) -> str:
        return ", ".join(values) if values else "-"

    macro = data["macrolanguage"]
    rows = [
        ("code", data["code"] + (f" (ISO 639-1: {data['iso639_1']})" if data["iso639_1"] else "")),
        ("name", data["name"]),
        ("English", joined(data["english_names"])),
        ("also called", joined(data["other_names"])),
        ("autonym", joined(data["autonyms"])),
        ("kind", f"{data['scope']}, {data['type']}"),
        ("macrolanguage", f"{macro} ({get_language(macro).name})" if macro else "-"),
    ]
    if "members" in data:
        principal = data["principal_member"]
        listed = [f"{m} (principal)" if m == principal else m for m in data["members"]]
        rows.append(("members", joined(listed)))
    rows.append(("countries", joined([f"{c['code']} {c['name']}" for c in data["countries"]])))
    rows.append(("domains", joined(data["domains"])))
    net = data["safetynet"]
    rows.append(("safetynet", f"{net['words']} words ({net['sources']})" if net else "not covered"))
    return [f"{label:<14} {value}" for label, value in rows]


def result_data(result: SearchResult) -> dict[str, Any]:
    return {
        "rank": result.rank,
        "url": result.url,
        "title": result.title,
        "snippet": result.snippet,
    }


def result_lines(results: list[SearchResult]) -> list[str]:
    lines = []
    for r in results:
        lines.append(f"{r.rank:>3}. {r.title or '(no title)'}")
        lines.append(f"     {r.url}")
        if r.snippet:
            lines.append(f"     {' '.join(r.snippet.split())[:160]}")
    return lines or ["(no results)"]


def _safetynet_coverage(code: str) -> dict[str, Any] | None:
    info = safetynet_languages().get(code)
    return {"words": len(info.entries), "sources": info.sources} if info else None


def seed_list_data(seed_list: SeedList, loop: int) -> dict[str, Any]:
    return {
        "loop": loop,
        "method": seed_list.method,
        "words": [
            {
                "word": s.word,
                "score": round(s.score, 4),
                "count": s.count,
                "docs": s.docs,
                "wrong": s.wrong,
            }
            for s in seed_list.words
        ],
        "removed": seed_list.removed,
    }


def seed_list_lines(data: dict[str, Any], explain: bool) -> list[str]:
    method = data["method"]
    score = {"frequency": "count", "odds-ratio": "log2 OR", "manual": ""}[method]
    lines = [f"loop {data['loop']}: {len(data['words'])} seed words by {method}"]
    lines += [
        f"{i:>4}  {w['word']:<24} {w['score']:>9.3f}" if score else f"{i:>4}  {w['word']}"
        for i, w in enumerate(data["words"], start=1)
    ]
    if explain:
        removed = data["removed"]
        lines.append("")
        lines.append(f"removed by the safetynet ({len(removed)}): word  <- frequent in")
        lines += [
            f"      {word:<24} {', '.join(codes[:8])}{' ...' if len(codes) > 8 else ''}"
            for word, codes in removed.items()
        ]
    return lines


def safetynet_lines(data: dict[str, dict[str, Any]]) -> list[str]:
    lines = [f"{len(data)} languages (sources: u UDHR, w wordfreq, s stopwords-iso)"]
    known = all_languages()
    for code, v in data.items():
        name = known[code].display_name if code in known else code
        lines.append(f"{code}  {name:<32} {v['words']:>4} words  {v['sources']}")
    return lines


def archive_damage_lines(archive: dict[str, Any]) -> list[str]:
    """What `collie status` says of damaged WARC files and lost bodies, if anything."""
    lines = [f"  damaged   warc/{name}: {what}" for name, what in archive["damaged"].items()]
    if archive["damaged"]:
        lines.append("  run `collie check` (it reads every record), then `collie check --repair`")
    if archive["lost_waiting"]:
        lines.append(
            f"  lost      {_plural(archive['lost_waiting'], 'page')} whose body was lost wait "
            "to be fetched again: `collie run --refetch-lost`"
        )
    if archive["lost_failed"]:
        lines.append(
            f"  lost      {_plural(archive['lost_failed'], 'page')} whose body was lost could "
            "not be fetched again: `collie run --refetch-lost` tries again"
        )
    return lines


def label_lines(shares: dict[str, Any]) -> list[str]:
    """What `collie status` says of the site labels: each one's sites and share."""
    parts = []
    for label, share in shares.items():
        if not share["sites"]:
            continue
        if label == "relative" and not share["documents"]:
            parts.append(f"relative {_plural(share['sites'], 'site')} set aside")
            continue
        parts.append(
            f"{label} {_plural(share['sites'], 'site')}, {share['document_share']:.0%} of "
            f"documents, {share['word_share']:.0%} of words"
        )
    if not parts:
        return []
    return [f"sites       {'; '.join(parts)} (`collie export sites.tsv --format sites`)"]
