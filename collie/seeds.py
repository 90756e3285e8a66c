"""Tokenising and word counts (seed-word selection builds on these).

A token is a run of letters and combining marks, with word-internal apostrophes and
hyphens kept (Dholuo `ng'eyo`), NFC and lower-cased; typographic apostrophes become `'`.
Digits, punctuation and symbols separate tokens.

The safetynet (`collie/data/safetynet.tsv`, built by `safetynet/build.py`) holds the most
frequent words of 400+ languages; `filter_seed_words` removes a target language's candidate
seed words that are frequent in any other language.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from collie.languages import all_languages, get_language, members

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u02bc": "'", "\u2018": "'", "\u02bb": "'"})
# Planes that hold combining marks: the BMP, the SMP, and the variation selectors (SSP).
_MARK_PLANES = (range(0x0000, 0x20000), range(0xE0000, 0xE1000))


@lru_cache(maxsize=1)
def _token_pattern() -> re.Pattern[str]:
    ranges: list[str] = []
    for plane in _MARK_PLANES:
        start = None
        for cp in plane:
            is_mark = unicodedata.category(chr(cp))[0] == "M"
            if is_mark and start is None:
                start = cp
            elif not is_mark and start is not None:
                ranges.append(f"\\U{start:08x}-\\U{cp - 1:08x}")
                start = None
    marks = "".join(ranges)
    # A letter ([^\W\d_] minus numeric symbols) or a mark; joiners inside a word.
    unit = f"(?:[^\\W\\d_]|[{marks}])"
    return re.compile(f"{unit}+(?:['\\-]{unit}+)*")


def tokenize(text: str) -> list[str]:
    """Lower-cased NFC word tokens of `text` (no minimum length, numbers dropped)."""
    text = unicodedata.normalize("NFC", text).translate(_APOSTROPHES).lower()
    return [t for t in _token_pattern().findall(text) if not t.isnumeric()]


def count_words(text: str) -> int:
    """Number of word tokens, as `tokenize` defines them."""
    text = unicodedata.normalize("NFC", text).translate(_APOSTROPHES)
    return sum(1 for t in _token_pattern().findall(text) if not t.isnumeric())


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
