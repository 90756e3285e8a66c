"""What the corpus is made of, site by site (issue 44): each site's labels
(collie.decide.sitelabels: religious, multilingual, relative, each with its reason), the
share of documents and words per label (status, report), the labels of each document
(an export's `site_labels`, `--exclude`), and the verified site list: `collie export
FILE --format sites` (a TSV line a site) or `--format web-languages` (the Markdown file
of Common Crawl's Web Languages Project, so that a user can give a checked list back).
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

from collie.decide.sitelabels import LABELS, SiteEvidence, SiteLabel, label_site
from collie.files import atomic_write
from collie.models import ExportRow
from collie.store.sitefacts import SiteFactsStore
from collie.store.tallies import TallyStore
from collie.version import __version__
from collie.workspace.folder import Workspace

SITE_FORMATS = ("sites", "web-languages")
TSV_COLUMNS = ("site", "url", "documents", "words", "labels", "found", "audit", "reasons")


@dataclass(frozen=True)
class SiteEntry:
    """A site of the corpus: a line of the site list."""

    site: str
    url: str  # where its corpus documents are: its root, or the locale folder they share
    documents: int
    words: int
    labels: tuple[SiteLabel, ...]
    found: tuple[str, ...]  # search, crawl, sitemap, archive
    audit: tuple[int, int] | None  # (judged mainly in the target, judged)

    @property
    def label_names(self) -> tuple[str, ...]:
        return tuple(label.label for label in self.labels)


def site_labels(ws: Workspace) -> dict[str, tuple[SiteLabel, ...]]:
    """Every site with a label: the corpus's sites and those the relatives pass set
    aside -> its labels (sites without one left out). Decided again only when the
    workspace changed since they were kept (a read-only one keeps nothing)."""
    store = SiteFactsStore(ws.db)
    tallies = TallyStore(ws.db)
    fingerprint = json.dumps([__version__, tallies.corpus_version(), *store.change_marks()])
    kept = tallies.kept_labels(fingerprint)
    if kept is not None:
        return {site: tuple(SiteLabel(*pair) for pair in pairs) for site, pairs in kept.items()}
    found = decide_site_labels(store)
    if not ws.read_only:
        plain = {site: [[x.label, x.reason] for x in labels] for site, labels in found.items()}
        tallies.keep_labels(fingerprint, plain)
    return found


def decide_site_labels(store: SiteFactsStore) -> dict[str, tuple[SiteLabel, ...]]:
    """The site labels decided from the store (collie.decide.sitelabels)."""
    relatives = store.relative_sites()
    judged = store.judged_target_sites()
    sites = {s.site for s in store.corpus_sites()} | set(relatives)
    found = {}
    for site in sorted(sites):
        evidence = SiteEvidence(
            site,
            store.site_texts(site),
            store.site_urls(site),
            relatives.get(site),
            site in judged,
        )
        labels = tuple(label_site(evidence))
        if labels:
            found[site] = labels
    return found


def site_entries(
    ws: Workspace, labels: dict[str, tuple[SiteLabel, ...]] | None = None
) -> list[SiteEntry]:
    """The site list: the sites with corpus documents, most words first."""
    store = SiteFactsStore(ws.db)
    labels = site_labels(ws) if labels is None else labels
    found, audit = store.found_by(), store.audit_by_site()
    return [
        SiteEntry(
            s.site,
            _site_url(s.first_url),
            s.documents,
            s.words,
            labels.get(s.site, ()),
            tuple(sorted(found.get(s.site, ()))),
            audit.get(s.site),
        )
        for s in store.corpus_sites()
    ]


def _site_url(url: str) -> str:
    """The site's root URL (scheme and host) as its first corpus document gives it."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}/"


def label_shares(entries: Iterable[SiteEntry], relatives: int = 0) -> dict[str, dict[str, Any]]:
    """Per label: its sites, documents and words, and their shares of the corpus; for
    `relative`, the sites set aside (`relatives`: their documents are not in it)."""
    entries = list(entries)
    documents = sum(e.documents for e in entries) or 1
    words = sum(e.words for e in entries) or 1
    shares: dict[str, dict[str, Any]] = {}
    for label in LABELS:
        mine = [e for e in entries if label in e.label_names]
        shares[label] = {
            "sites": len(mine) + (relatives if label == "relative" else 0),
            "documents": sum(e.documents for e in mine),
            "words": sum(e.words for e in mine),
            "document_share": sum(e.documents for e in mine) / documents,
            "word_share": sum(e.words for e in mine) / words,
        }
    return shares


