"""A site list scored against the closed world's site truth (issue 44).

Reads the TSV `collie export FILE --format sites` writes (a header row; the columns
`site` (a registered domain), `url`, `documents`, `words`, `labels` (comma-separated),
`found`, `audit`, `reasons`) and scores it against the world's `sites` table, host by
host grouped into registered domains (the caller gives `domain_of`: the closed world
never imports the mining side, and the Public Suffix List lives there):

- per label (religious, multilingual): precision and recall over the listed sites, a
  site's true labels being those of any of its hosts;
- target sites labelled `relative` (a site with target text in the world: must be 0;
  a multilingual shop is not counted, its relatives' locales may make it one);
- the list: precision against the world's sites with target text (target, mixed and
  the like; never a relative's site), and recall of the target sites the run reached
  (those with a target page among the URLs it requested).
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from collie.mininet.labelled import MULTILINGUAL, RELIGIOUS
from collie.mininet.records import SiteTruth, Truth
from collie.mininet.score import SOME

LABELS = (RELIGIOUS, MULTILINGUAL)
RELATIVE = "relative"
COLUMNS = ("site", "url", "documents", "words", "labels", "found", "audit", "reasons")


@dataclass(frozen=True)
class SiteRow:
    """One line of a site list."""

    site: str
    url: str
    documents: int
    words: int
    labels: frozenset[str]
    found: frozenset[str] = frozenset()
    audit: str = ""
    reasons: str = ""


@dataclass(frozen=True)
class DomainTruth:
    """A registered domain of the world: its hosts' kinds, labels and target pages."""

    kinds: frozenset[str]
    labels: frozenset[str]
    target_pages: int

    @property
    def target(self) -> bool:
        return self.target_pages > 0


@dataclass(frozen=True)
class LabelScore:
    """One label over the listed sites."""

    label: str
    labelled: int  # listed sites given the label
    correct: int  # of them, with the label in the world
    truly: int  # listed sites with the label in the world

    @property
    def precision(self) -> float | None:
        return self.correct / self.labelled if self.labelled else None

    @property
    def recall(self) -> float | None:
        return self.correct / self.truly if self.truly else None


@dataclass
class SiteScores:
    """A site list's scores (the module docstring)."""

    listed: int = 0
    correct: int = 0  # listed sites with target text in the world
    reached: int = 0  # target sites the run requested a target page of
    reached_listed: int = 0
    labels: dict[str, LabelScore] = field(default_factory=dict)
    target_relative: list[str] = field(default_factory=list)  # target sites labelled relative
    wrong: list[str] = field(default_factory=list)  # listed sites without target text
    unknown: list[str] = field(default_factory=list)  # listed sites the world does not have
    missed: list[str] = field(default_factory=list)  # reached target sites not listed
    unlabelled: dict[str, list[str]] = field(default_factory=dict)  # label -> sites it missed
    mislabelled: dict[str, list[str]] = field(default_factory=dict)  # label -> given wrongly

    @property
    def precision(self) -> float | None:
        return self.correct / self.listed if self.listed else None

    @property
    def recall(self) -> float | None:
        return self.reached_listed / self.reached if self.reached else None


def read_site_list(path: Path) -> list[SiteRow]:
    """The rows of a `--format sites` TSV (columns by their header's names)."""
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        missing = [c for c in ("site", "labels") if c not in (reader.fieldnames or ())]
        if missing:
            raise ValueError(f"{path}: no column {', '.join(missing)} in its header row")
        return [
            SiteRow(
                site=row["site"].strip().lower(),
                url=row.get("url") or "",
                documents=_int(row.get("documents")),
                words=_int(row.get("words")),
                labels=_names(row.get("labels")),
                found=_names(row.get("found")),
                audit=row.get("audit") or "",
                reasons=row.get("reasons") or "",
            )
            for row in reader
        ]


