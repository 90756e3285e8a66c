"""The second look at confusable groups (collie.langid.groups, issue 53)."""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest

from collie.langid import load_model
from collie.langid.groups import Discriminator, second_look, train_discriminator
from collie.langid.modelfile import read_model, save_model

TABLE = Path(__file__).resolve().parents[1] / "langmodel" / "groups.tsv"


def read_groups() -> list[tuple[str, ...]]:
    """The groups of langmodel/groups.tsv (as langmodel.groups reads them)."""
    lines = TABLE.read_text(encoding="utf-8").splitlines()
    rows = [line for line in lines[1:] if line and not line.startswith(("#", "members\t"))]
    return [tuple(row.split("\t")[0].split(",")) for row in rows]


ALPHA = ["ka ma na ka ma na tu", "ka na ma tu ka ka"] * 5
BETA = ["ki mi ni ki mi ni to", "ki ni mi to ki ki"] * 5


def toy() -> Discriminator:
    return train_discriminator(("aaa", "bbb"), {"aaa": ALPHA, "bbb": BETA})


def test_the_discriminator_tells_its_members_apart() -> None:
    made = toy()
    assert list(made.keys) == sorted(made.keys)
    shares = made.posterior(["ka ma na tu ka", "ki mi ni to ki"], [0, 1])
    assert shares[0, 0] > 0.9 and shares[1, 1] > 0.9
    np.testing.assert_allclose(shares.sum(axis=1), 1.0, rtol=1e-6)


def test_second_look_shares_the_group_probability_only_where_a_member_is_first() -> None:
    codes = ["aaa", "bbb", "ccc"]
    proba = np.array([[0.5, 0.4, 0.1], [0.1, 0.2, 0.7], [0.2, 0.7, 0.1]])
    texts = ["ki mi ni to ki", "ka ma na", "ka ma na tu ka"]
    out = second_look([toy()], codes, set(), texts, proba.copy())
    assert out[0].argmax() == 1 and out[2].argmax() == 0  # looked at again
    np.testing.assert_allclose(out[:, :2].sum(axis=1)[[0, 2]], [0.9, 0.9])
    np.testing.assert_array_equal(out[1], proba[1])  # ccc first: not looked at
    np.testing.assert_allclose(out[:, 2], proba[:, 2])


def test_a_group_with_a_learnt_or_absent_member_is_left_alone() -> None:
    proba = np.array([[0.6, 0.4]])
    texts = ["ki mi ni to ki"]
    left = second_look([toy()], ["aaa", "bbb"], {"aaa"}, texts, proba.copy())
    np.testing.assert_array_equal(left, proba)
    alone = second_look([toy()], ["aaa", "zzz"], set(), texts, proba.copy())
    np.testing.assert_array_equal(alone, proba)


def test_the_bundled_model_carries_the_groups_of_the_table(tmp_path: Path) -> None:
    model = load_model()
    table = [tuple(c for c in group if c in model.codes) for group in read_groups()]
    assert [group.members for group in model.groups] == [g for g in table if len(g) > 1]
    assert ("zul", "xho", "nbl", "ssw") in table
    path = tmp_path / "model.npz"
    small = copy.copy(model)
    small.groups = [toy()]
    save_model(small, path)
    again = read_model(path)
    assert again.groups[0].members == ("aaa", "bbb")
    np.testing.assert_array_equal(again.groups[0].keys, small.groups[0].keys)
    np.testing.assert_allclose(again.groups[0].weights, small.groups[0].weights, atol=0.01)


def test_a_fitted_target_keeps_its_group_out_of_the_second_look() -> None:
    model = copy.copy(load_model())
    model.meta = {**model.meta, "registers": {**model.meta["registers"], "run/user": "user"}}
    model.__dict__.pop("_left_alone", None)
    assert "run" in model._left_alone
    assert "kin" not in model._left_alone


def test_a_text_best_read_by_a_udhr_column_is_left_to_the_first_model() -> None:
    """A discriminator that takes every Zulu n-gram for Xhosa turns a Zulu text of real
    text's register into Xhosa, and leaves one whose best column is Zulu's UDHR column."""
    from collie.langid.corpus import udhr_heldout_texts

    everyday = "Ngiyabonga kakhulu ngosizo lwakho namuhla ekuseni, sizohamba edolobheni kusasa."
    udhr = [p for p in udhr_heldout_texts()["zul"] if len(p) > 150][1]
    model = copy.copy(load_model())
    scores = model._raw_scores([everyday, udhr])[0]
    assert [model.columns[i] for i in scores.argmax(axis=1)] == ["zul/real", "zul"]
    wrong = train_discriminator(("zul", "xho"), {"zul": ["qwx qwx"], "xho": [everyday, udhr]})
    model.groups = [wrong]
    assert [code for code, _ in model.identify_batch([everyday, udhr])] == ["xho", "zul"]
    assert [code for code, _ in load_model().identify_batch([everyday, udhr])] == ["zul", "zul"]


def test_a_long_text_is_scored_in_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    """The discriminator sums the evidence of a long text's pieces (memory bounded)."""
    import collie.langid.groups as groups
    from collie.langid.features import cut_text

    made = toy()
    text = " ".join(["ka ma na tu ki mi ni to"] * 40)
    pieces = cut_text(text, 50)
    whole, whole_hits = made.scores([text, "ka ma"])
    monkeypatch.setattr(groups, "PIECE", 50)
    monkeypatch.setattr(groups, "PIECES", 120)
    cut, cut_hits = made.scores([text, "ka ma"])
    alone, alone_hits = made.scores(pieces)
    np.testing.assert_allclose(cut[0], alone.sum(axis=0), rtol=1e-6)
    assert cut_hits[0] == alone_hits.sum() and cut_hits[1] == whole_hits[1]
    np.testing.assert_allclose(cut[1], whole[1])
