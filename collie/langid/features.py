"""Character n-gram features of a whole batch of texts at once, vectorised with numpy.

A text is NFC-normalised and lower-cased; letters and combining marks are kept, every
other character (digits, punctuation, spaces, symbols) is a word boundary, written `_`
as in CorpusCollie (`_wa`, `wa_`); runs of boundaries collapse to one. Each text is
padded with a boundary on both sides, so "Wa!" yields the trigrams `_wa` and `wa_`.

Every n-gram of the selected orders is hashed to 64 bits with a rolling polynomial hash
over code points (no Python loop per character); a `FeatureIndex` maps hashes of
selected n-grams to column numbers (open table lookup, verified against the stored key,
so unselected n-grams never alias a selected one) and the batch becomes a CSR matrix of
counts, one row per text.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np
import scipy.sparse as sp

BOUNDARY = 0x5F  # "_", the word-boundary symbol (never a letter, so never ambiguous)
SEPARATOR = 0  # between texts of a batch; no n-gram crosses it
TABLE_LIMIT = 0x30000  # code points above are letters (CJK extensions, ...)
MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)  # odd 64-bit constant: rolling hash base
MIX = np.uint64(0xBF58476D1CE4E5B9)
WORDS = 0  # the "order" of whole-word features
MAX_WORD = 40  # letters of a word that its hash covers
WORD_SALT = np.uint64(0x94D049BB133111EB)
ORDERS = (1, 2, 3, 4, 5)


_LETTERS: list[np.ndarray] = []

# What one character of a dense script is worth in letters, for the too-short rule
# (langid.min_chars): the same NTREX-128 news sentences have 2.6-2.8 times fewer letters
# in Chinese than in English, 2.0 in Korean and Japanese, 1.5-1.6 in Amharic and Tigrinya.
DENSE_SCRIPTS = (
    (0x1200, 0x139F, 2),  # Ethiopic syllables and supplement
    (0x2D80, 0x2DDF, 2),  # Ethiopic extended
    (0x3040, 0x30FF, 2),  # Hiragana, Katakana
    (0x31F0, 0x31FF, 2),  # Katakana phonetic extensions
    (0x3400, 0x4DBF, 3),  # CJK extension A
    (0x4E00, 0x9FFF, 3),  # CJK unified ideographs
    (0xAC00, 0xD7AF, 2),  # Hangul syllables
    (0xF900, 0xFAFF, 3),  # CJK compatibility ideographs
    (0x20000, TABLE_LIMIT - 1, 3),  # CJK extensions B-G
)


def letter_table() -> np.ndarray:
    """True for code points that are letters (L*) or marks (M*), below TABLE_LIMIT.

    A model file carries the table it was built with (`use_letter_table`), which also
    saves computing it (0.6 s) when a model is loaded."""
    if not _LETTERS:
        _LETTERS.append(compute_letter_table())
    return _LETTERS[0]


def use_letter_table(packed: np.ndarray) -> None:
    """Use the table stored (np.packbits) in a model file."""
    _LETTERS[:] = [np.unpackbits(packed)[:TABLE_LIMIT].astype(bool)]


@lru_cache(maxsize=1)
def compute_letter_table() -> np.ndarray:
    """The letter table of this Python's unicodedata."""
    chars = "".join(map(chr, range(TABLE_LIMIT)))
    # Categories by block: the first letter of unicodedata.category, computed once.
    cats = np.frombuffer(
        "".join(unicodedata.category(c)[0] for c in chars).encode("ascii"), np.uint8
    )
    return (cats == ord("L")) | (cats == ord("M"))


@lru_cache(maxsize=1)
def letter_weights() -> np.ndarray:
    """Letters each code point below TABLE_LIMIT counts for (DENSE_SCRIPTS, else 1)."""
    weights = np.ones(TABLE_LIMIT, np.int64)
    for first, last, weight in DENSE_SCRIPTS:
        weights[first : last + 1] = weight
    return weights


def count_letters(stream: np.ndarray, texts: int) -> np.ndarray:
    """Letters per text of a prepared stream, a dense script's characters weighted."""
    text_of = np.cumsum(stream == SEPARATOR)
    letter = (stream != BOUNDARY) & (stream != SEPARATOR)
    points = stream[letter]
    weight = np.ones(points.size, np.int64)
    low = points < TABLE_LIMIT
    weight[low] = letter_weights()[points[low]]
    return np.bincount(text_of[letter], weights=weight, minlength=texts).astype(np.int64)


