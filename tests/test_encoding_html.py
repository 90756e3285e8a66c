"""decode_html: BOM, declarations (right, missing, wrong), chardet, round trips."""

from __future__ import annotations

import codecs
import unicodedata

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from collie.page import charset, encoding
from collie.page.charset import codec_for_label, display_name, find_meta_charset, visible_bytes
from collie.page.encoding import Decoded, decode_html, decode_mostly_utf8

# Realistic text per encoding (UDHR article 1 and 2, long enough for chardet).
TEXTS = {
    "latin": "Tous les êtres humains naissent libres et égaux en dignité et en droits. Ils "
    "sont doués de raison et de conscience et doivent agir les uns envers les autres dans un "
    "esprit de fraternité. Chacun peut se prévaloir de tous les droits et de toutes les "
    "libertés proclamés dans la présente Déclaration, sans distinction aucune, notamment "
    "de race, de couleur, de sexe, de langue, de religion, d'opinion politique.",
    "euro": "Jokaisella on oikeus elämään, vapauteen ja henkilökohtaiseen turvallisuuteen. "
    "Ketään ei saa pitää orjana tai orjuutettuna; orjuus ja orjakauppa kaikissa muodoissaan "
    "on kielletty. Hinta on 5 € päivässä, sanoi hän äänekkäästi torilla.",
    "central": "Wszyscy ludzie rodzą się wolni i równi pod względem swej godności i swych "
    "praw. Są oni obdarzeni rozumem i sumieniem i powinni postępować wobec innych w duchu "
    "braterstwa. Każdy człowiek posiada wszystkie prawa i wolności zawarte w niniejszej "
    "Deklaracji bez względu na różnice rasy, koloru skóry, płci, języka, wyznania.",
    "cyrillic": "Все люди рождаются свободными и равными в своем достоинстве и правах. Они "
    "наделены разумом и совестью и должны поступать в отношении друг друга в духе братства. "
    "Каждый человек должен обладать всеми правами и всеми свободами, провозглашенными "
    "настоящей Декларацией, без какого бы то ни было различия, как-то в отношении расы, "
    "цвета кожи, пола, языка, религии, политических или иных убеждений.",
    "japanese": "すべての人間は、生まれながらにして自由であり、かつ、尊厳と権利とについて平等"
    "である。人間は、理性と良心とを授けられており、互いに同胞の精神をもって行動しなければならない。"
    "すべて人は、人種、皮膚の色、性、言語、宗教、政治上その他の意見、国民的若しくは社会的出身。",
    "chinese": "人人生而自由,在尊严和权利上一律平等。"
    "他们赋有理性和良心,并应以兄弟关系的精神相对待。"
    "人人有资格享有本宣言所载的一切权利和自由,不分种族、肤色、性别、语言、宗教、政治或其他见解。",
    "korean": "모든 인간은 태어날 때부터 자유로우며 그 존엄과 권리에 있어 동등하다. 인간은 천부적"
    "으로 이성과 양심을 부여받았으며 서로 형제애의 정신으로 행동하여야 한다. 모든 사람은 인종, "
    "피부색, 성, 언어, 종교, 정치적 또는 기타의 견해에 따른 어떠한 종류의 차별도 받지 않는다.",
}

# (codec the body is written in, label declared, which text)
ENCODINGS = [
    ("cp1252", "windows-1252", "latin"),
    ("latin-1", "iso-8859-1", "latin"),
    ("iso8859-15", "iso-8859-15", "euro"),
    ("iso8859-2", "iso-8859-2", "central"),
    ("cp1250", "windows-1250", "central"),
    ("cp1251", "windows-1251", "cyrillic"),
    ("koi8-r", "koi8-r", "cyrillic"),
    ("shift_jis", "shift_jis", "japanese"),
    ("gb18030", "gb18030", "chinese"),
    ("gb2312", "gb2312", "chinese"),
    ("euc-kr", "euc-kr", "korean"),
    ("utf-8", "utf-8", "cyrillic"),
]


def page(text: str, meta: str = "") -> str:
    return (
        f"<!DOCTYPE html><html><head>{meta}<title>t</title><style>p {{ color: red }}</style>"
        f"</head><body><h1>Titre</h1><p>{text}</p><p>{text[:80]}</p></body></html>"
    )


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


