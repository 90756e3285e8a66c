"""Detecting a page's encoding: the charsets it declares (HTTP, <meta>) mapped to the
codecs browsers use for them (WHATWG), the visible text chardet should see, chardet's
guess, and tests of whether a decoding reads as text or as a misread. collie.page.encoding
decides with them, in the order it describes.
"""

from __future__ import annotations

import codecs
import re
import unicodedata

import chardet

_SCAN_BYTES = 4096
_WHATWG_LABELS: dict[str, str] = {}
for _codec, _labels in {
    "cp1252": "iso-8859-1 iso8859-1 iso_8859-1 iso88591 latin1 latin-1 l1 us-ascii ascii "
    "ansi_x3.4-1968 cp819 ibm819 iso-ir-100 csisolatin1 windows-1252 cp1252 x-cp1252",
    "cp1254": "iso-8859-9 iso8859-9 iso_8859-9 latin5 l5 windows-1254 cp1254 x-cp1254",
    "cp874": "iso-8859-11 iso8859-11 tis-620 dos-874 windows-874",
    "gb18030": "gb18030 gb2312 gbk x-gbk chinese csgb2312 iso-ir-58 gb_2312 gb_2312-80 "
    "cp936 ms936 windows-936 csiso58gb231280",
    "cp932": "shift_jis shift-jis sjis x-sjis ms_kanji csshiftjis windows-31j ms932 cp932",
    "cp949": "euc-kr euckr ks_c_5601-1987 ks_c_5601-1989 ksc5601 ksc_5601 korean cseuckr "
    "iso-ir-149 windows-949 cp949 uhc",
    "big5hkscs": "big5 big5-hkscs cn-big5 csbig5 x-x-big5",
    "euc_jp": "euc-jp x-euc-jp cseucpkdfmtjapanese",
    "mac-cyrillic": "x-mac-cyrillic x-mac-ukrainian",
    "mac-roman": "macintosh mac csmacintosh x-mac-roman",
    "utf-8": "utf-8 utf8 unicode-1-1-utf-8 unicode11utf8 unicode20utf8 x-unicode20utf8",
}.items():
    for _label in _labels.split():
        _WHATWG_LABELS[_label] = _codec
_DISPLAY_NAMES = {
    "cp932": "shift_jis",
    "cp949": "euc-kr",
    "big5hkscs": "big5",
    "mac-cyrillic": "x-mac-cyrillic",
    "mac-roman": "macintosh",
}
_REFUSED_CODECS = {"utf-7", "utf_7"}  # WHATWG refuses UTF-7 (script injection)
WESTERN_CODECS = {"cp1252", "iso8859-15"}  # what unconfigured servers declare
_CHARSET_PARAM = re.compile(r"""charset\s*=\s*["']?\s*([A-Za-z0-9._:()+-]+)""", re.I)
_META = re.compile(rb"<meta\b[^>]{0,1024}>", re.I)
_META_CHARSET = re.compile(rb"""charset\s*=\s*["']?\s*([A-Za-z0-9._:()+-]+)""", re.I)
_SCRIPT_OR_STYLE = re.compile(rb"<(?:(!--)|(script|style)\b)", re.I)
_INVISIBLE = re.compile(rb"<[!/?a-zA-Z][^>]{0,2048}>|&#?\w{1,32};")
_SPACES = re.compile(rb"\s+")


def codec_for_label(label: str | None) -> str | None:
    """The Python codec a charset label means on the web (WHATWG mapping), or None."""
    if not label:
        return None
    label = label.strip().strip("\"'").lower()
    codec = _WHATWG_LABELS.get(label)
    if codec is None:
        try:
            info = codecs.lookup(label)
        except LookupError:
            return None
        if not getattr(info, "_is_text_encoding", True) or info.name in _REFUSED_CODECS:
            return None
        codec = info.name
    return codec


def display_name(codec: str) -> str:
    """The web name of a Python codec: cp1251 -> windows-1251, iso8859-2 -> iso-8859-2."""
    if codec in _DISPLAY_NAMES:
        return _DISPLAY_NAMES[codec]
    if re.fullmatch(r"cp125\d|cp874", codec):
        return "windows-" + codec[2:]
    if codec.startswith("iso8859-"):
        return "iso-" + codec[3:]
    return codec.replace("_", "-")


def find_http_charset(content_type: str | None) -> str | None:
    """The charset parameter of a Content-Type header, as given."""
    match = _CHARSET_PARAM.search(content_type or "")
    return match.group(1) if match else None


def find_meta_charset(body: bytes) -> str | None:
    """The charset of the first <meta charset> or http-equiv Content-Type in the first 4 KB."""
    head = body[:_SCAN_BYTES]
    for meta in _META.finditer(head):
        match = _META_CHARSET.search(meta.group(0))
        if match:
            return match.group(1).decode("ascii", "replace")
    return None