def with_site_labels(
    rows: Iterable[ExportRow], labels: dict[str, tuple[SiteLabel, ...]], exclude: Iterable[str]
) -> Iterator[ExportRow]:
    """The rows with their site's label names, those of a site with an `exclude`d label
    left out."""
    left_out = set(exclude)
    for row in rows:
        names = tuple(label.label for label in labels.get(row.site, ()))
        if left_out.intersection(names):
            continue
        yield replace(row, site_labels=names)


def write_sites(
    entries: list[SiteEntry], out: str, fmt: str, language: tuple[str, str], replace: bool
) -> None:
    """The site list to `out` ("-": stdout) as `fmt` (SITE_FORMATS); `language`: the
    target's code and English name. Written whole, then renamed into place."""
    text = io.StringIO()
    if fmt == "sites":
        _write_tsv(text, entries)
    else:
        _write_web_languages(text, entries, *language)
    if out == "-":
        import sys

        sys.stdout.write(text.getvalue())
        return
    path = Path(out)
    if not replace and (path.exists() or path.is_symlink()):
        raise FileExistsError(f"{path} exists")
    with atomic_write(path, "w") as handle:
        handle.write(text.getvalue())


def _write_tsv(out: IO[str], entries: list[SiteEntry]) -> None:
    out.write("\t".join(TSV_COLUMNS) + "\n")
    for e in entries:
        cells = (
            e.site,
            e.url,
            str(e.documents),
            str(e.words),
            ",".join(e.label_names),
            ",".join(e.found),
            f"{e.audit[0]}/{e.audit[1]} mainly" if e.audit else "",
            "; ".join(f"{label.label}: {label.reason}" for label in e.labels),
        )
        out.write("\t".join(cell.replace("\t", " ").replace("\n", " ") for cell in cells) + "\n")


def _write_web_languages(out: IO[str], entries: list[SiteEntry], code: str, name: str) -> None:
    """The Web Languages Project's file of a language: its sections, the sites under
    "Other" (collie cannot tell news from government), each with a note."""
    clean = [e for e in entries if not e.labels]
    labelled = [e for e in entries if e.labels]
    lines = [f"# Web Language: {name}", "", "Additional names:", "", "-", ""]
    for section in ("News:", "Culture / History:", "Government:", "Political Parties:"):
        lines += [section, "", "-", ""]
    lines += ["Other:", ""]
    lines += [f"- {e.url} ({_note(e)})" for e in clean] or ["-"]
    if labelled:
        lines += ["", "Other (labelled by collie: check before giving them back):", ""]
        lines += [f"- {e.url} ({_note(e)}; {', '.join(e.label_names)})" for e in labelled]
    lines += ["", "Informative links (in English):", "", "-", "", "Additional Information:", ""]
    lines += [f"- ISO-639-3 code: {code}", f"- https://en.wikipedia.org/wiki/ISO_639:{code}"]
    lines += ["", "Scripts:", "", "-", ""]
    lines.append(
        "Found with collie: a site a line, its target-language documents and words as "
        "collie's language identification judged them."
    )
    lines.append("")
    out.write("\n".join(lines))


def _note(e: SiteEntry) -> str:
    audit = f", {e.audit[0]} of {e.audit[1]} judged mainly in the language" if e.audit else ""
    return f"{e.documents} documents, {e.words:,} words; found by {', '.join(e.found)}{audit}"


def label_share_lines(shares: dict[str, dict[str, Any]]) -> list[str]:
    """The report's lines on what the corpus is made of: each label's sites, documents
    and words, and their shares (a label no site has: none)."""
    lines = []
    for label, share in shares.items():
        if label == "relative" and not share["documents"]:
            lines.append(f"  relative      {share['sites']} sites set aside (not in the corpus)")
            continue
        lines.append(
            f"  {label:<13} {share['sites']} sites, {share['documents']:,} documents "
            f"({share['document_share']:.1%}), {share['words']:,} words ({share['word_share']:.1%})"
        )
    return lines