def prepare_texts(texts: Sequence[str]) -> np.ndarray:
    """The batch as one code-point stream: `_text_` joined by SEPARATOR, boundaries folded."""
    # NFC text by text: most are NFC already and pass its quick check (3x faster than
    # normalising the whole batch as soon as one text is not).
    parts = [unicodedata.normalize("NFC", text) for text in texts]
    joined = " \0 ".join(parts)
    if joined.count("\0") != len(texts) - 1 and texts:
        joined = " \0 ".join(t.replace("\0", " ") for t in parts)
    joined = f" {joined} ".lower()
    raw = np.frombuffer(joined.encode("utf-32-le"), np.uint32)
    letter = np.ones(raw.shape, bool)
    low = raw < TABLE_LIMIT
    letter[low] = letter_table()[raw[low]]
    stream = np.where(letter, raw, np.uint32(BOUNDARY))
    stream[raw == SEPARATOR] = SEPARATOR
    boundary = stream == BOUNDARY
    keep = np.ones(stream.size, bool)
    keep[1:] = ~(boundary[1:] & boundary[:-1])
    return stream[keep]


def hash_ngrams(
    stream: np.ndarray, orders: Sequence[int] = ORDERS
) -> tuple[np.ndarray, np.ndarray]:
    """(hashes, text number) of every n-gram of the given orders in a prepared stream.

    N-grams containing a separator, and the lone boundary unigram, are left out."""
    codes = stream.astype(np.uint64)
    text_of = np.cumsum(stream == SEPARATOR)
    sep_count = np.concatenate(([0], text_of))
    hashes: list[np.ndarray] = []
    texts: list[np.ndarray] = []
    rolling = np.zeros(codes.size, np.uint64)
    with np.errstate(over="ignore"):
        for n in range(1, min(max(orders), codes.size) + 1):
            rolling = rolling[:-1] * MULTIPLIER + codes[n - 1 :] if n > 1 else codes + MIX
            if n not in orders:
                continue
            clean = sep_count[n:] - sep_count[: codes.size - n + 1] == 0
            if n == 1:
                clean &= stream != BOUNDARY
            mixed = rolling[clean] * MIX
            mixed ^= mixed >> np.uint64(31)
            hashes.append(mixed)
            texts.append(text_of[: codes.size - n + 1][clean])
    if WORDS in orders:
        word_hashes, word_texts = hash_words(stream, codes, text_of)
        hashes.append(word_hashes)
        texts.append(word_texts)
    if not hashes:
        return np.zeros(0, np.uint64), np.zeros(0, np.int64)
    return np.concatenate(hashes), np.concatenate(texts)


