"""`collie export DIR --format dataset`: the corpus as a dataset to publish (issue 57).

    DIR/README.md                       the dataset card: a YAML header (the Hugging Face
                                        datasets convention), then how the corpus was made
    DIR/data/train-00000-of-00002.jsonl.gz   the documents, SHARD_DOCUMENTS a shard, each
                                        line the JSON-lines export's object (--shards
                                        parquet: train-*.parquet, a row a document, the
                                        object's keys as columns; with pyarrow, the
                                        `parquet` extra)

The card is written from the workspace, never by hand: every figure in it is one of
`collie report --json`'s (corpus.status.report_data, which the API hands in, read before
the shards are written):
the collection (dates, backend, queries, sites, loops), the site labels' shares, the rights
the pages state, the audit with its Wilson intervals, the language model, the
near-duplicate settings, robots.txt, and the known limits. The YAML header's `license` is
what the documents' rights allow: their licence when every document states an open one
(a list when several), else `other`, with the details. The folder is written beside DIR
and renamed into place when complete.
"""

from __future__ import annotations

import gzip
import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from itertools import islice
from pathlib import Path
from typing import Any

from collie.corpus.export import (
    ExportChoice,
    ExportCount,
    RightsFilter,
    check_folder,
    export_sources,
    export_texts,
    write_folder,
)
from collie.corpus.parquet import parquet_writer, write_table
from collie.models import ExportRow
from collie.page.rights import is_open
from collie.version import __version__
from collie.workspace.folder import Workspace

