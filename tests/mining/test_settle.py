"""mining/settle.py: examined pages into the store through one Settler: near-duplicates
against every original, warc.keep, one recount; a short page decided by the vote of the
pages linking to it, without a second examination."""

from __future__ import annotations

import json
from pathlib import Path

from collie.archive.keeping import open_archive
from collie.langid.model import LangModel
from collie.mining.config import RunConfig
from collie.mining.examine import examine
from collie.mining.provenance import ModelStamp, file_sha256, model_file, stamped_figures
from collie.mining.records import LoopReport
from collie.mining.settle import Settler
from collie.mining.spider import Spider
from collie.models import Examined
from collie.store import Store

from .conftest import at_depth, open_copy
from .pages import answer, article, paragraphs, queue


def settler_of(ws, model: LangModel) -> tuple[Store, Settler]:
    config = RunConfig.of(ws, model)
    store = Store(ws.db)
    store.frontier.open_loop()
    return store, Settler(store, config, Spider(store, at_depth(config, 2)), model)


def examined(store: Store, model: LangModel, pages: dict[str, bytes], rules) -> list[Examined]:
    queued = queue(store, list(pages))
    return [examine(q, answer(q.url, pages[q.url]), model, rules) for q in queued]


def test_a_batch_is_recorded_with_its_near_duplicates_and_counted(ws, model: LangModel) -> None:
    store, settler = settler_of(ws, model)
    pages = {
        "http://alpha.co.za/a": article("zul", 0),
        "http://beta.co.za/copy": article("zul", 0),  # the same article on another site
        "http://gamma.co.za/en": article("eng", 0),
    }
    report = LoopReport(1)
    outcomes = settler.settle(examined(store, model, pages, settler.config.rules), report)
    assert [o.status for o in outcomes] == ["kept", "duplicate", "wronglang"]
    assert report.pages == {"kept": 1, "duplicate": 1, "wronglang": 1}
    again = {"http://alpha.co.za/b": article("zul", 0)}  # the lookups span batches
    assert [
        o.status
        for o in settler.settle(examined(store, model, again, settler.config.rules), report)
    ] == ["duplicate"]
    settler.forget_originals()  # built again from the store: the same answer
    more = {"http://alpha.co.za/c": article("zul", 0)}
    [o] = settler.settle(examined(store, model, more, settler.config.rules), report)
    assert o.status == "duplicate" and report.pages["duplicate"] == 3


def test_the_lowest_url_of_near_duplicates_is_the_original_whatever_comes_first(
    ws, model: LangModel
) -> None:
    store, settler = settler_of(ws, model)
    rules, report = settler.config.rules, LoopReport(1)
    # the same article on three sites, the highest URL first, a batch each (as a resumed
    # run may bring them), then a fourth copy
    for url in ("http://gamma.co.za/a", "http://beta.co.za/copy", "http://alpha.co.za/print"):
        settler.settle(examined(store, model, {url: article("zul", 0)}, rules), report)
    conn = store.db.conn
    [alpha] = conn.execute(
        "SELECT d.id FROM documents d JOIN pages p ON p.id = d.page_id WHERE p.url = ?",
        ("http://alpha.co.za/print",),
    ).fetchone()
    pages = {u: (s, r) for u, s, r in conn.execute("SELECT url, status, reason FROM pages")}
    assert pages == {
        "http://alpha.co.za/print": ("kept", None),
        "http://beta.co.za/copy": ("duplicate", f"near-duplicate:{alpha}"),
        "http://gamma.co.za/a": ("duplicate", f"near-duplicate:{alpha}"),
    }
    copies = conn.execute("SELECT COUNT(*) FROM documents WHERE duplicate_of = ?", (alpha,))
    assert copies.fetchone()[0] == 2
    targets = dict(conn.execute("SELECT site, target FROM sites"))
    assert targets == {"alpha.co.za": 1, "beta.co.za": 0, "gamma.co.za": 0}
    assert report.pages == {"kept": 1, "duplicate": 2}
    [key] = conn.execute("SELECT exact_key FROM documents WHERE id = ?", (alpha,)).fetchone()
    assert store.pages.exact_original(key) == alpha
    for forget in (False, True):  # the lookups kept up to date, and built again
        if forget:
            settler.forget_originals()
        url = f"http://delta.co.za/{forget}"
        [o] = settler.settle(examined(store, model, {url: article("zul", 0)}, rules), report)
        assert (o.status, o.reason) == ("duplicate", f"near-duplicate:{alpha}")


