"""Real text beyond the UDHR for building and measuring the language model (issue 40).

Two development sets of ../shared/data, read when present and never committed:

- NTREX-128 (langmodel/ntrex.py): news sentences, split by document. Its held-out
  documents give paragraphs of PARAGRAPH consecutive sentences of one document.
- OLDI Seed: 6,193 Wikipedia sentences in 39 varieties (CC BY-SA 4.0; SOURCES.md
  there), split by source article (the English Wikipedia URL of metadata.tsv.gz): an
  article is held out when the SHA-1 of its URL is 0 modulo HELD_OUT_EVERY, the same on
  every machine. The build trains on the other articles (`oldi_training_articles`,
  at most a cap of characters a language, a sentence per article in turn); the
  benchmarks score only the held-out ones.

Never imported at run time.
"""

from __future__ import annotations

import gzip
import hashlib
from collections.abc import Iterable
from pathlib import Path

from langmodel.ntrex import NTREX, class_for_code, documents, held_out, in_turn, variants

OLDI = Path(__file__).resolve().parents[2] / "shared" / "data" / "oldi-seed"
HELD_OUT_EVERY = 5
PARAGRAPH = 5  # sentences a test paragraph
FIRST_ARTICLE = 1000  # OLDI training "articles" (folds of the maxent layer): 1000 + article
# OLDI varieties that train nothing: English is the model's from the UDHR and the news.
OLDI_LEFT_OUT = {"eng"}


def oldi_present(root: Path = OLDI) -> bool:
    return (root / "metadata.tsv.gz").exists()


def ntrex_present(root: Path = NTREX) -> bool:
    return (root / "DOCUMENT_IDS.tsv").exists()


def oldi_held_out(url: str) -> bool:
    return int(hashlib.sha1(url.encode("utf-8")).hexdigest(), 16) % HELD_OUT_EVERY == 0


def oldi_articles(root: Path = OLDI) -> list[str]:
    """The source article (URL) of every line of the files, in order."""
    with gzip.open(root / "metadata.tsv.gz", "rt", encoding="utf-8") as file:
        rows = file.read().splitlines()
    return [row.split("\t")[0] for row in rows[1:]]


def oldi_variants(root: Path = OLDI) -> dict[str, list[str]]:
    """variant (`bho_Deva`) -> its sentences, line-aligned with `oldi_articles`."""
    found = {}
    for path in sorted(root.glob("*_*.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as file:
            found[path.name.removesuffix(".gz")] = file.read().splitlines()
    return found


def oldi_language(variant: str) -> str:
    return variant.split("_")[0]


def grouped(lines: Iterable[str], groups: Iterable[str]) -> dict[str, list[str]]:
    """group -> its non-empty lines, in order."""
    out: dict[str, list[str]] = {}
    for line, group in zip(lines, groups, strict=True):
        if line.strip():
            out.setdefault(group, []).append(line.strip())
    return out


def paragraphs_of(by_group: dict[str, list[str]], size: int = PARAGRAPH) -> list[str]:
    """Paragraphs of `size` consecutive sentences of one group (document or article);
    a group's last sentences make one more when there are at least half of `size`."""
    out = []
    for sentences in by_group.values():
        for start in range(0, len(sentences), size):
            part = sentences[start : start + size]
            if len(part) * 2 >= size:
                out.append(" ".join(part))
    return out


def oldi_heldout(root: Path = OLDI) -> dict[str, dict[str, list[str]]]:
    """variant -> held-out article -> its sentences."""
    articles = oldi_articles(root)
    test = [oldi_held_out(a) for a in articles]
    out = {}
    for variant, lines in oldi_variants(root).items():
        assert len(lines) == len(articles), variant
        kept = [(line, a) for line, a, t in zip(lines, articles, test, strict=True) if t]
        out[variant] = grouped((line for line, _ in kept), (a for _, a in kept))
    return out


def ntrex_heldout(root: Path = NTREX) -> dict[str, dict[str, list[str]]]:
    """variant -> held-out document -> its sentences."""
    docs = documents(root)
    out = {}
    for variant, lines in variants(root).items():
        kept = [(line, d) for line, d in zip(lines, docs, strict=True) if held_out(d)]
        out[variant] = grouped((line for line, _ in kept), (d for _, d in kept))
    return out


def oldi_training_articles(
    codes: Iterable[str], macro_of: dict[str, str], cap: int, root: Path = OLDI
) -> dict[str, list[tuple[int, str]]]:
    """class -> (FIRST_ARTICLE + article number, sentence) of the training articles, at
    most `cap` characters a class (a sentence per article in turn, so every training
    article is in; a language's scripts share the cap and its columns split them again,
    collie.langid.train.split_scripts). The class is the variant's language, or the one
    class of the model in its macrolanguage (langmodel.ntrex.class_for_code); varieties
    of OLDI_LEFT_OUT train nothing."""
    articles = oldi_articles(root)
    number = {a: i for i, a in enumerate(dict.fromkeys(articles))}
    texts = oldi_variants(root)
    by_class: dict[str, list[str]] = {}
    for variant in sorted(texts):
        language = oldi_language(variant)
        code = None if language in OLDI_LEFT_OUT else class_for_code(language, codes, macro_of)
        if code is not None:
            by_class.setdefault(code, []).append(variant)
    out: dict[str, list[tuple[int, str]]] = {}
    for code, names in sorted(by_class.items()):
        share = cap // len(names) if cap else 0
        taken: list[tuple[int, str]] = []
        for variant in names:
            by_article = {
                a: s for a, s in grouped(texts[variant], articles).items() if not oldi_held_out(a)
            }
            numbers = {a: FIRST_ARTICLE + number[a] for a in by_article}
            taken += in_turn(by_article, numbers, share)
        out[code] = taken
    return out


def ntrex_training_sentences(root: Path = NTREX) -> dict[str, list[str]]:
    """variant -> its sentences of the training documents, in order."""
    docs = documents(root)
    return {
        variant: [
            line for line, d in zip(lines, docs, strict=True) if line.strip() and not held_out(d)
        ]
        for variant, lines in variants(root).items()
    }


def oldi_training_sentences(root: Path = OLDI) -> dict[str, list[str]]:
    """variant -> its sentences of the training articles, in order."""
    articles = oldi_articles(root)
    return {
        variant: [
            line
            for line, a in zip(lines, articles, strict=True)
            if line.strip() and not oldi_held_out(a)
        ]
        for variant, lines in oldi_variants(root).items()
    }
