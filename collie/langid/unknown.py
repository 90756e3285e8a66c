"""Open set: text far from every language the model knows is `und`.

The maxent layer's probabilities are shared among the known languages only: a language
the model has never seen (Dholuo, say) still gets a confident answer, the known language
nearest to it. What tells such a text apart is how little better the winning language
explains it than all the languages together do: its *lift*, the log-likelihood ratio per
known n-gram between the winner's best column and a background column (every column's
counts summed, scored with the same naive Bayes formula: collie.langid.model). Text of a
known language is explained far better by its own column than by the mixture of all;
text of an unknown language only a little better by the nearest one. Being a ratio, the
lift leaves out what makes a text hard for every column alike (names, numbers, rare
words).

The build calibrates the lift per language on text it did not count (`calibrate`): a
model counted from four fifths of the training articles scores snippets of the fifth in
three lengths (50, 150 characters, 400 bytes), and each language keeps, per length, its
median lift times a factor common to all languages, the one that all but QUANTILE of
the snippets reach (`calibrate`). At run time a text taken for a
calibrated language whose lift is under that language's threshold (interpolated between
the lengths by the text's known n-grams) is `und`. Languages learnt later from documents
(collie.langid.learn) have their own open-set tests and no calibration here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

# Of the calibration snippets the thresholds may call `und` (1% cost NTREX's known
# sentences 1.1 points: langmodel/README.md).
QUANTILE = 0.005
MIN_SNIPPETS = 10  # a language with fewer calibration snippets in a length: no rule


@dataclass
class UnknownRule:
    """Per code, the lift threshold at each calibration length (NaN: no rule)."""

    lengths: np.ndarray  # (bands,) known n-grams of each calibration length
    thresholds: np.ndarray  # (codes, bands)

    @classmethod
    def from_meta(cls, rule: Mapping[str, object], codes: Sequence[str]) -> UnknownRule:
        per_code: Mapping[str, Sequence[float]] = rule["codes"]  # type: ignore[assignment]
        lengths = np.asarray(rule["lengths"], np.float64)
        table = np.full((len(codes), lengths.size), np.nan)
        for number, code in enumerate(codes):
            if code in per_code:
                table[number] = per_code[code]
        return cls(lengths, table)

    def threshold(self, best: np.ndarray, hits: np.ndarray) -> np.ndarray:
        """Each text's threshold: its best code's, at its length (NaN: no rule)."""
        rows = self.thresholds[best]
        if self.lengths.size == 1:
            return rows[:, 0]
        upper = np.clip(np.searchsorted(self.lengths, hits), 1, self.lengths.size - 1)
        low, high = self.lengths[upper - 1], self.lengths[upper]
        share = np.clip((hits - low) / (high - low), 0.0, 1.0)  # np.interp, clamped
        at = np.arange(len(best))
        return rows[at, upper - 1] * (1 - share) + rows[at, upper] * share

    def unknown(self, best: np.ndarray, lift: np.ndarray, hits: np.ndarray) -> np.ndarray:
        """True for the texts whose lift is under their best code's threshold."""
        with np.errstate(invalid="ignore"):
            return lift < self.threshold(best, hits)


def calibrate(
    codes: Sequence[str],
    gold: np.ndarray,
    bands: Sequence[str],
    band: np.ndarray,
    lift: np.ndarray,
    hits: np.ndarray,
) -> dict[str, object]:
    """The rule (as model metadata) from held-out snippets: their gold code numbers, their
    length band (an index into `bands`), their lift for the gold code and known n-grams.

    A language's threshold at a length is its median lift there times a factor common to
    all languages: the QUANTILE of every snippet's lift over its language's median at that
    length. A quantile per language would read the spread of one language's few
    calibration articles (four of the UDHR's), far less than its text varies."""
    lengths = [float(np.median(hits[band == b])) for b in range(len(bands))]
    medians = np.full((len(codes), len(bands)), np.nan)
    for number in np.unique(gold):
        for b in range(len(bands)):
            mine = lift[(gold == number) & (band == b)]
            if mine.size >= MIN_SNIPPETS and np.median(mine) > 0:
                medians[number, b] = np.median(mine)
    ratio = lift / medians[gold, band]
    factors = [float(np.nanquantile(ratio[band == b], QUANTILE)) for b in range(len(bands))]
    per_code = {
        code: [round(float(m * f), 4) for m, f in zip(medians[number], factors, strict=True)]
        for number, code in enumerate(codes)
        if not np.isnan(medians[number]).any()
    }
    if not per_code:
        return {}
    return {
        "codes": per_code,
        "lengths": lengths,
        "bands": list(bands),
        "factors": [round(f, 4) for f in factors],
        "quantile": QUANTILE,
    }
