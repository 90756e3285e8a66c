"""Fetch + process through the local proxy: what the pipeline gets from real HTTP answers.

Each page is served by the proxy server with its bytes and headers exactly as given
(legacy encodings, right, missing and wrong charset declarations), fetched by the polite
fetcher and processed; the clean text must be the text the page was written with.
"""

from __future__ import annotations

import pytest

from collie.fetch.fetcher import FetchConfig, Fetcher
from collie.mininet.server import MiniWebServer, Response, World
from collie.page.process import process

# One realistic paragraph per script/encoding family, long enough for detection.
TEXTS = {
    "windows-1252": "Tous les êtres humains naissent libres et égaux en dignité et en droits. "
    "Ils sont doués de raison et de conscience et doivent agir les uns envers les autres "
    "dans un esprit de fraternité. Chacun peut se prévaloir de tous les droits et de toutes "
    "les libertés proclamés dans la présente Déclaration, sans distinction aucune.",
    "iso-8859-1": "Todos los seres humanos nacen libres e iguales en dignidad y derechos y, "
    "dotados como están de razón y conciencia, deben comportarse fraternalmente los unos con "
    "los otros. Toda persona tiene los derechos y libertades proclamados en esta Declaración, "
    "sin distinción alguna de raza, color, sexo, idioma, religión, opinión política.",
    "iso-8859-15": "Jokaisella on oikeus elämään, vapauteen ja henkilökohtaiseen "
    "turvallisuuteen. Ketään ei saa pitää orjana tai orjuutettuna; orjuus ja orjakauppa "
    "kaikissa muodoissaan on kielletty. Hinta on 5 € päivässä, sanoi hän äänekkäästi.",
    "iso-8859-2": "Wszyscy ludzie rodzą się wolni i równi pod względem swej godności i swych "
    "praw. Są oni obdarzeni rozumem i sumieniem i powinni postępować wobec innych w duchu "
    "braterstwa. Każdy człowiek posiada wszystkie prawa i wolności zawarte w niniejszej "
    "Deklaracji bez względu na różnice rasy, koloru skóry, płci, języka, wyznania.",
    "windows-1250": "Všichni lidé rodí se svobodní a sobě rovní co do důstojnosti a práv. "
    "Jsou nadáni rozumem a svědomím a mají spolu jednat v duchu bratrství. Každý má všechna "
    "práva a všechny svobody stanovené touto deklarací bez jakéhokoli rozlišování podle "
    "rasy, barvy pleti, pohlaví, jazyka, náboženství, politického nebo jiného smýšlení.",
    "windows-1251": "Все люди рождаются свободными и равными в своем достоинстве и правах. "
    "Они наделены разумом и совестью и должны поступать в отношении друг друга в духе "
    "братства. Каждый человек должен обладать всеми правами и всеми свободами, "
    "провозглашенными настоящей Декларацией, без какого бы то ни было различия.",
    "koi8-r": "Каждый человек имеет право на жизнь, на свободу и на личную "
    "неприкосновенность. Никто не должен содержаться в рабстве или в подневольном "
    "состоянии; рабство и работорговля запрещаются во всех их видах. Никто не должен "
    "подвергаться пыткам или жестоким, бесчеловечным или унижающим его достоинство "
    "обращению и наказанию.",
    "shift_jis": "すべての人間は、生まれながらにして自由であり、かつ、尊厳と権利とについて平等"
    "である。人間は、理性と良心とを授けられており、互いに同胞の精神をもって行動しなければ"
    "ならない。すべて人は、人種、皮膚の色、性、言語、宗教、政治上その他の意見、国民的若しく"
    "は社会的出身、財産、門地その他の地位又はこれに類するいかなる事由による差別をも受ける"
    "ことなく、この宣言に掲げるすべての権利と自由とを享有することができる。",
    "gb18030": "人人生而自由，在尊严和权利上一律平等。他们赋有理性和良心，并应以兄弟关系的精神"
    "相对待。人人有资格享有本宣言所载的一切权利和自由，不分种族、肤色、性别、语言、宗教、"
    "政治或其他见解、国籍或社会出身、财产、出生或其他身分等任何区别。",
    "gb2312": "人人有权享有生命、自由和人身安全。任何人不得使为奴隶或奴役；一切形式的奴隶制度"
    "和奴隶买卖，均应予以禁止。任何人不得加以酷刑，或施以残忍的、不人道的或侮辱性的待遇或"
    "刑罚。人人在任何地方有权被承认在法律前的人格。",
    "euc-kr": "모든 인간은 태어날 때부터 자유로우며 그 존엄과 권리에 있어 동등하다. 인간은 "
    "천부적으로 이성과 양심을 부여받았으며 서로 형제애의 정신으로 행동하여야 한다. 모든 "
    "사람은 인종, 피부색, 성, 언어, 종교, 정치적 또는 기타의 견해, 민족적 또는 사회적 출신.",
    "utf-8": "Ji duto onyuol ka gin thuolo kendo gin gi luor e bedo ng'ato ka ng'ato. "
    "Bende gin gi rieko kod paro maber, omiyo onego gitimne ng'ato ka ng'ato e yor owete. "
    "Nyaka gibed gi ratiro kod thuolo ma ondiki e Chike mae ma ok pogi kata matin.",
}


