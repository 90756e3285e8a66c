"""The native speaker's evaluation (CorpusCollie section 4): a local review page, and
precision per class with confidence intervals."""

from __future__ import annotations

import math
from dataclasses import dataclass

LABELS = ("mainly", "some", "none")


@dataclass(frozen=True)
class ClassShare:
    label: str
    count: int
    share: float | None  # None: nothing judged yet
    low: float | None  # 95% Wilson score interval
    high: float | None


def wilson(count: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (good at small samples and 0 or 1)."""
    if total == 0:
        return 0.0, 0.0
    p = count / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return max(0.0, centre - half), min(1.0, centre + half)


def precision(labels: dict[str, int]) -> list[ClassShare]:
    """Share of the judged documents in each class (skips left out), as in the paper's
    Table 2, plus "some or mainly" (documents with any target-language text); with
    nothing judged, no share and no interval (None)."""
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
