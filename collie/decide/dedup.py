"""Exact and near-duplicate detection: a hash of normalised text, and a 64-bit simhash.

Features are character 5-grams of the text's tokens (runs of letters and combining
marks, lower-cased, NFC, see `collie.text.tokenize`) joined by single spaces, weighted
by their count. Unlike the simhash package's default regex, combining marks are kept.
Chosen by measurement (benchmarks/bench_dedup.py, 120 UDHR languages, 12-paragraph
texts): one changed word stays within distance 3 for 98% of texts with 5-grams vs 65%
with word 3-shingles, a few added boilerplate words for 85% vs 48%, and different texts
of the same language were never closer than 12 bits.

Fingerprints follow the simhash package's definition (bit i is set when the features
whose hash has bit i outweigh half the total weight), with a faster feature hash than
its MD5: a polynomial over the n-gram's code points finished by splitmix64, computed for
all n-grams of a text in one numpy pass (benchmarks/bench_dedup.py: 0.56 ms for a
1,874-character text, tokenising included, vs 3.04 ms for `simhash.Simhash(text)`).
`simhash.Simhash(features(text), hashfunc=feature_hash).value == simhash_text(text)`.

A copy that lacks a paragraph, changes a word or adds a credit line and other boilerplate
can be far from its original in simhash distance (the whole-text comparison). So each
document also gets a paragraph sketch: the keys of its paragraphs of at least
PARAGRAPH_MIN_CHARS characters (exact after normalising, like `exact_key`), of which the
SKETCH smallest are kept with the total length of those paragraphs (a bottom-k sample).
`ParagraphIndex` maps sketch keys to documents; a new document whose paragraphs hold at
least half of an original's sketch, sharing at least half of its own long text by that
estimate, is a near-duplicate of it (containment both ways: a copy with a paragraph
dropped or added, not a page that merely quotes one paragraph: at least MIN_MATCHED
keys must match, unless both have a single long paragraph). Measured on 2,100 articles
of real news (benchmarks/bench_dedup.py, section 5): copies with a paragraph dropped,
a word changed, or a credit line and two paragraphs of other text added are caught
100%, 100%, 99% (the simhash alone: 15%, 91%, 5%), no two different articles confused.

`BlockIndex` finds a stored fingerprint within Hamming distance k of a new one by the
pigeonhole principle: split into k + 1 blocks, two fingerprints within distance k agree
on at least one block; so each block value points to its fingerprints (for k = 3: four
16-bit blocks). A run builds one from the stored fingerprints when it first needs it and
keeps it up to date as documents are recorded (store/: the same blocks in indexed
SQLite columns were measured and rejected, much slower at a million documents).

Which copy is the original: of a group of near-duplicates, the one whose page has the
lowest URL (in code-point order: `comes_first`), whatever order they arrive in. A new
document that matches an original with a higher URL takes its place (`mark_duplicate`
says so, `Deduplicator.replace` swaps the lookups, and the store makes the old original
and its copies near-duplicates of the new one), so a run killed and resumed, which
fetches in another order, exports the same URLs as an uninterrupted run.
"""

from __future__ import annotations

import hashlib
import unicodedata
from array import array
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from collie.models import ParagraphSketch
from collie.reasons import NEAR_DUPLICATE
from collie.text import tokenize

BITS = 64
NGRAM = 5


def normalise_for_hash(text: str) -> str:
    """NFC, case-folded, whitespace collapsed: what "exactly the same text" compares."""
    return " ".join(unicodedata.normalize("NFC", text).casefold().split())


def exact_key(text: str) -> str:
    """A 128-bit hex digest of the normalised text (exact duplicates share it)."""
    return hashlib.blake2b(normalise_for_hash(text).encode("utf-8"), digest_size=16).hexdigest()


def features(text: str, size: int = NGRAM) -> Counter[str]:
    """Character `size`-grams of the text's tokens joined by spaces, with their counts
    (the whole token string when it is shorter; nothing for a text without letters)."""
    joined = " ".join(tokenize(text))
    if len(joined) <= size:
        return Counter([joined] if joined else [])
    return Counter(joined[i : i + size] for i in range(len(joined) - size + 1))


