"""Seed words: the safetynet of frequent words, and seed lists ranked by frequency or
odds ratio (tokens as collie.text defines them).

The safetynet (`collie/data/safetynet.tsv`, built by `safetynet/build.py`) holds the most
frequent words of 400+ languages; `filter_seed_words` removes a target language's candidate
seed words that are frequent in any other language.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from collie.languages import all_languages, get_language, members
from collie.text import tokenize

# --- The safetynet: frequent words of many languages (built by safetynet/build.py) ---

SAFETYNET_FILE = "safetynet.tsv"
DEFAULT_SAFETYNET_TOP = 200


@dataclass(frozen=True)
class SafetynetWord:
    """One row of the safetynet: a language's frequent word and where it comes from."""

    word: str
    rank: int  # 1 = most frequent
    frequency: float | None  # relative frequency in the lead source; None for stopwords only
    sources: str  # letters of the sources that attest it: s stopwords, u UDHR, w wordfreq


@dataclass(frozen=True)
class SafetynetInfo:
    """A language's frequent words, most frequent first."""

    code: str
    entries: tuple[SafetynetWord, ...]

    @property
    def words(self) -> tuple[str, ...]:
        return tuple(entry.word for entry in self.entries)

    @property
    def sources(self) -> str:
        """The sources that contributed any word, e.g. "suw"."""
        return "".join(sorted({letter for entry in self.entries for letter in entry.sources}))


@dataclass
class SafetynetResult:
    """Seed words that survived, and the removed ones with the languages that caught them."""

    kept: list[str]
    removed: dict[str, list[str]]


def parse_safetynet(text: str) -> dict[str, SafetynetInfo]:
    """Parse the safetynet table (`#` header lines, column names, then one row per word)."""
    lines = (line for line in text.splitlines() if line and not line.startswith("#"))
    next(lines, None)  # column names
    rows: dict[str, list[SafetynetWord]] = {}
    for line in lines:
        code, rank, word, frequency, sources = line.split("\t")
        entry = SafetynetWord(word, int(rank), float(frequency) if frequency else None, sources)
        rows.setdefault(code, []).append(entry)
    return {
        code: SafetynetInfo(code, tuple(sorted(entries, key=lambda e: e.rank)))
        for code, entries in sorted(rows.items())
    }


@lru_cache(maxsize=1)
def safetynet_languages() -> dict[str, SafetynetInfo]:
    """Every language the packaged safetynet covers, by ISO 639-3 code (loaded once)."""
    data = resources.files("collie").joinpath("data").joinpath(SAFETYNET_FILE)
    return parse_safetynet(data.read_text(encoding="utf-8"))


def frequent_words(code: str, top: int = DEFAULT_SAFETYNET_TOP) -> list[str]:
    """The `top` most frequent words of a language; empty if the safetynet lacks it."""
    info = safetynet_languages().get(code)
    return list(info.words[:top]) if info else []


# One language under two unrelated ISO 639-3 codes: each never filters the other.
SAME_LANGUAGE = {"fil": "tgl", "tgl": "fil"}


@lru_cache(maxsize=4096)
def related_languages(code: str) -> frozenset[str]:
    """The code, its macrolanguage and the macrolanguage's members (or its own members),
    and a code for the same language (Filipino `fil` and Tagalog `tgl`)."""
    same = {code, SAME_LANGUAGE[code]} if code in SAME_LANGUAGE else {code}
    lang = all_languages().get(code)
    if lang is None:
        return frozenset(same)
    macro = lang.code if lang.is_macrolanguage else lang.macrolanguage
    if macro is None or macro not in all_languages():
        return frozenset(same)
    return frozenset({*same, macro, *(m.code for m in members(get_language(macro)))})


class Safetynet:
    """Frequent-word lists by language, with an index from word to (language, rank)."""

    def __init__(self, lists: Mapping[str, Sequence[str]]) -> None:
        self.lists = {code: tuple(words) for code, words in lists.items()}
        self._index: dict[str, list[tuple[str, int]]] = {}
        for code in sorted(self.lists):
            for rank, word in enumerate(self.lists[code], start=1):
                self._index.setdefault(word, []).append((code, rank))

    def catchers(self, word: str, top: int, exempt: AbstractSet[str] = frozenset()) -> list[str]:
        """Languages (sorted) that have `word` among their `top` words, except `exempt`."""
        hits = self._index.get(word, ())
        return [code for code, rank in hits if rank <= top and code not in exempt]

    def filter(
        self, words: Sequence[str], target: str, top: int, ignore: Iterable[str] = ()
    ) -> SafetynetResult:
        """Drop words frequent in another language (the target's relatives never count)."""
        exempt = related_languages(target) | set(ignore)
        kept: list[str] = []
        removed: dict[str, list[str]] = {}
        for word in words:
            caught = self.catchers(word, top, exempt)
            if caught:
                removed[word] = caught
            else:
                kept.append(word)
        return SafetynetResult(kept, removed)