SHARD_DOCUMENTS = 10_000  # documents a shard (a few tens of MB of JSON before gzip)
DATA = "data"
# Hugging Face's size categories, by number of documents (upper bounds).
SIZES = [(1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
         (1_000_000, "100K<n<1M"), (10_000_000, "1M<n<10M")]  # fmt: skip


@dataclass
class Written:
    """What went into the shards: their names and documents, and the rights of those."""

    shards: list[tuple[str, int]] = field(default_factory=list)
    licences: Counter[str] = field(default_factory=Counter)  # "" for none
    reserved: int = 0


def export_dataset(
    ws: Workspace, out: str, choice: ExportChoice, force: bool, data: dict[str, Any]
) -> ExportCount:
    """Write the dataset folder `out` (an existing one replaced only with `force`); `data`
    is the workspace's report (corpus.status.report_data, read before anything is
    written): the card's figures."""
    path = Path(out)
    check_folder(path, force)
    rights = RightsFilter.of(choice)
    rows, selection, repeats = export_sources(ws, replace(choice, fmt="jsonl"), rights)
    count = ExportCount(repeats_removed=repeats is not None and repeats.unique)
    items = export_texts(rows, selection, count, repeats, marked=True)

    write = _write_parquet if choice.shards == "parquet" else _write_shards
    if choice.shards == "parquet":
        parquet_writer()  # pyarrow missing: said before anything is read or written

    def fill(folder: Path) -> None:
        written = write(folder / DATA, items)
        count.rights_left_out = rights.left_out
        card = dataset_card(ws, data, count, written, choice)
        (folder / "README.md").write_text(card, encoding="utf-8")

    write_folder(path, fill)
    return count


def _write_shards(folder: Path, items: Iterable[tuple[ExportRow, str]]) -> Written:
    """The documents as gzip'd JSON-lines shards, named train-NNNNN-of-MMMMM once their
    number is known."""
    folder.mkdir()
    written, stream = Written(), iter(items)
    parts: list[tuple[Path, int]] = []
    while batch := list(islice(stream, SHARD_DOCUMENTS)):
        name = folder / f"part-{len(parts):05d}.jsonl.gz"
        with gzip.open(name, "wt", encoding="utf-8", newline="\n") as handle:
            for row, text in batch:
                handle.write(json.dumps(row.to_json(text), ensure_ascii=False) + "\n")
                written.licences[row.licence or ""] += 1
                written.reserved += bool(row.tdm)
        parts.append((name, len(batch)))
    return _name_shards(folder, parts, written, "jsonl.gz")


def _name_shards(
    folder: Path, parts: list[tuple[Path, int]], written: Written, suffix: str
) -> Written:
    """The shards renamed train-NNNNN-of-MMMMM.`suffix` once their number is known."""
    for index, (name, documents) in enumerate(parts):
        final = folder / f"train-{index:05d}-of-{len(parts):05d}.{suffix}"
        name.rename(final)
        written.shards.append((f"{DATA}/{final.name}", documents))
    return written


def _write_parquet(folder: Path, items: Iterable[tuple[ExportRow, str]]) -> Written:
    """The documents as Parquet shards (one row a document, the JSON-lines object's
    fields as columns: collie.corpus.parquet), named as the JSON-lines shards are."""
    folder.mkdir()
    written, stream = Written(), iter(items)
    parts: list[tuple[Path, int]] = []
    while batch := list(islice(stream, SHARD_DOCUMENTS)):
        name = folder / f"part-{len(parts):05d}.parquet"
        write_table([row.to_json(text) for row, text in batch], name)
        for row, _ in batch:
            written.licences[row.licence or ""] += 1
            written.reserved += bool(row.tdm)
        parts.append((name, len(batch)))
    return _name_shards(folder, parts, written, "parquet")


# -- the card ---------------------------------------------------------------------------


def hf_language(ws: Workspace) -> str:
    """The target's code as the Hugging Face hub writes it: ISO 639-1, else 639-3."""
    return ws.language.part1 or ws.language.code


def size_category(documents: int) -> str:
    for bound, name in SIZES:
        if documents < bound:
            return name
    return "n>10M"


def licence_field(licences: Counter[str]) -> tuple[str | list[str], str]:
    """The YAML `license` (lower-case SPDX identifiers, as the hub writes them) that the
    documents' rights allow, and the details said beside it."""
    stated = {name for name in licences if name}
    documents = sum(licences.values())
    if documents and "" not in licences and all(is_open(name) for name in stated):
        names = sorted(name.lower() for name in stated)
        return (names[0] if len(names) == 1 else names), (
            "Every document's page states an open licence: each document's `licence` "
            "field says which; attribute each to its URL."
        )
    none = licences.get("", 0)
    return "other", (
        f"Mixed: {documents - none} of {documents} documents' pages state a licence "
        "(each document's `licence` field); the text of the others belongs to its authors, "
        "shared here for research. `collie export --rights open` makes the openly licensed "
        "subset."
    )


def dataset_card(
    ws: Workspace, data: dict[str, Any], count: ExportCount, written: Written, choice: ExportChoice
) -> str:
    """The README.md of the dataset: YAML header, then the sections (module docstring)."""
    language = ws.language
    pretty = f"{language.display_name} web corpus (collie)"
    licence, details = licence_field(written.licences)
    documents = sum(n for _, n in written.shards)
    suffix = "parquet" if choice.shards == "parquet" else "jsonl.gz"
    header = {
        "pretty_name": pretty,
        "language": [hf_language(ws)],
        "license": licence,
        "license_details": details,
        "size_categories": [size_category(documents)],
        "task_categories": ["text-generation"],
        "task_ids": ["language-modeling"],
        "multilinguality": ["monolingual"],
        "language_creators": ["found"],
        "annotations_creators": ["no-annotation"],
        "source_datasets": ["original"],
        "configs": [
            {
                "config_name": "default",
                "data_files": [{"split": "train", "path": f"{DATA}/train-*.{suffix}"}],
            }
        ],
    }
    lines = ["---", *yaml_lines(header), "---", "", f"# {pretty}", ""]
    lines += _intro(ws, len(written.shards), documents, count, choice)
    lines += _collection(data)
    lines += _labels(data)
    lines += _rights(data, written, documents)
    lines += _audit(data)
    lines += _model(data)
    lines += _limits(data)
    return "\n".join(lines) + "\n"


def _table(head: tuple[str, ...], rows: Iterable[tuple[Any, ...]]) -> list[str]:
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in rows]
    return [*out, ""]


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value).replace("|", "\\|")