def domain_truths(
    sites: Mapping[str, SiteTruth], domain_of: Callable[[str], str]
) -> dict[str, DomainTruth]:
    """The world's hosts grouped into registered domains."""
    grouped: dict[str, list[SiteTruth]] = {}
    for host, truth in sites.items():
        grouped.setdefault(domain_of(host), []).append(truth)
    return {
        domain: DomainTruth(
            frozenset(t.kind for t in truths),
            frozenset(label for t in truths for label in t.labels),
            sum(t.target_pages for t in truths),
        )
        for domain, truths in grouped.items()
    }


def score_sites(
    rows: Sequence[SiteRow],
    sites: Mapping[str, SiteTruth],
    domain_of: Callable[[str], str],
    reached_hosts: Iterable[str] = (),
) -> SiteScores:
    """Score `rows` against the world's `sites`; `reached_hosts`: the hosts the run
    requested a target page of (the site list's recall is of their domains)."""
    truths = domain_truths(sites, domain_of)
    scores = SiteScores()
    listed = {}
    for row in rows:
        truth = truths.get(row.site)
        if truth is None:
            scores.unknown.append(row.site)
            continue
        listed[row.site] = (row, truth)
    scores.listed = len(rows)
    for site, (row, truth) in sorted(listed.items()):
        if truth.target:
            scores.correct += 1
            if RELATIVE in row.labels and MULTILINGUAL not in truth.labels:
                scores.target_relative.append(site)
        else:
            scores.wrong.append(site)
    for label in LABELS:
        said = {s for s, (row, _) in listed.items() if label in row.labels}
        truly = {s for s, (_, truth) in listed.items() if label in truth.labels}
        scores.labels[label] = LabelScore(label, len(said), len(said & truly), len(truly))
        scores.unlabelled[label] = sorted(truly - said)
        scores.mislabelled[label] = sorted(said - truly)
    reached = {domain_of(h) for h in reached_hosts}
    reached = {d for d in reached if d in truths and truths[d].target}
    scores.reached = len(reached)
    scores.reached_listed = len(reached & set(listed))
    scores.missed = sorted(reached - set(listed))
    return scores


def reached_target_hosts(
    truths: Mapping[str, Truth], log: Iterable[Mapping[str, Any]], target: str
) -> set[str]:
    """The hosts of the target pages (>= 5% target text) the request log asked for."""
    hosts = set()
    for entry in log:
        truth = truths.get(str(entry.get("url") or ""))
        if truth is not None and truth.kind == "page" and truth.shares.get(target, 0) >= SOME:
            hosts.add(truth.site)
    return hosts


def format_site_scores(scores: SiteScores) -> str:
    """The scores as lines of text."""
    lines = []
    for label in LABELS:
        s = scores.labels[label]
        lines.append(
            f"{label:28} precision {_fmt(s.precision)} ({s.correct} of {s.labelled} labelled)"
            f"  recall {_fmt(s.recall)} ({s.correct} of {s.truly} listed {label} sites)"
        )
    named = f" ({', '.join(scores.target_relative)})" if scores.target_relative else ""
    lines.append(f"{'target sites as relative':28} {len(scores.target_relative)}{named}")
    lines.append(
        f"{'site list':28} precision {_fmt(scores.precision)} ({scores.correct} of "
        f"{scores.listed} listed sites have target text)  recall {_fmt(scores.recall)} "
        f"({scores.reached_listed} of {scores.reached} target sites reached)"
    )
    listed = [(f"{label}, not labelled", scores.unlabelled.get(label, [])) for label in LABELS]
    listed += [(f"{label}, wrongly", scores.mislabelled.get(label, [])) for label in LABELS]
    for name, found in (
        *listed,
        ("without target text", scores.wrong),
        ("not in the world", scores.unknown),
        ("reached, not listed", scores.missed),
    ):
        if found:
            lines.append(f"  {name}: {', '.join(found[:12])}{' ...' if len(found) > 12 else ''}")
    return "\n".join(lines)


def _fmt(value: float | None) -> str:
    return "   n/a" if value is None else f"{value:.4f}"


def _int(value: str | None) -> int:
    try:
        return int((value or "0").replace(",", ""))
    except ValueError:
        return 0


def _names(value: str | None) -> frozenset[str]:
    return frozenset(n.strip().lower() for n in (value or "").split(",") if n.strip())