@lru_cache(maxsize=1)
def packaged_safetynet() -> Safetynet:
    """The safetynet shipped with collie, indexed once."""
    return Safetynet({code: info.words for code, info in safetynet_languages().items()})


def filter_seed_words(
    words: Sequence[str],
    target: str,
    top: int = DEFAULT_SAFETYNET_TOP,
    ignore: Iterable[str] = (),
    safetynet: Safetynet | None = None,
) -> SafetynetResult:
    """Remove words among the `top` frequent words of any other safetynet language.

    The target, its macrolanguage and that macrolanguage's members never filter it
    (`luo` is not filtered by a `luo` list, `swh` not by `swa` or `swc`), nor do the
    languages in `ignore`. `safetynet` defaults to the packaged one.
    """
    net = safetynet if safetynet is not None else packaged_safetynet()
    return net.filter(words, target, top, ignore)


# --- Seed lists: frequency (loop 1) and odds ratio (later loops, or with wronglang text) ---

ODDS_RATIO_ALPHA = 0.5  # additive smoothing of P(w|right) and P(w|wrong), see odds_ratio()


@dataclass
class TokenCounts:
    """Word statistics of a collection of documents."""

    counts: Counter[str]  # occurrences
    doc_freq: Counter[str]  # documents containing the word
    total: int  # tokens
    documents: int


def count_tokens(texts: Iterable[str]) -> TokenCounts:
    """Occurrences and document frequencies of `tokenize`'s tokens over `texts`."""
    counts: Counter[str] = Counter()
    doc_freq: Counter[str] = Counter()
    documents = 0
    for text in texts:
        tokens = tokenize(text)
        counts.update(tokens)
        doc_freq.update(set(tokens))
        documents += 1
    return TokenCounts(counts, doc_freq, sum(counts.values()), documents)


@dataclass(frozen=True)
class SeedWord:
    word: str
    score: float  # occurrences (frequency lists) or log2 odds ratio
    count: int  # occurrences in the target text
    docs: int  # target documents containing it
    wrong: int = 0  # occurrences in wrong-language text


@dataclass
class SeedList:
    method: str  # "frequency", "odds-ratio" or "manual"
    words: list[SeedWord]
    removed: dict[str, list[str]]  # words the safetynet removed -> catching languages


def odds_ratio(
    right: int, right_total: int, wrong: int, wrong_total: int, vocabulary: int
) -> float:
    """log2( P(w|right)(1-P(w|wrong)) / ((1-P(w|right)) P(w|wrong)) ).

    Probabilities are smoothed additively, P(w|c) = (n_c(w) + a) / (N_c + a V) with
    a = ODDS_RATIO_ALPHA and V the joint vocabulary, so that words never seen in the
    wrong-language text get a large but finite score.
    """
    a = ODDS_RATIO_ALPHA
    p_right = (right + a) / (right_total + a * vocabulary)
    p_wrong = (wrong + a) / (wrong_total + a * vocabulary)
    return math.log2(p_right * (1 - p_wrong) / ((1 - p_right) * p_wrong))


def _select(
    ranked: Iterable[SeedWord],
    n: int,
    target: str,
    top: int,
    ignore: Iterable[str],
    safetynet: Safetynet | None,
) -> tuple[list[SeedWord], dict[str, list[str]]]:
    """The first n ranked words that survive the safetynet, and the removed ones above."""
    net = safetynet if safetynet is not None else packaged_safetynet()
    exempt = related_languages(target) | set(ignore)
    kept: list[SeedWord] = []
    removed: dict[str, list[str]] = {}
    for seed in ranked:
        if len(kept) >= n:
            break
        caught = net.catchers(seed.word, top, exempt)
        if caught:
            removed[seed.word] = caught
        else:
            kept.append(seed)
    return kept, removed


def frequency_seeds(
    target_counts: TokenCounts,
    n: int,
    target: str,
    min_length: int = 3,
    top: int = DEFAULT_SAFETYNET_TOP,
    ignore: Iterable[str] = (),
    safetynet: Safetynet | None = None,
) -> SeedList:
    """Loop 1: the n most frequent words of the target text that survive the safetynet."""
    ranked = sorted(
        (w for w in target_counts.counts if len(w) >= min_length),
        key=lambda w: (-target_counts.counts[w], w),
    )
    seeds = (
        SeedWord(
            w, float(target_counts.counts[w]), target_counts.counts[w], target_counts.doc_freq[w]
        )
        for w in ranked
    )
    kept, removed = _select(seeds, n, target, top, ignore, safetynet)
    return SeedList("frequency", kept, removed)