@pytest.mark.parametrize(("codec", "label", "kind"), ENCODINGS)
@pytest.mark.parametrize("where", ["http", "meta", "http-equiv"])
def test_declared_encodings_decode_exactly(codec: str, label: str, kind: str, where: str) -> None:
    meta = {
        "meta": f'<meta charset="{label}">',
        "http-equiv": f'<meta http-equiv="Content-Type" content="text/html; charset={label}">',
        "http": "",
    }[where]
    html = page(TEXTS[kind], meta)
    header = f"text/html; charset={label}" if where == "http" else "text/html"
    decoded = decode_html(html.encode(codec), header)
    assert decoded.text == nfc(html)
    assert decoded.method in ("http" if where == "http" else "meta", "utf-8")
    assert decoded.confidence == 1.0
    assert decoded.encoding == display_name(codec_for_label(label) or "")


@pytest.mark.parametrize(
    ("codec", "kind"),
    [
        ("cp1251", "cyrillic"),
        ("koi8-r", "cyrillic"),
        ("shift_jis", "japanese"),
        ("gb18030", "chinese"),
        ("euc-kr", "korean"),
        ("utf-8", "latin"),
    ],
)
def test_undeclared_pages_are_detected(codec: str, kind: str) -> None:
    html = page(TEXTS[kind] * 2)
    decoded = decode_html(html.encode(codec), "text/html")
    assert decoded.text == nfc(html)
    assert decoded.method in ("chardet", "utf-8")
    assert decoded.confidence >= 0.7


@pytest.mark.parametrize(
    ("codec", "kind"), [("cp1252", "latin"), ("iso8859-2", "central"), ("cp1250", "central")]
)
def test_undeclared_latin_legacy_text_is_kept_when_it_reads_as_text(codec: str, kind: str) -> None:
    # chardet gives single-byte Latin encodings 0.3-0.65 even when right (see README)
    decoded = decode_html(page(TEXTS[kind]).encode(codec))
    assert decoded.text == page(TEXTS[kind])
    assert decoded.method == "chardet-verified"
    assert encoding.VERIFIED_FLOOR <= decoded.confidence < 0.7


@pytest.mark.parametrize(
    ("codec", "misread_as"),
    [
        ("cp1251", "cp1252"),
        ("koi8-r", "cp1251"),
        ("cp1250", "iso8859-2"),
        ("iso8859-2", "cp1250"),
        ("cp1251", "koi8-r"),
        ("cp1252", "cp1251"),
        ("cp1251", "iso8859-5"),
    ],
)
def test_misdecoded_text_does_not_read_as_text(codec: str, misread_as: str) -> None:
    kind = {"cp1251": "cyrillic", "koi8-r": "cyrillic", "cp1252": "latin"}.get(codec, "central")
    assert charset.looks_like_text(TEXTS[kind])
    misread = TEXTS[kind].encode(codec).decode(misread_as, errors="replace")
    assert not charset.looks_like_text(misread)


def test_unsure_chardet_without_readable_text_is_uncertain() -> None:
    text = "Ünïcödé çhäräctérs öñly: " + "".join(chr(c) for c in range(0xC0, 0x100)) * 3
    decoded = decode_html(page(text).encode("cp1252"))
    assert decoded.text is None and decoded.reason == "encoding-uncertain"


def test_mostly_ascii_undeclared_page_is_windows_1252() -> None:
    html = page("Watu wote wamezaliwa huru, hadhi na haki zao ni sawa. " * 10 + "© 2024 Habari")
    decoded = decode_html(html.encode("cp1252"))
    assert decoded.text == html
    assert decoded.method == "mostly-ascii" and decoded.encoding == "windows-1252"
    assert decoded.confidence > 0.98


def test_header_says_latin1_but_body_is_utf8() -> None:
    html = page(TEXTS["latin"])
    decoded = decode_html(html.encode("utf-8"), "text/html; charset=ISO-8859-1")
    assert decoded.text == html
    assert decoded.encoding == "utf-8" and decoded.method == "utf-8"
    assert decoded.declared == "http:iso-8859-1"


def test_meta_says_windows_1252_but_body_is_utf8() -> None:
    html = page(TEXTS["cyrillic"], '<meta charset="windows-1252">')
    assert decode_html(html.encode("utf-8")).text == html


