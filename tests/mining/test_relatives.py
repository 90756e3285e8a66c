"""A target learnt from documents among close relatives: the page rule, the site rule, the
relative-suspected state (status, export, review), init's refusal and langid.hide."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest

from collie.cli.views import status_lines
from collie.corpus.status import status_data
from collie.decide.classify import PageRules, decide, judge_with_site
from collie.langid import corpus
from collie.langid.contrast import CONTRAST_SHARE, contrast_of, draw, learn_against
from collie.langid.learn import base_model, learn_language
from collie.langid.model import LangModel
from collie.mining.relatives import judge_corpus
from collie.mining.settle import record_outcomes
from collie.models import PageOutcome, QueueEntry
from collie.store import CorpusStore, ReviewStore, Store
from collie.workspace.folder import open_workspace

from ..clihelp import run_collie

RULES = PageRules("luo", min_share=0.2, min_pass=0.5)
LUO = "Ji duto onyuol ka gin thuolo kendo gin gi luor machalre gi ratiro machalre."
ENG = "All human beings are born free and equal in dignity and rights, and they are."


def outcome() -> PageOutcome:
    return PageOutcome(1, "site.example", "dropped")


def test_a_target_page_with_an_und_paragraph_near_it_is_kept() -> None:
    o = outcome()
    labels = [(LUO, "luo", 0.9), (LUO, "luo", 0.9), (LUO, "und", 0.6)]
    decide(o, LUO, labels, RULES, [False, False, True])
    assert o.status == "kept" and o.suspect is None
    assert (o.target_letters, o.near_letters) == (2 * 61, 61)


def test_a_target_and_english_page_is_kept_its_english_is_not_evidence() -> None:
    o = outcome()
    labels = [(LUO, "luo", 0.9), (ENG, "eng", 0.99), (ENG, "eng", 0.99)]
    decide(o, LUO, labels, RULES, [False, False, False])
    assert o.status == "kept" and o.document is not None and o.near_letters == 0


def test_a_page_mostly_near_the_target_but_failing_it_is_relative_suspected() -> None:
    o = outcome()
    labels = [(LUO, "luo", 0.8), (LUO, "und", 0.7), (LUO, "und", 0.7), (ENG, "eng", 0.99)]
    decide(o, LUO, labels, RULES, [False, True, True, False])
    assert o.status == "dropped" and o.document is None
    assert o.reason == "relative-suspected:page 0.33"
    assert o.suspect is not None and o.suspect.level == "page"
    assert [p[3] for p in o.suspect.paragraphs] == [False, True, True, False]
    same = outcome()  # the check is off for a target the model knows (min_pass 0)
    decide(same, LUO, labels, PageRules("luo"), [False, True, True, False])
    assert same.status == "kept"


def test_a_genuine_short_target_page_is_kept() -> None:
    o = outcome()
    decide(o, "Ber.", [("Oyawore ji duto, wabiro neno kendo.", "luo", 0.7)], RULES, [False])
    assert o.status == "kept"


@pytest.fixture
def workspace(tmp_path: Path, capsys, monkeypatch) -> Path:
    monkeypatch.delenv("COLLIE_WORKSPACE", raising=False)
    doc = tmp_path / "doc.txt"
    doc.write_text(LUO + "\n", encoding="utf-8")
    root = tmp_path / "ws"
    result = run_collie(capsys, "init", "-w", str(root), "--lang", "luo", "--force",
                        "--docs", str(doc))  # fmt: skip
    assert result.code == 0, result.err
    assert "warning: collie's model does not know luo" in result.err
    return root


def _record_site(store: Store, site: str, kinds: list[str]) -> None:
    entries = [QueueEntry(f"http://{site}/{i}", site, 1, "search", 0, 1.0)
               for i in range(len(kinds))]  # fmt: skip
    store.db.conn.execute("INSERT INTO loops (number, started_at) VALUES (1, 'now')")
    store.frontier.enqueue(entries)
    outcomes = []
    for i, kind in enumerate(kinds):
        page_id = store.db.conn.execute("SELECT id FROM pages WHERE url = ?",
                                     (entries[i].url,)).fetchone()[0]  # fmt: skip
        o = PageOutcome(page_id, site, "dropped")
        text = " ".join(w + "ab"[i % 2] * i for w in LUO.split())  # no near-duplicates
        if kind == "kept":
            decide(o, text, [(text, "luo", 0.9), (text, "und", 0.6)], RULES, [False, True])
        else:
            decide(o, text, [(text, "und", 0.6), (text, "und", 0.6)], RULES, [True, True])
        outcomes.append(o)
    record_outcomes(store, outcomes)


def test_a_relatives_site_is_set_aside_exported_on_request_and_reviewed_first(
    workspace: Path, capsys, monkeypatch
) -> None:
    with open_workspace(workspace, os.environ, {}) as ws:
        store, reads, reviews = Store(ws.db), CorpusStore(ws.db), ReviewStore(ws.db)
        _record_site(store, "relatives.example", ["kept", "suspect", "suspect", "kept"])
        mine, near = store.sites.site_letters("relatives.example")
        assert near == 3 * mine  # two pages half near, two pages all near
        assert len(list(reads.export_rows())) == 2
        assert store.sites.suspect_site("relatives.example", mine / (mine + near)) == 2
        assert store.sites.site_counts("relatives.example")[2] == "relative-suspected:site 0.25"
        assert list(reads.export_rows()) == []
        rows = list(reads.suspect_rows())
        assert [r.level for r in rows] == ["site", "page", "page", "site"]
        assert reviews.review_candidates() == []  # no corpus document left to sample
        first = reviews.next_review()
        assert first is not None and first["document"]["suspect"] is True
        assert first["total"] == 4 and first["judged"] == 0
        assert reviews.judge(first["document"]["doc_id"], "none", "tester")
        label = store.db.conn.execute(
            "SELECT label FROM suspects WHERE label IS NOT NULL"
        ).fetchone()
        assert label[0] == "relative"
        assert reviews.undo_judgement() == first["document"]["doc_id"]
        lines = "\n".join(status_lines(status_data(ws)))
    assert "relative-suspected: 4 pages set aside" in lines
    monkeypatch.chdir(workspace)
    out = workspace / "suspects.jsonl"
    result = run_collie(capsys, "export", str(out), "--format", "jsonl", "--suspects")
    assert result.code == 0 and "4 relative-suspected pages" in result.err
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert {r["suspected"] for r in records} == {"site", "page"}


def test_init_refuses_too_little_text_for_a_language_the_model_lacks(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    monkeypatch.delenv("COLLIE_WORKSPACE", raising=False)
    doc = tmp_path / "doc.txt"
    doc.write_text(LUO + "\n", encoding="utf-8")
    root = tmp_path / "ws"
    refused = run_collie(capsys, "init", "-w", str(root), "--lang", "luo", "--docs", str(doc))
    assert refused.code == 2 and "at least 1,000 are needed" in refused.err
    assert "--force" in refused.err and not root.exists()


@pytest.mark.slow
def test_langid_hide_makes_a_known_language_learnt_from_the_documents(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    monkeypatch.delenv("COLLIE_WORKSPACE", raising=False)
    training = corpus.udhr_training_texts()
    docs = tmp_path / "zul.txt"
    docs.write_text("\n\n".join(training["zul"] * 2), encoding="utf-8")  # ~2,800 words
    english = tmp_path / "english.txt"
    english.write_text("\n\n".join(training["eng"]), encoding="utf-8")
    root = tmp_path / "ws"
    result = run_collie(capsys, "init", "-w", str(root), "--lang", "zul", "--docs", str(docs),
                        "--docs", str(english), "--set", "langid.hide=zul,xho,nbl")  # fmt: skip
    assert result.code == 0, result.err
    assert "the model does not know nbl, xho, zul" in result.err
    assert "trained models/langid.npz: zul" in result.err
    assert "english.txt: 9" in result.err and "look like eng, not zul" in result.err
    monkeypatch.chdir(root)
    listed = run_collie(capsys, "langid", "languages").out
    assert "\nzul\t" in listed and "\nxho\t" not in listed and "\nnbl\t" not in listed
    bad = run_collie(capsys, "init", "-w", str(tmp_path / "ws2"), "--lang", "zul", "--docs",
                     str(docs), "--set", "langid.hide=luo")  # fmt: skip
    assert bad.code == 2 and "langid.hide" in bad.err


def test_the_contrast_is_drawn_from_every_site_in_turn_up_to_its_budget() -> None:
    texts = {"big.example": ["aaaa"] * 10, "small.example": ["bbbb"], "mid.example": ["cccc"] * 2}
    taken = draw(texts, 20)
    assert taken[:3] == ["aaaa", "cccc", "bbbb"]  # one from each site (name order) first
    assert sum(len(t) for t in taken) == 20 and taken.count("bbbb") == 1


@pytest.mark.slow
def test_a_contrast_from_a_relatives_text_keeps_it_out_and_costs_little_recall() -> None:
    training, heldout = corpus.udhr_training_texts(), corpus.udhr_heldout_texts()
    base = base_model(["zul", "xho", "nbl", "ssw"])
    docs = ["\n\n".join(training["zul"])]
    plain = learn_language(base, "zul", docs)
    result = learn_against(base, "zul", docs, {}, {"xho.example": training["xho"]})
    assert result is not None
    learned, contrast = result
    assert contrast.used <= CONTRAST_SHARE * sum(ch.isalpha() for ch in docs[0]) + 2000
    assert contrast.recall >= contrast.recall_without - 0.03
    assert contrast_of(learned.model, "zul") is not None

    def taken(model: LangModel, code: str) -> float:
        texts = [p for p in heldout[code] if len(p) >= 80]
        return sum(c == "zul" for c, _ in model.identify_batch(texts)) / len(texts)

    assert taken(plain.model, "xho") > 0.5  # without the contrast, most Xhosa passes
    assert taken(learned.model, "xho") < 0.2
    assert taken(learned.model, "zul") >= taken(plain.model, "zul") - 0.1
    assert learn_against(base, "zul", docs, {}, {"tiny.example": ["Molo."]}) is None


class _Nearest:
    """A model stand-in that answers identify_nearest with fixed labels."""

    def __init__(self, answers: list[tuple[str, float, str]]) -> None:
        self.answers = answers

    def identify_nearest(self, texts: list[str]) -> list[tuple[str, float, str]]:
        return self.answers[: len(texts)]


def test_a_page_suspected_alone_on_a_target_site_is_judged_with_its_site() -> None:
    o = outcome()
    labels = [(LUO, "luo", 0.8), (LUO, "und", 0.7), (LUO, "und", 0.7)]
    decide(o, LUO, labels, RULES, [False, True, True])
    assert o.suspect is not None
    near_target = _Nearest([("luo", 0.8, "luo"), ("und", 0.7, "luo"), ("und", 0.7, "luo")])
    judge_with_site(o, RULES, near_target)  # type: ignore[arg-type]
    assert o.status == "kept" and o.suspect is None and o.reason is None
    # a relative's page there: the model now puts it nearest `mis`. It has no target
    # text of its own, so (langid.site_own_text) the site does not lift it: it stays
    # relative-suspected; with the rule off it is decided with the site, undetermined.
    relative = outcome()
    decide(relative, LUO, labels, RULES, [False, True, True])
    judge_with_site(relative, RULES, _Nearest([("und", 0.9, "mis")] * 3))  # type: ignore[arg-type]
    assert relative.status == "dropped" and relative.reason == "relative-suspected:page 0.33"
    assert relative.suspect is not None
    old = replace(RULES, site_own_text=False)
    relative = outcome()
    decide(relative, LUO, labels, old, [False, True, True])
    judge_with_site(relative, old, _Nearest([("und", 0.9, "mis")] * 3))  # type: ignore[arg-type]
    assert relative.status == "dropped" and relative.reason == "language-undetermined"


def test_the_corpus_judged_again_sets_pages_and_sites_aside(workspace: Path) -> None:
    with open_workspace(workspace, os.environ, {}) as ws:
        store, reads = Store(ws.db), CorpusStore(ws.db)
        _record_site(store, "relatives.example", ["kept"] * 3)
        assert len(list(reads.export_rows())) == 3
        # a model that has learnt the relatives: their text is now nearest `mis`
        pages, sites = judge_corpus(store, _Nearest([("und", 0.9, "mis")] * 6), RULES)  # type: ignore[arg-type]
        assert (pages, sites) == (3, 0)  # three pages fail on their own (too few letters
        assert list(reads.export_rows()) == []  # for a site verdict)
        assert store.sites.site_letters("relatives.example") == (0, 2 * (3 * 61 + 14 * (0 + 1 + 2)))
        rows = list(reads.suspect_rows())
        assert {r.level for r in rows} == {"page"} and len(rows) == 3
        # restoring them: a page whose document another one duplicates stays a suspect
        ids = [r[0] for r in store.db.conn.execute("SELECT page_id, id FROM documents ORDER BY id")]
        first = store.db.conn.execute("SELECT id FROM documents WHERE page_id = ?", (ids[0],))
        store.db.conn.execute("UPDATE documents SET duplicate_of = ? WHERE page_id = ?",
                           (first.fetchone()[0], ids[1]))  # fmt: skip
        assert store.sites.forget_suspects(ids) == ids[1:]
        assert [r.id for r in reads.suspect_rows()] == ids[:1]


def test_a_target_site_does_not_lift_a_page_with_no_target_text_of_its_own() -> None:
    """langid.site_own_text: a short English "Contact us" page whose few letters the
    model takes for the target (under SITE_OWN_LETTERS) stays as it was; off, the site
    lifts it (the rule before issue 30)."""
    contact = ["Contact us", "Send your news to the editor at the address below please.", "Ber"]
    labels = [(contact[0], "und", 0.9), (contact[1], "und", 0.7), (contact[2], "luo", 0.6)]
    answers = _Nearest([("und", 0.9, "luo"), ("und", 0.7, "luo"), ("luo", 0.6, "luo")])
    judged = {}
    for own_text in (True, False):
        rules = replace(RULES, site_own_text=own_text)
        o = outcome()
        decide(o, "\n\n".join(contact), labels, rules, [True, True, False])
        assert o.suspect is not None  # relative-suspected on its own
        judge_with_site(o, rules, answers)  # type: ignore[arg-type]
        judged[own_text] = o.status
    assert judged == {True: "dropped", False: "kept"}


def test_a_target_site_lifts_a_longer_page_of_target_like_text() -> None:
    """A target page whose every paragraph fails the learnt target's tests by chance
    (300 target-like letters or more, none taken for the target itself) is lifted by
    its site; the short contact page above is not."""
    paragraphs = [LUO] * 6  # ~360 letters
    labels = [(p, "und", 0.6) for p in paragraphs]
    answers = _Nearest([("und", 0.6, "luo")] * len(paragraphs))
    o = outcome()
    decide(o, "\n\n".join(paragraphs), labels, RULES, [True] * len(paragraphs))
    assert o.suspect is not None
    judge_with_site(o, RULES, answers)  # type: ignore[arg-type]
    assert o.status == "kept" and o.lang == "luo"


@pytest.mark.slow
def test_the_search_contrast_judges_snippets_and_leaves_the_corpus_alone(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    """relatives.search_contrast, what the loop judges its search's results with once a
    relative's pages are suspected (search.contrast_pages): Zulu learnt against the
    Xhosa text found so far no longer finds Xhosa nearest to itself (held-out text), and
    keeps its own; nothing in the workspace changes (no page set aside, the model file
    as it was)."""
    from collie.langid.learn import workspace_model_path
    from collie.langid.modelfile import load_model
    from collie.mining.relatives import search_contrast

    monkeypatch.delenv("COLLIE_WORKSPACE", raising=False)
    training, heldout = corpus.udhr_training_texts(), corpus.udhr_heldout_texts()
    docs = tmp_path / "zul.txt"
    docs.write_text("\n\n".join(training["zul"] * 2), encoding="utf-8")
    root = tmp_path / "ws"
    made = run_collie(capsys, "init", "-w", str(root), "--lang", "zul", "--docs", str(docs),
                      "--set", "langid.hide=zul,xho,nbl,ssw")  # fmt: skip
    assert made.code == 0, made.err
    rules = PageRules("zul", min_share=0.2, min_pass=0.5)
    xhosa = training["xho"]
    with open_workspace(root, os.environ, {}) as ws:
        store = Store(ws.db)
        model = load_model(workspace_model_path(root))
        assert search_contrast(ws, store, model, rules, ("zul", "xho", "nbl", "ssw")) is None
        store.db.conn.execute("INSERT INTO loops (number, started_at) VALUES (1, 'now')")
        outcomes = []
        for n, site in enumerate(("xho1.example", "xho2.example", "xho3.example")):
            texts = xhosa[n::3]
            entries = [QueueEntry(f"http://{site}/{i}", site, 1, "search", 0, 1.0)
                       for i in range(len(texts))]  # fmt: skip
            store.frontier.enqueue(entries)
            for entry, text in zip(entries, texts, strict=True):
                page_id = store.db.conn.execute("SELECT id FROM pages WHERE url = ?",
                                             (entry.url,)).fetchone()[0]  # fmt: skip
                o = PageOutcome(page_id, site, "dropped")
                decide(o, text, [(text, "und", 0.6)], rules, [True])
                assert (o.reason or "").startswith("relative-suspected:page")
                outcomes.append(o)
        record_outcomes(store, outcomes)
        suspects = len(store.sites.suspect_paragraphs())
        before = workspace_model_path(root).read_bytes()
        contrast = search_contrast(ws, store, model, rules, ("zul", "xho", "nbl", "ssw"))
        assert contrast is not None
        assert len(store.sites.suspect_paragraphs()) == suspects
        assert workspace_model_path(root).read_bytes() == before

    def taken(m: LangModel, code: str) -> float:
        """The share of `code`'s held-out paragraphs nearest to Zulu."""
        texts = [p for p in heldout[code] if len(p) >= 80]
        return sum(n == "zul" for _, _, n in m.identify_nearest(texts)) / len(texts)

    assert taken(contrast, "xho") < taken(model, "xho") / 2
    assert taken(contrast, "zul") >= taken(model, "zul") - 0.1
