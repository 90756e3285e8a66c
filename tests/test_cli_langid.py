"""`collie langid identify|languages|train`: output formats, models, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from collie.langid import corpus, load_model, read_model
from collie.langid.learn import LearnedLanguage, fit_language
from collie.workspace.create import learned_lines, neighbour_lines

from .clihelp import run_collie

SWAHILI = "Kila mtu ana haki ya kupumzika na kupata burudani, pamoja na kupunguziwa saa za kazi"
FRENCH = "Toute personne a droit au repos et aux loisirs et notamment à une limitation raisonnable"


@pytest.fixture
def lines(tmp_path: Path) -> Path:
    path = tmp_path / "lines.txt"
    path.write_text(f"{SWAHILI}\n12345\n{FRENCH}\n", encoding="utf-8")
    return path


def test_identify_prints_one_code_per_line(capsys, lines: Path) -> None:
    result = run_collie(capsys, "langid", "identify", str(lines))
    assert result.code == 0, result.err
    assert result.out.splitlines() == ["swh", "zxx", "fra"]  # 12345: no linguistic content


def test_identify_with_probabilities_and_top(capsys, lines: Path) -> None:
    result = run_collie(capsys, "langid", "identify", str(lines), "--probs")
    code, prob = result.out.splitlines()[0].split("\t")
    assert code == "swh" and 0.5 <= float(prob) <= 1
    result = run_collie(capsys, "langid", "identify", str(lines), "--top", "3", "--probs")
    first = result.out.splitlines()[0].split("\t")
    assert len(first) == 3 and first[0].startswith("swh ")


def test_identify_json(capsys, lines: Path) -> None:
    result = run_collie(capsys, "langid", "identify", str(lines), "--json", "--top", "2")
    data = json.loads(result.out)
    assert [item["lang"] for item in data] == ["swh", "zxx", "fra"]  # 12345: no linguistic content
    assert len(data[0]["top"]) == 2 and data[0]["top"][0]["lang"] == "swh"


def test_identify_paragraphs_summarises_the_document(capsys, tmp_path: Path) -> None:
    path = tmp_path / "doc.txt"
    path.write_text(f"{SWAHILI}\n\n{SWAHILI.upper()}\n\n{FRENCH}\n", encoding="utf-8")
    result = run_collie(capsys, "langid", "identify", str(path), "--paragraphs")
    assert result.out.splitlines() == ["swh", "swh", "fra"]
    assert "shares: swh" in result.err
    result = run_collie(capsys, "langid", "identify", str(path), "--paragraphs", "--json")
    data = json.loads(result.out)
    assert list(data["shares"]) == ["swh", "fra"] and len(data["paragraphs"]) == 3


def test_languages_lists_codes_names_and_sizes(capsys) -> None:
    result = run_collie(capsys, "langid", "languages")
    rows = [line.split("\t") for line in result.out.splitlines()]
    assert len(rows) >= 440
    assert rows[[r[0] for r in rows].index("zul")][:2] == ["zul", "Zulu"]
    data = json.loads(run_collie(capsys, "langid", "languages", "--json").out)
    assert {"code", "name", "training_chars"} <= data[0].keys()


@pytest.mark.slow
def test_train_writes_a_model_that_identify_uses(capsys, tmp_path: Path) -> None:
    training = corpus.udhr_training_texts()
    docs = tmp_path / "zul.txt"
    docs.write_text("\n\n".join(training["zul"]), encoding="utf-8")
    other = tmp_path / "nbl.txt"
    other.write_text("\n\n".join(training["nbl"]), encoding="utf-8")
    out = tmp_path / "model.npz"
    result = run_collie(
        capsys, "langid", "train", "--lang", "zul", str(docs), "--wronglang", str(other),
        "--out", str(out), "--json",
    )  # fmt: skip
    assert result.code == 0, result.err
    report = json.loads(result.out)
    assert report["lang"] == "zul" and report["heldout_paragraphs"] > 0 and report["recall"] > 0.5
    listed = run_collie(capsys, "langid", "languages", "--model", str(out)).out
    assert "\nmis\t(not the target)\t" in listed
    text = tmp_path / "t.txt"
    text.write_text("Abantu bonke bazalwa bekhululekile futhi balingana ngesithunzi\n")
    result = run_collie(capsys, "langid", "identify", str(text), "--model", str(out))
    assert result.out.strip() == "zul"


def test_train_outside_a_workspace_needs_out(capsys, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("COLLIE_WORKSPACE", raising=False)
    docs = tmp_path / "d.txt"
    docs.write_text("some words here\n")
    result = run_collie(capsys, "langid", "train", "--lang", "zul", str(docs))
    assert result.code == 2 and "--out" in result.err


def test_a_missing_model_file_is_an_error(capsys, lines: Path, tmp_path: Path) -> None:
    result = run_collie(capsys, "langid", "identify", str(lines), "--model", str(tmp_path / "x"))
    assert result.code == 1 and "not a collie language model" in result.err


def test_init_trains_a_workspace_model_for_an_unknown_language(
    capsys, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.delenv("COLLIE_WORKSPACE", raising=False)
    training = corpus.udhr_training_texts()
    docs = tmp_path / "docs.txt"
    docs.write_text("\n\n".join(training["zul"] * 2), encoding="utf-8")  # zul as "unknown"
    root = tmp_path / "ws"
    result = run_collie(capsys, "init", "-w", str(root), "--lang", "luo", "--docs", str(docs))
    assert result.code == 0, result.err
    assert (root / "models" / "langid.npz").is_file()
    assert "trained models/langid.npz: luo" in result.err
    monkeypatch.chdir(root)
    text = tmp_path / "t.txt"
    text.write_text("Abantu bonke bazalwa bekhululekile futhi balingana ngesithunzi\n")
    top = run_collie(capsys, "langid", "identify", str(text), "--top", "2").out.split()
    assert sorted(top) == ["luo", "zul"]  # the same text under two labels: both top
    listed = run_collie(capsys, "langid", "languages").out
    assert "\nluo\t" in listed


def test_init_fits_a_known_language_to_the_documents(capsys, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("COLLIE_WORKSPACE", raising=False)
    training = corpus.udhr_training_texts()
    docs = tmp_path / "docs.txt"
    docs.write_text("\n\n".join(training["sot"]), encoding="utf-8")
    root = tmp_path / "ws"
    result = run_collie(capsys, "init", "-w", str(root), "--lang", "sot", "--docs", str(docs))
    assert result.code == 0, result.err
    assert "sot fitted to your documents; recall on your held-back documents" in result.err
    model = read_model(root / "models" / "langid.npz")
    assert "sot/user" in model.columns and model.meta["registers"]["sot/user"] == "user"
    assert {"sot", "nso/news"} & set(model.columns) == {"sot"}  # the class kept, not replaced
    heldout = corpus.udhr_heldout_texts()
    neighbour = [p for p in heldout["nso"] if len(p) >= 100]
    assert sum(code == "sot" for code, _ in model.identify_batch(neighbour)) == 0


def test_init_warns_when_a_neighbour_takes_the_held_back_documents() -> None:
    learned = LearnedLanguage(load_model(), "sot", 0.7, 20, [("nso", 4), ("und", 2)], fitted=True)
    lines = learned_lines(learned)
    assert lines[0].endswith("recall on your held-back documents 70.0% (20 paragraphs)")
    assert len(lines) == 2 and "4 of your 20 held-back paragraphs were taken for nso" in lines[1]


def test_init_says_when_too_few_paragraphs_were_held_back() -> None:
    learned = LearnedLanguage(load_model(), "sot", float("nan"), 0, [], fitted=True)
    assert learned_lines(learned) == [
        "trained models/langid.npz: sot fitted to your documents; too few paragraphs to hold "
        "some back and measure recall"
    ]


def test_a_fitted_target_names_its_known_neighbours_and_measures_their_documents() -> None:
    # Issue 59: init names the known languages close to the fitted target (stored in the
    # model for the run's known-neighbour pass) and, given documents in one, measures
    # how much of them the fitted target takes.
    training = corpus.udhr_training_texts()
    learned = fit_language(
        load_model(), "sot", ["\n\n".join(training["sot"])], {"nso": ["\n\n".join(training["nso"])]}
    )
    assert "nso" in learned.near and learned.near == learned.model.meta["neighbours"]["sot"]
    assert all(0.0 <= share <= 1.0 for share in learned.near.values())
    assert set(learned.taken) == {"nso"}  # measured on the nso documents
    assert learned.taken["nso"] <= 0.05


def test_init_warns_of_a_known_neighbour_close_to_the_fitted_target() -> None:
    learned = LearnedLanguage(load_model(), "sot", 0.99, 40, [], fitted=True,
                              near={"nso": 0.3, "tsn": 0.005}, taken={})  # fmt: skip
    lines = neighbour_lines(learned)
    assert len(lines) == 1  # tsn took 0.5% only
    assert lines[0].startswith("warning: Northern Sotho (nso), which collie knows, is close to sot")
    assert "took 30% of your held-back paragraphs" in lines[0]
    assert "--wronglang nso=FILE" in lines[0]
    measured = LearnedLanguage(load_model(), "sot", 0.99, 40, [], fitted=True,
                               near={"nso": 0.0}, taken={"nso": 0.08})  # fmt: skip
    assert "the fitted model takes 8% of your nso documents" in neighbour_lines(measured)[0]