def test_header_says_utf8_but_body_is_legacy_with_meta() -> None:
    html = page(TEXTS["latin"], '<meta charset="windows-1252">')
    decoded = decode_html(html.encode("cp1252"), "text/html; charset=utf-8")
    assert decoded.text == html
    assert decoded.method == "meta"


def test_server_default_latin1_yields_to_meta() -> None:
    html = page(TEXTS["cyrillic"], '<meta charset="windows-1251">')
    decoded = decode_html(html.encode("cp1251"), "text/html; charset=iso-8859-1")
    assert decoded.text == html
    assert decoded.method == "meta"
    assert decoded.declared == "http:iso-8859-1, meta:windows-1251"


def test_cyrillic_under_a_latin1_header_is_caught_by_chardet() -> None:
    html = page(TEXTS["cyrillic"] * 2)
    decoded = decode_html(html.encode("cp1251"), "text/html; charset=iso-8859-1")
    assert decoded.text == html
    assert decoded.method == "chardet" and decoded.encoding == "windows-1251"


def test_wrong_multibyte_declaration_falls_back() -> None:
    html = page(TEXTS["cyrillic"] * 2)
    decoded = decode_html(html.encode("koi8-r"), "text/html; charset=shift_jis")
    assert decoded.text == html


@pytest.mark.parametrize("codec", ["utf-8-sig", "utf-16-le", "utf-16-be"])
def test_bom_wins_over_any_declaration(codec: str) -> None:
    html = page(TEXTS["korean"], '<meta charset="iso-8859-1">')
    body = html.encode(codec)
    if codec.startswith("utf-16"):
        body = (codecs.BOM_UTF16_LE if codec.endswith("le") else codecs.BOM_UTF16_BE) + body
    decoded = decode_html(body, "text/html; charset=windows-1251")
    assert decoded.text == html
    assert decoded.method == "bom"


def test_utf16_declared_in_the_header_without_bom() -> None:
    html = page(TEXTS["latin"])
    decoded = decode_html(html.encode("utf-16-le"), "text/html; charset=utf-16le")
    assert decoded.text == html


def test_binary_bodies_are_dropped_as_data() -> None:
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4
    decoded = decode_html(png, "text/html")
    assert decoded.text is None and decoded.reason == "binary"
    assert decode_html(b"").text == ""


def test_text_is_nfc_with_unix_newlines() -> None:
    decomposed = "Ile\u0301-Ife\u0300 o\u0323mo\u0323\r\nitan"
    decoded = decode_html(page(decomposed).encode("utf-8"))
    assert decoded.text is not None
    assert "Ilé-Ifè ọmọ\nitan" in decoded.text
    raw = decode_html(page(decomposed).encode("utf-8"), normalise=False)
    assert raw.text is not None and decomposed in raw.text


