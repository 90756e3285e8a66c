"""Language identification: the UDHR split, features, the model and its array format."""

from __future__ import annotations

import pytest

from collie import udhr
from collie.langid import corpus


def test_training_texts_never_read_the_heldout_articles(monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(self: udhr.Declaration) -> list[str]:
        raise AssertionError(f"training code read the held-out part of {self.name}")

    corpus._plan_and_declarations.cache_clear()
    with monkeypatch.context() as patch:
        patch.setattr(udhr.Declaration, "heldout_paragraphs", forbidden)
        training = corpus.udhr_training_texts()
    corpus._plan_and_declarations.cache_clear()
    heldout = corpus.udhr_heldout_texts()
    assert training.keys() == heldout.keys()
    for code, paragraphs in heldout.items():
        seen = set(training[code])
        only_heldout = [p for p in paragraphs if p not in seen]
        assert only_heldout, code
    declarations = udhr.load_declarations()
    zulu = declarations["zul"]
    article_21 = zulu.articles[21][-1]
    assert article_21 in heldout["zul"] and article_21 not in training["zul"]


def test_one_class_per_code_with_mislabelled_copies_dropped() -> None:
    plan = corpus.class_plan()
    assert len(plan.members) >= 440
    assert {"ckb", "kng", "032"} <= plan.dropped.keys()
    assert "azb" not in plan.members and "ckb" not in plan.members
    assert plan.members["kng"] == ["kng_AO"]
    assert sorted(plan.members["ktu"]) == ["030", "ktu"]
    assert sorted(plan.members["uzn"]) == ["uzn_cyrl", "uzn_latn"]
    members = [n for names in plan.members.values() for n in names]
    assert len(members) == len(set(members))
