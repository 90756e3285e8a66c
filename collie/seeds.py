"""Tokenising and word counts (seed-word selection builds on these).

A token is a run of letters and combining marks, with word-internal apostrophes and
hyphens kept (Dholuo `ng'eyo`), NFC and lower-cased; typographic apostrophes become `'`.
Digits, punctuation and symbols separate tokens.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

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
