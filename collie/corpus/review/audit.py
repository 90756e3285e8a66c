"""The audit's figures: "k of n documents mainly in the target (95% Wilson interval
a-b)", overall, per origin (a loop or the scan), per site label and per site.

The estimator. Each judged document stands for the documents of its stratum (a site's
documents from one origin: sample.py) in the corpus: weight N_h / m_h, where N_h is the
stratum's documents and m_h its judged ones (skips left out). The share is the weighted
share, sum_h (N_h / N) p_h (the stratified, or post-stratified, estimate), and its 95%
interval is Wilson's at that share with Kish's effective sample size
n_eff = (sum w)^2 / sum w^2 (Dean & Pagano 2015 compare such intervals). When every
judged document weighs the same (a proportional sample), the share is k / n, n_eff is
n, and this is the plain Wilson interval of k of n. Strata with no judgement are not
covered: `documents` says how many documents an estimate stands for.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from collie.corpus.review import LABELS, needed_for_half_width, wilson_share
from collie.corpus.review.sample import Stratum

MIN_SITE_JUDGED = 5  # judgements a site needs before it gets a line of its own
HALF_WIDTH = 0.05  # a useful interval: +-5 points


@dataclass(frozen=True)
class Judged:
    """A judged document of the sample: its stratum and label."""

    stratum: Stratum
    label: str  # mainly, some, none (skip is not judged)


@dataclass(frozen=True)
class Estimate:
    """The share of a group's documents in one class, from the judgements."""

    group: str  # "all", "loop 2", "scan", "label religious", "site example.org"
    label: str  # the class: mainly, some, none, mainly+some
    count: int  # k: judged documents in the class
    judged: int  # n: judged documents (skips left out)
    share: float | None  # the weighted share (k / n when the weights are equal)
    low: float | None  # its 95% Wilson interval
    high: float | None
    weighted: bool  # False: every judged document weighs the same (plain Wilson)
    effective: float  # Kish's effective sample size (n when not weighted)
    documents: int  # corpus documents the estimate stands for (judged strata)
    more_needed: int  # judgements more for an interval of +-5 points (0: it is)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _in_class(label: str, cls: str) -> bool:
    return label in ("mainly", "some") if cls == "mainly+some" else label == cls


def estimate(
    judged: Sequence[Judged], sizes: Mapping[Stratum, int], group: str, cls: str = "mainly"
) -> Estimate:
    """The share of `cls` among the documents of the strata `judged` covers (module
    docstring: the estimator)."""
    per: dict[Stratum, list[bool]] = defaultdict(list)
    for item in judged:
        per[item.stratum].append(_in_class(item.label, cls))
    count = sum(sum(hits) for hits in per.values())
    n = sum(len(hits) for hits in per.values())
    if not n:
        more = needed_for_half_width(None, HALF_WIDTH)
        return Estimate(group, cls, 0, 0, None, None, None, False, 0.0, 0, more)
    stands = {h: max(sizes.get(h, 0), len(hits)) for h, hits in per.items()}  # N_h
    total = sum(stands.values())
    share = sum(stands[h] * sum(hits) / len(hits) for h, hits in per.items()) / total
    weights = {h: stands[h] / len(hits) for h, hits in per.items()}
    weighted = max(weights.values()) - min(weights.values()) > 1e-9 * max(weights.values())
    effective = total**2 / sum(weights[h] ** 2 * len(hits) for h, hits in per.items())
    if not weighted:
        share, effective = count / n, float(n)
    low, high = wilson_share(share, effective)
    more = 0
    if (high - low) / 2 > HALF_WIDTH:  # design effect n / n_eff carried over
        more = max(0, round(needed_for_half_width(share, HALF_WIDTH) * n / effective) - n)
    return Estimate(group, cls, count, n, share, low, high, weighted, effective, total, more)


def _groups(
    judged: Sequence[Judged], labels: Mapping[str, Sequence[str]]
) -> Iterable[tuple[str, list[Judged]]]:
    """The groups with a line of their own and their judgements: each origin (when there
    are several), each site label, each site with MIN_SITE_JUDGED judgements or more."""
    origins = sorted({j.stratum.origin for j in judged}, key=_origin_key)
    for origin in origins if len(origins) > 1 else ():  # one: the same as "all"
        yield origin, [j for j in judged if j.stratum.origin == origin]
    for name in sorted({name for j in judged for name in labels.get(j.stratum.site, ())}):
        yield f"label {name}", [j for j in judged if name in labels.get(j.stratum.site, ())]
    per_site = Counter(j.stratum.site for j in judged)
    for site in sorted(s for s, n in per_site.items() if n >= MIN_SITE_JUDGED):
        yield f"site {site}", [j for j in judged if j.stratum.site == site]


