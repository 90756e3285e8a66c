"""Language resolution (codes, names, macrolanguages, ambiguity) and the language table."""

from __future__ import annotations

import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from collie.errors import LanguageNotFound
from collie.languages import all_languages, get_language, resolve_language

from .clihelp import run_collie

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    "query",
    ["luo", "LUO", "Luo", "Dholuo", "dholuo", " DHOLUO ", "Luo (Kenya and Tanzania)"],
)
def test_luo_by_code_name_and_autonym(query: str) -> None:
    resolution = resolve_language(query)
    assert resolution.language.code == "luo"
    assert resolution.note is None


@pytest.mark.parametrize(
    ("query", "code"),
    [
        ("zu", "zul"),  # ISO 639-1
        ("isiZulu", "zul"),  # CLDR autonym
        ("fre", "fra"),  # ISO 639-2/B
        ("Français", "fra"),
        ("francais", "fra"),  # accents folded
        ("English", "eng"),
        ("swa", "swa"),  # a 639-3 macrolanguage code is taken as given
        ("swh", "swh"),
        ("Alur", "alz"),
    ],
)
def test_codes_and_names(query: str, code: str) -> None:
    assert resolve_language(query).language.code == code


@pytest.mark.parametrize(
    ("query", "macro", "member"),
    [
        ("sw", "swa", "swh"),
        ("Swahili", "swa", "swh"),
        ("zh", "zho", "cmn"),
        ("sw-KE", "swa", "swh"),
    ],
)
def test_macrolanguage_principal_member_is_said(query: str, macro: str, member: str) -> None:
    resolution = resolve_language(query)
    assert resolution.language.code == member
    assert resolution.note is not None
    assert macro in resolution.note and member in resolution.note


def test_macrolanguage_without_principal_stays() -> None:
    resolution = resolve_language("no")
    assert resolution.language.code == "nor"
    assert resolution.language.is_macrolanguage


def test_ambiguous_name_lists_candidates() -> None:
    with pytest.raises(LanguageNotFound) as info:
        resolve_language("Lango")
    assert set(info.value.suggestions) == {"laj", "lgo"}
    assert "laj" in str(info.value) and "lgo" in str(info.value)


@pytest.mark.parametrize("query", ["xx-nonsense", "qqqq", "Klingonese"])
def test_unknown_input_suggests_closest(query: str) -> None:
    with pytest.raises(LanguageNotFound) as info:
        resolve_language(query)
    assert info.value.suggestions, "always offer the closest matches"
    assert "Unknown language" in str(info.value)


def test_misspelling_suggests_the_right_language_first() -> None:
    with pytest.raises(LanguageNotFound) as info:
        resolve_language("Dholuoo")
    assert info.value.suggestions[0] == "luo"


def test_retired_code_points_to_replacement() -> None:
    with pytest.raises(LanguageNotFound) as info:
        resolve_language("tkk")
    assert "retired" in str(info.value) and "twm" in str(info.value)


def test_luo_is_spoken_in_kenya_under_ke() -> None:
    luo = get_language("luo")
    assert "KE" in luo.countries
    assert ".ke" in luo.domains()
    assert "Dholuo" in luo.autonyms


def test_domain_exceptions() -> None:
    assert ".uk" in get_language("eng").domains()
    assert ".gb" not in get_language("eng").domains()


def test_every_active_language_has_a_name() -> None:
    table = all_languages()
    individual = [lang for lang in table.values() if lang.active and lang.scope == "I"]
    assert len(individual) > 7800
    assert all(lang.name for lang in individual)


def test_macrolanguage_membership() -> None:
    assert get_language("swh").macrolanguage == "swa"
    assert get_language("swa").principal == "swh"


def test_table_is_reproducible_from_its_sources(tmp_path: Path) -> None:
    """ethnologue/build.py rebuilds the installed tables byte for byte."""
    subprocess.run(
        [sys.executable, str(REPO / "ethnologue" / "build.py"), "--out-dir", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    for name in ("languages.tsv", "countries.tsv"):
        shipped = resources.files("collie").joinpath("data").joinpath(name).read_bytes()
        assert (tmp_path / name).read_bytes() == shipped, f"{name} differs from a fresh build"


def test_table_header_records_sources() -> None:
    text = resources.files("collie").joinpath("data").joinpath("languages.tsv").read_text()
    header = [line for line in text.splitlines()[:10] if line.startswith("#")]
    assert any("python-iso639" in line for line in header)
    assert any("babel" in line and "CLDR" in line for line in header)


@pytest.mark.parametrize(
    ("query", "code"),
    [
        ("Acholi", "ach"),  # CLDR (other locales) and the hand-kept list; ISO says Acoli
        ("acholi", "ach"),
        ("Kenya Luo", "luo"),  # hand-kept (ethnologue/alt_names.tsv)
        ("Kijaluo", "luo"),  # CLDR, Swahili locale
        ("Dholuo", "luo"),
        ("isiZulu", "zul"),
        ("Kizulu", "zul"),  # CLDR, Swahili locale
        ("Kiswahili", "swh"),
        ("Suaheli", "swh"),  # CLDR, German locale: the macrolanguage, so its principal member
    ],
)
def test_alternate_names_resolve(query: str, code: str) -> None:
    assert resolve_language(query).language.code == code


def test_alternate_names_are_kept_apart_from_the_shown_names() -> None:
    acoli = get_language("ach")
    assert "Acholi" in acoli.alt_names
    assert "Acholi" not in acoli.other_names  # crawl's URL needles and `also called` unchanged


@pytest.mark.parametrize(("query", "code"), [("Dhuolo", "luo"), ("Acholli", "ach")])
def test_near_misses_rank_by_edit_distance_over_all_names(query: str, code: str) -> None:
    with pytest.raises(LanguageNotFound) as info:
        resolve_language(query)
    assert info.value.suggestions[0] == code


def test_cli_language_by_alternate_name(capsys) -> None:
    result = run_collie(capsys, "language", "Acholi")
    assert result.code == 0, result.err
    assert result.out.startswith("code           ach")
    assert "UG Uganda" in result.out


def test_cli_language_near_miss_suggests_dholuo_first(capsys) -> None:
    result = run_collie(capsys, "language", "Dhuolo")
    assert result.code == 2
    lines = result.err.splitlines()
    assert lines[0] == "collie: error: Unknown language 'Dhuolo'. Closest matches:"
    assert lines[1].split()[0] == "luo" and "Dholuo" in lines[1]


def test_cli_init_with_an_alternate_name(capsys, tmp_path: Path) -> None:
    doc = tmp_path / "doc.txt"
    doc.write_text("Dano ducu ki nywalo gi agonya.\n", encoding="utf-8")
    root = tmp_path / "ws"
    args = ["init", "-w", str(root), "--lang", "Acholi", "--docs", str(doc), "--force"]
    result = run_collie(capsys, *args)  # --force: a six-word seed document
    assert result.code == 0, result.err
    assert 'code = "ach"' in (root / "collie.toml").read_text(encoding="utf-8")
