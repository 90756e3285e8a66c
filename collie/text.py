"""Tokenising and word counts, shared by seed selection, classification, dedup and export.

A token is a run of letters and combining marks, with word-internal apostrophes and
hyphens kept (Dholuo `ng'eyo`), NFC and lower-cased; typographic apostrophes become `'`.
Digits, punctuation and symbols separate tokens.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_APOSTROPHES = ("\u2019", "\u02bc", "\u2018", "\u02bb")  # typographic forms of '

# Planes that hold combining marks: the BMP, the SMP, and the variation selectors (SSP).
_MARK_PLANES = (range(0x0000, 0x20000), range(0xE0000, 0xE1000))


@lru_cache(maxsize=1)
def _marks() -> tuple[str, frozenset[str]]:
    """A regex class body of every combining mark, and the set of those characters."""
    ranges: list[str] = []
    chars: set[str] = set()
    for plane in _MARK_PLANES:
        start = None
        for cp in plane:
            is_mark = unicodedata.category(chr(cp))[0] == "M"
            if is_mark:
                chars.add(chr(cp))
            if is_mark and start is None:
                start = cp
            elif not is_mark and start is not None:
                ranges.append(f"\\U{start:08x}-\\U{cp - 1:08x}")
                start = None
    return "".join(ranges), frozenset(chars)


@lru_cache(maxsize=2)
def _token_pattern(with_marks: bool = True) -> re.Pattern[str]:
    # A letter ([^\W\d_]) or, where the text has any, a combining mark; joiners inside.
    unit = f"(?:[^\\W\\d_]|[{_marks()[0]}])" if with_marks else "[^\\W\\d_]"
    return re.compile(f"{unit}+(?:['\\-]{unit}+)*")


def _find_tokens(text: str) -> list[str]:
    """Token strings of normalised text. The pattern with marks is ~4x slower, so it is
    used only for texts that contain a combining mark."""
    has_marks = not text.isascii() and not _marks()[1].isdisjoint(text)
    return _token_pattern(has_marks).findall(text)


@lru_cache(maxsize=1)
def _numeric_letters() -> frozenset[str]:
    """Characters a token can hold that are numeric (No, Nl, CJK numerals such as 五)."""
    return frozenset(
        chr(cp) for cp in range(0x40000) if chr(cp).isnumeric() and not chr(cp).isdecimal()
    )


def normalise(text: str) -> str:
    """NFC, typographic apostrophes as `'`, lower case: the form tokens are taken from."""
    if not text.isascii():  # ASCII text is already NFC and has no typographic apostrophes
        text = unicodedata.normalize("NFC", text)
        for apostrophe in _APOSTROPHES:
            if apostrophe in text:
                text = text.replace(apostrophe, "'")
    return text.lower()


def tokenize(text: str) -> list[str]:
    """Lower-cased NFC word tokens of `text` (no minimum length, numbers dropped)."""
    text = normalise(text)
    tokens = _find_tokens(text)
    if text.isascii() or _numeric_letters().isdisjoint(text):
        return tokens  # no token can be numeric
    return [t for t in tokens if not t.isnumeric()]


def count_words(text: str) -> int:
    """Number of word tokens, as `tokenize` defines them."""
    return len(tokenize(text))


def normal_text(paragraph: str) -> str:
    """A paragraph as an export writes it: on one line, spaces collapsed, NFC."""
    return unicodedata.normalize("NFC", " ".join(paragraph.split()))