def page(text: str, meta: str = "") -> str:
    return (f"<!DOCTYPE html><html><head>{meta}<title>UDHR</title></head>"
            f"<body><main><h1>UDHR</h1><p>{text}</p></main></body></html>")  # fmt: skip


def fetch_and_process(url: str) -> tuple[str, str | None, str]:
    with Fetcher(FetchConfig(delay=0.0, retries=0)) as fetcher:
        result = fetcher.fetch(url)
    assert result.outcome == "fetched", result.reason
    processed = process(url, result)
    assert processed.outcome == "kept", processed.reason
    return processed.text, processed.encoding, processed.encoding_method


@pytest.mark.parametrize("encoding", sorted(TEXTS))
@pytest.mark.parametrize("declared", ["header", "meta", "none"])
def test_encodings_through_the_proxy(
    web: MiniWebServer, world: World, encoding: str, declared: str
) -> None:
    text = TEXTS[encoding]
    meta = f'<meta charset="{encoding}">' if declared == "meta" else ""
    body = page(text, meta).encode(encoding)
    url = f"http://enc.example/{encoding}/{declared}"
    world.add(url, Response.html(body, charset=encoding if declared == "header" else None))
    got, codec, _method = fetch_and_process(url)
    assert text in got
    assert codec is not None


@pytest.mark.parametrize(
    ("header", "meta"),
    [
        ("iso-8859-1", None),  # header says Latin-1, body is UTF-8
        (None, "iso-8859-1"),  # meta says Latin-1, body is UTF-8
        ("windows-1251", "koi8-r"),  # both wrong
    ],
)
def test_wrong_declarations_of_utf8(
    web: MiniWebServer, world: World, header: str | None, meta: str | None
) -> None:
    text = TEXTS["utf-8"] + " Ŋgato ŋeyo ɛ ɔ — “quoted”."
    meta_tag = f'<meta http-equiv="Content-Type" content="text/html; charset={meta}">'
    body = page(text, meta_tag if meta else "").encode("utf-8")
    world.add("http://wrong.example/", Response.html(body, charset=header))
    got, codec, _ = fetch_and_process("http://wrong.example/")
    assert text in got and codec == "utf-8"


def test_utf16_with_bom(web: MiniWebServer, world: World) -> None:
    text = TEXTS["windows-1251"]
    world.add("http://bom.example/", Response.html(page(text).encode("utf-16"), charset=None))
    got, codec, method = fetch_and_process("http://bom.example/")
    assert text in got and codec == "utf-16" and method == "bom"


def test_windows_1252_declared_as_latin1(web: MiniWebServer, world: World) -> None:
    text = "“Quotes” and the € sign – windows-1252 sent as ISO-8859-1, as the web does."
    body = page(text * 3).encode("windows-1252")
    world.add("http://w1252.example/", Response.html(body, charset="iso-8859-1"))
    got, _, _ = fetch_and_process("http://w1252.example/")
    assert text in got


def test_dropped_fetch_gives_dropped_page(web: MiniWebServer, world: World) -> None:
    world.add("http://pdf.example/a.pdf", Response.binary(b"%PDF-1.5 ...", "application/pdf"))
    with Fetcher(FetchConfig(delay=0.0)) as fetcher:
        result = fetcher.fetch("http://pdf.example/a.pdf")
    processed = process(result.url, result)
    assert (processed.outcome, processed.reason) == ("dropped", "not-html:application/pdf")


def test_boilerplate_removed_main_text_kept(web: MiniWebServer, world: World) -> None:
    main = TEXTS["utf-8"]
    html = (
        "<html lang='luo'><head><title>Chike</title><style>p{color:red}</style></head><body>"
        "<nav><a href='/'>Home</a> | <a href='/news'>News</a> | <a href='/about'>About</a></nav>"
        f"<article><h1>Chike</h1><p>{main}</p><p><a href='/next'>Mar bang'e</a></p></article>"
        "<div class='cookie-banner'>We use cookies to improve your experience. Accept</div>"
        "<footer>© 2024 Luo Media. All rights reserved.</footer>"
        "<script>var x = 'Ji duto';</script></body></html>"
    )
    world.add("http://luo.example.ke/chike", Response.html(html))
    with Fetcher(FetchConfig(delay=0.0)) as fetcher:
        result = fetcher.fetch("http://luo.example.ke/chike")
    processed = process(result.url, result)
    assert main in processed.text
    for junk in ("cookies", "All rights reserved", "var x", "color:red", "Home"):
        assert junk not in processed.text
    assert processed.title == "Chike" and processed.lang == "luo"
    links = dict(processed.links)
    assert links["http://luo.example.ke/next"] == "Mar bang'e"
    assert "http://luo.example.ke/news" in links  # navigation links still reach the crawler
