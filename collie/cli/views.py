"""What the informational commands print: plain data for --json, and lines of text.

Functions here take workspace objects or plain data and return dicts or lists of lines;
they never print and never write.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from collie.config import Value
from collie.corpus.export import Repeats, tally_by_loop
from collie.corpus.report import WIDTH, loop_lines
from collie.languages import Language, all_languages, get_language, members
from collie.search import SearchResult
from collie.search.seeds import SeedList, safetynet_languages
from collie.store import CorpusStore
from collie.workspace.folder import Workspace
from collie.workspace.seedfiles import SeedPlan

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


def status_data(ws: Workspace) -> dict[str, Any]:
    lang = ws.language
    counts = exported_counts(ws)
    target = {"count": 0, "words": 0, "chars": 0}
    wrong: dict[str, Any] = {"count": 0, "words": 0, "by_language": {}}
    for row in ws.records.seed_summary():
        if row.role == "target":
            target = {"count": row.documents, "words": row.words, "chars": row.chars}
        else:
            wrong["count"] += row.documents
            wrong["words"] += row.words
            wrong["by_language"][row.lang or "any"] = {"count": row.documents, "words": row.words}
    return {
        "workspace": str(ws.root),
        "language": lang.code,
        "language_name": lang.display_name,
        "settings": {
            v.key: {"value": v.value, "source": v.source} for v in ws.settings.non_defaults()
        },
        "seed_documents": target,
        "wronglang_documents": wrong,
        "seed_words": len(ws.manual_seed_words()),
        "search": {
            "backend": ws.settings["search.backend"],
            "queries": ws.queries.query_counts(),
            "requests_sent": ws.queries.requests_sent(),
            "result_urls": ws.queries.result_url_count(),
        },
        "loops": [
            {
                "number": loop.number,
                "started_at": loop.started_at,
                "finished_at": loop.finished_at,
                **counts.get(loop.number, {}),
            }
            for loop in ws.records.loops()
        ],
    }


def exported_counts(ws: Workspace) -> dict[int, dict[str, Any]]:
    """Store.loop_counts with the documents and words an export writes: a document whose
    every paragraph is its site's boilerplate (extract.site_repeats) is left out of both,
    and counted apart as `boilerplate_only`."""
    store = CorpusStore(ws.conn)
    counts = store.loop_counts()
    repeats = Repeats(ws.settings["extract.site_repeats"])
    repeats.learn(store.export_rows())
    written = tally_by_loop(store.export_rows(), ws.language.code, repeats)
    for loop, count in counts.items():
        stored: dict[str, int] = count["documents"]  # type: ignore[assignment]
        tally = written.get(loop, {})
        docs = {source: tally.get(source, 0) for source in ("search", "crawl")}
        count["boilerplate_only"] = sum(stored.values()) - sum(docs.values())
        count["documents"] = docs
        count["words"] = tally.get("words", 0)
    return counts


def status_lines(data: dict[str, Any]) -> list[str]:
    docs, wrong = data["seed_documents"], data["wronglang_documents"]
    lines = [
        f"workspace   {data['workspace']}",
        f"language    {data['language']} ({data['language_name']})",
        f"seed docs   {_plural(docs['count'], 'document')}, {_plural(docs['words'], 'word')}",
    ]
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
            f"queries     {counts}; {search['result_urls']:,} distinct result URLs "
            f"({search['backend']})"
        )
    settings = data["settings"]
    others = {k: v for k, v in settings.items() if k != "language.code"}
    if others:
        lines.append("settings    (differing from the defaults)")
        lines += [f"  {k} = {v['value']!r}  [{v['source']}]" for k, v in others.items()]
    else:
        lines.append("settings    all defaults (`collie config` lists them)")
    lines.append("")
    lines += loop_lines(data["loops"])
    lines += [
        "",
        *textwrap.wrap(next_step(data), WIDTH, subsequent_indent="      ", break_on_hyphens=False),
    ]
    return lines


def next_step(data: dict[str, Any]) -> str:
    """What to do next, from what the workspace holds."""
    loops = data["loops"]
    if not loops:
        return "next: `collie run --loops 2` (search, fetch and keep the target language)"
    last = loops[-1]
    if last["finished_at"] is None:
        number = last["number"]
        return f"next: `collie run --loops {number}` finishes loop {number} where it stopped"
    docs = sum(loop["documents"]["search"] + loop["documents"]["crawl"] for loop in loops)
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


def report_data(ws: Workspace, seeds: dict[int, list[str]]) -> dict[str, Any]:
    """What `collie report` shows: status per loop, languages, best sites and queries,
    and each loop's seed words (given: computed by the pipeline)."""
    store = CorpusStore(ws.conn)
    status = status_data(ws)
    return {
        "language": status["language"],
        "language_name": status["language_name"],
        "loops": status["loops"],
        "languages": store.language_counts(),
        "sites": store.site_yields(),
        "queries": store.query_yields(),
        "seed_yields": seed_yields(ws.queries.word_yields(before_loop=len(status["loops"]) + 1)),
        "lengths": store.document_lengths(),
        "seeds": seeds,
    }


def seed_yields(yields: dict[str, tuple[int, int]], count: int = 10) -> dict[str, list[Any]]:
    """The seed words whose queries brought target documents most often (of 2+ queries)
    and those whose queries brought none most often: [word, queries with a target
    document, queries] each."""
    rows = [(word, hits, hits + misses) for word, (hits, misses) in yields.items()]
    best = sorted(
        (r for r in rows if r[1] and r[2] >= 2), key=lambda r: (-r[1] / r[2], -r[2], r[0])
    )
    worst = sorted((r for r in rows if not r[1]), key=lambda r: (-r[2], r[0]))
    return {"best": [list(r) for r in best[:count]], "worst": [list(r) for r in worst[:count]]}
