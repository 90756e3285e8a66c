"""The known languages close to a fitted target, found at init (issue 59).

A target the model knows is fitted to the user's documents (collie.langid.learn
.fit_language): a column of the user's register. A neighbour the model also knows
(Kinyarwanda beside Kirundi, Zulu beside Xhosa) may then lose some of its pages to the
target, more when the web's pages of the neighbour are of the user's register. Its real
text is not at hand at init (none is shipped), so init names the languages close to the
target on the user's own documents: those the bundled model ranks among its top three
for CANDIDATE_SHARE of the user's paragraphs, with the share of the held-back
paragraphs it took for each before fitting (`closeness`). When the user gave documents
in a neighbour (`--wronglang CODE=FILE`), the share of them the fitted model takes is
measured (`taken_shares`). Each loop then judges the corpus again beside the web's text of
those neighbours (collie.mining.neighbours).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from collie.langid.model import NO_ANSWER, OTHER

if TYPE_CHECKING:
    from collie.langid.model import LangModel

CANDIDATES = 5  # neighbours named at most
CANDIDATE_SHARE = 0.05  # of the user's paragraphs that rank a language in their top three


def candidates(base: LangModel, code: str, paragraphs: Sequence[str]) -> list[str]:
    """The known languages the bundled model ranks among the top three of at least
    CANDIDATE_SHARE of the user's paragraphs (CANDIDATES of them at most)."""
    if not paragraphs:
        return []
    ranked = Counter(c for top in base.top(paragraphs, 3) for c, _ in top)
    least = CANDIDATE_SHARE * len(paragraphs)
    return [
        c
        for c, n in ranked.most_common()
        if c != code and c not in NO_ANSWER and c != OTHER and n >= least
    ][:CANDIDATES]


def closeness(base: LangModel, code: str, paragraphs: Sequence[str]) -> dict[str, float]:
    """Candidate -> the share of the user's held-back `paragraphs` the bundled model
    labels with it (before fitting)."""
    near = candidates(base, code, paragraphs)
    labels = Counter(c for c, _ in base.identify_batch(paragraphs)) if near else Counter()
    return {c: round(labels[c] / len(paragraphs), 4) for c in near}


def leads(
    model: LangModel, code: str, others: Sequence[str], texts: Sequence[str]
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """(neighbour -> how far `code` leads it on each text: the difference of their best
    columns' scores per known n-gram, naive Bayes evidence, negative where the neighbour
    wins; the letters of each text)."""
    found: dict[str, list[np.ndarray]] = {o: [] for o in others if o in model.codes}
    counts: list[np.ndarray] = []
    mine = model.codes.index(code)
    for start in range(0, len(texts), 256):
        scores, hits, letters, _ = model._raw_scores(list(texts[start : start + 256]))
        best = model.code_scores(scores, hits)
        for other, parts in found.items():
            theirs = model.codes.index(other)
            parts.append((best[:, mine] - best[:, theirs]) / np.maximum(hits, 1))
        counts.append(letters)
    empty = np.zeros(0)
    return (
        {o: np.concatenate(parts) if parts else empty for o, parts in found.items()},
        np.concatenate(counts) if counts else np.zeros(0, np.int64),
    )


def margin(model: LangModel, code: str, other: str, texts: Sequence[str]) -> float | None:
    """How far `code` leads `other` on `texts` taken together: the letter-weighted mean of
    `leads` (None without letters, or when the model lacks either)."""
    if code not in model.codes or other not in model.codes:
        return None
    values, letters = leads(model, code, [other], texts)
    return float(np.average(values[other], weights=letters)) if letters.sum() else None


def margins(
    model: LangModel, code: str, near: Sequence[str], texts: Sequence[str]
) -> dict[str, float]:
    """Neighbour -> `margin` of the target over it on the user's held-back `texts`:
    what a site of the target's own shows, the known-neighbour pass's yardstick."""
    found = {other: margin(model, code, other, texts) for other in near}
    return {other: round(value, 4) for other, value in found.items() if value is not None}


def taken_shares(
    fitted: LangModel, code: str, near: Sequence[str], theirs: Mapping[str, Sequence[str]]
) -> dict[str, float]:
    """Neighbour -> the share of the user's documents in it (`theirs`, paragraphs by
    code) that the fitted model labels `code`, for the neighbours with documents."""
    out = {}
    for other in near:
        texts = [t for t in theirs.get(other, ()) if t.strip()]
        if texts:
            labels = fitted.identify_batch(texts)
            out[other] = round(sum(c == code for c, _ in labels) / len(labels), 4)
    return out
