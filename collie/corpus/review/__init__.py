"""The native speaker's evaluation (CorpusCollie section 4): a local review page, a
stratified sample (sample.py), judgements from a file (judgements.py), and the share of
each class with a 95% Wilson interval, weighted by stratum (audit.py)."""

from __future__ import annotations

import math
from dataclasses import dataclass

LABELS = ("mainly", "some", "none")
Z95 = 1.96  # the standard normal's 97.5% quantile (1.95996...), as tables round it


@dataclass(frozen=True)
class ClassShare:
    label: str
    count: int
    share: float | None  # None: nothing judged yet
    low: float | None  # 95% Wilson score interval
    high: float | None


def wilson_share(share: float, total: float, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion `share` observed on `total` trials (a
    float: an effective sample size is one); (0, 0) for no trials."""
    if total <= 0:
        return 0.0, 0.0
    p, n = share, total
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def wilson(count: int, total: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of `count` of `total` (good at small samples, 0 and 1)."""
    return wilson_share(count / total if total else 0.0, total, z)


def needed_for_half_width(share: float | None, half: float = 0.05, z: float = Z95) -> int:
    """The smallest sample whose Wilson interval at `share` is at most +-`half` wide
    (half its width); at no share yet (nothing judged), the worst case, 0.5."""
    p = 0.5 if share is None else share

    def narrow_enough(n: int) -> bool:
        low, high = wilson_share(p, n, z)
        return (high - low) / 2 <= half

    high_n = 1
    while not narrow_enough(high_n):
        high_n *= 2
    low_n = high_n // 2  # not narrow enough (or 0)
    while high_n - low_n > 1:
        middle = (low_n + high_n) // 2
        low_n, high_n = (low_n, middle) if narrow_enough(middle) else (middle, high_n)
    return high_n


def precision(labels: dict[str, int]) -> list[ClassShare]:
    """Share of the judged documents in each class (skips left out), as in the paper's
    Table 2, plus "some or mainly" (documents with any target-language text); with
    nothing judged, no share and no interval (None). Unweighted: audit.py weighs the
    strata."""
    judged = sum(labels.get(label, 0) for label in LABELS)
    rows = []
    for label in (*LABELS, "mainly+some"):
        count = (
            labels.get("mainly", 0) + labels.get("some", 0)
            if label == "mainly+some"
            else (labels.get(label, 0))
        )
        if not judged:
            rows.append(ClassShare(label, count, None, None, None))
            continue
        low, high = wilson(count, judged)
        rows.append(ClassShare(label, count, count / judged, low, high))
    return rows
