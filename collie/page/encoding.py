"""Bytes -> UTF-8 text.

`decode_text_file`: plain-text files (the user's seed documents). A byte-order mark
wins, then a strict UTF-8 decode, then chardet, trusted only at or above a confidence
threshold (CorpusCollie's 0.7). `decode_html`: fetched pages (the order is described
above it; what a page declares and what chardet guesses come from charset.py). Results
are NFC with Unix newlines. Bytes that cannot be decoded are reported as data
(`Decoded.reason`), not raised.
"""

from __future__ import annotations

import codecs
import unicodedata
from dataclasses import dataclass, replace

import chardet

from collie.page.charset import (
    WESTERN_CODECS,
    ascii_share,
    ask_chardet,
    display_name,
    find_declarations,
    looks_like_text,
    looks_misread,
    visible_bytes,
)

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


MOSTLY_ASCII = 0.98  # visible text at least this ASCII needs no guess (see decode_html)
VERIFIED_FLOOR = 0.3  # chardet guesses below this are never kept, verified or not


def _decode_by_chardet(
    body: bytes, min_confidence: float, declared: str | None, fallback: Decoded | None = None
) -> Decoded:
    """chardet over the visible text; `fallback` is a declaration that looked misread."""
    sample = visible_bytes(body)
    share, has_nul = ascii_share(sample), b"\x00" in body
    if share == 1 and not has_nul and fallback is None:
        return _decode_mostly_ascii(body, share, declared)  # nothing for chardet to see
    codec, confidence = ask_chardet(body[:65536] if has_nul else sample)
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
    found = find_declarations(body, content_type)
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
        if codec in WESTERN_CODECS and looks_misread(body):
            return _decode_by_chardet(body, min_confidence, declared, fallback=decoded)
        return decoded
    return _decode_by_chardet(body, min_confidence, declared)
