"""The workspace's status and report as plain data (dicts, ready for JSON): what
`collie status` and `collie report` show, for any caller. The command line formats them
(collie/cli/views.py, collie/corpus/report.py)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from collie.archive.bodycache import CACHE_FOLDER
from collie.archive.check import suspect_files
from collie.archive.pointers import ArchiveStore
from collie.archive.reader import WARC_FOLDER, archive_files
from collie.corpus.export import corpus_repeats, tally_by_loop, workspace_selection
from collie.corpus.review.results import audit_data
from collie.corpus.sites import label_shares, site_entries, site_labels
from collie.corpus.tally import tally_fingerprint
from collie.mining.coverage import coverage_by_loop
from collie.mining.provenance import file_sha256, model_file
from collie.page.rights import is_open
from collie.search import BACKENDS
from collie.search.coverage import Estimate
from collie.store import CorpusStore
from collie.store.scans import ScanTable
from collie.store.tallies import TallyStore
from collie.workspace.folder import Workspace


def status_data(ws: Workspace) -> dict[str, Any]:
    """What `collie status` shows: the language, the settings that differ from the
    defaults, the seed documents, the search and each loop's counts."""
    lang = ws.language
    counts = exported_counts(ws)
    curve = coverage_by_loop(ws)  # read only: no model, nothing judged
    seeds = ws.queries.loop_seed_words()
    used = ws.queries.backends_used()  # a Brave query is not named searxng (issue 58)
    backend = used[0] if used else ws.settings["search.backend"]
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
        "read_only": ws.read_only,
        "init_warnings": ws.records.init_warnings(),
        "language": lang.code,
        "language_name": lang.display_name,
        "settings": {
            v.key: {"value": v.value, "source": v.source} for v in ws.settings.non_defaults()
        },
        "seed_documents": target,
        "wronglang_documents": wrong,
        "seed_words": len(ws.manual_seed_words()),
        "search": {
            "backend": ", ".join(used) or backend,
            "queries": ws.queries.query_counts(),
            "requests_sent": ws.queries.requests_sent(),
            "result_urls": ws.queries.result_url_count(),
            "runs": search_cost(ws),
        },
        "scan": ScanTable(ws.db).scan_totals(),
        "site_labels": site_label_data(ws),
        "corpus_text": corpus_text_data(ws),
        "rights": rights_data(ws),
        "archive": archive_data(ws, sum(sum(c["documents"].values()) for c in counts.values())),
        "loops": [
            {
                "number": loop.number,
                "started_at": loop.started_at,
                "finished_at": loop.finished_at,
                "search_stopped": loop.search_stopped,
                "warc_bytes": loop.warc_bytes,
                "seed_words": seeds.get(loop.number, []),
                **coverage_of(curve.get(loop.number, []), backend),
                **counts.get(loop.number, {}),
            }
            for loop in ws.records.loops()
        ],
    }


CORPUS_LANGUAGES_SHOWN = 5


def corpus_text_data(ws: Workspace) -> dict[str, Any]:
    """The corpus's letters and the share of them in each language its paragraphs were
    given (the target's, a neighbour's that slipped in, und), the largest
    CORPUS_LANGUAGES_SHOWN: a known neighbour's share of the corpus (issue 59)."""
    letters = CorpusStore(ws.db).paragraph_letters()
    total = sum(letters.values())
    shown = list(letters.items())[:CORPUS_LANGUAGES_SHOWN]
    return {
        "letters": total,
        "shares": {code: round(n / total, 4) for code, n in shown} if total else {},
    }


def rights_data(ws: Workspace) -> dict[str, Any]:
    """What the corpus's pages state of their rights (collie.page.rights): its original
    documents, those under each licence, the openly licensed ones and those reserving
    text and data mining (by where they say so), each with its share of the documents."""
    licences: Counter[str] = Counter()
    reserved: Counter[str] = Counter()
    documents = opened = 0
    for licence, tdm, n in CorpusStore(ws.db).rights_counts():
        documents += n
        if licence:
            licences[licence] += n
            opened += n if is_open(licence) else 0
        if tdm:
            reserved[tdm] += n

    def share(n: int) -> float:
        return round(n / documents, 4) if documents else 0.0

    return {
        "documents": documents,
        "licensed": sum(licences.values()),
        "licensed_share": share(sum(licences.values())),
        "open": opened,
        "open_share": share(opened),
        "tdm_reserved": sum(reserved.values()),
        "tdm_reserved_share": share(sum(reserved.values())),
        "licences": dict(sorted(licences.items(), key=lambda kv: (-kv[1], kv[0]))),
        "tdm_sources": dict(sorted(reserved.items())),
    }


