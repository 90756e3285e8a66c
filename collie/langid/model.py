"""The run-time language model: plain numpy/scipy arrays, no estimator object.

A model is a table of n-gram counts per class (ISO 639-3 code): `keys` holds the 64-bit
hashes of the n-grams (see collie.langid.features), `counts` a CSR matrix (n-grams x
classes). Classification is multinomial naive Bayes with additive smoothing `alpha`,
written so that only the non-zero counts are stored:

    log P(g | c) = log(alpha / (N_c + alpha V)) + log(1 + count[g, c] / alpha)

so the score of a text is `X @ log1p(counts / alpha) + hits * base` (X: the text's n-gram
counts, hits: its number of known n-grams). Probabilities are a softmax of the scores
divided by `temperature * hits ** power`, or, when the model has one (the bundled model
does), the output of the maxent layer over each code's score (collie.langid.maxent, a
scikit-learn LogisticRegression stored as two arrays). Keeping counts rather than weights
makes adding or retraining a language one column (collie.langid.train).

Open set: a text whose best probability is under the threshold (for a member of a
macrolanguage, the probability of all its members in the model together), that has fewer than
`min_chars` letters, or that has no letters at all, is `und`; so is the anonymous class
`mis` (the user's "not the target" documents), and a text taken for a language learnt
from documents that fails its novelty test (collie.langid.novelty).
"""

from __future__ import annotations

import copy
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import scipy.sparse as sp

from collie.langid.features import (
    ORDERS,
    FeatureIndex,
    count_letters,
    cut_text,
    hash_ngrams,
    prepare_texts,
)
from collie.langid.groups import Discriminator, second_look
from collie.langid.maxent import Stacker, closeness
from collie.langid.novelty import column_keys, is_novel
from collie.langid.unknown import LetterRule, UnknownRule

UNDETERMINED = "und"
NO_LANGUAGE = "zxx"  # ISO 639-3 "no linguistic content": numbers, addresses, code
NO_ANSWER = frozenset({UNDETERMINED, NO_LANGUAGE})  # the labels that name no language
OTHER = "mis"  # ISO 639-3 "uncoded languages": the anonymous wronglang class
DEFAULT_THRESHOLD = 0.5
DEFAULT_MIN_CHARS = 20
# Additive smoothing of the counts: 0.003, chosen by four dev splits of the training
# articles (langmodel/README.md); the smaller it is, the more a known n-gram absent from a
# language's text speaks against it, which separates near-identical written standards.
ALPHA = 0.003
BATCH = 256  # texts per product: 256 keeps peak memory < 200 MB and is as fast
# Texts longer than CHUNK characters are scored in pieces whose evidence is summed, at
# most CHUNK_BATCH characters at a time: memory stays bounded for any length of text.
CHUNK = 20_000
CHUNK_BATCH = 400_000
# A single short text (a single call) is weighted without the dense block of
# `LangModel.weights` (0.5 s and 287 MB to build for the bundled model), by a small one
# of the n-grams of at least LIGHT_MIN_COLUMNS columns and sparse rows. Always, whatever
# was scored before: a text's scores depend on the text and the call's shape alone (a
# batch's are a text's own too), so that a run and its reprocessing agree to the bit.
LIGHT_MIN_COLUMNS = 100
LONG_ROWS = 1 << 16  # a long text's distinct n-grams weighted this many at a time
DENSE_MIN_COLUMNS = 12  # n-grams counted in at least this many columns are weighted densely
# Registers of real text (a column's register is in `meta["registers"]`; a column not
# there is of the UDHR): real (every real source pooled and balanced by the build:
# news, Wikipedia, conversation, stories, treebanks), news (NTREX-128) and wiki (OLDI
# Seed) in models built before, user (the user's documents).
REAL_TEXT = ("real", "news", "wiki", "user")
# The registers that lend (a user's column is the target's own).
LENDING = ("real", "news", "wiki")
# Registers of the user's own text and of the web's (collie.mining.neighbours): a code
# with such a column gets no second look at its confusable group (collie.langid.groups).
OWN_TEXT = ("user", "web")
# How much of the real-text gain a UDHR-only language does not borrow, per sqrt(known
# n-grams) (see `LangModel.lend_gain`; chosen on the development sets, docs/language-id.md:
# 2.0 with news and Wikipedia columns, 4.0 since every register's text is pooled).
LEND_MARGIN = 4.0
LEND_FIXED = 20.0  # and this much in all: a short text's UDHR columns say little


