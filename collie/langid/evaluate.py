"""Held-out snippets and the evaluation harness for language identifiers.

`heldout_snippets` cuts test snippets from the held-out UDHR articles 21-30 in three
length bands, the way the issue's target table measures identifiers:

- "50": at most 50 characters,
- "150": at most 150 characters,
- "400B": at most 400 bytes of UTF-8.

Per language and band it takes SNIPPETS_PER_BAND (10) snippets, so ~443 languages give
~13,300 snippets. The held-out paragraphs of a language are joined by spaces into one
stream (paragraphs under MIN_PARAGRAPH_CHARS characters, the "Article 21" headings, are
left out); the stream is split into units (whitespace-separated words; words longer than
LONG_WORD characters, as in scripts written without spaces, into single characters with
their combining marks). Each band's stream is divided into equal strata and one start
unit is drawn per stratum with a random generator seeded by (seed, code, band), so the
snippets are spread over the whole text and the same on every run and machine. From its
start a snippet takes whole units while the limit allows; when it reaches the end of the
stream it grows backwards instead, so only languages with less held-out text than the
limit get shorter snippets. Snippets of one language may overlap when its held-out text
is short.

`evaluate` runs any `identify_batch(texts) -> [(code, prob)]` over snippets (or the
lines of a `code<TAB>text` file) and reports accuracy overall, per band, per language,
the top confusions and the speed, batch and one text per call. "und" answers count as
wrong.
"""

from __future__ import annotations

import json
import random
import re
import time
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from collie.errors import InputError

IdentifyBatch = Callable[[Sequence[str]], Sequence[tuple[str, float]]]

SNIPPETS_PER_BAND = 10
MIN_PARAGRAPH_CHARS = 20
LONG_WORD = 30
DEFAULT_SEED = 21
UNDETERMINED = "und"
NO_LANGUAGE = "zxx"


@dataclass(frozen=True)
class Band:
    """A length band: texts of at most `limit` characters (or UTF-8 bytes)."""

    name: str
    limit: int
    unit: str  # "chars" or "bytes"

    def size(self, text: str) -> int:
        return len(text.encode("utf-8")) if self.unit == "bytes" else len(text)


BANDS = (Band("50", 50, "chars"), Band("150", 150, "chars"), Band("400B", 400, "bytes"))
LONG_BAND = "long"


@dataclass(frozen=True)
class Snippet:
    """One test text with its gold ISO 639-3 code and its length band."""

    code: str
    text: str
    band: str


def band_of(text: str) -> str:
    """The first band whose limit `text` fits, "long" beyond 400 bytes."""
    for band in BANDS:
        if band.size(text) <= band.limit:
            return band.name
    return LONG_BAND


def _units(stream: str) -> list[tuple[int, int]]:
    """(start, end) character spans of words; over-long words split into characters."""
    spans: list[tuple[int, int]] = []
    for match in re.finditer(r"\S+", stream):
        start, end = match.span()
        if end - start <= LONG_WORD:
            spans.append((start, end))
            continue
        piece = start
        for pos in range(start + 1, end):
            if not unicodedata.combining(stream[pos]) and unicodedata.category(stream[pos]) != "Mc":
                spans.append((piece, pos))
                piece = pos
        spans.append((piece, end))
    return spans


def _cut(stream: str, units: list[tuple[int, int]], first: int, band: Band) -> str:
    """The longest run of whole units from `first` (growing backwards at the end)."""
    last = first
    if band.size(stream[units[first][0] : units[first][1]]) > band.limit:
        text = stream[units[first][0] : units[first][1]]
        while band.size(text) > band.limit:
            text = text[:-1]
        return text
    while last + 1 < len(units) and band.size(stream[units[first][0] : units[last + 1][1]]) <= (
        band.limit
    ):
        last += 1
    if last + 1 == len(units):
        while first > 0 and band.size(stream[units[first - 1][0] : units[last][1]]) <= band.limit:
            first -= 1
    return stream[units[first][0] : units[last][1]]


def heldout_stream(paragraphs: Iterable[str]) -> str:
    """The held-out text of one language as one space-joined stream, headings left out."""
    kept = [p.strip() for p in paragraphs if p.strip()]
    long_enough = [p for p in kept if len(p) >= MIN_PARAGRAPH_CHARS]
    return " ".join(long_enough or kept)


