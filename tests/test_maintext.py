"""The main text found on the DOM and collie's corrections to it (collie/page/maintext.py),
as measured on real pages by benchmarks/bench_extract.py (issue 30)."""

from __future__ import annotations

import trafilatura

from collie.mininet.pages import build_page
from collie.page.boilerplate import apply_rules, parse_line
from collie.page.boilerplate_rules import Line
from collie.page.extract import extract_html
from collie.page.maintext import LONG_LINE, SHORT_MAIN, main_content, with_long_lines

PROSE = "Maandishi ya makala kuhusu wakulima wa pwani na mvua za mwaka huu yanaendelea hapa. "


def _lines(*texts: str) -> list[Line]:
    return [parse_line(t) for t in texts]


def test_long_lines_after_the_main_content_stay_out_unless_list_items() -> None:
    before = (PROSE * 3).strip()
    author = ("Mwandishi wetu ni mhariri wa habari za kilimo tangu mwaka 2010. " * 4).strip()
    item = ("* " + PROSE * 3).strip()
    assert min(len(before), len(author), len(item)) >= LONG_LINE
    main = [_lines("Aya ya kwanza", "Aya ya pili")]
    rules = [_lines(before), _lines("Aya ya kwanza", "Aya ya pili"), _lines(author), _lines(item)]
    merged = with_long_lines(main, rules)
    assert (
        [[line.text for line in p] for p in merged]
        == [
            [before],  # before the main content: prose trafilatura missed
            ["Aya ya kwanza", "Aya ya pili"],
            [item[2:]],  # a list of the article trafilatura left out
        ]
    )  # the author box after the main content's last line is not put back


def test_a_long_line_naming_cookies_is_prose_in_the_main_content() -> None:
    long = (
        "Sera hii ya faragha inaeleza jinsi tovuti inavyotumia cookies na data ya wasomaji "
        "wake, na jinsi msomaji anavyoweza kuzuia cookies hizo kwenye kivinjari chake."
    )
    assert len(long) > 150
    markdown = f"We use cookies. Accept all\n\n{long}"
    main, dropped = apply_rules(markdown, "rules", layout=False)
    assert [line.text for p in main for line in p] == [long]
    assert dropped == [("We use cookies. Accept all", "cookie-notice")]
    whole, _ = apply_rules(markdown, "rules")  # on the whole page, the banner's rule holds
    assert whole == []


def test_main_content_is_trafilaturas_html_without_its_fingerprint() -> None:
    page = build_page(5, "Kichwa", [PROSE * 3, PROSE * 2], lang="sw", template="news").html
    for fast in (True, False):
        expected = trafilatura.extract(
            page,
            output_format="html",
            fast=fast,
            include_comments=False,
            include_images=False,
            include_links=True,
            with_metadata=False,
        )
        assert main_content(page, fast=fast) == expected
    assert main_content("<html><body></body></html>") is None


def test_a_trafilatura_without_those_internals_falls_back_to_extract(monkeypatch) -> None:
    """The fingerprint-free path uses trafilatura 2.x internals; another version must
    give the same text through its documented `extract`, never an error."""
    from collie.page import maintext

    page = build_page(5, "Kichwa", [PROSE * 3, PROSE * 2], lang="sw", template="news").html
    wanted = main_content(page)

    def missing(page: str, fast: bool) -> str:
        raise maintext._NoInternals

    monkeypatch.setattr(maintext, "_without_fingerprint", missing)
    assert wanted is not None and main_content(page) == wanted


def test_a_short_main_text_is_found_again_with_the_fallbacks() -> None:
    shouted = PROSE.upper().strip()
    page = (
        "<html><body><div class='menu'><a href='/'>Mwanzo</a> <a href='/h'>Habari</a></div>"
        f"<article><p>{PROSE * 4}</p></article>"
        f"<div><div>{PROSE * 3}</div><div>{(shouted + ' ') * 3}</div><div>{PROSE * 5}</div></div>"
        "<footer>© 2024 Sauti</footer></body></html>"
    )
    fast = main_content(page) or ""
    assert 250 <= len(fast) < SHORT_MAIN and shouted not in fast
    text = extract_html(page, "http://a.ke/habari").text
    assert shouted in text  # only trafilatura's fallbacks find the second block
    assert "Mwanzo" not in text and "© 2024" not in text


def test_a_sentence_is_prose_whatever_words_the_pages_links_use() -> None:
    from collie.page.maintext import without_menu_text

    links = [("http://a.example/w", "Our Level 1 Award in Wine"), ("http://a.example/n", "News")]
    links += [("http://a.example/j", "your wine education journey with us")]
    sentence = parse_line("Our Level 1 Award in Wine: your wine education journey with us.")
    menu = parse_line("Our Level 1 Award in Wine your wine education journey with us News")
    kept, dropped = without_menu_text([[sentence], [menu]], links)
    assert kept == [[sentence]] and dropped == [(menu.text, "menu-text")]