@dataclass
class LangModel:
    """Counts of selected n-grams per language, and how to turn them into probabilities."""

    columns: list[str]  # one per column of counts: "code", or "code/SCRIPT" for a script
    keys: np.ndarray  # uint64 n-gram hashes, one per row of counts
    counts: sp.csr_matrix  # (n-grams, columns) occurrence counts in the training text
    sizes: list[int]  # training characters per column
    alpha: float = ALPHA
    temperature: float = 1.0
    power: float = 0.5  # scores are divided by temperature * hits ** power
    orders: tuple[int, ...] = ORDERS
    meta: dict[str, Any] = field(default_factory=dict)
    threshold: float = DEFAULT_THRESHOLD
    min_chars: int = DEFAULT_MIN_CHARS
    stacker: Stacker | None = None  # the maxent layer over the codes (collie.langid.maxent)
    masked: tuple[int, ...] = ()  # columns scored as absent (`without_columns`)
    # The second look at confusable groups (collie.langid.groups), if built.
    groups: list[Discriminator] = field(default_factory=list)

    @cached_property
    def codes(self) -> list[str]:
        """The classes: ISO 639-3 codes (a code may have one column per script)."""
        return sorted({column_code(c) for c in self.columns})

    @cached_property
    def code_sizes(self) -> list[int]:
        """Training characters per code."""
        totals = dict.fromkeys(self.codes, 0)
        for column, size in zip(self.columns, self.sizes, strict=True):
            totals[column_code(column)] += size
        return [totals[c] for c in self.codes]

    @cached_property
    def _merge_order(self) -> tuple[np.ndarray, np.ndarray]:
        position = {code: i for i, code in enumerate(self.codes)}
        owner = np.array([position[column_code(c)] for c in self.columns], np.int64)
        order = np.argsort(owner, kind="stable")
        starts = np.searchsorted(owner[order], np.arange(len(self.codes)))
        return order, starts

    @cached_property
    def _novelty_keys(self) -> dict[str, np.ndarray]:
        """The n-grams of each language with a novelty test (`meta["novelty"]`)."""
        return {code: column_keys(self, code) for code in self.meta.get("novelty", {})}

    @cached_property
    def _code_position(self) -> dict[str, int]:
        return {code: i for i, code in enumerate(self.codes)}

    @cached_property
    def _code_array(self) -> np.ndarray:
        return np.asarray(self.codes, object)

    @cached_property
    def _script_columns(self) -> tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
        """(first column of each code, [(codes, their k-th column)] for k = 2, 3...)."""
        order, starts = self._merge_order
        ends = np.append(starts[1:], len(order))
        extra = []
        for k in range(1, int((ends - starts).max(initial=1))):
            has = np.flatnonzero(ends - starts > k)
            extra.append((has, order[starts[has] + k]))
        return order[starts], extra

    @cached_property
    def _lending(self) -> Lending | None:
        return self.lending_without(self.masked)

    def lending_without(self, absent: Sequence[int]) -> Lending | None:
        """Which columns lend their real-text gain and which borrow it, the columns
        `absent` left out (a development measure: a language's real text taken away);
        None for a model without registers (built before them)."""
        registers: dict[str, str] = self.meta.get("registers", {})
        scripts: dict[str, str] = self.meta.get("scripts", {})
        if not registers or not scripts:
            return None
        position = {code: i for i, code in enumerate(self.codes)}
        owner = np.array([position[column_code(c)] for c in self.columns], np.int64)
        present = np.ones(len(self.columns), bool)
        present[list(absent)] = False
        # A column of the user's documents neither lends nor keeps its language from
        # borrowing: it is one more column of the target (collie.langid.learn.fit_language).
        real = np.array([registers.get(c) in LENDING for c in self.columns]) & present
        udhr = np.array([c not in registers for c in self.columns]) & present
        has_real = np.bincount(owner[real], minlength=len(self.codes)) > 0
        number = {s: i for i, s in enumerate(sorted(set(scripts.values())))}
        script = np.array([number.get(scripts.get(c, ""), -1) for c in self.columns], np.int64)
        lenders, partners = [], []
        for column in np.flatnonzero(real):  # with its UDHR column of the same script
            same = np.flatnonzero(udhr & (owner == owner[column]) & (script == script[column]))
            if same.size:
                lenders.append(column)
                partners.append(same[0])
        borrowers = np.flatnonzero(udhr & ~has_real[owner])
        if not lenders or not borrowers.size:
            return None
        lent = np.asarray(lenders, np.int64)
        return Lending(
            lent, np.asarray(partners, np.int64), script[lent], borrowers, script[borrowers]
        )

    def lend_gain(self, scores: np.ndarray, hits: np.ndarray) -> np.ndarray:
        """Column scores with the real-text gain lent to the UDHR-only languages.

        A language known from the UDHR alone would lose real text to any neighbour with
        a column of real text (news, Wikipedia), which models its register as well as
        its language. So the register's gain is lent: the best real-text column
        of a language that also has a UDHR column of its script (the text's nearest such
        language) scores over that UDHR column by the register's gain on this text, and
        every UDHR-only column of the same script gets it (less LEND_MARGIN per
        sqrt(known n-grams) and LEND_FIXED). Between such a language and a UDHR-only one
        the UDHR columns then decide, a contest in one register; languages with real text
        still meet on their real-text columns."""
        lending = self._lending
        if lending is None or not len(scores):
            return scores
        rows = np.arange(len(scores))
        lent = scores[:, lending.lenders]
        best = lent.argmax(axis=1)
        gain = lent[rows, best] - scores[rows, lending.partners[best]]
        gain -= LEND_MARGIN * np.sqrt(np.maximum(hits, 1)) + LEND_FIXED
        np.maximum(gain, 0, out=gain)
        same = lending.borrower_scripts[None, :] == lending.lender_scripts[best][:, None]
        out = scores.copy()
        out[:, lending.borrowers] += np.where(same, gain[:, None], 0).astype(out.dtype)
        return out

    def code_scores(self, scores: np.ndarray, hits: np.ndarray | None = None) -> np.ndarray:
        """Column scores (n, columns) -> each code's best column score (n, codes), the
        real-text gain lent first when `hits` (known n-grams per text) is given."""
        if self.masked:
            scores = scores.copy()
            scores[:, list(self.masked)] = -np.inf
        if hits is not None:
            scores = self.lend_gain(scores, hits)
        first, extra = self._script_columns
        best = scores[:, first]
        for codes, columns in extra:  # the few codes with a column per script
            best[:, codes] = np.maximum(best[:, codes], scores[:, columns])
        return best

    def merge_columns(self, proba: np.ndarray) -> np.ndarray:
        """Column probabilities (n, columns) summed into code probabilities (n, codes)."""
        order, starts = self._merge_order
        if len(order) == len(starts):
            return proba[:, order]
        return np.add.reduceat(proba[:, order], starts, axis=1)

    @cached_property
    def _scoring_order(self) -> np.ndarray:
        """The keys' rows in scoring order: first the n-grams of at least
        DENSE_MIN_COLUMNS columns (the dense block), then the others (sparse weights)."""
        many = np.diff(self.counts.tocsr().indptr) >= DENSE_MIN_COLUMNS
        return np.concatenate([np.flatnonzero(many), np.flatnonzero(~many)])

    @cached_property
    def index(self) -> FeatureIndex:
        """Hash -> the n-gram's number in scoring order (see `weights`)."""
        return FeatureIndex.build(self.keys[self._scoring_order])

    @cached_property
    def weights(self) -> Weights:
        """The weights in scoring order, a dense block for the n-grams of many columns
        (287 MB and 0.5 s to build for the bundled model: built at the first batch of
        two short texts or more)."""
        log_counts = self._log_counts[self._scoring_order]
        # N-grams of many columns (numbered first) are weighted by a dense block: scipy's
        # sparse-times-dense product costs far less per weight than a sparse product.
        split = int(np.count_nonzero(np.diff(self.counts.tocsr().indptr) >= DENSE_MIN_COLUMNS))
        dense = log_counts[:split].toarray()
        sparse = sp.csr_matrix(log_counts[split:])
        return Weights(split, dense, sparse, self._base)

    @cached_property
    def _log_counts(self) -> sp.csr_matrix:
        """log1p(count / alpha) per n-gram and column, float32, rows in the keys' order."""
        log_counts = sp.csr_matrix(self.counts.tocsr(), dtype=np.float32, copy=True)
        log_counts.data = np.log1p(log_counts.data / self.alpha).astype(np.float32)
        return log_counts

    @cached_property
    def _base(self) -> np.ndarray:
        """log P of an n-gram never seen in each column (float32)."""
        totals = np.asarray(self.counts.sum(axis=0), np.float64).ravel()
        return np.log(self.alpha / (totals + self.alpha * len(self.keys))).astype(np.float32)

    @cached_property
    def _keys_sorted(self) -> bool:
        keys = self.keys
        return bool(np.all(keys[1:] > keys[:-1]))

    def key_rows(self, hashes: np.ndarray) -> np.ndarray:
        """Each hash's row in the keys' order, -1 where it is not a known n-gram (a binary
        search in the sorted keys: no hash table to build)."""
        keys = self.keys
        if not len(keys):
            return np.full(hashes.shape, -1, np.int64)
        if not self._keys_sorted:
            numbers = self.index.lookup(hashes)
            return np.where(numbers >= 0, self._scoring_order[numbers], -1)
        where = np.searchsorted(keys, hashes)
        np.minimum(where, len(keys) - 1, out=where)
        return np.where(keys[where] == hashes, where, -1)

    @cached_property
    def _light_weights(self) -> LightWeights:
        """The weights of a single short text (`_sparse_raw`): a small dense block for the
        n-grams of at least LIGHT_MIN_COLUMNS columns (15 MB for the bundled model,
        built in a few ms), the sparse rows for the others, in the keys' order."""
        log_counts = self._log_counts
        many = np.diff(log_counts.indptr) >= LIGHT_MIN_COLUMNS
        heavy = np.flatnonzero(many)
        number = np.full(len(self.keys), -1, np.int64)
        number[heavy] = np.arange(heavy.size)
        block = log_counts[heavy].toarray()
        sparse = log_counts  # its heavy rows are never read (`_sparse_raw`)
        return LightWeights(number, block, sparse)

    def _sparse_raw(
        self, texts: Sequence[str]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """`_raw_scores` of short texts without the dense block of `weights` (and without
        scipy matrices, whose construction costs more than a text's product)."""
        stream = prepare_texts(texts)
        hashes, text_of = hash_ngrams(stream, self.orders)
        order = np.argsort(hashes)  # sorted needles: the binary searches share their paths
        rows = self.key_rows(hashes[order])
        found = rows >= 0
        keys = len(self.keys)
        # Each (text, n-gram) once, with its count, sorted by text.
        pairs, times = np.unique(text_of[order][found] * keys + rows[found], return_counts=True)
        owner, rows = pairs // keys, pairs % keys
        hits = np.bincount(owner, weights=times, minlength=len(texts)).astype(np.int64)
        columns = len(self.columns)
        light = self._light_weights
        number = light.number[rows]
        heavy = number >= 0
        scores = np.zeros((len(texts), columns), np.float64)
        if heavy.any():
            terms = light.block[number[heavy]] * times[heavy, None].astype(np.float32)
            ends = np.cumsum(np.bincount(owner[heavy], minlength=len(texts))).tolist()
            for text, (start, end) in enumerate(zip([0, *ends[:-1]], ends, strict=True)):
                scores[text] += terms[start:end].sum(axis=0)  # (reduceat: slow on rows)
        sparse = light.sparse
        rest, weight = rows[~heavy], times[~heavy]
        lengths = sparse.indptr[rest + 1] - sparse.indptr[rest]
        offsets = np.arange(int(lengths.sum())) - np.repeat(
            np.cumsum(lengths) - lengths - sparse.indptr[rest], lengths
        )
        scores += np.bincount(
            np.repeat(owner[~heavy], lengths) * columns + sparse.indices[offsets],
            weights=sparse.data[offsets] * np.repeat(weight, lengths),
            minlength=len(texts) * columns,
        ).reshape(len(texts), columns)
        scores += hits[:, None] * self._base.astype(np.float64)
        background_weights, base = self._background_by_key
        background = hits * base + np.bincount(
            owner, weights=background_weights[rows] * times, minlength=len(texts)
        )
        return scores, hits, count_letters(stream, len(texts)), background

    def _long_raw(self, text: str) -> tuple[np.ndarray, int, int, float]:
        """(column scores, known n-grams, letters, background score) of one text longer
        than CHUNK: its n-grams counted piece by piece (at most CHUNK_BATCH characters at
        a time), then weighted once (naive Bayes evidence adds up): memory stays bounded
        for any length, and nothing is left out."""
        totals = np.zeros(len(self.keys), np.int64)
        letters = 0
        pieces = cut_text(text, CHUNK)
        start = 0
        while start < len(pieces):
            end, size = start, 0
            while end < len(pieces) and (end == start or size + len(pieces[end]) <= CHUNK_BATCH):
                size += len(pieces[end])
                end += 1
            stream = prepare_texts(pieces[start:end])
            rows = self.key_rows(hash_ngrams(stream, self.orders)[0])
            totals += np.bincount(rows[rows >= 0], minlength=len(self.keys))
            letters += int(count_letters(stream, end - start).sum())
            start = end
        seen = np.flatnonzero(totals)
        times = totals[seen].astype(np.float64)
        hits = int(totals.sum())
        scores = np.zeros(len(self.columns), np.float64)
        log_counts = self._log_counts
        for first in range(0, seen.size, LONG_ROWS):  # a slice of the rows at a time
            part, weight = seen[first : first + LONG_ROWS], times[first : first + LONG_ROWS]
            starts, ends = log_counts.indptr[part], log_counts.indptr[part + 1]
            lengths = ends - starts
            offsets = np.arange(int(lengths.sum())) - np.repeat(
                np.cumsum(lengths) - lengths - starts, lengths
            )
            scores += np.bincount(
                log_counts.indices[offsets],
                weights=log_counts.data[offsets] * np.repeat(weight, lengths),
                minlength=len(self.columns),
            )
        scores += hits * self._base.astype(np.float64)
        weights, base = self._background_by_key
        background = float(times @ weights[seen]) + hits * base
        return scores, hits, letters, background

    def count(self, texts: Sequence[str]) -> tuple[Any, np.ndarray, np.ndarray]:
        """(n-gram counts (n, keys in scoring order) with repeated entries, known n-grams
        per text, letters per text)."""
        stream = prepare_texts(texts)
        hashes, text_of = hash_ngrams(stream, self.orders)
        columns = self.index.lookup(hashes)
        found = columns >= 0
        rows = text_of[found]
        order = np.argsort(rows, kind="stable")
        hits = np.bincount(rows, minlength=len(texts))
        indptr = np.zeros(len(texts) + 1, np.int64)
        np.cumsum(hits, out=indptr[1:])
        features = columns[found][order].astype(np.int32)
        matrix = sp.csr_matrix(
            (np.ones(order.size, np.float32), features, indptr),
            shape=(len(texts), len(self.keys)),
        )
        return matrix, hits, count_letters(stream, len(texts))

    def scores(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(log-likelihood scores (n, columns), known n-grams per text, letters per text)."""
        scores, hits, letters, _ = self._raw_scores(texts)
        return scores, hits, letters

    def _scores(self, matrix: Any, hits: np.ndarray) -> np.ndarray:
        weights = self.weights
        split = weights.split
        scores = np.asarray((matrix[:, split:] @ weights.sparse).toarray())
        scores += hits[:, None].astype(np.float32) * weights.base
        if split:
            # The common n-grams, each text's repeats summed first (csc after csr has sorted
            # rows: summing is linear); the product then runs n-gram by n-gram over the
            # batch, each row of the dense block read once.
            block = matrix[:, :split].tocsc()
            block.sum_duplicates()
            scores += block @ weights.dense
        return scores

    def predict_proba(self, texts: Sequence[str]) -> np.ndarray:
        """Class probabilities, shape (len(texts), len(codes)); uniform for empty texts."""
        parts = [self._proba(list(texts[i : i + BATCH]))[0] for i in range(0, len(texts), BATCH)]
        return np.vstack(parts) if parts else np.zeros((0, len(self.codes)))

    def _proba(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        proba, letters, _ = self._proba_margins(texts)
        return proba, letters

    def _proba_margins(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(probabilities, letters, score margin per n-gram between the best two codes)."""
        judged = self._judge(texts)
        return judged.proba, judged.letters, judged.margins

    def _raw_scores(
        self, texts: Sequence[str]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(column scores, known n-grams, letters, background score) per text. A single
        short text is weighted without the dense block (`_sparse_raw`: a single call's
        start-up and memory); a text longer than CHUNK characters is counted in pieces
        and weighted once (`_long_raw`): memory stays bounded for any length."""
        if len(texts) == 1 and len(texts[0]) <= CHUNK:
            return self._sparse_raw(texts)
        short = [i for i, text in enumerate(texts) if len(text) <= CHUNK]
        if len(short) == len(texts):
            return self._dense_raw(texts)
        scores = np.zeros((len(texts), len(self.columns)), np.float64)
        hits = np.zeros(len(texts), np.int64)
        letters = np.zeros(len(texts), np.int64)
        background = np.zeros(len(texts), np.float64)
        if short:
            part = self._dense_raw([texts[i] for i in short])
            scores[short], hits[short], letters[short], background[short] = part
        for i, text in enumerate(texts):
            if len(text) > CHUNK:
                scores[i], hits[i], letters[i], background[i] = self._long_raw(text)
        return scores, hits, letters, background

    def _dense_raw(
        self, texts: Sequence[str]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """`_raw_scores` of short texts by the dense block (each text's scores its own,
        whatever the batch: scipy's products sum row by row)."""
        matrix, hits, letters = self.count(texts)
        return self._scores(matrix, hits), hits, letters, self._background(matrix, hits)

    @cached_property
    def _background_by_key(self) -> tuple[np.ndarray, float]:
        """(log1p(count / alpha') per n-gram in the keys' order, base) of the background
        column: every column's counts summed, smoothed as one column of the model. In
        float64: a text's background is a sum over thousands of n-grams, and float32
        weights made a batch's drift from a long text's by 2e-5 of it."""
        totals = np.asarray(self.counts.sum(axis=1), np.float64).ravel()
        alpha = self.alpha * len(self.columns)
        base = float(np.log(alpha / (totals.sum() + alpha * len(self.keys))))
        return np.log1p(totals / alpha), base

    @cached_property
    def _background_weights(self) -> tuple[np.ndarray, float]:
        """`_background_by_key` in scoring order."""
        weights, base = self._background_by_key
        return weights[self._scoring_order], base

    def _background(self, matrix: Any, hits: np.ndarray) -> np.ndarray:
        """The background column's score of each text (collie.langid.unknown)."""
        weights, base = self._background_weights
        return np.asarray(matrix @ weights, np.float64).ravel() + hits * base

    def _judge(self, texts: Sequence[str]) -> Judged:
        """Probabilities and what the `und` rules read, for one batch of texts; a text
        whose most probable language is in a confusable group is looked at again by the
        group's discriminator (collie.langid.groups)."""
        judged = self.judge_scores(*self._raw_scores(texts))
        if self.groups:
            # A text whose best column is of the UDHR is left to the first model (its
            # UDHR columns: one register); the discriminators know real text mostly.
            eligible = self._real_columns[judged.scores.argmax(axis=1)]
            second_look(
                self.groups,
                self.codes,
                self._left_alone,
                texts,
                judged.proba,
                eligible,
                self._code_position,
            )
        return judged

    @cached_property
    def _real_columns(self) -> np.ndarray:
        """Whether each column is one of real text (not the UDHR)."""
        registers: dict[str, str] = self.meta.get("registers", {})
        return np.array([registers.get(c) in REAL_TEXT for c in self.columns], bool)

    @cached_property
    def _left_alone(self) -> set[str]:
        """Codes whose groups get no second look: learnt from documents, or with a
        column of the user's or the web's text (collie.langid.groups)."""
        registers: dict[str, str] = self.meta.get("registers", {})
        own = {column_code(c) for c, register in registers.items() if register in OWN_TEXT}
        learnt = set(self.meta.get("added", [])) | set(self.meta.get("open_set", {}))
        return own | learnt | set(self.meta.get("novelty", {}))

    def judge_scores(
        self, scores: np.ndarray, hits: np.ndarray, letters: np.ndarray, background: np.ndarray
    ) -> Judged:
        """`_judge` of texts already scored (`_raw_scores`)."""
        if self.masked:
            scores[:, list(self.masked)] = -np.inf
        code_scores = self.code_scores(scores, hits)
        best_two = -np.partition(-code_scores, 1, axis=1)[:, :2]
        if best_two.shape[1] > 1:
            margins = (best_two[:, 0] - best_two[:, 1]) / np.maximum(hits, 1)
        else:
            margins = np.full(len(hits), np.inf)
        if self.stacker is not None:
            proba = _softmax(self.stacker.logits(closeness(code_scores, hits)))
        else:
            root = np.maximum(hits, 1).astype(np.float64) ** self.power
            proba = self.merge_columns(_softmax(scores / (self.temperature * root[:, None])))
        return Judged(proba, letters, margins, hits, scores, background)

    def lift_of(
        self, scores: np.ndarray, hits: np.ndarray, background: np.ndarray, codes: np.ndarray
    ) -> np.ndarray:
        """Each text's lift for one code each (collie.langid.unknown): the log-likelihood
        ratio per known n-gram of the code's best column over the background column."""
        first, extra = self._script_columns
        rows = np.arange(len(codes))
        best = scores[rows, first[codes]]
        for with_script, columns in extra:
            where = np.searchsorted(with_script, codes)
            has = (where < with_script.size) & (
                with_script[np.minimum(where, with_script.size - 1)] == codes
            )
            best[has] = np.maximum(best[has], scores[rows[has], columns[where[has]]])
        return (best - background) / np.maximum(hits, 1)

    @cached_property
    def unknown_rule(self) -> UnknownRule | None:
        """The open-set rule of the known languages (collie.langid.unknown), if built."""
        rule = self.meta.get("unknown")
        return UnknownRule.from_meta(rule, self.codes) if rule else None

    @cached_property
    def letter_rule(self) -> LetterRule | None:
        """The letter rule of the known languages (collie.langid.unknown), if built."""
        letters = (self.meta.get("unknown") or {}).get("letters")
        return LetterRule.from_meta(letters) if letters else None

    def identify_batch(self, texts: Sequence[str]) -> list[tuple[str, float]]:
        """(code, probability) per text; `und` when unsure, too short or letterless.

        A language learnt from the user's documents also needs its open-set margin
        (`meta["open_set"]`) over the next language and to pass its novelty test
        (`meta["novelty"]`), both set by collie.langid.learn."""
        return [(code, prob) for code, prob, _ in self.identify_nearest(texts)]

    def identify_nearest(self, texts: Sequence[str]) -> list[tuple[str, float, str]]:
        """(code, probability, nearest code) per text: `identify_batch`'s answer and the
        most probable language before the `und` rules (a text `und` whose nearest
        language is one learnt from documents failed its open-set tests: it may be a
        close relative the model does not know)."""
        result: list[tuple[str, float, str]] = []
        open_set: dict[str, float] = self.meta.get("open_set", {})
        novelty: dict[str, dict[str, float]] = self.meta.get("novelty", {})
        for start in range(0, len(texts), BATCH):
            batch = list(texts[start : start + BATCH])
            judged = self._judge(batch)
            best, probs, unsure = self.decide(judged)
            letters, margins = judged.letters, judged.margins
            if self.letter_rule is not None:  # letters the best language does not write
                sure = np.flatnonzero(~unsure)
                unsure[sure] |= self.letter_rule.unknown(
                    [batch[i] for i in sure], self._code_array[best[sure]].tolist()
                )
            for code, margin in open_set.items():  # languages learnt from documents
                if code in self.codes:
                    unsure |= (best == self.codes.index(code)) & (margins < margin)
            for code, rule in novelty.items():
                if code not in self.codes:
                    continue
                taken = np.flatnonzero(best == self.codes.index(code))
                if taken.size:
                    known = self._novelty_keys[code]
                    unsure[taken] |= is_novel(known, rule, [batch[i] for i in taken])
            if OTHER in self.codes:
                unsure |= best == self.codes.index(OTHER)
            nearest = self._code_array[best]
            labels = np.where(unsure, UNDETERMINED, nearest)
            # `zxx`: a text left `und`, or one that may be all addresses, numbers and code
            hinted = unsure | np.array([_CODE_HINT.search(t) is not None for t in batch], bool)
            maybe = np.flatnonzero(hinted & (letters < NO_LANGUAGE_MAX_LETTERS))
            if maybe.size:
                wordless = no_language([batch[i] for i in maybe])
                labels[maybe[wordless]] = NO_LANGUAGE
            result += zip(labels.tolist(), probs.tolist(), nearest.tolist(), strict=True)
        return result

    def decide(self, judged: Judged) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(best code, its probability, unsure) of judged texts by the rules that read
        scores alone: the threshold, the minimum length and the open set of the known
        languages (`identify_nearest` adds those that read the text)."""
        best = judged.proba.argmax(axis=1)
        probs = self._answer_probability(judged.proba, best)
        unsure = (judged.letters < max(self.min_chars, 1)) | (probs < self.threshold)
        far = self.unknown_rule
        if far is not None:
            lift = self._macro_lift(judged, best)
            unsure |= far.unknown(best, lift, judged.hits)
        return best, probs, unsure

    def _macro_lift(self, judged: Judged, best: np.ndarray) -> np.ndarray:
        """Each text's lift for its best code (collie.langid.unknown); for a member of a
        macrolanguage, the best lift of its members: a text that Bosnian explains well
        is no unknown language because Montenegrin, known from less text, won it by a
        hair (answers within a macrolanguage count as one, `_answer_probability`)."""
        lift = self.lift_of(judged.scores, judged.hits, judged.background, best)
        groups = self._macro_groups
        if groups is None:
            return lift
        group_of, _ = groups
        grouped = group_of[best]
        for group in np.unique(grouped[grouped >= 0]):
            rows = np.flatnonzero(grouped == group)
            for member in np.flatnonzero(group_of == group):
                codes = np.full(rows.size, member, np.int64)
                other = self.lift_of(
                    judged.scores[rows], judged.hits[rows], judged.background[rows], codes
                )
                lift[rows] = np.maximum(lift[rows], other)
        return lift

    @cached_property
    def _macro_groups(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(group of each code, -1 for none; membership (codes, groups)) over the
        macrolanguages with two or more of the codes, or None."""
        stored: dict[str, str] = self.meta.get("macrolanguages", {})
        if any(code not in stored for code in self.codes):  # not written by the build
            from collie.languages import all_languages

            known = all_languages()
            stored = {c: getattr(known.get(c), "macrolanguage", None) or "" for c in self.codes}
        macro = [stored[code] or None for code in self.codes]
        sizes = Counter(m for m in macro if m)
        groups = sorted(m for m, size in sizes.items() if size > 1)
        if not groups:
            return None
        number = {m: i for i, m in enumerate(groups)}
        group = np.array([number.get(m, -1) if m else -1 for m in macro], np.int64)
        members = np.zeros((len(self.codes), len(groups)))
        members[group >= 0, group[group >= 0]] = 1
        return group, members

    def _answer_probability(self, proba: np.ndarray, best: np.ndarray) -> np.ndarray:
        """The probability an answer is judged by: the best code's, or, for a member of a
        macrolanguage, all its members' together (Bosnian, Croatian and Serbian news
        shares most of its words: the model is sure of Serbo-Croatian, if not of which)."""
        probs = proba[np.arange(len(best)), best]
        groups = self._macro_groups
        if groups is None:
            return probs
        group_of, members = groups
        group = group_of[best]
        member = group >= 0
        if member.any():
            sums = proba[member] @ members
            probs[member] = sums[np.arange(sums.shape[0]), group[member]]
        return probs

    def identify(self, text: str) -> tuple[str, float]:
        """(code, probability) of one text; `und` when unsure, too short or letterless."""
        return self.identify_batch([text])[0]

    def identify_paragraphs(self, paragraphs: Sequence[str]) -> list[tuple[str, float]]:
        """(code, probability) per paragraph, in order (see `summarise_languages`)."""
        return self.identify_batch(paragraphs)

    def top(self, texts: Sequence[str], k: int) -> list[list[tuple[str, float]]]:
        """The k most probable codes of each text, with their probabilities."""
        proba = self.predict_proba(texts)
        best = np.argsort(-proba, axis=1)[:, :k]
        return [[(self.codes[j], float(proba[i, j])) for j in row] for i, row in enumerate(best)]

    def with_settings(self, threshold: float, min_chars: int) -> LangModel:
        """This model with another `und` threshold and minimum length (shares arrays)."""
        other = copy.copy(self)
        other.threshold, other.min_chars = threshold, min_chars
        return other

    def without_columns(self, columns: Sequence[str]) -> LangModel:
        """This model as if `columns` were not there (shares arrays; the maxent layer and
        the n-gram table stay as they are): a development measure, say a language's real
        text taken away (benchmarks/bench_fairness.py). Rebuilding without them is what
        `collie.langid.train.remove_columns` does."""
        other = copy.copy(self)
        other.masked = tuple(sorted({*self.masked, *(self.columns.index(c) for c in columns)}))
        other.__dict__.pop("_lending", None)
        return other


def _softmax(logits: np.ndarray) -> np.ndarray:
    logits = logits - logits.max(axis=1, keepdims=True)
    np.exp(logits, out=logits)
    logits /= logits.sum(axis=1, keepdims=True)
    return logits


@dataclass
class Judged:
    """A batch's probabilities and what the `und` rules read."""

    proba: np.ndarray  # (n, codes)
    letters: np.ndarray  # (n,)
    margins: np.ndarray  # (n,) score margin per known n-gram between the best two codes
    hits: np.ndarray  # (n,) known n-grams
    scores: np.ndarray  # (n, columns) naive Bayes column scores
    background: np.ndarray  # (n,) the background column's score (collie.langid.unknown)


# A character that may start a token of no language: a digit, an address or code symbol.
_CODE_HINT = re.compile(r"[0-9@/\\{}<>=#$%&*|~^\[\]_]")
NO_LANGUAGE_MAX_LETTERS = 2000  # a text with more letters is never all addresses and code
# A token that is not a word: an address, a number or a code symbol (with its letters).
# (A code token is ASCII: a Chinese or Japanese sentence, one token with no spaces, may
# hold a digit and still be all words.)
_NOT_WORDS = re.compile(
    r"(?:[a-z][a-z0-9+.-]*://|www\.)[!-~]+|[!-~]+@[!-~]+\.[!-~]+"
    r"|(?<!\S)[!-~]*[0-9_<>{}\[\]=#$%&*/\\|~^][!-~]*(?!\S)",
    re.IGNORECASE,
)

# A token of word characters alone, no digit or underscore: most texts have one, and
# need not be rewritten by _NOT_WORDS (no address, number or code token is such a token).
_LETTERS_ONLY = re.compile(r"(?<!\S)[^\W\d_]+(?!\S)")


def no_language(texts: Sequence[str]) -> np.ndarray:
    """True for the texts with no word once addresses, numbers and code tokens (any token
    holding a digit or a code symbol) are set aside: `zxx`, not `und` (an empty text is
    `und`: there is nothing to judge)."""
    out = np.zeros(len(texts), bool)
    for number, text in enumerate(texts):
        word = _LETTERS_ONLY.search(text)
        if word is not None and any(ch.isalpha() for ch in word.group()):
            continue  # a token of letters alone, which _NOT_WORDS never touches: a word
        rest = _NOT_WORDS.sub(" ", text)
        out[number] = bool(text.strip()) and not any(ch.isalpha() for ch in rest)
    return out


@dataclass
class Weights:
    """Log-count weights of the n-grams in scoring order: a dense block for the n-grams of
    many columns (numbered 0 to split - 1), sparse rows for the others."""

    split: int  # n-grams numbered below are in the dense block
    dense: np.ndarray  # float32 (split, columns)
    sparse: sp.csr_matrix  # float32 (keys - split, columns)
    base: np.ndarray  # float32 (columns,): log P of an n-gram never seen in the column


@dataclass
class LightWeights:
    """The weights of a single short text, rows in the keys' order: a small dense block
    for the n-grams of many columns, sparse rows for the others."""

    number: np.ndarray  # int64 (keys,): the n-gram's row of the block, -1 if sparse
    block: np.ndarray  # float32 (heavy n-grams, columns)
    sparse: sp.csr_matrix  # float32 (keys, columns): read for the n-grams not in the block


@dataclass
class Lending:
    """Columns that lend their real-text gain (with their UDHR partner column and
    script) and UDHR-only columns that borrow it (with their script)."""

    lenders: np.ndarray
    partners: np.ndarray
    lender_scripts: np.ndarray
    borrowers: np.ndarray
    borrower_scripts: np.ndarray


def column_code(column: str) -> str:
    """The ISO 639-3 code of a column label ("srp/LATIN" -> "srp")."""
    return column.split("/", 1)[0]


@dataclass
class LanguageSummary:
    """Which share of a document's letters each language has, paragraph by paragraph."""

    shares: dict[str, float]  # code -> share of letters, largest first
    labels: list[tuple[str, float]]

    def share(self, code: str) -> float:
        return self.shares.get(code, 0.0)

    def mainly(self, code: str) -> bool:
        """More than half of the document's letters are in `code`."""
        return self.share(code) > 0.5


def summarise_languages(model: LangModel, paragraphs: Sequence[str]) -> LanguageSummary:
    """Identify each paragraph and weigh the labels by the paragraph's letters."""
    labels = model.identify_paragraphs(paragraphs)
    weights = [sum(ch.isalpha() for ch in p) for p in paragraphs]
    total = sum(weights) or 1
    shares: dict[str, float] = {}
    for (code, _), weight in zip(labels, weights, strict=True):
        shares[code] = shares.get(code, 0.0) + weight / total
    ordered = dict(sorted(shares.items(), key=lambda kv: (-kv[1], kv[0])))
    return LanguageSummary(ordered, labels)
