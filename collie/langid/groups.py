"""The second look at confusable groups (issue 53): a discriminator per group.

Some languages are so close that the first model, which weighs every language against
all the others, is often right about the group and wrong about the member: Zulu, Xhosa,
Southern Ndebele and Swati; Hindi, Bhojpuri and Magahi; Spanish, Asturian and Galician.
The build (langmodel/groups.py, the table langmodel/groups.tsv) trains one
discriminator a group on the training text of its members alone, balanced: multinomial
naive Bayes over the character 1-5-grams that the group's text holds (not only those
the first model kept), each member's text an equal share of every source it has. At run
time, a text whose most probable language is a member has the group's probability
shared among the members present by the discriminator; texts of other languages are
never looked at again (the speed of the first model barely moves). Nor is a text whose
best column in the first model (before the real-text gain is lent) is a UDHR column:
the UDHR columns are a contest in one register, the discriminators know the members'
real text mostly (taking those texts too cost the group members 1.4 points of the UDHR's
held-out 400-byte snippets).

A group is left alone when fewer than two of its members are in the model, or when one
of them has a column of the user's or the web's text (a target fitted to the user's
documents, a neighbour's web column) or was learnt from documents: the first model
knows those registers, the discriminator does not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from collie.langid.features import ORDERS, FeatureIndex, cut_text, hash_ngrams, prepare_texts

# The discriminator's posterior is a softmax of its log-likelihoods divided by
# TEMPERATURE * sqrt(known n-grams), as the first model's (collie.langid.model).
TEMPERATURE = 1.0
PIECE, PIECES = 20_000, 400_000  # as collie.langid.model's CHUNK and CHUNK_BATCH


@dataclass
class Discriminator:
    """Naive Bayes weights of one group's n-grams: a row per n-gram (`keys`, sorted),
    a column per member, each row centred (only differences between members count)."""

    members: tuple[str, ...]
    keys: np.ndarray  # uint64, sorted
    weights: np.ndarray  # float32 (keys, members)

    @cached_property
    def index(self) -> FeatureIndex:
        """Hash -> row (built at the first text of the group)."""
        return FeatureIndex.build(self.keys)

    def scores(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """(log-likelihood per member (n, members), known n-grams per text); a text
        longer than PIECE characters is scored in pieces whose evidence is summed, at
        most PIECES characters at a time (memory stays bounded for any length)."""
        if all(len(text) <= PIECE for text in texts):
            return self._scores(texts)
        out = np.zeros((len(texts), len(self.members)), np.float64)
        hits = np.zeros(len(texts), np.int64)
        pieces = [(i, piece) for i, text in enumerate(texts) for piece in cut_text(text, PIECE)]
        start = 0
        while start < len(pieces):
            end, size = start, 0
            while end < len(pieces) and (end == start or size + len(pieces[end][1]) <= PIECES):
                size += len(pieces[end][1])
                end += 1
            owner = np.array([i for i, _ in pieces[start:end]], np.int64)
            part, part_hits = self._scores([piece for _, piece in pieces[start:end]])
            np.add.at(out, owner, part)
            np.add.at(hits, owner, part_hits)
            start = end
        return out, hits

    def _scores(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        hashes, text_of = hash_ngrams(prepare_texts(texts), ORDERS)
        where = self.index.lookup(hashes)
        found = where >= 0
        rows, where = text_of[found], where[found]
        out = np.zeros((len(texts), len(self.members)), np.float64)
        for j in range(len(self.members)):
            out[:, j] = np.bincount(rows, weights=self.weights[where, j], minlength=len(texts))
        return out, np.bincount(rows, minlength=len(texts))

    def posterior(self, texts: Sequence[str], columns: Sequence[int]) -> np.ndarray:
        """The probabilities of the members `columns` (indices into `members`), summing
        to one for each text."""
        scores, hits = self.scores(texts)
        scores = scores[:, list(columns)]
        scale = TEMPERATURE * np.sqrt(np.maximum(hits, 1))[:, None]
        logits = scores / scale
        logits -= logits.max(axis=1, keepdims=True)
        proba = np.exp(logits)
        return proba / proba.sum(axis=1, keepdims=True)


def second_look(
    groups: Sequence[Discriminator],
    codes: Sequence[str],
    left_alone: set[str],
    texts: Sequence[str],
    proba: np.ndarray,
    eligible: np.ndarray | None = None,
    position: Mapping[str, int] | None = None,
) -> np.ndarray:
    """`proba` (n, codes) with each group's probability shared again by its
    discriminator for the texts whose most probable code is one of its members (in
    place; returned). `left_alone`: codes whose groups are not looked at again;
    `eligible`: the texts that may be looked at again (all when None); `position`:
    each code's number in `codes`, if the caller keeps it."""
    if not groups or not len(texts):
        return proba
    if position is None:
        position = {code: i for i, code in enumerate(codes)}
    best = proba.argmax(axis=1)
    if eligible is not None:
        best = np.where(eligible, best, -1)
    for group in groups:
        present = [j for j, code in enumerate(group.members) if code in position]
        if len(present) < 2 or any(group.members[j] in left_alone for j in present):
            continue
        columns = np.array([position[group.members[j]] for j in present], np.int64)
        member = np.zeros(len(codes) + 1, bool)  # the last: -1, a text not eligible
        member[columns] = True
        rows = np.flatnonzero(member[best])
        if not rows.size:
            continue
        shares = group.posterior([texts[i] for i in rows.tolist()], present)
        mass = proba[np.ix_(rows, columns)].sum(axis=1)
        proba[np.ix_(rows, columns)] = mass[:, None] * shares
    return proba


def train_discriminator(
    members: tuple[str, ...],
    texts: dict[str, list[str]],
    min_count: int = 2,
    alpha: float = 0.1,
    prune: float = 0.05,
) -> Discriminator:
    """Naive Bayes over the n-grams seen at least `min_count` times in the members'
    `texts`, additive smoothing `alpha`, each row centred; rows whose members differ by
    less than `prune` are left out (langmodel/groups.py trains the bundled model's)."""
    hashes = [hash_ngrams(prepare_texts(texts[code]), ORDERS)[0] for code in members]
    keys, seen = np.unique(np.concatenate(hashes), return_counts=True)
    keys = keys[seen >= min_count]
    counts = np.zeros((len(keys), len(members)))
    for j, found in enumerate(hashes):
        where = np.minimum(np.searchsorted(keys, found), len(keys) - 1)
        hit = keys[where] == found
        counts[:, j] = np.bincount(where[hit], minlength=len(keys))
    log_p = np.log(counts + alpha) - np.log(counts.sum(axis=0) + alpha * len(keys))
    log_p -= log_p.mean(axis=1, keepdims=True)
    keep = np.ptp(log_p, axis=1) >= prune
    return Discriminator(members, keys[keep], log_p[keep].astype(np.float32))
