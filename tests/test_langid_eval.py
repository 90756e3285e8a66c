"""Evaluation of language identifiers: held-out snippet bands, the harness, the
comparison methods (TextCat, NFC, Kneser-Ney) and `collie langid eval`."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest

from collie.errors import InputError
from collie.langid import compare
from collie.langid.corpus import udhr_heldout_texts, udhr_training_texts
from collie.langid.evaluate import (
    BANDS,
    SNIPPETS_PER_BAND,
    Snippet,
    band_of,
    evaluate,
    format_report,
    heldout_snippets,
    heldout_stream,
    read_tsv,
    write_tsv,
)

from .clihelp import run_collie

# Hand-written texts (not UDHR), three languages, for the small tests.
TRAINING = {
    "eng": [
        "The children walked to the village school every morning with their friends.",
        "When the rain stopped, the farmers went back to the fields and planted maize.",
        "She told her brother that the market would be open on the other side of the river.",
        "They were thinking about the long journey and the weather of the coming weeks.",
    ],
    "swh": [
        "Watoto walitembea kwenda shuleni kijijini kila asubuhi pamoja na marafiki zao.",
        "Mvua ilipokoma, wakulima walirudi mashambani na kupanda mahindi mengi sana.",
        "Alimwambia kaka yake kwamba soko litakuwa wazi upande wa pili wa mto huu.",
        "Walikuwa wakifikiria kuhusu safari ndefu na hali ya hewa ya wiki zijazo.",
    ],
    "deu": [
        "Die Kinder gingen jeden Morgen mit ihren Freunden zur Schule im Dorf.",
        "Als der Regen aufhörte, gingen die Bauern zurück auf die Felder und pflanzten Mais.",
        "Sie sagte ihrem Bruder, dass der Markt auf der anderen Seite des Flusses offen sei.",
        "Sie dachten an die lange Reise und an das Wetter der kommenden Wochen.",
    ],
}
TESTS = [
    ("eng", "the farmers told their friends about the weather"),
    ("swh", "wakulima waliwaambia marafiki zao kuhusu hali ya hewa"),
    ("deu", "die Bauern sagten ihren Freunden, dass das Wetter schön sei"),
]


def long_text(word: str, count: int) -> list[str]:
    return [" ".join(f"{word}{i}" for i in range(j, j + 12)) for j in range(0, count, 12)]


@pytest.fixture
def heldout() -> dict[str, list[str]]:
    return {
        "aaa": ["Article 21", *long_text("kala", 600)],
        "bbb": ["第二十一条", "人人有直接或通过自由选择的代表参与治理本国的权利。" * 20],
        "ccc": ["only a short text here, well over twenty characters"],
        "ddd": [],
    }


def test_bands_respect_their_limits_and_snippets_are_deterministic(
    heldout: dict[str, list[str]],
) -> None:
    snippets = heldout_snippets(heldout)
    assert snippets == heldout_snippets(heldout)
    assert snippets != heldout_snippets(heldout, seed=7)
    counts = Counter((s.code, s.band) for s in snippets)
    assert set(counts.values()) == {SNIPPETS_PER_BAND}
    assert {code for code, _ in counts} == {"aaa", "bbb", "ccc"}  # ddd has no text
    limits = {band.name: band for band in BANDS}
    for s in snippets:
        band = limits[s.band]
        assert 0 < band.size(s.text) <= band.limit
        assert s.text in heldout_stream(heldout[s.code])
        assert "Article 21" not in s.text and "第二十一条" not in s.text  # headings left out
    aaa = [s for s in snippets if s.code == "aaa"]
    # cut at word boundaries, and filled close to the limit
    stream_words = set(heldout_stream(heldout["aaa"]).split())
    assert all(set(s.text.split()) <= stream_words for s in aaa)
    assert all(limits[s.band].size(s.text) > limits[s.band].limit - 12 for s in aaa)
    assert len({s.text for s in aaa if s.band == "150"}) == SNIPPETS_PER_BAND  # spread out
    # a script without spaces is cut by characters, to the limit
    assert all(len(s.text) == 50 for s in snippets if s.code == "bbb" and s.band == "50")
    assert all(len(s.text.encode()) > 396 for s in snippets if s.code == "bbb" and s.band == "400B")


def test_heldout_snippets_never_contain_training_paragraphs() -> None:
    training, heldout = udhr_training_texts(), udhr_heldout_texts()
    snippets = heldout_snippets(heldout)
    assert len(heldout) >= 440 and 13_000 <= len(snippets) <= 13_500
    by_code: dict[str, list[str]] = {}
    for s in snippets:
        by_code.setdefault(s.code, []).append(s.text)
    for code, texts in by_code.items():
        stream = heldout_stream(heldout[code])
        assert all(text in stream for text in texts)
        # text may repeat across the split (nhn's articles 28 and 30 quote its title,
        # piu repeats whole sentences): only paragraphs absent from articles 21-30 count
        only_training = [p for p in training[code] if len(p) >= 40 and p not in stream]
        assert not [p for p in only_training for text in texts if p in text], code


def test_harness_counts_accuracy_bands_languages_and_confusions() -> None:
    items = [
        Snippet("eng", "a", "50"),
        Snippet("eng", "b", "50"),
        Snippet("eng", "c", "150"),
        Snippet("swh", "d", "150"),
        Snippet("swh", "e", "400B"),
        Snippet("swh", "f", "400B"),
    ]
    answers = {"a": "eng", "b": "deu", "c": "und", "d": "swh", "e": "eng", "f": "eng"}

    def identify_batch(texts: Sequence[str]) -> list[tuple[str, float]]:
        return [(answers[t], 0.9) for t in texts]

    report = evaluate(identify_batch, items, method="fake")
    assert (report.n, report.correct, report.undetermined) == (6, 2, 1)
    assert report.accuracy == pytest.approx(2 / 6)
    assert {k: (v.n, v.correct) for k, v in report.bands.items()} == {
        "50": (2, 1),
        "150": (2, 1),
        "400B": (2, 0),
    }
    assert {k: (v.n, v.correct) for k, v in report.languages.items()} == {
        "eng": (3, 1),
        "swh": (3, 1),
    }
    assert [(c.gold, c.predicted, c.count) for c in report.confusions] == [
        ("swh", "eng", 2),
        ("eng", "deu", 1),
        ("eng", "und", 1),
    ]
    assert report.single_calls == 6 and report.batch_seconds > 0
    data = json.loads(report.to_json())
    assert data["accuracy"] == pytest.approx(0.333333)
    assert data["bands"]["400B"] == {"n": 2, "correct": 0, "accuracy": 0.0}
    assert data["confusions"][0] == {"gold": "swh", "predicted": "eng", "count": 2}
    lines = format_report(report)
    assert "accuracy: 33.33% (2/6, 1 und)" in lines
    assert "400B      2     0.00%" in lines
    assert "swh       eng            2" in lines


def test_tsv_files_are_read_with_bands_by_length(tmp_path: Path) -> None:
    path = tmp_path / "test.tsv"
    write_tsv([Snippet("eng", "short text", "50"), Snippet("deu", "x" * 120, "150")], path)
    with path.open("a", encoding="utf-8") as out:
        out.write("\nrus\t" + "я" * 190 + "\nfra\t" + "mot " * 120 + "\n")
    items = read_tsv(path)
    assert [(s.code, s.band) for s in items] == [
        ("eng", "50"),
        ("deu", "150"),
        ("rus", "400B"),  # 190 characters, 380 bytes
        ("fra", "long"),
    ]
    assert band_of("é" * 201) == "long"  # 402 bytes
    path.write_text("eng\tfine\nno tab on this line\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 2"):
        read_tsv(path)


@pytest.mark.parametrize("method", ["textcat", "nfc", "kn"])
def test_comparison_methods_tell_three_languages_apart(method: str) -> None:
    identifier = compare.train_comparison(method, TRAINING)
    answers = identifier.identify_batch([text for _, text in TESTS])
    assert [code for code, _ in answers] == [code for code, _ in TESTS]
    assert identifier.identify_batch(["1234 5678"])[0][0] == "und"
    assert identifier.identify_batch([]) == []


def test_textcat_profiles_are_ranked_ngrams_of_orders_1_to_5() -> None:
    counts = compare.char_ngrams("Abba", range(1, 6))
    assert counts["b"] == 2 and counts["_ab"] == 1 and counts["abba_"] == 1 and "_" not in counts
    assert compare.top_ranked(counts, 3) == ["a", "b", "_a"]
    assert compare.words_of("Ng'ato 42 ka\u0301-ng'ato") == ["ng", "ato", "ká", "ng", "ato"]


def test_eval_command_prints_text_and_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The report's format (the figures themselves belong to benchmarks/bench_langid.py)."""
    path = tmp_path / "test.tsv"
    lines = [
        "zul\tAbantu abaningi bahamba baya emakethe ngoba bafuna ukuthenga ukudla",
        "swh\tWakulima walirudi kijijini baada ya mvua kukoma jana jioni",
        "eng\tThe farmers walked back to the village after the rain had stopped",
        "eng\t12",
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = run_collie(capsys, "langid", "eval", str(path))
    assert result.code == 0, result.err
    out = result.out.splitlines()
    assert out[0] == "method: maxent"
    assert re.fullmatch(r"accuracy: \d+\.\d\d% \([0-3]/4, [1-4] und\)", out[1])  # "12": zxx
    assert re.fullmatch(r"speed: [\d,]+ texts/s in one batch; [\d.]+ ms per text .*", out[2])
    assert re.fullmatch(r"50        1 +\d+\.\d\d%", out[5]) and out[6].startswith("150       3 ")
    assert "language      n  accuracy   (3 of 3, worst first)" in out
    assert any(re.fullmatch(r"zul           1 +\d+\.\d\d%", line) for line in out)
    confusions = out[out.index("gold      predicted  count") + 1 :]
    assert "eng       zxx            1" in confusions
    result = run_collie(capsys, "langid", "eval", str(path), "--json", "--worst", "1")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["method"] == "maxent" and data["n"] == 4 and data["undetermined"] >= 1
    assert set(data["languages"]) == {"zul", "swh", "eng"}
    assert data["bands"]["50"]["n"] == 1 and data["speed"]["single_calls"] == 4
    result = run_collie(capsys, "langid", "eval")
    assert result.code == 2 and "--heldout" in result.err