def test_code_and_angle_brackets_are_no_breadcrumb() -> None:
    markdown = (
        "Home > News > Siasa\n\nBlog » 2024\n\n"
        "public static async Task<string> ReadRawMessageAsync(\n\n"
        "At the ISL> prompt, type 'disp'\n\n"
        "    setTodos(todos.filter(todo => todo.id !== id));"
    )
    paragraphs, dropped = apply_rules(markdown, layout=False)
    assert [line for line, _ in dropped] == ["Home > News > Siasa", "Blog » 2024"]
    assert [p[0].text for p in paragraphs] == [
        "public static async Task<string> ReadRawMessageAsync(",
        "At the ISL> prompt, type 'disp'",
        "setTodos(todos.filter(todo => todo.id !== id));",
    ]


POPUP_PARAGRAPHS = [
    "Wavuvi wa ziwa walianza safari yao alfajiri, wakihesabu {} waliorudi kwenye maji "
    "ya kina kifupi na kuandika mahali kingo zilipoporomoka tangu mafuriko ya mwisho. "
    "Kila mwaka idadi yao inaandikwa kwenye daftari la kijiji.",
    "Wazee wa kijiji walikutana chini ya mti mkubwa kujadili {} na jinsi mashamba ya "
    "mpunga yatakavyogawanywa kabla ya mvua za masika kuanza mwezi ujao. "
    "Mkutano huo ulidumu hadi jua lilipozama nyuma ya milima.",
    "Walimu wa shule ya msingi waliwapeleka wanafunzi kuona {} ili wajifunze majina ya "
    "ndege na samaki wanaoishi kando ya mto unaopita katikati ya bonde. "
    "Watoto waliandika insha kuhusu safari hiyo siku iliyofuata.",
    "Mwandishi wa makala hii alitembelea soko la samaki jioni na kuzungumza na {} "
    "kuhusu bei zilizopanda tangu barabara mpya ilipofunguliwa mwaka jana. "
    "Wengi wao wanasema biashara imekuwa ngumu zaidi.",
]


def test_a_paragraph_is_never_written_twice_when_its_popup_links_go() -> None:
    """Issue 56: the pre-cleaning removes `javascript:` pop-up links with their words
    (their class names a pop-up), so its copy of a paragraph is no longer trafilatura's
    string; matched by its words, it is not put back a second time."""
    popup = '<a class="popup-link" href="javascript:void(0)" onclick="show({})">{}</a>'
    names = ["korongo na vitwitwi", "maji ya mto", "mamba wa mto", "wachuuzi wa samaki"]
    paragraphs = [
        f"<p>{text.format(popup.format(i, name))}</p>"
        for i, (text, name) in enumerate(zip(POPUP_PARAGRAPHS, names, strict=True))
    ]
    page = (
        "<html><body><div class='menu'><a href='/'>Mwanzo</a></div><article>"
        f"<h1>Habari za bonde</h1>{''.join(paragraphs)}<p>{PROSE * 3}</p>"
        "</article></body></html>"
    )
    extracted = extract_html(page, "http://a.ke/bonde")
    assert len(extracted.paragraphs) == 6  # the heading, four paragraphs, the last one
    for name in names:  # trafilatura's copy, the link's words in it, once
        assert sum(name in p for p in extracted.paragraphs) == 1
    assert "mpunga yatakavyogawanywa" in extracted.text
    assert extracted.text.count("mpunga yatakavyogawanywa") == 1


def test_short_linked_list_items_inside_the_text_are_kept() -> None:
    """Issue 56: a list of short links between two paragraphs of a post (a changelog,
    "Here's our year in review!") is text; a list of links after it is not."""
    first = PROSE * 2
    last = POPUP_PARAGRAPHS[1].format("mashamba")
    items = ["Here's our year in review!", "fixed a shutdown hang", "kamusi mpya ya Kiswahili"]
    listed = "".join(f"<li><a href='/log/{i}'>{t}</a></li>" for i, t in enumerate(items))
    page = (
        "<html><body><nav><a href='/'>Mwanzo</a></nav><article><h1>Habari za mwaka</h1>"
        f"<p>{first}</p><p>Mabadiliko makuu ya toleo hili:</p><ul>{listed}</ul><p>{last}</p>"
        "<ul><li><a href='/a'>Makala nyingine ya zamani</a></li>"
        "<li><a href='/b'>Makala ya mwaka jana</a></li></ul></article></body></html>"
    )
    extracted = extract_html(page, "http://a.ke/blog/mwaka")
    assert "Mabadiliko makuu ya toleo hili:" in extracted.paragraphs
    at = extracted.paragraphs.index("Mabadiliko makuu ya toleo hili:")
    assert extracted.paragraphs[at + 1] == "\n".join(items)
    assert "Makala nyingine" not in extracted.text
    assert "* Here's our year in review!" in extracted.markdown.split("\n")