def hash_words(
    stream: np.ndarray, codes: np.ndarray, text_of: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(hashes, text number) of every whole word (letters between boundaries)."""
    edge = np.flatnonzero((stream == BOUNDARY) | (stream == SEPARATOR))
    starts, ends = edge[:-1] + 1, edge[1:]  # a word is stream[start:end]
    real = (ends > starts) & (stream[edge[:-1]] == BOUNDARY) & (stream[edge[1:]] == BOUNDARY)
    starts, ends = starts[real], ends[real]
    lengths = np.minimum(ends - starts, MAX_WORD)
    with np.errstate(over="ignore"):
        # prefix[i] = sum_k<i codes[k] * MULTIPLIER^(i-1-k): a rolling hash over the stream
        prefix = np.zeros(codes.size + 1, np.uint64)
        powers = np.ones(MAX_WORD + 1, np.uint64)
        for i in range(1, MAX_WORD + 1):
            powers[i] = powers[i - 1] * MULTIPLIER
        prefix[1:] = _rolling_prefix(codes)
        ends = starts + lengths
        value = prefix[ends] - prefix[starts] * powers[lengths]
        mixed = (value + WORD_SALT) * MIX
        mixed ^= mixed >> np.uint64(31)
    return mixed, text_of[starts]


def _rolling_prefix(codes: np.ndarray) -> np.ndarray:
    """h[i] = h[i-1] * MULTIPLIER + codes[i] (mod 2^64), by doubling (log n numpy steps)."""
    h = codes.copy()
    step = 1
    factor = MULTIPLIER
    with np.errstate(over="ignore"):
        while step < h.size:
            shifted = np.zeros_like(h)
            shifted[step:] = h[:-step]
            h = h + shifted * factor  # h[i] += h[i-step] * M^step
            factor = factor * factor
            step *= 2
    return h


@dataclass
class FeatureIndex:
    """Selected n-gram hashes -> column numbers, through an open-addressing table.

    The table has >= 8 slots per key, so nearly every lookup ends at its first slot: one
    gather into the table and one into the keys (appended with a sentinel for empty
    slots), then a few probes for the rare hashes whose slot holds another key."""

    keys: np.ndarray  # uint64, one per column
    bits: int
    table: np.ndarray  # int32 slots: column number or -1

    @classmethod
    def build(cls, keys: np.ndarray) -> FeatureIndex:
        """An index over `keys` (distinct)."""
        keys = np.asarray(keys, np.uint64)
        bits = max(10, int(np.ceil(np.log2(max(len(keys), 1) * 8))))
        table = np.full(1 << bits, -1, np.int32)
        slots = _slots(keys, bits)
        pending = np.arange(len(keys))
        for probe in range(64):
            where = (slots[pending] + probe) & ((1 << bits) - 1)
            free = table[where] == -1
            # Among keys probing the same free slot in this round, the first one wins.
            _, first = np.unique(where[free], return_index=True)
            winners = pending[free][first]
            table[where[free][first]] = winners
            pending = np.setdiff1d(pending, winners, assume_unique=True)
            if not pending.size:
                break
        if pending.size:  # pragma: no cover - 64 probes at load factor 1/8
            raise RuntimeError("feature table is too full")
        return cls(keys, bits, table)

    def lookup(self, hashes: np.ndarray) -> np.ndarray:
        """Column number of each hash, -1 where it is not a selected n-gram."""
        mask = (1 << self.bits) - 1
        slots = _slots(hashes, self.bits)
        keys = self._probe_keys
        column = self.table[slots]
        hit = keys[column] == hashes
        occupied = column >= 0
        result = np.where(hit & occupied, column, -1)
        todo = np.flatnonzero(occupied & ~hit)
        for probe in range(1, 64):
            if not todo.size:
                break
            column = self.table[(slots[todo] + probe) & mask]
            occupied = column >= 0
            hit = occupied & (keys[column] == hashes[todo])
            result[todo[hit]] = column[hit]
            todo = todo[occupied & ~hit]
        return result

    @cached_property
    def _probe_keys(self) -> np.ndarray:
        """The keys and a sentinel at index -1 (an empty slot), for branch-free gathers."""
        return np.concatenate([self.keys, np.zeros(1, np.uint64)])

    def __len__(self) -> int:
        return len(self.keys)


def _slots(hashes: np.ndarray, bits: int) -> np.ndarray:
    return (hashes >> np.uint64(64 - bits)).astype(np.int64)


def count_matrix(texts: Sequence[str], index: FeatureIndex) -> sp.csr_matrix:
    """Counts of the selected n-grams, one row per text (duplicates summed by scipy)."""
    hashes, text_of = hash_ngrams(prepare_texts(texts))
    columns = index.lookup(hashes)
    found = columns >= 0
    rows = text_of[found]
    order = np.argsort(rows, kind="stable")  # one sorted run per order: timsort merges them
    columns, rows = columns[found][order], rows[order]
    indptr = np.zeros(len(texts) + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=len(texts)), out=indptr[1:])
    data = np.ones(columns.size, np.float32)
    return sp.csr_matrix((data, columns.astype(np.int32), indptr), shape=(len(texts), len(index)))


def letter_counts(texts: Sequence[str]) -> np.ndarray:
    """Letters and marks per text (after normalisation), for the too-short rule."""
    return count_letters(prepare_texts(texts), len(texts))


def cut_text(text: str, size: int) -> list[str]:
    """`text` in pieces of at most `size` characters, each cut at its last space (or at
    `size` in a text without one)."""
    pieces = []
    start = 0
    while len(text) - start > size:
        end = text.rfind(" ", start + 1, start + size + 1)
        end = end if end > start else start + size
        pieces.append(text[start:end])
        start = end
    pieces.append(text[start:])
    return pieces