def _origin_key(origin: str) -> tuple[int, int]:
    number = origin.rsplit(" ", 1)[-1]
    return (1, 0) if not number.isdigit() else (0, int(number))


def audit(
    judged: Sequence[Judged],
    sizes: Mapping[Stratum, int],
    labels: Mapping[str, Sequence[str]] | None = None,
    skipped: int = 0,
) -> dict[str, Any]:
    """The audit as plain data (for --json and the report): `overall` (mainly, the
    figure to cite), `classes` (every class, overall), `groups` (mainly, per origin,
    label and site), `skipped`, `estimator`."""
    groups = [estimate(members, sizes, name) for name, members in _groups(judged, labels or {})]
    return {
        "judged": len(judged),
        "skipped": skipped,
        "documents": sum(sizes.values()),
        "estimator": ESTIMATOR,
        "overall": estimate(judged, sizes, "all").as_dict(),
        "classes": [
            estimate(judged, sizes, "all", cls).as_dict() for cls in (*LABELS, "mainly+some")
        ],
        "groups": [g.as_dict() for g in groups],
    }


ESTIMATOR = (
    "stratum-weighted share (strata: site and loop or scan), 95% Wilson interval at "
    "Kish's effective sample size; the plain Wilson interval of k of n when every judged "
    "document weighs the same"
)


def estimate_text(row: Mapping[str, Any], language: str, unjudged: int | None = None) -> str:
    """ "k of n documents mainly in Zulu (95% Wilson interval a-b)", the stratum-weighted
    share when the weights differ; a wider interval than +-5 points says so, and, given
    the documents not judged yet (`unjudged`), how many more judgements would narrow it."""
    k, n = row["count"], row["judged"]
    head = f"{k} of {n} documents {_class_words(row['label'], language)}"
    if row["share"] is None:
        return f"{head} (no interval without judgements)"
    interval = f"95% Wilson interval {row['low']:.1%}-{row['high']:.1%}"
    if row["weighted"]:
        text = (
            f"{head}; weighted by stratum {row['share']:.1%} ({interval}, effective "
            f"n {row['effective']:.1f})"
        )
    else:
        text = f"{head} ({interval})"
    if not row["more_needed"]:
        return text
    text += f"; +-{(row['high'] - row['low']) * 50:.0f} points"
    if unjudged is None:
        return text
    text += f": about {row['more_needed']} more judgements would narrow it to +-5"
    if row["more_needed"] > unjudged:
        text += f" (the corpus has {unjudged} more: judge them all)"
    return text


def _class_words(cls: str, language: str) -> str:
    return {
        "mainly": f"mainly in {language}",
        "some": f"partly in {language}",
        "none": f"not in {language}",
        "mainly+some": f"mainly or partly in {language}",
    }[cls]


def audit_lines(data: Mapping[str, Any], language: str) -> list[str]:
    """The audit in words: the overall figure, then one line a group."""
    if not data["judged"]:
        return [
            f"0 documents judged ({data['skipped']} skipped): no judgements yet, so no "
            "shares: run `collie "
            "review --sample 100` and judge the documents on the page it serves (or "
            "`collie review --export-sample FILE`, then `--import FILE`)"
        ]
    overall = data["overall"]
    unjudged = max(0, data["documents"] - data["judged"] - data["skipped"])
    written = data.get("exported_documents")
    lines = [
        f"{data['judged']} documents judged ({data['skipped']} skipped), standing for "
        f"{overall['documents']:,} of the corpus's {data['documents']:,} documents"
        + (
            f" (as kept; a corpus export writes {written:,} of them, as `collie status` "
            "counts: the others hold too little target-language text of their own)"
            if written is not None and written != data["documents"]
            else ""
        ),
        f"  all: {estimate_text(overall, language, unjudged)}",
    ]
    lines += [f"  {row['group']}: {estimate_text(row, language)}" for row in data["groups"]]
    return lines