def search_cost(ws: Workspace) -> list[dict[str, Any]]:
    """Each run's search bill: its start, backend and requests, and what they cost on the
    backend's plan (the workspace's search.monthly_requests and search.price_per_1000 for
    its own backend, else the backend's defaults): the requests beyond the month's free
    allowance (counted from the month's earlier runs) times the price; `price_usd` None
    when the plan's price is not known, 0 for a free backend."""
    settings, runs = ws.settings, []
    month_total: dict[tuple[str, str], int] = {}
    for started, name, requests in ws.queries.search_runs():
        cls = BACKENDS.get(name)
        allowance = cls.monthly_requests if cls else 0
        price = cls.price_per_1000 if cls else 0.0
        known = cls.price_known if cls else False
        if name == settings["search.backend"]:
            if settings["search.monthly_requests"] >= 0:
                allowance = settings["search.monthly_requests"]
            if settings["search.price_per_1000"] >= 0:
                price, known = settings["search.price_per_1000"], True
        key = (name, started[:7])
        before = month_total.get(key, 0)
        month_total[key] = before + requests
        billed = max(0, before + requests - allowance) - max(0, before - allowance)
        if not allowance:
            billed = requests
        cost = round(billed * price / 1000, 2) if known else None
        runs.append(
            {
                "started_at": started,
                "backend": name,
                "requests": requests,
                "billed_requests": billed if known and price else 0,
                "price_per_1000": price if known else None,
                "monthly_allowance": allowance,
                "price_usd": cost,
            }
        )
    return runs


def site_label_data(ws: Workspace) -> dict[str, dict[str, Any]]:
    """Per site label (collie.decide.sitelabels): its sites and their share of the
    corpus's documents and words (collie.corpus.sites.label_shares)."""
    labels = site_labels(ws)
    entries = site_entries(ws, labels)
    in_corpus = {e.site for e in entries}
    relatives = {
        site for site, found in labels.items() if any(x.label == "relative" for x in found)
    }
    aside = len(relatives - in_corpus)
    return label_shares(entries, aside)


def archive_data(ws: Workspace, documents: int) -> dict[str, Any]:
    """The disk the WARC files take (compressed, as stored), beside the body cache, and
    per target document exported (issue 33's size bill)."""
    folder = ws.root / WARC_FOLDER
    files = archive_files(folder)
    warc = sum((folder / name).stat().st_size for name in files)
    cache = sum(p.stat().st_size for p in (ws.root / CACHE_FOLDER).rglob("*.gz") if p.is_file())
    store = ArchiveStore(ws.db)
    lost = store.lost_counts()
    return {
        "files": len(files),
        "bytes": warc,
        "cache_bytes": cache,
        "keep": ws.settings["warc.keep"],
        "bytes_per_document": round(warc / documents) if documents else None,
        "damaged": suspect_files(folder, files, store.record_ends()),
        "lost_waiting": lost.waiting,
        "lost_failed": lost.failed,
    }


