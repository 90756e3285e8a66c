"""Bytes -> UTF-8 text.

For now: plain-text files (the user's seed documents). A byte-order mark wins, then a
strict UTF-8 decode, then chardet, trusted only at or above a confidence threshold
(CorpusCollie's 0.7). The result is NFC with Unix newlines. A file that cannot be
decoded is reported as data (`Decoded.reason`), not raised.
"""

from __future__ import annotations

import codecs
import unicodedata
from dataclasses import dataclass

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
    method: str  # "bom", "utf-8", "chardet", "given", or "failed"
    confidence: float
    reason: str | None = None  # why text is None: "binary", "encoding-uncertain", ...


def normalise_text(text: str) -> str:
    """NFC, Unix newlines, no NUL characters."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    return unicodedata.normalize("NFC", text)


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