def _intro(
    ws: Workspace, shards: int, documents: int, count: ExportCount, choice: ExportChoice
) -> list[str]:
    language = ws.language
    kind = "Parquet" if choice.shards == "parquet" else "gzip'd JSON-lines"
    unit = "row" if choice.shards == "parquet" else "line"
    chosen = []
    if choice.rights == "open":
        chosen.append("only documents whose page states an open licence (`--rights open`)")
    if choice.exclude:
        chosen.append(f"documents of `{', '.join(choice.exclude)}` left out (`--exclude`)")
    if choice.min_share:
        chosen.append(f"documents with at least {choice.min_share:g} target text")
    subset = f" This dataset holds {'; '.join(chosen)}." if chosen else ""
    return [
        f"Text in {language.display_name} (ISO 639-3 `{language.code}`) collected from the "
        f"web by [collie](https://pypi.org/project/collie/) {__version__}: "
        f"{documents} documents, {count.words} words, in {shards} {kind} "
        f"shard{'s' if shards != 1 else ''} of one train split.",
        "",
        f"Each {unit} of a shard is one document: `url`, `title`, `loop`, `source` (search, "
        "crawl, archive), `query` or `referrer`, `language`, `probability`, "
        "`target_share`, `words`, `fetched_at`, `simhash`, `warc` (its record in the "
        "workspace's WARC files), `site_labels`, `licence` and `tdm_reserved` (the rights "
        "its page states), `langid` (how its language was identified), `text` (its "
        "paragraphs in the target language, one a line) and "
        "`paragraphs` (the whole document, each paragraph with its language)." + subset,
        "",
        "Every figure below is `collie report --json`'s for the workspace the dataset was "
        "exported from (the corpus as a default export writes it).",
        "",
    ]


def _collection(data: dict[str, Any]) -> list[str]:
    c = data["collection"]
    rows = [
        ("loops", c["loops"]),
        ("loops finished", c["loops_finished"]),
        ("first loop started", c["first_started"]),
        ("last loop finished", c["last_finished"]),
        ("search backend", c["backend"]),
        ("queries", c["queries"]),
        ("queries answered", c["queries_answered"]),
        ("search requests", c["search_requests"]),
        ("distinct result URLs", c["result_urls"]),
        ("pages fetched", c["pages_fetched"]),
        ("sites", c["sites"]),
        ("documents", c["documents"]),
        ("documents from search", c["documents_by_source"]["search"]),
        ("documents from crawling", c["documents_by_source"]["crawl"]),
        ("documents from web archives", c["documents_by_source"]["archive"]),
        ("words", c["words"]),
    ]
    loops = [
        (
            loop["number"],
            loop["started_at"],
            loop["finished_at"],
            loop.get("documents", {}).get("search", 0),
            loop.get("documents", {}).get("crawl", 0),
            loop.get("words", 0),
            " ".join(loop["seed_words"][:12]),
        )
        for loop in data["loops"]
    ]
    return [
        "## Collection",
        "",
        "collie searched the web with seed words drawn from the seed documents, fetched the "
        "results and crawled the sites that held target text, loop after loop (each "
        "loop's seed words from the text found so far), keeping the pages whose text is "
        "mainly in the target language.",
        "",
        *_table(("collection", "value"), rows),
        *_table(LOOP_HEAD, loops),
    ]


LOOP_HEAD = ("loop", "started", "finished", "documents from search", "from crawling", "words",
             "seed words (first 12)")  # fmt: skip


LOOP_HEAD = ("loop", "started", "finished", "documents from search", "from crawling", "words",
             "seed words (first 12)")  # fmt: skip


def _labels(data: dict[str, Any]) -> list[str]:
    labels = data.get("site_labels") or {}
    rows = [
        (name, v["sites"], v["documents"], v["document_share"], v["words"], v["word_share"])
        for name, v in labels.items()
    ]
    return [
        "## Site labels",
        "",
        "What the corpus is made of beside its language (collie's site labels: religious "
        "sites, multilingual sites whose target pages may be machine translations, sites "
        "of a close relative set aside); `collie export --exclude LABELS` leaves them out.",
        "",
        *_table(("label", "sites", "documents", "document share", "words", "word share"), rows),
    ]


def _rights(data: dict[str, Any], written: Written, documents: int) -> list[str]:
    r = data["rights"]
    rows = [
        ("documents", r["documents"], None),
        ("stating a licence", r["licensed"], r["licensed_share"]),
        ("stating an open licence", r["open"], r["open_share"]),
        ("reserving text and data mining", r["tdm_reserved"], r["tdm_reserved_share"]),
        *((f"licence {name}", n, None) for name, n in r["licences"].items()),
        *((f"reservation by {name}", n, None) for name, n in r["tdm_sources"].items()),
    ]
    in_data = ", ".join(f"{name or 'none'} {n}" for name, n in sorted(written.licences.items()))
    return [
        "## Rights",
        "",
        "The rights each page states, read from its HTML and headers: a Creative Commons "
        'licence (a `rel="license"` link, a `dc.rights` or '
        "`dcterms.license` meta), and a reservation of text and data mining (the W3C TDMRep "
        "`tdm-reservation` header or meta, the site's `/.well-known/tdmrep.json`, robots "
        "`noai`). A page that states no licence is not openly licensed: its text belongs "
        "to its authors.",
        "",
        *_table(("rights (the corpus)", "documents", "share"), rows),
        f"In this dataset: {documents} documents; licences {in_data or '-'}; "
        f"{written.reserved} reserving text and data mining.",
        "",
    ]