_MASK = (1 << 64) - 1
_PRIME = 0x100000001B3  # FNV-1a's 64-bit prime: the n-gram polynomial's base
_BIT_SHIFTS = np.arange(BITS, dtype=np.uint64)


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: spreads every input bit over the 64 output bits."""
    x = x ^ (x >> np.uint64(30))
    x = x * np.uint64(0xBF58476D1CE4E5B9)
    x = x ^ (x >> np.uint64(27))
    x = x * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def feature_hash(feature: str | bytes) -> int:
    """The 64-bit hash of one feature (what `simhash_text` computes for each n-gram,
    vectorised); pass it as the simhash package's `hashfunc` (which gives UTF-8 bytes)
    for equal fingerprints."""
    if isinstance(feature, bytes):
        feature = feature.decode("utf-8")
    h = 0
    for char in feature:
        h = (h * _PRIME + ord(char)) & _MASK
    return int(_mix(np.array([h], dtype=np.uint64))[0])


def _ngram_hashes(joined: str, size: int) -> np.ndarray:
    codes = np.frombuffer(joined.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    width = min(size, len(codes))
    count = len(codes) - width + 1
    hashes = np.zeros(count, dtype=np.uint64)
    for k in range(width):  # h = sum(code[i + k] * P^(width - 1 - k)), modulo 2^64
        hashes = hashes * np.uint64(_PRIME) + codes[k : k + count]
    return _mix(hashes)


def simhash_hashes(hashes: np.ndarray, weights: np.ndarray) -> int:
    """The simhash of features given as 64-bit hashes with weights: bit i is set when
    the features having it outweigh half the total weight (0 for no features)."""
    if len(hashes) == 0:
        return 0
    bits = (hashes[:, None] >> _BIT_SHIFTS) & np.uint64(1)
    votes = weights.astype(np.uint64) @ bits
    chosen = (votes * 2 > np.uint64(weights.sum())).astype(np.uint64) << _BIT_SHIFTS
    return int(np.bitwise_or.reduce(chosen))


def simhash_text(text: str, size: int = NGRAM) -> int:
    """The 64-bit simhash of a text's character n-grams (see `features`)."""
    joined = " ".join(tokenize(text))
    if not joined:
        return 0
    hashes, weights = np.unique(_ngram_hashes(joined, size), return_counts=True)
    return simhash_hashes(hashes, weights)


def hamming(a: int, b: int) -> int:
    return (a ^ b).bit_count()


