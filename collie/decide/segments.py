"""Which paragraphs of a document are in the target language: what an export writes.

A document keeps every paragraph with the language it was given when its page was
decided (classify.decide's labels: one language per paragraph, the same letters the
page's target share counts). `mark_segments` says, per paragraph, how much of it is the
target's and whether an export of the target's text keeps it:

- a paragraph labelled the target is the target's (share 1);
- a paragraph labelled otherwise (another language, or `und`: a code-switched paragraph
  often is) that holds several sentences is looked at sentence by sentence, and an
  `und` paragraph of one sentence as a whole: its share is the target's part of the
  letters of its identified sentences (`und` ones aside), and it is kept when that is
  at least MAINLY (mainly target). A sentence the model leaves `und` but whose nearest
  language is the target (a learnt target's open-set tests failed: names, loanwords;
  the probability under langid.threshold) counts as the target's, as it does when a
  page is judged with its site: the document it is in was judged the target's;
- a heading (one short line with a letter, without a sentence's ending) goes with its
  section: kept when the next paragraph that is not a heading is kept (or when it is the
  target's); a line of numbers (a view count, a date) is no heading, and is not kept.

Pure functions of plain data; the sentences are identified by the caller's `identify`
(the workspace's model), called once per document and only when a paragraph needs it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from collie.langid.model import NO_ANSWER, UNDETERMINED
from collie.models import Segment

MAINLY = 0.5  # of a paragraph's identified letters in the target: a code-switched one kept
HEADING_WORDS = 12  # a heading is one line of at most this many words
SENTENCE_ENDS = ".!?…:;,"
_SENTENCE = re.compile(r"(?<=[.!?…])\s+|(?<=[.!?…][\"'”’»)\]])\s+")

NEAREST_MIN_LETTERS = 20  # shorter texts' nearest language is noise (langid.min_chars)

# texts -> (language code or `und`, the nearest language) of each: LangModel.identify_nearest
Identify = Callable[[list[str]], list[tuple[str, str]]]


def split_sentences(text: str) -> list[str]:
    """The sentences of a paragraph (after . ! ? or …, closing quotes and brackets
    included), empty ones left out."""
    return [s.strip() for s in _SENTENCE.split(" ".join(text.split())) if s.strip()]


def is_heading(text: str) -> bool:
    """Does a paragraph read as a heading: one line of at most HEADING_WORDS words, with
    a letter (a line of numbers, a view count or a date is none), that does not end a
    sentence?"""
    line = text.strip()
    return (
        letters(line) > 0
        and "\n" not in line
        and len(line.split()) <= HEADING_WORDS
        and (line[-1] not in SENTENCE_ENDS)
    )


def letters(text: str) -> int:
    return sum(ch.isalpha() for ch in text)


def target_shares(
    paragraphs: Sequence[tuple[str, str, float]], target: str, identify: Identify
) -> list[float]:
    """Each paragraph's share of letters in the target: 1 or 0 by its label, or, for a
    paragraph of several sentences labelled otherwise or an `und` one, by its sentences'
    languages (one call of `identify` for the whole document, none when no paragraph
    needs it)."""
    shares = [1.0 if lang == target else 0.0 for _, lang, _ in paragraphs]
    looks = {}
    for i, (text, lang, _) in enumerate(paragraphs):
        sentences = split_sentences(text)
        if lang != target and (len(sentences) > 1 or lang == UNDETERMINED):
            looks[i] = sentences
    if not looks:
        return shares
    found = iter(identify([s for sentences in looks.values() for s in sentences]))
    for i, sentences in looks.items():
        mine = known = 0
        for sentence in sentences:
            code, count = sentence_language(sentence, next(found), target), letters(sentence)
            if code not in NO_ANSWER:
                known += count
                mine += count if code == target else 0
        shares[i] = round(mine / known, 4) if known else 0.0
    return shares


def sentence_language(sentence: str, found: tuple[str, str], target: str) -> str:
    """A sentence's language: the model's, or the target when the model left it `und`
    with the target nearest and the sentence is long enough for that to mean something."""
    code, nearest = found
    if code == UNDETERMINED and nearest == target and letters(sentence) >= NEAREST_MIN_LETTERS:
        return target
    return code


def mark_segments(
    paragraphs: Sequence[tuple[str, str, float]], target: str, identify: Identify
) -> list[Segment]:
    """Every paragraph with its target share and whether a target-language export keeps
    it (mainly target, or a heading whose section is kept)."""
    shares = target_shares(paragraphs, target, identify)
    kept = [share >= MAINLY for share in shares]
    follows = False  # is the next paragraph that is not a heading kept?
    for i in reversed(range(len(paragraphs))):
        if is_heading(paragraphs[i][0]):
            kept[i] = kept[i] or follows
        else:
            follows = kept[i]
    return [
        Segment(text, lang, share, keep)
        for (text, lang, _), share, keep in zip(paragraphs, shares, kept, strict=True)
    ]