def odds_ratio_seeds(
    target_counts: TokenCounts,
    wrong_counts: TokenCounts,
    n: int,
    target: str,
    min_length: int = 3,
    min_doc_freq: int = 2,
    min_count: int = 2,
    top: int = DEFAULT_SAFETYNET_TOP,
    ignore: Iterable[str] = (),
    safetynet: Safetynet | None = None,
) -> SeedList:
    """Later loops: words ranked by odds ratio of target against wrong-language text.

    A candidate occurs at least `min_count` times in the target text and in at least
    `min_doc_freq` of its documents (capped at the number of documents, so that a single
    seed document still works), so that rare typos do not win.
    """
    right, wrong = target_counts, wrong_counts
    vocabulary = len(right.counts.keys() | wrong.counts.keys())
    doc_floor = min(min_doc_freq, right.documents)
    scored = [
        SeedWord(
            w,
            odds_ratio(c, right.total, wrong.counts[w], wrong.total, vocabulary),
            c,
            right.doc_freq[w],
            wrong.counts[w],
        )
        for w, c in right.counts.items()
        if c >= min_count and right.doc_freq[w] >= doc_floor and len(w) >= min_length
    ]
    scored.sort(key=lambda s: (-s.score, -s.count, s.word))
    kept, removed = _select(scored, n, target, top, ignore, safetynet)
    return SeedList("odds-ratio", kept, removed)


# --- Words only the target uses: the first filter of `collie scan` (mining/scan.py) ---

WEB_WORDS_FILE = "webwords.tsv.gz"
WRONG_TOKENS = 10**9  # a frequency as a count among this many words (Zipf's unit)
STOPWORD_FREQUENCY = 1e-3  # a safetynet word known only from a stopword list
MIN_NEEDLE_ODDS = 6.6  # log2 odds ratio: 100 times as frequent in the target as anywhere else


@lru_cache(maxsize=1)
def web_words() -> dict[str, dict[str, float]]:
    """The most frequent words of the web's big languages (wordfreq's 42, to a depth of
    5,000 words: `collie/data/webwords.tsv.gz`, built by safetynet/build.py), by ISO
    639-3 code: word -> relative frequency. Loaded once a process."""
    import gzip

    data = resources.files("collie").joinpath("data").joinpath(WEB_WORDS_FILE).read_bytes()
    table: dict[str, dict[str, float]] = {}
    lines = gzip.decompress(data).decode("utf-8").splitlines()
    for line in lines:
        if not line or line.startswith(("#", "language\t")):
            continue
        code, zipf, words = line.split("\t")
        frequency = 10 ** (float(zipf) - 9)
        known = table.setdefault(code, {})
        for word in words.split(" "):
            known.setdefault(word, frequency)
    return table


@lru_cache(maxsize=1)
def _safetynet_frequencies() -> dict[str, dict[str, float]]:
    """The safetynet's words with their frequencies (a stopword's: STOPWORD_FREQUENCY)."""
    return {
        code: {
            e.word: STOPWORD_FREQUENCY if e.frequency is None else e.frequency for e in info.entries
        }
        for code, info in safetynet_languages().items()
    }


def elsewhere(words: Iterable[str], exempt: AbstractSet[str]) -> dict[str, float]:
    """Each word's highest frequency in any language of the safetynet or of the web's big
    languages (web_words) but those in `exempt`; a word seen in none is left out."""
    tables = [
        table
        for source in (web_words(), _safetynet_frequencies())
        for code, table in source.items()
        if code not in exempt
    ]
    wanted = set(words)
    found: dict[str, float] = {}
    for table in tables:
        for word in wanted.intersection(table):
            if table[word] > found.get(word, 0.0):
                found[word] = table[word]
    return found


def distinctive_words(
    target_counts: TokenCounts,
    n: int,
    target: str,
    wrong_counts: TokenCounts | None = None,
    min_length: int = 3,
    exempt: Iterable[str] = (),
    min_odds: float = MIN_NEEDLE_ODDS,
) -> list[SeedWord]:
    """The n words of the target text that only the target uses: ranked by the odds
    ratio of the target text against every other language collie knows words of (the
    safetynet's 400+ languages and the web's big languages to a depth of 5,000 words:
    `elsewhere`) and against `wrong_counts` (the workspace's wrong-language text), as the
    seed words of later loops are; a word must be `min_odds` (log2) more likely in the
    target. The target, its macrolanguage's members and `exempt` (its relatives) are no
    other language: the words it shares with them stay."""
    right = target_counts
    others = elsewhere(
        (w for w in right.counts if len(w) >= min_length), related_languages(target) | set(exempt)
    )
    wrong = wrong_counts or TokenCounts(Counter(), Counter(), 0, 0)
    vocabulary = len(right.counts.keys() | wrong.counts.keys())
    scored = []
    for word, count in right.counts.items():
        if len(word) < min_length:
            continue
        share = max(others.get(word, 0.0), wrong.counts[word] / max(wrong.total, 1))
        score = odds_ratio(
            count, right.total, round(share * WRONG_TOKENS), WRONG_TOKENS, vocabulary
        )
        if score >= min_odds:
            scored.append(SeedWord(word, score, count, right.doc_freq[word], wrong.counts[word]))
    scored.sort(key=lambda s: (-s.score, -s.count, s.word))
    return scored[:n]