def test_warc_keep_target_archives_only_target_pages(
    template_ws: Path, tmp_path: Path, model
) -> None:
    with open_copy(template_ws, tmp_path, warc__keep="target") as ws:
        store, settler = settler_of(ws, model)
        settler.archive = open_archive(store.pages, settler.config.keep.warc_max_bytes)
        pages = {
            "http://alpha.co.za/a": article("zul", 3),
            "http://gamma.co.za/en": article("eng", 3),
        }
        try:
            outcomes = settler.settle(
                examined(store, model, pages, settler.config.rules), LoopReport(1)
            )
        finally:
            settler.archive.close()
    assert outcomes[0].warc is not None and outcomes[1].warc is None


def test_a_short_page_is_decided_by_its_referrers_vote_and_counted_once(ws, model) -> None:
    store, settler = settler_of(ws, model)
    rules, report = settler.config.rules, LoopReport(1)
    short = "http://alpha.co.za/about"
    sentence = paragraphs("zul")[5].split(".")[0] + "."
    body = f"<html><body><main><p>{sentence}</p></main></body></html>".encode()
    [alone] = settler.settle(examined(store, model, {short: body}, rules), report)
    assert alone.reason == "too-short" and report.pages == {"dropped": 1}
    assert settler.decide_short_pages(1) == []  # nobody voted yet
    linking = {f"http://alpha.co.za/{i}": article("zul", 4 * i, 4, [short]) for i in (1, 2)}
    settler.settle(examined(store, model, linking, rules), report)
    waiting = settler.waiting[alone.page_id].examined
    [decided] = settler.decide_short_pages(1)
    assert decided is waiting  # as examined when fetched: no second examination
    assert decided.outcome.status == "kept"
    settler.record([decided.outcome], {decided.queued.id: decided.queued}, 1)
    settler.recount(report, [decided.outcome])
    assert report.pages == {"kept": 3} and "too-short" not in report.reasons


def test_each_page_keeps_how_its_language_was_identified(ws, model: LangModel) -> None:
    """The settler stamps every page the model labelled with the model's version, the
    SHA-256 of its file and its threshold (provenance.py); the worker's figures (margin,
    characters) come with it; a new model (the relatives pass's) stamps anew."""
    store, settler = settler_of(ws, model)
    pages = {"http://alpha.co.za/a": article("zul", 0), "http://gamma.co.za/en": article("eng", 1)}
    settler.settle(examined(store, model, pages, settler.config.rules), LoopReport(1))
    rows = store.db.conn.execute(
        "SELECT lid_model, lid_sha256, lid_threshold, lid_margin, lid_chars, text_chars "
        "FROM pages ORDER BY id"
    ).fetchall()
    version, path = model_file(ws.root)
    assert {r[:3] for r in rows} == {(version, file_sha256(path), model.threshold)}
    assert len(rows) == 2 and all(0.5 < r[3] <= 1 and 0 < r[4] <= r[5] for r in rows)
    stamp = settler.model_stamp()
    settler.use_model(model)  # a new model: its stamp is read again
    assert settler.stamp is None and settler.model_stamp() == stamp
    [(page_id, paragraphs_row)] = [
        (p, json.loads(d))
        for p, d in store.db.conn.execute(
            "SELECT page_id, paragraphs FROM documents WHERE kind = 'target'"
        )
    ]
    store.pages.set_langid(
        stamped_figures(ModelStamp("workspace", "ab" * 32, 0.3), [(page_id, paragraphs_row)])
    )
    row = store.db.conn.execute(
        "SELECT lid_model, lid_sha256, lid_threshold, lid_margin FROM pages WHERE id = ?",
        (page_id,),
    ).fetchone()
    assert row[:3] == ("workspace", "ab" * 32, 0.3) and row[3] == rows[0][3]