def visible_bytes(body: bytes, limit: int = 65536) -> bytes:
    """The page's text without markup, scripts, styles or entities: what chardet should see.

    The <head> (styles, scripts) is skipped when a <body> tag can be found. Linear in the
    page whatever its markup (scripts and comments are skipped with find, not a regex).
    """
    start = max(0, body.find(b"<body"), body.find(b"<BODY"))
    chunk = body[start : start + limit * 2]
    lower, kept, position = chunk.lower(), [], 0
    while (match := _SCRIPT_OR_STYLE.search(chunk, position)) is not None:
        kept.append(chunk[position : match.start()])
        closer = b"-->" if match.group(1) else b"</" + match.group(2).lower()
        end = lower.find(closer, match.end())
        end = chunk.find(b">", end + len(closer) - 1) if end >= 0 else -1
        position = len(chunk) if end < 0 else end + 1
    kept.append(chunk[position:])
    return _SPACES.sub(b" ", _INVISIBLE.sub(b" ", b" ".join(kept)))[:limit]


def find_declarations(body: bytes, content_type: str | None) -> list[tuple[str, str, str]]:
    """(source, label, codec) of the HTTP and <meta> declarations, in the order to try."""
    found: list[tuple[str, str, str]] = []
    for source, label in (
        ("http", find_http_charset(content_type)),
        ("meta", find_meta_charset(body)),
    ):
        codec = codec_for_label(label)
        if label and codec:
            if source == "meta" and codec.startswith(("utf-16", "utf-32")):
                codec = "utf-8"  # an ASCII-readable <meta> cannot be in UTF-16 (WHATWG)
            found.append((source, label.lower(), codec))
    if len(found) == 2 and found[0][2] in WESTERN_CODECS and found[1][2] != found[0][2]:
        found.reverse()  # an unconfigured server's default yields to the page's own word
    return found


_ASCII_LETTER_BYTES = bytes(range(65, 91)) + bytes(range(97, 123))
_CP1252_LETTER_BYTES = bytes([0x83, 0x8A, 0x8C, 0x8E, 0x9A, 0x9C, 0x9E, 0x9F])
_CP1252_LETTER_BYTES += bytes(b for b in range(0xC0, 0x100) if b not in (0xD7, 0xF7))


def _count(sample: bytes, wanted: bytes) -> int:
    return len(sample) - len(sample.translate(None, wanted))


def looks_misread(body: bytes) -> bool:
    """Mostly non-ASCII letters in a windows-1252 page: Cyrillic or Greek read as Latin.

    Western text has a few accented letters among ASCII ones (French: about 3 %); a
    handful of letters proves nothing either way, so at least 20 are needed.
    """
    sample = visible_bytes(body, 8192)
    high = _count(sample, _CP1252_LETTER_BYTES)
    return high >= 20 and high > 0.3 * (high + _count(sample, _ASCII_LETTER_BYTES))


_ASCII_BYTES = bytes(range(128))


def ask_chardet(sample: bytes) -> tuple[str | None, float]:
    guess = chardet.detect(sample)
    return codec_for_label(guess.get("encoding")), float(guess.get("confidence") or 0.0)


def ascii_share(sample: bytes) -> float:
    return 1 - len(sample.translate(None, _ASCII_BYTES)) / max(1, len(sample))


_ALLOWED_SYMBOLS = set("\u00a0“”‘’„‚«»‹›–—…•·°€£¥§©®™¡¿×÷")
_CAMEL = re.compile(r"[a-zß-öø-ÿа-яёα-ω][A-ZÀ-ÖØ-ÞА-ЯЁΑ-Ω]")
_WORD = re.compile(r"[^\W\d_]{3,}")


def _script(char: str) -> str:
    return unicodedata.name(char, "?").split(" ", 1)[0]


def _odd_characters(text: str) -> tuple[int, int] | None:
    """(symbols, symbols touching a letter) among non-ASCII characters; None when the
    text holds a control, private-use or replacement character (never in real text)."""
    odd = touching = 0
    for i, ch in enumerate(text):
        if ch.isascii():
            if ch < " " and ch not in "\t\n\r\f":
                return None
            continue
        if ch.isalpha() or ch in _ALLOWED_SYMBOLS:
            continue
        category = unicodedata.category(ch)
        if category in ("Cc", "Co", "Cn", "Cs") or ch == "\ufffd":
            return None
        if category[0] not in "MZ":
            odd += 1
            touching += text[i - 1 : i].isalpha() or text[i + 1 : i + 2].isalpha()
    return odd, touching


def looks_like_text(text: str) -> bool:
    """Does decoded text read as text? What misdecoded text fails: control or
    replacement characters, symbols (±, ¶, ¤...) inside words, words mixing scripts or
    flipping case (KOI8-R read as windows-1251), mostly capital non-ASCII letters, and
    Latin words made only of accented letters (Cyrillic read as windows-1252)."""
    text = text[:20000]
    counts = _odd_characters(text)
    words = _WORD.findall(text)
    if counts is None or not words:
        return False
    odd, touching = counts
    if touching > len(text) / 1000 or odd > 0.01 * len(text) + 1:
        return False
    mixed = accented_only = upper = lower = 0
    for word in words:
        if word.isascii():
            continue
        scripts = {_script(ch) for ch in word}
        mixed += len(scripts) > 1 or bool(_CAMEL.search(word))
        accented_only += scripts == {"LATIN"} and not any(ch.isascii() for ch in word)
        upper += sum(1 for ch in word if ch.isupper() and not ch.isascii())
        lower += sum(1 for ch in word if ch.islower() and not ch.isascii())
    if upper > lower and upper + lower >= 20:
        return False
    return mixed <= 0.03 * len(words) + 1 and accented_only <= 0.1 * len(words)
