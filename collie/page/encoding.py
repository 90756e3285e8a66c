"""Bytes -> UTF-8 text.

`decode_text_file`: plain-text files (the user's seed documents). A byte-order mark
wins, then a strict UTF-8 decode, then chardet, trusted only at or above a confidence
threshold (CorpusCollie's 0.7). `decode_html`: fetched pages (the order is described
above it). Results are NFC with Unix newlines. Bytes that cannot be decoded are reported
as data (`Decoded.reason`), not raised.
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from dataclasses import dataclass, replace

import chardet

_BOMS = (  # UTF-32 first: its little-endian BOM starts with UTF-16's
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


@dataclass(frozen=True)
class Decoded:
    """A decoding decision. `text` is None when the bytes were not decodable text."""

    text: str | None
    encoding: str | None  # codec name, e.g. "utf-8", "windows-1252"
    method: str  # bom, utf-8, utf-8-mixed, http, meta, chardet, chardet-verified, mostly-ascii,
    # given, failed
    confidence: float
    reason: str | None = None  # why text is None: "binary", "encoding-uncertain", ...
    declared: str | None = None  # what the page declared, e.g. "http:iso-8859-1, meta:utf-8"


def normalise_text(text: str) -> str:
    """NFC, Unix newlines, no NUL characters."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\x00" in text:
        text = text.replace("\x00", "")
    return unicodedata.normalize("NFC", text)


def _stray_bytes_as_cp1252(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeDecodeError):
        raise error
    stray = error.object[error.start : error.end]
    return stray.decode("cp1252", errors="replace"), error.end


codecs.register_error("collie-stray-cp1252", _stray_bytes_as_cp1252)
MIXED_MIN_RATIO = 3  # valid UTF-8 sequences per stray byte, at least


def decode_mostly_utf8(body: bytes) -> str | None:
    """A UTF-8 page with a few stray legacy bytes (a windows-1252 apostrophe pasted into
    a UTF-8 template): UTF-8, the stray bytes read as windows-1252 (ftfy's "mixed
    encoding" case). Read as windows-1252 instead, every UTF-8 letter would become
    mojibake ("Ã©", "â€™"). None unless valid multi-byte sequences outnumber the stray
    bytes MIXED_MIN_RATIO to one."""
    lenient = body.decode("utf-8", errors="replace")
    stray = lenient.count("\ufffd") - body.decode("utf-8", errors="ignore").count("\ufffd")
    valid = sum(1 for ch in lenient if ord(ch) > 0x7F and ch != "\ufffd")
    if stray == 0 or valid < MIXED_MIN_RATIO * stray:
        return None
    return body.decode("utf-8", errors="collie-stray-cp1252")


def _decode(data: bytes, encoding: str) -> str | None:
    try:
        return data.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        return None