def _audit(data: dict[str, Any]) -> list[str]:
    audit = data.get("audit") or {}
    head = ["## Audit", ""]
    if not audit.get("judged"):
        return [*head, "Not audited yet: no speaker has judged a sample (`collie review`).", ""]
    rows = [
        (row["label"], row["count"], row["judged"], row["share"], row["low"], row["high"])
        for row in audit["classes"]  # the first, mainly, is the overall share
    ]
    return [
        *head,
        f"A speaker of the language judged {audit['judged']} documents of a stratified "
        f"sample of the {audit['documents']} ({audit['skipped']} skipped). Shares: "
        f"{audit['estimator']}.",
        "",
        *_table(("class", "documents", "judged", "share", "95% low", "95% high"), rows),
    ]


def _model(data: dict[str, Any]) -> list[str]:
    m = data["language_model"]
    rows = [
        ("model", m["file"]),
        ("version", m["version"]),
        ("SHA-256", m["sha256"]),
        ("langid.threshold", m["threshold"]),
        ("langid.min_chars", m["min_chars"]),
        ("langid.min_target_words", m["min_target_words"]),
        *((key, value) for key, value in data["near_duplicates"].items()),
    ]
    by_model = [(name, n) for name, n in m["documents_by_model"].items()]
    return [
        "## Language identification and near-duplicates",
        "",
        "Each paragraph's language was identified by collie's model (character n-grams, "
        "naive Bayes and maximum entropy; the bundled model or one learnt from the seed "
        "documents); near-duplicate documents (64-bit simhash within `dedup.max_distance` "
        "bits, or paragraph sketches) are left out, the first one kept. Each document's "
        "`langid` says how its language was identified: the model's version and SHA-256, "
        "its threshold, the margin between the top two languages' shares of its letters, "
        "and the characters classified.",
        "",
        *_table(("setting", "value"), rows),
        *_table(("documents identified by the model", "documents"), by_model),
    ]


def _limits(data: dict[str, Any]) -> list[str]:
    c = data["collection"]
    return [
        "## robots.txt",
        "",
        "collie obeys robots.txt (RFC 9309) on every site, waits between requests to a "
        f"host and names itself in its User-Agent. Pages robots.txt disallows, not "
        f"fetched: {c['robots_refused']}.",
        "",
        "## Known limits",
        "",
        "- Coverage: the web a search engine surfaces for random seed-word queries, and "
        "what crawling from there reaches; the coverage estimate is a lower bound.",
        "- Language: a document is kept when most of its text is identified as the target; "
        "a close relative's text may pass, and code-switched paragraphs are kept when "
        "mainly in the target. The audit above measures this on a sample, if one was "
        "judged.",
        "- Boilerplate: main-text extraction and line rules leave some menus and notices; "
        "a site's paragraphs repeated on three or more of its pages are left out.",
        "- Rights: what a page states, read from its markup and headers, and the site's "
        "`/.well-known/tdmrep.json`; a licence stated elsewhere on the site (an about "
        "page) is not seen.",
        "- Personal data: pages may name people; nothing was removed for that.",
        "",
    ]


# -- a small YAML writer (the subset the header uses) ------------------------------------


def yaml_lines(value: dict[str, Any], indent: int = 0) -> list[str]:
    """A mapping of strings, numbers, booleans, lists and mappings as block YAML, every
    string double-quoted (JSON's escaping is YAML's)."""
    pad = " " * indent
    lines: list[str] = []
    for key, item in value.items():
        if isinstance(item, dict):
            lines += [f"{pad}{key}:", *yaml_lines(item, indent + 2)]
        elif isinstance(item, list):
            lines.append(f"{pad}{key}:")
            for element in item:
                if isinstance(element, dict):
                    first, *rest = yaml_lines(element, indent + 2)
                    lines += [f"{pad}- {first.strip()}", *rest]
                else:
                    lines.append(f"{pad}- {_scalar(element)}")
        else:
            lines.append(f"{pad}{key}: {_scalar(item)}")
    return lines


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    return json.dumps(str(value), ensure_ascii=False)