def test_chardet_is_never_called_for_utf8_or_verified_declarations(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(data: bytes) -> dict[str, object]:
        raise AssertionError("chardet called")

    monkeypatch.setattr(encoding.chardet, "detect", refuse)
    for codec, label, kind in ENCODINGS:
        body = page(TEXTS[kind]).encode(codec)
        assert decode_html(body, f"text/html; charset={label}").text is not None
    assert decode_html(page(TEXTS["chinese"]).encode("utf-8")).text is not None
    assert decode_html(page("plain ASCII only").encode("ascii")).text is not None


def test_whatwg_labels() -> None:
    assert codec_for_label("ISO-8859-1") == "cp1252"
    assert codec_for_label("us-ascii") == "cp1252"
    assert codec_for_label("gb2312") == "gb18030"
    assert codec_for_label("GBK") == "gb18030"
    assert codec_for_label("Shift_JIS") == "cp932"
    assert codec_for_label("euc-kr") == "cp949"
    assert codec_for_label("koi8-r") == "koi8-r"
    assert codec_for_label(" 'utf8' ") == "utf-8"
    assert codec_for_label("utf-7") is None
    assert codec_for_label("base64") is None
    assert codec_for_label("no-such-charset") is None
    assert display_name("cp1251") == "windows-1251"
    assert display_name("iso8859-2") == "iso-8859-2"


def test_meta_charset_is_found_in_the_first_4kb_only() -> None:
    assert find_meta_charset(b'<meta http-equiv="content-type" content="text/html;charset=KOI8-R">')
    assert find_meta_charset(b"<META CHARSET=utf-8>") == "utf-8"
    assert find_meta_charset(b" " * 5000 + b'<meta charset="koi8-r">') is None


def test_visible_bytes_skip_markup_scripts_and_styles() -> None:
    body = (
        b"<head><style>a{}</style></head><body><script>var x='<p>no</p>';</script>"
        b"<p>yes &amp; yes</p><!-- no --></body>"
    )
    assert visible_bytes(body).split() == [b"yes", b"yes"]


def test_decoded_stays_compatible() -> None:
    assert Decoded("x", "utf-8", "utf-8", 1.0) == Decoded("x", "utf-8", "utf-8", 1.0, None, None)


# --- properties ------------------------------------------------------------------------


def alphabet(codec: str) -> list[str]:
    """Printable characters of a single-byte codec, no markup characters."""
    chars = []
    for byte in range(0x20, 0x100):
        try:
            char = bytes([byte]).decode(codec)
        except UnicodeDecodeError:
            continue
        if char.isprintable() and char not in "<>&\"'":
            chars.append(char)
    return chars


SINGLE_BYTE = ["cp1252", "iso8859-2", "iso8859-15", "cp1250", "cp1251", "koi8-r"]


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_declared_single_byte_round_trip(data: st.DataObject) -> None:
    codec = data.draw(st.sampled_from(SINGLE_BYTE))
    text = data.draw(st.text(alphabet=alphabet(codec), min_size=1, max_size=300))
    body = page(text).encode(codec)
    # by design a body that is valid UTF-8 with non-ASCII bytes is read as UTF-8, and a
    # windows-1252 declaration over mostly non-ASCII letters is checked by chardet
    assume(body.isascii() or encoding._decode(body, "utf-8") is None)
    assume(codec not in ("cp1252", "iso8859-15") or not charset.looks_misread(body))
    decoded = decode_html(body, f"text/html; charset={codec}")
    assert decoded.text == nfc(page(text))


@settings(max_examples=40, deadline=None)
@given(st.text(min_size=1, max_size=300), st.sampled_from(["utf-8", "utf-16", "utf-8-sig"]))
def test_unicode_round_trip_whatever_the_header_says(text: str, codec: str) -> None:
    body = page(text).encode(codec, errors="surrogatepass")
    assume("\x00" not in text and "\r" not in text)
    assume(codec != "utf-8" or encoding._decode(body, "utf-8") is not None)
    decoded = decode_html(body, "text/html; charset=iso-8859-1")
    assert decoded.text == nfc(page(text))


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=2000), st.sampled_from([None, "text/html", "text/html; charset=x"]))
def test_any_bytes_never_raise(body: bytes, content_type: str | None) -> None:
    decoded = decode_html(body, content_type)
    assert (decoded.text is None) == (decoded.reason is not None)


MOJIBAKE = ("\ufffd", "â€", "Ã©", "Ã¨")


@pytest.mark.parametrize("header", [None, "text/html; charset=utf-8"])
def test_a_utf8_page_with_a_stray_windows_1252_byte_is_not_mojibake(header: str | None) -> None:
    text = (
        "Ng’ato ka ng’ato nigi ratiro mar bedo thuolo. Ce texte est écrit en français: très bien."
    )
    body = f"<html><body><p>{text}</p><p>Ot mar Otieno\x92s</p></body></html>".encode()
    body = body.replace("Otieno\x92s".encode(), b"Otieno\x92s")  # the one stray byte
    decoded = decode_html(body, header)
    assert decoded.method == "utf-8-mixed" and decoded.encoding == "utf-8"
    assert text in decoded.text and "Otieno’s" in decoded.text
    assert not any(m in decoded.text for m in MOJIBAKE)


def test_a_legacy_page_is_not_taken_for_mixed_utf8() -> None:
    body = "<html><body><p>Élève très âgé, café crème à côté.</p></body></html>".encode("cp1252")
    assert decode_mostly_utf8(body) is None  # no valid multi-byte sequence at all
    assert decode_html(body).method != "utf-8-mixed"