def coverage_of(curve: list[Estimate], backend: str) -> dict[str, Any]:
    """A loop's coverage estimate when its search ended, in words and figures, its
    saturation curve: (queries, target sites found, estimate, the interval's upper bound)
    after each query, and the extrapolation beyond it: (queries, target sites expected)
    if as many queries again were sent (Estimate.new_sites)."""
    if not curve:
        return {}
    last = curve[-1]
    steps = [last.queries * k // EXTRAPOLATION_STEPS for k in range(EXTRAPOLATION_STEPS + 1)]
    return {
        "coverage": {
            **last.to_json(),
            "sentence": last.sentence(backend),
            "curve": [
                [e.queries, e.observed, round(e.estimate, 2), round(e.high, 2)] for e in curve
            ],
            "extrapolation": [
                [last.queries + t, round(last.observed + last.new_sites(t), 2)] for t in steps
            ],
        }
    }


# The extrapolation shown beyond a loop's last query: as many queries again (Chao et
# al. 2014 trust it up to about twice the sample), in this many steps.
EXTRAPOLATION_STEPS = 10


def exported_counts(ws: Workspace) -> dict[int, dict[str, Any]]:
    """CorpusStore.loop_counts with the documents and words a default export writes
    (the target-language paragraphs; `loop_tally`): a document whose every paragraph is
    its site's boilerplate (extract.site_repeats) is left out of both, and counted apart
    as `boilerplate_only`; one without a target-language paragraph as `no_target_text`;
    one whose target-language paragraphs hold fewer than langid.min_target_words words
    of running text as `too_little_target_text`."""
    counts = CorpusStore(ws.db).loop_counts()
    written = loop_tally(ws)
    for loop, count in counts.items():
        stored: dict[str, int] = count["documents"]  # type: ignore[assignment]
        tally = written.get(loop, {})
        docs = {source: tally.get(source, 0) for source in ("search", "crawl", "archive")}
        no_target, thin = tally.get("no_target", 0), tally.get("too_little_target", 0)
        count["boilerplate_only"] = sum(stored.values()) - sum(docs.values()) - no_target - thin
        count["no_target_text"] = no_target
        count["too_little_target_text"] = thin
        count["documents"] = docs
        count["words"] = tally.get("words", 0)
    return counts


def written_totals(ws: Workspace) -> tuple[int, int]:
    """(documents, words) a default corpus export writes, as `collie status` counts
    them: the corpus's documents (kept, not near-duplicates) less those left with no
    target-language text of their own (`exported_counts`)."""
    counts = exported_counts(ws).values()
    documents = sum(sum(c["documents"].values()) for c in counts)
    return documents, sum(int(c["words"]) for c in counts)


def loop_tally(ws: Workspace) -> dict[int, dict[str, int]]:
    """export.tally_by_loop of a default export of the workspace: as the last export (or
    status) kept it, while nothing it depends on has changed (tally.tally_fingerprint);
    else computed (the language model loaded only if a paragraph needs it) and kept,
    when the workspace can be written (a read-only one: computed each time)."""
    fingerprint = tally_fingerprint(ws)
    tallies = TallyStore(ws.db)
    kept = tallies.tally(fingerprint)
    if kept is not None:
        return kept
    selection = workspace_selection(ws)
    tally = tally_by_loop(CorpusStore(ws.db).export_rows(), selection, corpus_repeats(ws))
    tallies.keep_tally(fingerprint, tally)
    return tally


def report_data(ws: Workspace) -> dict[str, Any]:
    """What `collie report` shows: status per loop, languages, best sites and queries,
    the seed words each loop's queries were made of (as stored when sent), and the
    audit of a speaker's judgements (`collie review`), each share with its interval."""
    store = CorpusStore(ws.db)
    status = status_data(ws)
    return {
        "language": status["language"],
        "language_name": status["language_name"],
        "loops": status["loops"],
        "archive": status["archive"],
        "scan": status["scan"],
        "site_labels": status["site_labels"],
        "rights": status["rights"],
        "search": status["search"],
        "languages": store.language_counts(),
        "sites": store.site_yields(),
        "queries": store.query_yields(),
        "query_leads": store.query_leads(),
        "seed_yields": seed_yields(ws.queries.word_yields(before_loop=len(status["loops"]) + 1)),
        "lengths": store.document_lengths(),
        "seeds": {loop["number"]: loop["seed_words"] for loop in status["loops"]},
        "audit": audit_data(ws),
        "collection": collection_data(ws, status),
        "language_model": model_data(ws),
        "near_duplicates": {
            key: ws.settings[key] for key in ("dedup.max_distance", "dedup.paragraphs")
        },
    }


def collection_data(ws: Workspace, status: dict[str, Any]) -> dict[str, Any]:
    """How the corpus was collected, in figures: the loops, when they ran, the search
    (backend, queries, requests), the corpus's sites, documents and words (a default
    export's) by source, and the pages robots.txt kept collie from fetching."""
    loops = status["loops"]
    by_source = {
        source: sum(loop.get("documents", {}).get(source, 0) for loop in loops)
        for source in ("search", "crawl", "archive")
    }
    finished = [loop["finished_at"] for loop in loops if loop["finished_at"]]
    return {
        "loops": len(loops),
        "loops_finished": len(finished),
        "first_started": loops[0]["started_at"] if loops else None,
        "last_finished": max(finished) if finished else None,
        "backend": status["search"]["backend"],
        "queries": sum(status["search"]["queries"].values()),
        "queries_answered": status["search"]["queries"].get("done", 0),
        "search_requests": status["search"]["requests_sent"],
        "result_urls": status["search"]["result_urls"],
        "sites": CorpusStore(ws.db).corpus_sites(),
        "documents": sum(by_source.values()),
        "documents_by_source": by_source,
        "words": sum(loop.get("words", 0) for loop in loops),
        "pages_fetched": sum(loop.get("fetched", 0) for loop in loops),
        "robots_refused": sum(loop.get("dropped", {}).get("robots", 0) for loop in loops),
    }


def model_data(ws: Workspace) -> dict[str, Any]:
    """The language model the corpus is identified with: its file, version and SHA-256
    (the workspace's own, else the bundled one), the settings it runs with, and the
    corpus's documents by the model that identified them (version and SHA-256 as kept
    with each page, collie.mining.provenance; "unknown": identified before collie kept
    them); the model is not loaded (status and report never load it)."""
    version, path = model_file(ws.root)
    return {
        "file": "workspace" if version == "workspace" else "bundled",
        "version": version,
        "sha256": file_sha256(path),
        "threshold": ws.settings["langid.threshold"],
        "min_chars": ws.settings["langid.min_chars"],
        "min_target_words": ws.settings["langid.min_target_words"],
        "documents_by_model": {
            f"{model} {sha256}" if sha256 else "unknown": n
            for model, sha256, n in CorpusStore(ws.db).langid_counts()
        },
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