def decode_text_file(
    data: bytes, min_confidence: float = 0.7, encoding: str | None = None
) -> Decoded:
    """Decode a text file's bytes; `encoding` forces a codec when detection is unsure."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            text = _decode(data, codec)
            if text is not None:
                return Decoded(normalise_text(text), codec.removesuffix("-sig"), "bom", 1.0)
    text = _decode(data, "utf-8")
    if text is not None and "\x00" not in text:
        return Decoded(normalise_text(text), "utf-8", "utf-8", 1.0)
    if encoding:
        text = _decode(data, encoding)
        if text is None:
            return Decoded(None, encoding, "failed", 0.0, f"not-{encoding}")
        return Decoded(normalise_text(text), encoding, "given", 1.0)
    guess = chardet.detect(data)
    name, confidence = guess.get("encoding"), float(guess.get("confidence") or 0.0)
    if not name:
        return Decoded(None, None, "failed", confidence, "binary")
    text = _decode(data, name)
    if text is None or (b"\x00" in data and not name.lower().startswith("utf-")):
        return Decoded(None, name.lower(), "failed", confidence, "binary")
    if confidence < min_confidence:
        return Decoded(None, name.lower(), "chardet", confidence, "encoding-uncertain")
    return Decoded(normalise_text(text), name.lower(), "chardet", confidence)


# --- HTML pages -------------------------------------------------------------------------
#
# A page's bytes are decoded in this order (the first that holds wins):
#   1. a byte-order mark;
#   2. a body that is valid UTF-8 and contains non-ASCII bytes is UTF-8, whatever was
#      declared: a legacy single-byte codec "decodes" any bytes, so a wrong iso-8859-1
#      header would otherwise turn every UTF-8 page into mojibake, and real legacy text is
#      practically never valid UTF-8; a body declared UTF-8 or not at all whose valid
#      multi-byte sequences outnumber a few stray bytes is UTF-8 with those bytes read as
#      windows-1252 ("utf-8-mixed", `decode_mostly_utf8`);
#   3. the HTTP charset, then the <meta charset> / http-equiv declaration of the first
#      4 KB, each mapped to the codec browsers use (WHATWG: iso-8859-1 and us-ascii mean
#      windows-1252, gb2312 means gb18030, shift_jis means windows-31j, euc-kr means
#      windows-949) and verified by a strict decode. A western default header
#      (iso-8859-1/windows-1252, what servers send when nobody configured them) yields to
#      a different <meta> declaration; a windows-1252 decode whose letters are mostly
#      non-ASCII (Cyrillic or Greek read as Latin) is checked with chardet;
#   4. chardet over the visible text (markup stripped: it only dilutes the statistics;
#      on the whole body chardet's confidence is 0.03-0.05), kept when its confidence is
#      >= min_confidence ("chardet"). chardet rates single-byte Latin encodings 0.3-0.65
#      even when right, so a guess between VERIFIED_FLOOR (0.3) and min_confidence is
#      kept when the decoded text reads as text (`looks_like_text`: no control or
#      replacement characters, no symbols inside words, no words mixing scripts or
#      flipping case, no Latin words made only of accented letters): "chardet-verified";
#   5. visible text that is at least 98 % ASCII (a Swahili page with a © sign) is read as
#      windows-1252, the browsers' default, when chardet is unsure: "mostly-ascii".
# Everything else is dropped as "encoding-uncertain" (or "binary": NUL bytes, not markup).
# UTF-8 pages and pages with a verified declaration never call chardet.

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
_WESTERN = {"cp1252", "iso8859-15"}  # what unconfigured servers declare
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


def _declarations(body: bytes, content_type: str | None) -> list[tuple[str, str, str]]:
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
    if len(found) == 2 and found[0][2] in _WESTERN and found[1][2] != found[0][2]:
        found.reverse()  # an unconfigured server's default yields to the page's own word
    return found


_ASCII_LETTER_BYTES = bytes(range(65, 91)) + bytes(range(97, 123))
_CP1252_LETTER_BYTES = bytes([0x83, 0x8A, 0x8C, 0x8E, 0x9A, 0x9C, 0x9E, 0x9F])
_CP1252_LETTER_BYTES += bytes(b for b in range(0xC0, 0x100) if b not in (0xD7, 0xF7))


def _count(sample: bytes, wanted: bytes) -> int:
    return len(sample) - len(sample.translate(None, wanted))


def _looks_misread(body: bytes) -> bool:
    """Mostly non-ASCII letters in a windows-1252 page: Cyrillic or Greek read as Latin.

    Western text has a few accented letters among ASCII ones (French: about 3 %); a
    handful of letters proves nothing either way, so at least 20 are needed.
    """
    sample = visible_bytes(body, 8192)
    high = _count(sample, _CP1252_LETTER_BYTES)
    return high >= 20 and high > 0.3 * (high + _count(sample, _ASCII_LETTER_BYTES))


_ASCII_BYTES = bytes(range(128))
MOSTLY_ASCII = 0.98  # visible text at least this ASCII needs no guess (see decode_html)


def _ask_chardet(sample: bytes) -> tuple[str | None, float]:
    guess = chardet.detect(sample)
    return codec_for_label(guess.get("encoding")), float(guess.get("confidence") or 0.0)


def _ascii_share(sample: bytes) -> float:
    return 1 - len(sample.translate(None, _ASCII_BYTES)) / max(1, len(sample))


def _decode_lenient(body: bytes, codec: str) -> str | None:
    """Decode, tolerating at most one bad byte in a thousand (a stray byte in legacy text)."""
    text = _decode(body, codec)
    if text is None:
        try:
            text = body.decode(codec, errors="replace")
        except LookupError:
            return None
        if text.count("\ufffd") > len(body) / 1000 + 1:
            return None
    return text


def _html_decoded(
    text: str, codec: str, method: str, confidence: float, declared: str | None
) -> Decoded:
    return Decoded(text, display_name(codec), method, confidence, None, declared)


VERIFIED_FLOOR = 0.3  # chardet guesses below this are never kept, verified or not
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


def _decode_by_chardet(
    body: bytes, min_confidence: float, declared: str | None, fallback: Decoded | None = None
) -> Decoded:
    """chardet over the visible text; `fallback` is a declaration that looked misread."""
    sample = visible_bytes(body)
    share, has_nul = _ascii_share(sample), b"\x00" in body
    if share == 1 and not has_nul and fallback is None:
        return _decode_mostly_ascii(body, share, declared)  # nothing for chardet to see
    codec, confidence = _ask_chardet(body[:65536] if has_nul else sample)
    if codec is None:
        return fallback or Decoded(None, None, "failed", confidence, "binary", declared)
    name = display_name(codec)
    if has_nul and not codec.startswith(("utf-16", "utf-32")):
        return fallback or Decoded(None, name, "failed", confidence, "binary", declared)
    if fallback is not None and fallback.encoding == name:
        return fallback  # chardet agrees with the declaration
    method = "chardet"
    unsure = VERIFIED_FLOOR <= confidence < min_confidence and share < MOSTLY_ASCII
    if unsure and looks_like_text(sample.decode(codec, errors="replace")):
        method = "chardet-verified"  # chardet unsure, but the text reads as text
    if method == "chardet" and confidence < min_confidence:
        if fallback is None and share >= MOSTLY_ASCII:
            return _decode_mostly_ascii(body, share, declared)
        # a misread-looking declaration is no fallback here
        return Decoded(None, name, "chardet", confidence, "encoding-uncertain", declared)
    text = _decode_lenient(body, codec)
    if text is None or (has_nul and "<" not in text):  # undecodable, or not markup
        reason = "binary" if has_nul else "encoding-uncertain"
        return Decoded(None, name, "failed", confidence, reason, declared)
    return _html_decoded(text, codec, method, confidence, declared)


def _decode_mostly_ascii(body: bytes, share: float, declared: str | None) -> Decoded:
    """The visible text's words are ASCII: the encoding only decides a few symbols (©,
    quotes), where chardet is weakest. Browsers' default for undeclared pages is
    windows-1252; the confidence reported is the ASCII share of the visible text."""
    text = body.decode("cp1252", errors="replace")
    return _html_decoded(text, "cp1252", "mostly-ascii", share, declared)


def decode_html(
    body: bytes,
    content_type: str | None = None,
    min_confidence: float = 0.7,
    *,
    normalise: bool = True,
) -> Decoded:
    """Decode an HTML page's bytes to NFC text (see the order above); never raises.

    `normalise=False` skips NFC and newline normalisation, for a caller that normalises
    the (much smaller) text it extracts instead: `extract_html` does.
    """
    decoded = _decide_html(body, content_type, min_confidence)
    if normalise and decoded.text is not None:
        return replace(decoded, text=normalise_text(decoded.text))
    return decoded


def _decide_html(body: bytes, content_type: str | None, min_confidence: float) -> Decoded:
    for bom, codec in _BOMS:
        if body.startswith(bom):
            text = _decode(body, codec)
            if text is not None:
                return _html_decoded(text, codec.removesuffix("-sig"), "bom", 1.0, None)
    found = _declarations(body, content_type)
    in_order = sorted(found, key=lambda item: item[0] != "http")  # as declared: http, meta
    declared = ", ".join(f"{source}:{label}" for source, label, _ in in_order) or None
    if b"\x00" not in body:
        if body.isascii():
            escaped = next((c for _, _, c in found if c.startswith("iso2022")), None)
            text = _decode(body, escaped) if escaped else None
            if escaped and text is not None:
                return _html_decoded(text, escaped, found[0][0], 1.0, declared)
            method = found[0][0] if found else "utf-8"
            return _html_decoded(body.decode("ascii"), "utf-8", method, 1.0, declared)
        text = _decode(body, "utf-8")
        if text is not None:
            agreed = [source for source, _, codec in found if codec == "utf-8"]
            method = agreed[0] if agreed else "utf-8"
            return _html_decoded(text, "utf-8", method, 1.0, declared)
        if all(codec == "utf-8" for _, _, codec in found):
            mixed = decode_mostly_utf8(body)
            if mixed is not None:
                return _html_decoded(mixed, "utf-8", "utf-8-mixed", 1.0, declared)
    for source, _label, codec in found:
        if b"\x00" in body and not codec.startswith(("utf-16", "utf-32")):
            continue
        text = _decode(body, codec)
        if text is None:
            continue
        decoded = _html_decoded(text, codec, source, 1.0, declared)
        if codec in _WESTERN and _looks_misread(body):
            return _decode_by_chardet(body, min_confidence, declared, fallback=decoded)
        return decoded
    return _decode_by_chardet(body, min_confidence, declared)