def language_snippets(
    code: str, paragraphs: Iterable[str], seed: int = DEFAULT_SEED
) -> list[Snippet]:
    """SNIPPETS_PER_BAND snippets per band for one language (none without text)."""
    stream = heldout_stream(paragraphs)
    units = _units(stream)
    if not units:
        return []
    snippets: list[Snippet] = []
    for band in BANDS:
        rng = random.Random(f"{seed}:{code}:{band.name}")
        for stratum in range(SNIPPETS_PER_BAND):
            low = stratum * len(units) // SNIPPETS_PER_BAND
            high = max(low + 1, (stratum + 1) * len(units) // SNIPPETS_PER_BAND)
            text = _cut(stream, units, rng.randrange(low, min(high, len(units))), band).strip()
            if text:
                snippets.append(Snippet(code, text, band.name))
    return snippets


def heldout_snippets(heldout: dict[str, list[str]], seed: int = DEFAULT_SEED) -> list[Snippet]:
    """Test snippets of every language of `heldout` (code -> held-out paragraphs).

    Deterministic: the same input and seed give the same snippets, in code order.
    """
    snippets: list[Snippet] = []
    for code in sorted(heldout):
        snippets += language_snippets(code, heldout[code], seed)
    return snippets


def read_tsv(path: Path) -> list[Snippet]:
    """Lines `code<TAB>text` (blank lines skipped); the band follows the text's length."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(
            f"Cannot read {path}: {exc}", "Give a UTF-8 file of lines code<TAB>text."
        ) from exc
    snippets: list[Snippet] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        code, sep, text = line.partition("\t")
        if not sep or not code.strip() or not text.strip():
            raise InputError(
                f"{path}, line {number}: expected code<TAB>text, got {line[:60]!r}.",
                "Write one test text per line, its ISO 639-3 code first, then a tab.",
            )
        snippets.append(Snippet(code.strip(), text.strip(), band_of(text.strip())))
    return snippets


def write_tsv(snippets: Iterable[Snippet], path: Path) -> None:
    """Write snippets as `code<TAB>text` lines (what `read_tsv` and `langid eval` read)."""
    path.write_text("".join(f"{s.code}\t{s.text}\n" for s in snippets), encoding="utf-8")


@dataclass
class Score:
    """Correct answers out of `n`."""

    n: int = 0
    correct: int = 0

    @property
    def accuracy(self) -> float:
        return self.correct / self.n if self.n else 0.0


@dataclass
class Confusion:
    gold: str
    predicted: str
    count: int


@dataclass
class EvalReport:
    """Accuracy and speed of one identifier on one set of test texts."""

    method: str
    n: int
    correct: int
    undetermined: int
    bands: dict[str, Score]
    languages: dict[str, Score]
    confusions: list[Confusion]
    batch_seconds: float
    single_calls: int
    single_seconds: float
    predictions: list[str] = field(default_factory=list, repr=False)

    @property
    def accuracy(self) -> float:
        return self.correct / self.n if self.n else 0.0

    @property
    def per_second_batch(self) -> float:
        return self.n / self.batch_seconds if self.batch_seconds > 0 else 0.0

    @property
    def ms_per_doc_single(self) -> float:
        return 1000 * self.single_seconds / self.single_calls if self.single_calls else 0.0

    @property
    def per_second_single(self) -> float:
        return self.single_calls / self.single_seconds if self.single_seconds > 0 else 0.0

    def to_dict(self) -> dict[str, object]:
        def score(s: Score) -> dict[str, float]:
            return {"n": s.n, "correct": s.correct, "accuracy": round(s.accuracy, 6)}

        return {
            "method": self.method,
            "n": self.n,
            "correct": self.correct,
            "accuracy": round(self.accuracy, 6),
            "undetermined": self.undetermined,
            "bands": {name: score(s) for name, s in self.bands.items()},
            "languages": {code: score(s) for code, s in self.languages.items()},
            "confusions": [asdict(c) for c in self.confusions],
            "speed": {
                "batch_seconds": round(self.batch_seconds, 6),
                "batch_per_second": round(self.per_second_batch, 1),
                "single_calls": self.single_calls,
                "single_ms_per_doc": round(self.ms_per_doc_single, 4),
                "single_per_second": round(self.per_second_single, 1),
            },
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2)


def score_predictions(
    items: Sequence[Snippet], predicted: Sequence[str], top: int = 20
) -> tuple[dict[str, Score], dict[str, Score], list[Confusion]]:
    """Per band and per language scores, and the `top` most frequent confusions."""
    bands = {b.name: Score() for b in BANDS if any(s.band == b.name for s in items)}
    languages: dict[str, Score] = {}
    confusions: Counter[tuple[str, str]] = Counter()
    for item, guess in zip(items, predicted, strict=True):
        hit = guess == item.code
        for score in (
            bands.setdefault(item.band, Score()),
            languages.setdefault(item.code, Score()),
        ):
            score.n += 1
            score.correct += hit
        if not hit:
            confusions[item.code, guess] += 1
    ranked = sorted(confusions.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
    return bands, dict(sorted(languages.items())), [Confusion(g, p, n) for (g, p), n in ranked]


def _single_sample(items: Sequence[Snippet], calls: int) -> list[str]:
    """Every k-th text, `calls` of them, for the one-text-per-call timing."""
    if calls >= len(items):
        return [s.text for s in items]
    step = len(items) / calls
    return [items[int(i * step)].text for i in range(calls)]


def evaluate(
    identify_batch: IdentifyBatch,
    items: Sequence[Snippet],
    *,
    method: str = "",
    single_calls: int = 1000,
    top_confusions: int = 20,
) -> EvalReport:
    """Accuracy and speed of `identify_batch` on `items` (gold code, text, band).

    After one warm-up call, all texts go through one batch call (timed); then
    `single_calls` texts spread over the set (0 for none) go one per call, to time
    single-text latency.
    """
    texts = [s.text for s in items]
    if texts:
        identify_batch(texts[:1])  # warm up: lazily built tables are not the method's speed
    start = time.perf_counter()
    answers = identify_batch(texts)
    batch_seconds = time.perf_counter() - start
    predicted = [code for code, _ in answers]
    if len(predicted) != len(items):
        raise ValueError(f"identify_batch gave {len(predicted)} answers for {len(items)} texts")
    sample = _single_sample(items, single_calls) if single_calls > 0 else []
    start = time.perf_counter()
    for text in sample:
        identify_batch([text])
    single_seconds = time.perf_counter() - start
    bands, languages, confusions = score_predictions(items, predicted, top_confusions)
    return EvalReport(
        method=method,
        n=len(items),
        correct=sum(b.correct for b in bands.values()),
        undetermined=sum(p in (UNDETERMINED, NO_LANGUAGE) for p in predicted),  # no language named
        bands=bands,
        languages=languages,
        confusions=confusions,
        batch_seconds=batch_seconds,
        single_calls=len(sample),
        single_seconds=single_seconds,
        predictions=predicted,
    )


def format_report(report: EvalReport, languages: int | None = None) -> list[str]:
    """Text lines: overall, per band, per language (worst first), top confusions.

    `languages` limits the per-language lines to the worst ones (None: all).
    """
    lines = [
        f"method: {report.method or '-'}",
        f"accuracy: {100 * report.accuracy:.2f}% ({report.correct}/{report.n}, "
        f"{report.undetermined} und)",
        f"speed: {report.per_second_batch:,.0f} texts/s in one batch; "
        f"{report.ms_per_doc_single:.3f} ms per text one per call ({report.single_calls} calls)",
        "",
        "band      n  accuracy",
    ]
    for name, score in report.bands.items():
        lines.append(f"{name:<6}{score.n:>5}  {100 * score.accuracy:7.2f}%")
    ranked = sorted(report.languages.items(), key=lambda kv: (kv[1].accuracy, kv[0]))
    shown = ranked if languages is None else ranked[:languages]
    lines += ["", f"language      n  accuracy   ({len(shown)} of {len(ranked)}, worst first)"]
    lines += [f"{code:<10}{s.n:>5}  {100 * s.accuracy:7.2f}%" for code, s in shown]
    lines += ["", "gold      predicted  count"]
    lines += [f"{c.gold:<10}{c.predicted:<11}{c.count:>5}" for c in report.confusions]
    return lines
