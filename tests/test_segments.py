"""The corpus holds the target language (issue 30): which paragraphs a target export
writes (collie.decide.segments), and `collie export --segments` on a mined workspace."""

from __future__ import annotations

import json

from collie.decide.segments import is_heading, mark_segments, split_sentences
from collie.langid.modelfile import load_model
from collie.text import count_words

from .clihelp import run_collie


def identify_with_bundled():
    model = load_model().with_settings(0.5, 20)
    return lambda texts: [(code, near) for code, _, near in model.identify_nearest(texts)]


def test_sentences_and_headings() -> None:
    assert split_sentences("Ngiyabonga kakhulu. Thanks a lot!  Yebo? (Yes.) Kulungile") == [
        "Ngiyabonga kakhulu.", "Thanks a lot!", "Yebo?", "(Yes.)", "Kulungile"]  # fmt: skip
    assert is_heading("From our English edition") and is_heading("Izindaba zanamuhla")
    assert not is_heading("Everyone has the right to life.")
    assert not is_heading("one two three four five six seven eight nine ten eleven twelve 13")
    assert not is_heading("Izindaba\nzanamuhla")
    assert not is_heading("6884") and not is_heading("8.11.2006 | 746")  # numbers (issue 43)


def test_a_line_of_numbers_is_not_kept_with_the_section_it_precedes() -> None:
    labels = [("6884", "und", 0.0), ("4721", "und", 0.0), ("Izindaba", "und", 0.0),
              ("Ji duto onyuol ka gin thuolo.", "luo", 0.9)]  # fmt: skip
    marks = mark_segments(labels, "luo", lambda texts: [("und", "und") for _ in texts])
    assert [m.kept for m in marks] == [False, False, True, True]


def test_a_code_switched_paragraph_is_kept_when_mainly_target() -> None:
    """A paragraph the model takes for English as a whole is looked at by its sentences:
    kept when most of its identified letters are Zulu; a heading goes with its section."""
    from collie.udhr import load_declarations

    decl = load_declarations()
    z = [p for p in decl["zul"].training_paragraphs() if len(p) > 30 and p.endswith(".")]
    e = [p for p in decl["eng"].training_paragraphs() if len(p) > 30 and p.endswith(".")]
    mostly_zulu, mostly_english = f"{z[5]} {e[7]}", f"{e[4]} {z[5]} {e[5]}"
    labels = [("Izindaba", "und", 0.0), (z[20], "zul", 0.98), ("In English", "eng", 0.9),
              (e[9], "eng", 0.99), (mostly_zulu, "eng", 0.99), (mostly_english, "eng", 0.99),
              ("Okunye", "und", 0.0), (z[21], "zul", 0.98), ("The end", "eng", 0.9)]  # fmt: skip
    marks = mark_segments(labels, "zul", identify_with_bundled())
    assert [m.kept for m in marks] == [True, True, False, False, True, False, True, True, False]
    assert [m.target for m in marks[:4]] == [0.0, 1.0, 0.0, 0.0]
    assert 0.5 <= marks[4].target < 0.6 and 0.3 < marks[5].target < 0.4
    assert [m.language for m in marks] == [label[1] for label in labels]


def test_an_undetermined_paragraph_nearest_the_target_is_the_targets() -> None:
    """A paragraph the model left `und` (a learnt target's open-set tests failed on its
    names and loanwords; here: a probability under a strict langid.threshold) whose
    nearest language is the target is kept; a short one's nearest language is noise."""
    from collie.udhr import load_declarations

    zulu = load_declarations()["zul"].heldout_paragraphs()[3]
    strict = load_model().with_settings(0.999999, 20)
    assert strict.identify_nearest([zulu])[0][0] == "und"
    identify = lambda texts: [(c, n) for c, _, n in strict.identify_nearest(texts)]  # noqa: E731
    labels = [(zulu, "und", 0.0), ("Ngiyabonga kakhulu.", "und", 0.0)]
    marks = mark_segments(labels, "zul", identify)
    assert [(m.target, m.kept) for m in marks] == [(1.0, True), (0.0, False)]


def test_no_model_is_asked_when_no_paragraph_needs_it() -> None:
    def refuse(texts: list[str]) -> list[tuple[str, str]]:
        raise AssertionError(f"asked about {texts}")

    labels = [("Ji duto onyuol ka gin thuolo.", "luo", 0.9), ("All are born free.", "eng", 0.99)]
    assert [m.kept for m in mark_segments(labels, "luo", refuse)] == [True, False]


def test_export_writes_the_target_language_and_status_agrees(
    tmp_path, capsys, web, world, monkeypatch
) -> None:
    """A mined Zulu page with an English section and code-switched paragraphs: the
    default export leaves the English paragraphs (and the heading over them) out and
    keeps the Zulu ones, the code-switched one mainly Zulu included; --segments all keeps
    everything; JSON lines keep the whole document with each paragraph's language;
    status's words are the default export's."""
    from .zuluworld import add_polyglot_blog, code_switched_page, zulu_workspace

    root, _ = zulu_workspace(tmp_path, capsys, web, world)
    made = add_polyglot_blog(world, languages=2, switched=True)
    _, parts = code_switched_page()
    monkeypatch.chdir(root)
    assert run_collie(capsys, "run", "--loops", "2").code == 0
    default = run_collie(capsys, "export", "target.txt")
    assert default.code == 0, default.err
    text = (root / "target.txt").read_text(encoding="utf-8")
    assert all(" ".join(p.split()) in text for p in parts["kept"])
    assert not any(p in text for p in [*parts["left"], made["english"]])
    assert "not in the target language left out (--segments all keeps them)" in default.err
    everything = run_collie(capsys, "export", "all.txt", "--segments", "all")
    assert everything.code == 0, everything.err
    full = (root / "all.txt").read_text(encoding="utf-8")
    assert all(" ".join(p.split()) in full for p in [*parts["kept"], *parts["left"]])
    assert made["english"] in full

    lines = run_collie(capsys, "export", "-", "--format", "jsonl").out.splitlines()
    records = {r["url"]: r for r in map(json.loads, lines)}
    switched = records[made["switched"]]
    by_text = {p["text"]: p for p in switched["paragraphs"]}
    assert [by_text[p]["kept"] for p in parts["kept"]] == [True] * len(parts["kept"])
    assert [by_text[p]["kept"] for p in parts["left"]] == [False] * len(parts["left"])
    assert by_text[parts["left"][1]]["language"] == "eng"
    # code-switched, a Zulu sentence and an English one: no one language explains it
    # (the open set, collie.langid.unknown); kept by its sentences
    assert by_text[parts["kept"][2]]["language"] == "und"
    assert by_text[parts["kept"][2]]["target"] >= 0.5 > by_text[parts["left"][2]]["target"]
    assert parts["left"][1] not in switched["text"] and parts["kept"][2] in switched["text"]

    status = json.loads(run_collie(capsys, "status", "--json").out)
    words = sum(loop["words"] for loop in status["loops"])
    docs = sum(sum(loop["documents"].values()) for loop in status["loops"])
    assert f"{docs} documents, {words:,} words written" in default.err
    assert count_words(text) == words and len(records) == docs
    assert f"{words:,} words" not in everything.err  # all paragraphs: more words
