"""Real text of more registers for building and measuring the language model (issue 53).

Two development sets of ../shared/data, read when present and never committed:

- lid-registers: conversational sentences (Tatoeba, CC BY 2.0 FR), children's story pages
  (African Storybook, CC BY) and treebank sentences (Universal Dependencies, CC BY-SA and
  others: its TREEBANKS.tsv), 218 varieties, split by document by its maker into
  `SOURCE/CODE.train.txt` and `SOURCE/CODE.test.txt` (SOURCES.md there). The build reads
  the train files only; the benchmarks score only the test files.
- news-text: news sentences of seven African languages (MasakhaNER 2.0, one sentence a
  line in the files' order, articles not marked). It has no split of its own: the lines
  are cut into blocks of NEWS_BLOCK consecutive sentences (about an article's length), and
  a block is held out when the SHA-1 of "LANGUAGE:BLOCK" is 0 modulo HELD_OUT_EVERY, the
  same on every machine.

Never imported at run time.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
REGISTERS = DATA / "lid-registers"
NEWS_TEXT = DATA / "news-text"
SOURCES = ("tatoeba", "asp", "ud")  # lid-registers' folders
# The register of each source (a model column's label: `zul/story`).
REGISTER_OF = {"tatoeba": "conv", "asp": "story", "ud": "tree", "news-text": "news2"}
HELD_OUT_EVERY = 5
NEWS_BLOCK = 20  # news-text sentences a block (the unit of its split)
LINES_AN_ARTICLE = 20  # lines of a train file that make one "article" of the maxent folds
# Labels that are not languages of the model: a group code, a retired code, constructed
# and historical languages (kept by Tatoeba) that a web corpus of today never needs.
LEFT_OUT = {"ber", "kzj", "lfn", "tzl", "nov", "ile", "ido", "ina", "orv", "ang"}


def registers_present(root: Path = REGISTERS) -> bool:
    return (root / "languages.tsv").exists()


def news_text_present(root: Path = NEWS_TEXT) -> bool:
    return any(root.glob("*.txt"))


def code_of(label: str) -> str:
    """A file's code without its script suffix (`srp_Latn` -> srp)."""
    return label.split("_", 1)[0]


def _read(path: Path) -> list[str]:
    return [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def register_files(split: str, root: Path = REGISTERS) -> dict[tuple[str, str], list[str]]:
    """(source, label) -> the items of its `split` file ("train" or "test")."""
    out: dict[tuple[str, str], list[str]] = {}
    for source in SOURCES:
        for path in sorted((root / source).glob(f"*.{split}.txt")):
            label = path.name.split(".", 1)[0]
            if code_of(label) not in LEFT_OUT:
                out[(source, label)] = _read(path)
    return out


def news_held_out(language: str, block: int) -> bool:
    key = f"{language}:{block}".encode()
    return int(hashlib.sha1(key).hexdigest(), 16) % HELD_OUT_EVERY == 0


def news_text_split(root: Path = NEWS_TEXT) -> dict[str, tuple[list[str], list[str]]]:
    """language -> (training sentences, held-out sentences)."""
    out = {}
    for path in sorted(root.glob("*.txt")):
        lines = _read(path)
        train, test = [], []
        for i, line in enumerate(lines):
            (test if news_held_out(path.stem, i // NEWS_BLOCK) else train).append(line)
        out[path.stem] = (train, test)
    return out


def training_articles(
    first_article: int, cap_of: dict[str, int] | None = None, cap: int = 0
) -> dict[tuple[str, str], list[tuple[int, str]]]:
    """(register, code) -> (article number, item) of every training file of
    lid-registers and news-text, at most `cap` characters (or `cap_of[register]`) a
    column, taken evenly over the file (every k-th line) so that a capped column still
    covers the whole file. Article numbers: `first_article` + position // LINES_AN_ARTICLE
    (consecutive lines are one document's in these files)."""
    found: dict[tuple[str, str], list[str]] = {}
    if registers_present():
        for (source, label), items in register_files("train").items():
            key = (REGISTER_OF[source], code_of(label))
            found[key] = [*found.get(key, []), *items]
    if news_text_present():
        for language, (train, _) in news_text_split().items():
            found[(REGISTER_OF["news-text"], language)] = train
    out = {}
    for key, items in sorted(found.items()):
        limit = (cap_of or {}).get(key[0], cap)
        out[key] = [(first_article + i // LINES_AN_ARTICLE, s) for i, s in spread(items, limit)]
    return out


def spread(items: list[str], cap: int) -> list[tuple[int, str]]:
    """(position, item) of items taken evenly over the list up to `cap` characters (0:
    all), in their order."""
    total = sum(map(len, items))
    if not cap or total <= cap:
        return list(enumerate(items))
    step = total / cap
    taken, size, next_at = [], 0, 0.0
    for i, item in enumerate(items):
        if i >= next_at:
            taken.append((i, item))
            size += len(item)
            next_at = i + step
            if size >= cap:
                break
    return taken


def heldout_sets(letters_min: int = 0) -> dict[str, dict[str, list[str]]]:
    """Test set name -> label -> held-out items: lid-registers' test files (by source)
    and news-text's held-out blocks. Empty when the data is not there."""
    sets: dict[str, dict[str, list[str]]] = {}
    if registers_present():
        for (source, label), items in register_files("test").items():
            sets.setdefault(source, {})[label] = items
    if news_text_present():
        sets["news-text"] = {lang: test for lang, (_, test) in news_text_split().items()}
    return sets
