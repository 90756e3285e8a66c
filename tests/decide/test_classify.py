"""A target document holds target text (issue 43): langid.min_target_words words of
running text in the target, whatever the page's share of target letters; e-mail and web
addresses, phone numbers, menu items and labels are never running text."""

from __future__ import annotations

from dataclasses import replace

from collie.corpus.export import ExportCount, Selection, export_texts
from collie.decide.classify import PageRules, decide, decide_short, running_words, target_words
from collie.models import Examined, ExportRow, PageOutcome, QueuedPage

RULES = PageRules("luo")  # langid.min_target_words 3
SENTENCE = "Ji duto onyuol ka gin thuolo kendo gin gi luor machalre."  # 11 words
CONTACT = ["Contact us", "Email: editor@nyasachiel.com", "Tel: +254 712 345 678"]
MENU = ["Dala", "Wach manyien", "Michezo", "Siasa", "Ndiko", "Wachwa kodwa"]


def outcome() -> PageOutcome:
    return PageOutcome(1, "nyasachiel.com", "dropped")


def test_addresses_numbers_labels_and_menu_items_are_not_running_words() -> None:
    assert [running_words(p) for p in CONTACT] == [0, 0, 0]
    assert running_words("Ndik ne editor@nyasachiel.com kata www.nyasachiel.com/contact") == 3
    assert running_words("Ndik ne jagoro e nyasachiel.co.ke kata @nyasachiel") == 5
    assert [running_words(p) for p in MENU] == [0] * 6
    assert running_words(SENTENCE) == 11
    labels = [(SENTENCE, "luo", 0.9), ("Wach manyien kawuono", "luo", 0.8), (SENTENCE, "eng", 0.6)]
    assert target_words(labels, "luo") == 14  # the target's paragraphs only


def test_a_contact_page_taken_for_the_target_is_not_a_document() -> None:
    o = outcome()
    decide(o, "\n".join(CONTACT), [(p, "luo", 0.6) for p in CONTACT], RULES)
    assert (o.status, o.reason, o.document) == ("dropped", "too-little-target-text:0 words", None)
    assert o.lang == "luo" and o.target_share == 1.0  # its share did not save it


def test_a_bare_menu_in_the_target_is_not_a_document() -> None:
    o = outcome()
    decide(o, "\n".join(MENU), [(p, "luo", 0.9) for p in MENU], RULES)
    assert o.status == "dropped" and o.reason == "too-little-target-text:0 words"


def test_one_sentence_of_the_target_is_a_document_and_the_setting_sets_the_bar() -> None:
    labels = [("Contact us", "eng", 0.9), (SENTENCE, "luo", 0.9), (CONTACT[1], "luo", 0.5)]
    o = outcome()
    decide(o, SENTENCE, labels, RULES)
    assert o.status == "kept" and o.document is not None
    higher = outcome()
    decide(higher, SENTENCE, labels, replace(RULES, min_target_words=12))
    assert higher.reason == "too-little-target-text:11 words" and higher.document is None
    off = outcome()  # 0: the share of letters alone decides, as before issue 43
    decide(
        off,
        "\n".join(CONTACT),
        [(p, "luo", 0.6) for p in CONTACT],
        replace(RULES, min_target_words=0),
    )
    assert off.status == "kept"


def test_a_short_page_voted_for_the_target_still_needs_target_words() -> None:
    queued = QueuedPage(1, "http://nyasachiel.com/contact", "nyasachiel.com", 1, "crawl", 1)
    unknown = [(p, "und", 0.0) for p in CONTACT]
    contact = Examined(queued, outcome(), short_text="\n".join(CONTACT),
                       short_paragraphs=CONTACT, short_labels=unknown)  # fmt: skip
    decide_short(contact, "luo", RULES)  # the model cannot tell it: the vote's to decide
    assert contact.outcome.reason == "too-little-target-text:0 words"
    page = Examined(queued, outcome(), short_text=SENTENCE, short_paragraphs=[SENTENCE],
                    short_labels=[(SENTENCE, "und", 0.0)])  # fmt: skip
    decide_short(page, "luo", RULES)
    assert page.outcome.status == "kept"


def row(doc_id: int, paragraphs: list[str]) -> ExportRow:
    return ExportRow(id=doc_id, site="nyasachiel.com", url=f"http://x/{doc_id}", final_url=None,
                     title="t", loop=1, source="crawl", depth=1, query=None, referrer=None,
                     lang="luo", lang_prob=0.9, target_share=1.0, words=5, encoding="utf-8",
                     encoding_method="http", fetched_at=1.0, simhash="00ff",
                     paragraphs=[(p, "luo", 0.9) for p in paragraphs])  # fmt: skip


def test_an_export_leaves_out_a_document_without_target_words_and_counts_it_apart() -> None:
    """A document stored before the rule (or whose target words were its site's
    boilerplate) is not written, and is counted apart from `no_target`."""
    identify = lambda texts: [("luo", "luo") for _ in texts]  # noqa: E731
    selection = Selection("luo", "target", min_words=5)
    selection.identify = identify  # type: ignore[method-assign]
    count, tally = ExportCount(), {}
    rows = [row(1, [SENTENCE]), row(2, CONTACT[1:]), row(3, MENU)]
    written = list(export_texts(rows, selection, count, None, tally=tally))
    assert [r.id for r, _ in written] == [1]
    assert (count.documents, count.too_little_target, count.no_target) == (1, 2, 0)
    assert tally[1]["too_little_target"] == 2 and tally[1]["crawl"] == 1
