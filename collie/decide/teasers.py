"""Teasers: a paragraph that is a truncated copy of a paragraph of another document of
the same site (extract.teasers). A news site's home and section pages, its "related
articles" boxes and its tag pages repeat each article's opening ("the first 30 words
... Read more"); the corpus would hold those sentences twice, once cut off.

The idea is CCNet's and FineWeb's paragraph (line) deduplication across a corpus (hash
each normalised paragraph, drop those seen elsewhere), narrowed to what a teaser is:
a paragraph P of document A is a teaser when, after normalising (case, spaces) and
taking off a trailing ellipsis or "read more",

- it is a proper prefix of a paragraph Q of another document B of the same site (the
  cut may fall inside a word), and P has at least MIN_WORDS words (a heading such as
  "Habari" is the start of many paragraphs and is no copy of any); or
- it was marked as cut (an ellipsis at either end, "read more" at its end) and, with
  at least MARKED_WORDS words, is a prefix of, or contained in, Q, or a prefix of Q and
  the paragraphs after it in B joined (a teaser that runs over an article's first
  paragraphs: "P1 P2-cut ...").

Q is never a teaser of P in return (Q is longer), and Q is never marked as cut itself:
two listing pages sharing a teaser do not make each other's teasers. A paragraph equal to
another document's is not a teaser (the site's boilerplate and the corpus-wide repeats
deal with exact copies). Candidates are found through an index of every paragraph's
first KEY_WORDS words, so a site's documents are compared in time linear in their
paragraphs, whatever order they were fetched in: the result depends only on the set of
the site's documents (`find_teasers`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

MIN_WORDS = 8  # an unmarked prefix this long is a copy, not a heading
MARKED_WORDS = 4  # a paragraph ending (or starting) in an ellipsis
KEY_WORDS = 4  # the index key: a paragraph's first words

CUT_MARK = r"(?:\.\.\.|…|\[…\]|\[\.\.\.\]|\(…\)|\(\.\.\.\))"  # an ellipsis, bracketed or not
READ_MORE = (
    r"(?:read more|continue reading|read the full story|soma zaidi|endelea kusoma|"
    r"funda kabanzi|funda okwengeziwe|lire la suite)"
)
TRAILER = re.compile(rf"(?:\s*{CUT_MARK})?(?:\s*[-–—|»›>]*\s*{READ_MORE}\W*)?$", re.I)
CUT_AND_MORE = re.compile(rf"{CUT_MARK}\s*[-–—|»›>]*\s*{READ_MORE}\W*$", re.I)  # both
LEADING_MARK = re.compile(r"^\s*(?:\.\.\.|…|\[…\]|\[\.\.\.\])\s*")


def normal(text: str) -> str:
    """Lower-case, spaces collapsed."""
    return " ".join(text.lower().split())


def cut_form(text: str) -> tuple[str, bool]:
    """A paragraph as it is compared: normalised, a trailing ellipsis and "read more"
    (and a leading ellipsis) taken off; and whether it was marked as cut."""
    norm = normal(text)
    body = TRAILER.sub("", norm).rstrip()
    marked = body != norm  # an ellipsis or "read more" at its end
    if LEADING_MARK.match(body):
        body, marked = LEADING_MARK.sub("", body), True
    return body, marked


Document = tuple[int, Sequence[str]]  # (id, its paragraphs' texts)


def find_teasers(documents: Iterable[Document]) -> dict[int, set[int]]:
    """The teaser paragraphs of one site's documents: {document id: {paragraph index}}
    (see the module docstring); documents without one are left out."""
    docs = list(documents)
    full: list[tuple[int, str]] = []  # (document id, normalised paragraph), not cut
    index: dict[tuple[str, ...], list[int]] = {}
    runs: Index = ([], {})  # a paragraph and the next ones, joined: for marked teasers
    for doc_id, paragraphs in docs:
        forms = [cut_form(text) for text in paragraphs]
        for i, (norm, marked) in enumerate(forms):
            words = tuple(norm.split()[:KEY_WORDS])
            if len(words) < KEY_WORDS or marked:
                continue
            index.setdefault(words, []).append(len(full))
            full.append((doc_id, norm))
            joined = " ".join(n for n, cut in forms[i : i + RUN] if not cut)
            runs[1].setdefault(words, []).append(len(runs[0]))
            runs[0].append((doc_id, joined))
    found: dict[int, set[int]] = {}
    for doc_id, paragraphs in docs:
        for i, text in enumerate(paragraphs):
            if _is_teaser(doc_id, text, (full, index), runs):
                found.setdefault(doc_id, set()).add(i)
    return found


Index = tuple[list[tuple[int, str]], dict[tuple[str, ...], list[int]]]
RUN = 3  # a teaser may run over an article's first paragraphs: "P1 P2-cut …"


def _is_teaser(doc_id: int, text: str, single: Index, runs: Index) -> bool:
    body, marked = cut_form(text)
    words = body.split()
    if len(words) < (MARKED_WORDS if marked else MIN_WORDS):
        return False
    if marked and LEADING_MARK.match(normal(text)):
        return any(other != doc_id and body in q and body != q for other, q in single[0])
    key = tuple(words[:KEY_WORDS])
    for n in single[1].get(key, ()):
        other, q = single[0][n]
        if other != doc_id and q.startswith(body) and (marked or len(q) > len(body)):
            return True
    if not marked:  # only a paragraph marked as cut may run over several of another's
        return False
    return any(
        runs[0][n][0] != doc_id and runs[0][n][1].startswith(body) for n in runs[1].get(key, ())
    )