def block_layout(max_distance: int) -> list[tuple[int, int]]:
    """(shift, width) of the max_distance + 1 blocks a fingerprint is split into."""
    count = max_distance + 1
    if not 1 <= count <= BITS:
        raise ValueError(f"max_distance must be between 0 and {BITS - 1}")
    widths = [BITS // count + (1 if i < BITS % count else 0) for i in range(count)]
    layout, shift = [], 0
    for width in widths:
        layout.append((shift, width))
        shift += width
    return layout


def blocks(fingerprint: int, layout: list[tuple[int, int]]) -> list[int]:
    """The fingerprint's block values, in layout order."""
    return [(fingerprint >> shift) & ((1 << width) - 1) for shift, width in layout]


PARAGRAPH_MIN_CHARS = 80  # shorter paragraphs (bylines, captions, menus) are not compared
SKETCH = 4  # paragraph keys kept per document
MIN_MATCHED = 2  # sketch keys a copy shares with its original (one: a quotation)
CONTAINED = 0.5  # share of an original's sketch, and of the new text, that must match


def paragraph_key(text: str) -> int:
    """A paragraph's 64-bit key (case, spacing and Unicode normalisation aside)."""
    digest = hashlib.blake2b(normalise_for_hash(text).encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def paragraph_sketch(paragraphs: Iterable[str]) -> ParagraphSketch:
    long = [p for p in paragraphs if len(p) >= PARAGRAPH_MIN_CHARS]
    keys = frozenset(paragraph_key(p) for p in long)
    return ParagraphSketch(keys, tuple(sorted(keys)[:SKETCH]), sum(len(p) for p in long))


def stored_sketch(stored: str | None, paragraphs: list[str] | None) -> ParagraphSketch:
    """A document's sketch as the store keeps it, or computed from its paragraphs' texts
    for a document recorded before sketches were."""
    if stored is not None:
        return ParagraphSketch.from_text(stored)
    return paragraph_sketch(paragraphs or [])


class ParagraphIndex:
    """Original documents by the keys of their paragraph sketches. Compact, for a
    million documents: a key's first document is a plain int (lists only for keys
    shared by several), each sketch packed as 64-bit words with its length last."""

    def __init__(self) -> None:
        self._first: dict[int, int] = {}
        self._more: dict[int, list[int]] = {}
        self._sketches: dict[int, bytes] = {}

    def __len__(self) -> int:
        return len(self._sketches)

    def add(self, doc_id: int, sketch: ParagraphSketch) -> None:
        if not sketch.sketch:
            return
        self._sketches[doc_id] = array("Q", (*sketch.sketch, sketch.chars)).tobytes()
        for key in sketch.sketch:
            first = self._first.setdefault(key, doc_id)
            if first != doc_id:
                self._more.setdefault(key, []).append(doc_id)

    def remove(self, doc_id: int) -> None:
        """A document is no longer an original."""
        packed = self._sketches.pop(doc_id, None)
        if packed is None:
            return
        keys = array("Q")
        keys.frombytes(packed)
        for key in keys[:-1]:
            more = self._more.get(key, [])
            if self._first.get(key) == doc_id:
                if more:
                    self._first[key] = more.pop(0)
                else:
                    del self._first[key]
            elif doc_id in more:
                more.remove(doc_id)
            if key in self._more and not more:
                del self._more[key]

    def _documents(self, key: int) -> list[int]:
        first = self._first.get(key)
        if first is None:
            return []
        return [first, *self._more.get(key, ())]

    def find(self, new: ParagraphSketch) -> int | None:
        """The original (lowest id) whose sketch is at least CONTAINED in the new
        document's paragraphs, the share of its text that matches estimated at least
        CONTAINED of the new document's long text too."""
        if not new.keys:
            return None
        candidates = sorted({d for key in new.keys for d in self._documents(key)})
        for doc_id in candidates:
            packed = array("Q")
            packed.frombytes(self._sketches[doc_id])
            sketch, chars = packed[:-1], packed[-1]
            matched = sum(key in new.keys for key in sketch)
            if matched < MIN_MATCHED and not (len(sketch) == len(new.keys) == 1):
                continue  # one shared paragraph: a quotation, not a copy
            found = matched / len(sketch)
            if found >= CONTAINED and found * chars >= CONTAINED * new.chars:
                return doc_id
        return None


@dataclass(frozen=True)
class Match:
    doc_id: int
    fingerprint: int
    distance: int


def fingerprints(doc: Any) -> tuple[str, int, ParagraphSketch]:
    """(exact key, simhash, paragraph sketch) of a document (a DocumentRow), computed
    unless a worker did."""
    key = doc.exact_key if doc.exact_key is not None else exact_key(doc.text)
    fingerprint = doc.simhash if doc.simhash is not None else simhash_text(doc.text)
    if doc.sketch is not None:
        sketch = doc.sketch
    else:
        sketch = paragraph_sketch(p[0] for p in doc.paragraphs)
    return key, fingerprint, sketch


def comes_first(url: str, other: str) -> bool:
    """Does the page at `url` represent a group of near-duplicates before the one at
    `other`? The lowest URL, in code-point order, is the group's original."""
    return url < other


def mark_duplicate(
    outcome: Any,
    find: Callable[[str, int, ParagraphSketch], int | None],
    first: Callable[[int], bool] | None = None,
) -> int | None:
    """The near-duplicate decision: a target document whose exact key or fingerprint
    `find` matches an earlier document's (its id) becomes a duplicate of it: the page's
    status `duplicate`, its reason `near-duplicate:<id>`; unless `first` says it comes
    before that original (`comes_first` of their URLs): then it stays an original and
    the id of the original it displaces is returned (the caller makes that one a
    duplicate of it)."""
    doc = outcome.document
    if doc is None or doc.kind != "target":
        return None
    doc.duplicate_of = find(*fingerprints(doc))
    if doc.duplicate_of is None:
        return None
    if first is not None and first(doc.duplicate_of):
        displaced, doc.duplicate_of = doc.duplicate_of, None
        return displaced
    outcome.status, outcome.reason = "duplicate", f"{NEAR_DUPLICATE}:{doc.duplicate_of}"
    return None


class Deduplicator:
    """Near-duplicate lookups against the original documents seen so far: the same exact
    key, else a fingerprint within `max_distance` (a BlockIndex), else the paragraph
    sketch (a ParagraphIndex). The run's store looks exact keys up in its indexed column
    (`exact`); reprocess keeps them in memory."""

    def __init__(
        self,
        max_distance: int,
        exact: Callable[[str], int | None] | None = None,
        paragraphs: bool = True,
    ) -> None:
        self.index = BlockIndex(max_distance)
        self.paragraphs = ParagraphIndex()
        self.compare_paragraphs = paragraphs  # dedup.paragraphs
        self._exact = exact
        self._keys: dict[str, int] = {}

    def find(self, key: str, fingerprint: int, sketch: ParagraphSketch | None = None) -> int | None:
        """The original with the same exact key, else the closest within the distance,
        else the first whose paragraphs the new document contains (and vice versa)."""
        found = self._exact(key) if self._exact is not None else self._keys.get(key)
        if found is not None:
            return found
        match = self.index.find(fingerprint)
        if match is not None:
            return match.doc_id
        if sketch is None or not self.compare_paragraphs:
            return None
        return self.paragraphs.find(sketch)

    def add(
        self, doc_id: int, key: str, fingerprint: int, sketch: ParagraphSketch | None = None
    ) -> None:
        """A new original document."""
        if self._exact is None:
            self._keys.setdefault(key, doc_id)
        self.index.add(doc_id, fingerprint)
        if sketch is not None and self.compare_paragraphs:
            self.paragraphs.add(doc_id, sketch)

    def replace(
        self, old: int, doc_id: int, key: str, fingerprint: int, sketch: ParagraphSketch | None
    ) -> None:
        """The original `old` is a near-duplicate of a new original now (`comes_first`)."""
        self.index.remove(old)
        self.paragraphs.remove(old)
        for known in [k for k, v in self._keys.items() if v == old]:
            del self._keys[known]
        self.add(doc_id, key, fingerprint, sketch)

    def add_all(self, items: Iterable[tuple[int, int, ParagraphSketch | None]]) -> None:
        """Stored originals: (id, simhash, sketch)."""
        for doc_id, fingerprint, sketch in items:
            self.index.add(doc_id, fingerprint)
            if sketch is not None and self.compare_paragraphs:
                self.paragraphs.add(doc_id, sketch)


class BlockIndex:
    """Fingerprints by block value: find one within `max_distance` of a new fingerprint."""

    def __init__(self, max_distance: int = 3) -> None:
        self.max_distance = max_distance
        self.layout = block_layout(max_distance)
        self._masks = [(shift, (1 << width) - 1) for shift, width in self.layout]
        self._tables: list[dict[int, list[int]]] = [{} for _ in self.layout]
        self._fingerprints: dict[int, int] = {}

    def __len__(self) -> int:
        return len(self._fingerprints)

    def add(self, doc_id: int, fingerprint: int) -> None:
        self._fingerprints[doc_id] = fingerprint
        for table, (shift, mask) in zip(self._tables, self._masks):  # noqa: B905 (same length)
            value = (fingerprint >> shift) & mask
            ids = table.get(value)
            if ids is None:
                table[value] = [doc_id]
            else:
                ids.append(doc_id)

    def remove(self, doc_id: int) -> None:
        """A fingerprint leaves the index."""
        fingerprint = self._fingerprints.pop(doc_id, None)
        if fingerprint is None:
            return
        for table, (shift, mask) in zip(self._tables, self._masks):  # noqa: B905
            value = (fingerprint >> shift) & mask
            ids = table.get(value, [])
            if doc_id in ids:
                ids.remove(doc_id)
            if not ids:
                table.pop(value, None)

    def find(self, fingerprint: int) -> Match | None:
        """The closest stored fingerprint within max_distance (lowest id on ties), or None."""
        stored, limit = self._fingerprints, self.max_distance
        best: tuple[int, int] | None = None  # (distance, doc_id)
        for table, (shift, mask) in zip(self._tables, self._masks):  # noqa: B905
            for doc_id in table.get((fingerprint >> shift) & mask, ()):
                distance = (stored[doc_id] ^ fingerprint).bit_count()
                if distance <= limit and (best is None or (distance, doc_id) < best):
                    best = (distance, doc_id)
        if best is None:
            return None
        return Match(best[1], stored[best[1]], best[0])

    def add_all(self, items: Iterable[tuple[int, int]]) -> None:
        for doc_id, fingerprint in items:
            self.add(doc_id, fingerprint)
