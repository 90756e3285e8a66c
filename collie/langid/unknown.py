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

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from collie.langid.features import TABLE_LIMIT, letter_table

# Of the calibration snippets the thresholds may call `und` (1% cost NTREX's known
# sentences 1.1 points: langmodel/README.md).
QUANTILE = 0.005
CURVE_QUANTILES = (0.0025, 0.005, 0.0075, 0.01, 0.02, 0.05)
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
        # the factors at other quantiles: the trade-off curve of benchmarks/bench_openset.py
        "factors_at": {
            str(q): [
                round(float(np.nanquantile(ratio[band == b], q)), 4) for b in range(len(bands))
            ]
            for q in CURVE_QUANTILES
        },
    }


# The letter rule (issue 53, third round): a text taken for a language whose alphabet
# lacks letters of the text's words (Ukrainian і taken for Russian, Icelandic þ for
# Faroese, Tatar җ for Bashkir, Macedonian ќ for Bulgarian) is `und`. A letter is the
# language's when it is at least LETTER_FLOOR of the letters of its training text; a
# letter outside its alphabet counts only in a script that is at least SCRIPT_SHARE of
# them (a Greek word in Bengali text is a quotation); languages of more than
# LARGE_ALPHABET letters (Chinese, Japanese, Korean, Ethiopic) have no letter rule; and
# a capitalised word does not count (names: "Zárate" in Swahili news). Each language's
# limit is the number of such words that none of its calibration snippets reaches (at
# most MAX_NOVEL_WORDS; chosen on development languages: langmodel/README.md).
LETTER_FLOOR = 1e-5
SCRIPT_SHARE = 0.05
LARGE_ALPHABET = 150
MAX_NOVEL_WORDS = 5
MIN_LETTER_SNIPPETS = 30  # a language with fewer calibration snippets: no letter rule
# A language with fewer letters of training text has no letter rule: the UDHR's 20
# training articles (at most about 15,000 letters) miss letters its other articles write
# (a first build lost 2% of the held-out articles' snippets of such languages to `und`).
MIN_LETTER_TEXT = 20_000
# Nor does a text whose novel words are fewer than this share of its words: one foreign
# word in a long text is a loanword or a quotation (on held-back sentences, the known
# languages' loss to the rule 0.25 -> 0.08 points, the development group's `und` 38.5 ->
# 37.6%: langmodel/README.md).
NOVEL_SHARE = 0.03
_WORD = re.compile(r"[\w\u0300-\u036f]+")


@lru_cache(maxsize=65536)
def script_of(char: str) -> str:
    """The first word of a character's Unicode name ("LATIN", "CYRILLIC", ...)."""
    return unicodedata.name(char, "?").split(" ", 1)[0]


def is_letter(char: str) -> bool:
    """A letter or mark, as the model's features count them (collie.langid.features)."""
    point = ord(char)
    return bool(letter_table()[point]) if point < TABLE_LIMIT else True


def letter_counts_of(texts: Iterable[str]) -> Counter[str]:
    """The letters of `texts` (NFC, lower-cased, as the features see them) and their counts."""
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(unicodedata.normalize("NFC", text).lower())
    return Counter({c: n for c, n in counts.items() if is_letter(c)})


def alphabet_of(counts: Counter[str]) -> tuple[str, list[str]] | None:
    """(the letters of at least LETTER_FLOOR of the text's letters, the scripts of at
    least SCRIPT_SHARE of them), or None for a language of more than LARGE_ALPHABET."""
    total = sum(counts.values())
    if not total:
        return None
    letters = sorted(c for c, n in counts.items() if n >= LETTER_FLOOR * total)
    if len(letters) > LARGE_ALPHABET:
        return None
    scripts: Counter[str] = Counter()
    for char, n in counts.items():
        scripts[script_of(char)] += n
    return "".join(letters), sorted(s for s, n in scripts.items() if n >= SCRIPT_SHARE * total)


def novel_words(text: str, alphabet: frozenset[str], scripts: frozenset[str]) -> int:
    """How many distinct words of `text` hold a letter outside `alphabet` in one of
    `scripts` (capitalised words left out: names)."""
    lower = text.lower()
    if not lower.isascii():
        text = unicodedata.normalize("NFC", text)
        lower = text.lower()
    rest = set(lower) - alphabet
    if not rest:
        return 0
    novel = {c for c in rest if _letter_script(c) in scripts}
    if not novel:
        return 0
    words = {
        word.lower()
        for word in _WORD.findall(text)
        if not word[0].isupper() and not novel.isdisjoint(word.lower())
    }
    return len(words)


@lru_cache(maxsize=65536)
def _letter_script(char: str) -> str | None:
    """The script of a letter or mark (`script_of`), None for any other character."""
    return script_of(char) if is_letter(char) else None


@dataclass
class LetterRule:
    """Per code: (the novel words a text may hold, its alphabet, its scripts)."""

    codes: dict[str, tuple[int, frozenset[str], frozenset[str]]]

    @classmethod
    def from_meta(cls, letters: Mapping[str, Sequence[Any]]) -> LetterRule:
        return cls(
            {
                code: (int(limit), frozenset(str(alphabet)), frozenset(map(str, scripts)))
                for code, (limit, alphabet, scripts) in letters.items()
            }
        )

    def unknown(self, texts: Sequence[str], codes: Sequence[str]) -> np.ndarray:
        """True for the texts holding their code's limit of novel words or more, and at
        least NOVEL_SHARE of their words."""
        out = np.zeros(len(texts), bool)
        for number, (text, code) in enumerate(zip(texts, codes, strict=True)):
            rule = self.codes.get(code)
            if rule is not None:
                novel = novel_words(text, rule[1], rule[2])
                if novel >= rule[0]:
                    out[number] = novel >= NOVEL_SHARE * len(_WORD.findall(text))
        return out


def calibrate_letters(
    fit: Mapping[str, Iterable[str]],
    full: Mapping[str, Iterable[str]],
    snippets: Sequence[tuple[str, str]],
) -> dict[str, list[object]]:
    """The letter rule (as model metadata): each code's limit from its calibration
    snippets ((code, text), held out of `fit`, code -> the texts a fold model counted),
    the smallest number of novel words none of them reaches; its alphabet and scripts
    from `full` (code -> all its training text)."""
    by_code: dict[str, list[str]] = {}
    for code, text in snippets:
        by_code.setdefault(code, []).append(text)
    rule: dict[str, list[object]] = {}
    for code, texts in sorted(by_code.items()):
        if len(texts) < MIN_LETTER_SNIPPETS or code not in fit or code not in full:
            continue
        held = alphabet_of(letter_counts_of(fit[code]))
        counts = letter_counts_of(full[code])
        final = alphabet_of(counts)
        if held is None or final is None or sum(counts.values()) < MIN_LETTER_TEXT:
            continue
        alphabet, scripts = frozenset(held[0]), frozenset(held[1])
        most = max(novel_words(text, alphabet, scripts) for text in texts)
        if most < MAX_NOVEL_WORDS:
            rule[code] = [most + 1, final[0], final[1]]
    return rule
