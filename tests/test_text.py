"""Decoding text files and tokenising."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from collie.page.encoding import decode_text_file
from collie.text import count_words, tokenize

TEXT = st.text(st.characters(exclude_categories=("Cs", "Cc")), max_size=200)


@given(TEXT)
def test_utf8_round_trip(text: str) -> None:
    decoded = decode_text_file(text.encode("utf-8"))
    assert decoded.text == unicodedata.normalize("NFC", text)
    assert (decoded.encoding, decoded.method) == ("utf-8", "utf-8")


@given(TEXT, st.sampled_from(["utf-8-sig", "utf-16", "utf-32"]))
def test_bom_round_trip(text: str, codec: str) -> None:
    decoded = decode_text_file(text.encode(codec))
    assert decoded.text == unicodedata.normalize("NFC", text)
    assert decoded.method == "bom"


def test_newlines_and_nfc() -> None:
    decoded = decode_text_file("a\r\nb\rcafe\u0301".encode())
    assert decoded.text == "a\nb\ncafé"


def test_binary_is_reported_not_raised() -> None:
    decoded = decode_text_file(b"\x00\x01\x02\x03" * 100)
    assert decoded.text is None and decoded.reason == "binary"


def test_forced_encoding() -> None:
    data = "Café".encode("latin-1")
    assert decode_text_file(data, encoding="latin-1").text == "Café"
    assert decode_text_file(data, encoding="ascii").reason == "not-ascii"


def test_dholuo_apostrophes_and_marks() -> None:
    text = "Ng’ato ka NG'ATO nyalo ng'eyo 2024 bedo-gi thuolo. मनुष्य के naïve"
    assert tokenize(text) == [
        "ng'ato", "ka", "ng'ato", "nyalo", "ng'eyo", "bedo-gi", "thuolo", "मनुष्य", "के", "naïve",
    ]  # fmt: skip
    assert count_words(text) == 10


def test_decomposed_input_is_one_token() -> None:
    assert tokenize(unicodedata.normalize("NFD", "naïve café")) == ["naïve", "café"]


@given(st.text(max_size=300))
def test_fast_token_path_agrees_with_the_full_pattern(text: str) -> None:
    from collie.text import _token_pattern

    table = str.maketrans({"\u2019": "'", "\u02bc": "'", "\u2018": "'", "\u02bb": "'"})
    normal = unicodedata.normalize("NFC", text).translate(table).lower()
    full = [t for t in _token_pattern(True).findall(normal) if not t.isnumeric()]
    assert tokenize(text) == full


def test_numeric_letters_are_dropped() -> None:
    assert tokenize("½ Ⅻ ²³ word") == ["word"]
