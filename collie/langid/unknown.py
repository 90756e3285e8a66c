"""Open set: text far from every language the model knows is `und`.

The maxent layer's probabilities are shared among the known languages only: a language
the model has never seen (Dholuo, say) still gets a confident answer, the known language
nearest to it. What tells such a text apart is how little of it the winning language
has seen: its *fit*, the mean over the text's known n-grams of `log1p(count / alpha)` in
the best column of that language (0 for an n-gram the column has never seen; every
language's scores already hold it: `score - hits * base`, collie.langid.model).

The build calibrates the fit per language on text it did not count (`calibrate`): a
model counted from four fifths of the training articles scores snippets (50, 150
characters, 400 bytes) of the fifth, and each language keeps the median fit `mu` of its
snippets and the spread `sigma` of `(fit - mu) * sqrt(known n-grams)` (a robust standard
deviation: the median absolute deviation times 1.4826). At run time a text taken for a
calibrated language whose deviation `(fit - mu) * sqrt(hits) / sigma` is below `-z` is
`und`; `z` is the quantile of the calibration snippets' deviations that leaves
FALSE_UNKNOWN of them `und`. A longer text's fit varies less, so the same rule is
stricter with a long text of an unknown language and as lenient with a long text of a
known one. Languages learnt later from documents (collie.langid.learn) have their own
open-set tests and no calibration here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

FALSE_UNKNOWN = 0.005  # share of the calibration snippets the rule may call `und`
MIN_SNIPPETS = 10  # a language with fewer calibration snippets gets the median rule
MAD_SCALE = 1.4826


@dataclass
class UnknownRule:
    """Per code: the median fit and the spread of its deviations; z for all."""

    mu: np.ndarray  # (codes,), NaN for a code without calibration
    sigma: np.ndarray  # (codes,)
    z: float

    @classmethod
    def from_meta(cls, rule: Mapping[str, object], codes: Sequence[str]) -> UnknownRule:
        per_code: Mapping[str, Sequence[float]] = rule["codes"]  # type: ignore[assignment]
        mu = np.array([per_code[c][0] if c in per_code else np.nan for c in codes])
        sigma = np.array([per_code[c][1] if c in per_code else np.nan for c in codes])
        return cls(mu, sigma, float(rule["z"]))  # type: ignore[arg-type]

    def deviation(self, best: np.ndarray, fit: np.ndarray, hits: np.ndarray) -> np.ndarray:
        """The deviation of each text's fit from its best code's calibration (NaN for
        an uncalibrated code)."""
        mu, sigma = self.mu[best], self.sigma[best]
        return (fit - mu) * np.sqrt(np.maximum(hits, 1)) / sigma

    def unknown(self, best: np.ndarray, fit: np.ndarray, hits: np.ndarray) -> np.ndarray:
        """True for the texts too far from their best code (never for an uncalibrated one)."""
        deviation = self.deviation(best, fit, hits)
        return np.nan_to_num(deviation, nan=0.0) < -self.z


def calibrate(
    codes: Sequence[str], gold: np.ndarray, fit: np.ndarray, hits: np.ndarray
) -> dict[str, object]:
    """The rule (as model metadata) from held-out snippets: their gold code numbers, the
    fit of that code and their known n-grams."""
    per_code: dict[str, list[float]] = {}
    deviations = []
    for number, code in enumerate(codes):
        mine = gold == number
        if np.count_nonzero(mine) < MIN_SNIPPETS:
            continue
        mu = float(np.median(fit[mine]))
        spread = (fit[mine] - mu) * np.sqrt(np.maximum(hits[mine], 1))
        sigma = float(MAD_SCALE * np.median(np.abs(spread - np.median(spread)))) or 1.0
        per_code[code] = [round(mu, 4), round(sigma, 4)]
        deviations.append(spread / sigma)
    if not per_code:
        return {}
    pooled = np.concatenate(deviations)
    z = float(-np.quantile(pooled, FALSE_UNKNOWN))
    return {"codes": per_code, "z": round(z, 4), "false_unknown": FALSE_UNKNOWN}
