"""Seed lists: frequency, odds ratio (hand-computed), manual; the CLI that shows them."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import pytest

from collie.search.seeds import (
    Safetynet,
    TokenCounts,
    count_tokens,
    distinctive_words,
    frequency_seeds,
    odds_ratio,
    odds_ratio_seeds,
    web_words,
)
from collie.udhr import load_declarations

from .clihelp import run_collie

NET = Safetynet({"eng": ["the", "and"], "ach": ["gin", "ma"]})


def test_odds_ratio_by_hand() -> None:
    # right "aa a b c" -> a:2 b:1 c:1, N=4; wrong: a:1 b:2 d:1, N=4; V={a,b,c,d}=4, alpha 0.5:
    # P(a|right) = 2.5/6, P(a|wrong) = 1.5/6
    # OR = log2((2.5/6 * 4.5/6) / (3.5/6 * 1.5/6)) = log2(11.25 / 5.25) = 1.0995356...
    assert odds_ratio(2, 4, 1, 4, 4) == pytest.approx(math.log2(11.25 / 5.25))
    assert odds_ratio(2, 4, 1, 4, 4) == pytest.approx(1.0995356, abs=1e-6)
    # c never in wrong: P(c|right)=1.5/6, P(c|wrong)=0.5/6 -> log2(1.5*5.5 / (4.5*0.5))
    assert odds_ratio(1, 4, 0, 4, 4) == pytest.approx(math.log2(8.25 / 2.25))
    assert odds_ratio(1, 4, 1, 4, 4) == pytest.approx(0.0)


def test_odds_ratio_seed_list() -> None:
    right = count_tokens(["gin thuolo thuolo piny", "thuolo piny ma", "piny gin ng'ato ng'ato"])
    wrong = count_tokens(["gin ma piny the", "gin ma ma"])
    seeds = odds_ratio_seeds(right, wrong, 10, "luo", min_length=2, min_doc_freq=2, safetynet=NET)
    # thuolo: 3 right (2 docs), 0 wrong; piny: 3 right, 1 wrong; gin: caught by ach
    # ng'ato: 2 occurrences but in 1 document only -> below min_doc_freq
    assert [s.word for s in seeds.words] == ["thuolo", "piny"]
    assert seeds.removed == {"gin": ["ach"]}
    # N_right = 11, N_wrong = 7, V = {gin, thuolo, piny, ma, ng'ato, the} = 6
    assert seeds.words[0].score == pytest.approx(odds_ratio(3, 11, 0, 7, 6))
    assert seeds.words[0].score == pytest.approx(
        math.log2((3.5 / 14) * (1 - 0.5 / 10) / ((1 - 3.5 / 14) * (0.5 / 10)))
    )
    assert (seeds.words[1].count, seeds.words[1].docs, seeds.words[1].wrong) == (3, 3, 1)
    single = count_tokens(["gin thuolo thuolo piny piny"])
    # min_doc_freq is capped at the single document; gin occurs once (< min_count 2)
    assert [s.word for s in odds_ratio_seeds(single, wrong, 5, "luo", safetynet=NET).words] == [
        "thuolo",
        "piny",
    ]


def test_frequency_seeds_skip_safetynet_words_and_short_ones() -> None:
    counts = count_tokens(["the the the and and thuolo thuolo piny ka ka ka ka"])
    seeds = frequency_seeds(counts, 2, "luo", min_length=3, safetynet=NET)
    assert [(s.word, s.score) for s in seeds.words] == [("thuolo", 2.0), ("piny", 1.0)]
    assert seeds.removed == {"the": ["eng"], "and": ["eng"]}
    # stops at n: words below the n-th kept one are not examined
    assert frequency_seeds(counts, 1, "luo", safetynet=NET).removed == {
        "the": ["eng"],
        "and": ["eng"],
    }
    assert frequency_seeds(counts, 5, "eng", safetynet=NET).words[0].word == "the"


@pytest.fixture
def udhr_workspace(tmp_path: Path, capsys) -> Path:
    declarations = load_declarations()
    docs = tmp_path / "zulu.txt"
    docs.write_text("\n".join(declarations["zul"].training_paragraphs()), encoding="utf-8")
    root = tmp_path / "ws"
    result = run_collie(capsys, "init", "-w", str(root), "--lang", "zul", "--docs", str(docs))
    assert result.code == 0, result.err
    return root


def test_seeds_explain_on_a_udhr_workspace(udhr_workspace: Path, capsys) -> None:
    result = run_collie(capsys, "-w", str(udhr_workspace), "seeds", "--explain", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["method"] == "frequency" and data["loop"] == 1
    words = [w["word"] for w in data["words"]]
    assert len(words) >= 30
    assert all(len(w) >= 3 for w in words)
    assert "isigaba" in words  # "article": a content word of this text
    # function words shared with close relatives are removed, naming who caught them
    assert data["removed"]["noma"] and set(data["removed"]["umuntu"]) >= {"nbl"}
    text = run_collie(capsys, "-w", str(udhr_workspace), "seeds", "--explain").out
    assert "removed by the safetynet" in text and "umuntu" in text


def test_queries_dry_run_is_reproducible_and_fresh(udhr_workspace: Path, capsys) -> None:
    first = run_collie(capsys, "-w", str(udhr_workspace), "queries", "--json")
    assert first.code == 0, first.err
    again = run_collie(capsys, "-w", str(udhr_workspace), "queries", "--json")
    planned = json.loads(first.out)
    assert planned == json.loads(again.out)
    assert len(planned) == 400
    keys = {tuple(sorted(q["words"])) for q in planned}
    assert len(keys) == 400 and all(len(k) == 3 for k in keys)
    assert all(q["query"] == " ".join(q["words"]) for q in planned)
    tld = run_collie(capsys, "-w", str(udhr_workspace), "queries", "--tld", "auto", "--json")
    assert json.loads(tld.out)[0]["query"].endswith("(site:.za OR site:.ls OR site:.sz OR "
                                                    "site:.mw OR site:.mz OR site:.com OR "
                                                    "site:.org OR site:.net OR site:.info OR "
                                                    "site:.biz)")  # fmt: skip


def test_manual_seed_words_replace_selection(tmp_path: Path, capsys) -> None:
    doc = tmp_path / "doc.txt"
    doc.write_text("Ng'ato ka ng'ato nyalo bedo gi thuolo.\n", encoding="utf-8")
    words = tmp_path / "words.txt"
    words.write_text("thuolo\nng'ato\npiny\nduto\n", encoding="utf-8")
    root = tmp_path / "ws"
    assert run_collie(capsys, "init", "-w", str(root), "--lang", "luo", "--force", "--docs",
                      str(doc), "--seed-words", str(words)).code == 0  # fmt: skip
    data = json.loads(run_collie(capsys, "-w", str(root), "seeds", "--json").out)
    assert data["method"] == "manual"
    assert [w["word"] for w in data["words"]] == ["thuolo", "ng'ato", "piny", "duto"]
    planned = json.loads(run_collie(capsys, "-w", str(root), "queries", "--json").out)
    assert len(planned) == 4  # C(4, 3)


def test_safetynet_and_language_commands(capsys) -> None:
    listing = run_collie(capsys, "safetynet", "--json")
    data = json.loads(listing.out)
    assert len(data) >= 400 and data["eng"]["sources"] == "suw"
    one = json.loads(run_collie(capsys, "safetynet", "English", "--top", "3", "--json").out)
    assert len(one) == 3 and one[0] == {"rank": 1, "word": "the", "frequency": 0.0537,
                                        "sources": "suw"}  # fmt: skip
    assert run_collie(capsys, "safetynet", "luo").code == 2
    lang = json.loads(run_collie(capsys, "language", "zul", "--json").out)
    assert lang["safetynet"]["words"] > 50
    assert json.loads(run_collie(capsys, "language", "luo", "--json").out)["safetynet"] is None


def test_words_only_the_target_uses_leave_out_the_webs_common_words() -> None:
    """The first filter's needles (collie scan): a Zulu news text's English words
    ("south", "city", "league") are common on the web, its own words are not; a word it
    shares with an exempt relative stays."""
    zulu = ["ukuthi", "kanye", "ngoba", "kodwa", "abantu", "umongameli", "iqembu", "enkundleni"]
    english = ["south", "africa", "city", "league", "champions", "test", "park", "town", "united"]
    occurrences = Counter({**dict.fromkeys(zulu, 60), **dict.fromkeys(english, 6)})
    counts = TokenCounts(occurrences, Counter(dict.fromkeys(occurrences, 3)), 20_000, 10)
    assert {"city", "league", "south", "the"} <= set(web_words()["eng"])
    needles = {s.word for s in distinctive_words(counts, 50, "zul")}
    assert needles and not needles & set(english), needles
    assert {"enkundleni", "iqembu"} <= needles and "ngoba" not in needles  # Xhosa's too
    wrong = count_tokens(["iqembu lelo " * 40])  # the workspace's wrong-language text counts
    assert "iqembu" not in {s.word for s in distinctive_words(counts, 50, "zul", wrong)}
    shared = {s.word for s in distinctive_words(counts, 50, "zul", exempt={"xho", "nbl", "ssw"})}
    assert needles | {"ngoba"} <= shared
