"""The records passed between the stages of a run and the store: a queued URL, a page
taken from the frontier, what fetching it gave, what became of it (its document, or its
suspicion of being a close relative's), a loop's state, a body to keep; a corpus
document as an export reads it and writes it; a search backend's results. Plain data: no
database, no decisions, no HTTP client (the store reads these without loading one)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Literal

from collie.text import count_words, normal_text

# A page's status: queued (in the frontier), kept (a target document of the corpus),
# duplicate (a target document repeating an earlier one), wronglang (text in another
# language, kept for the odds ratio), dropped (with a reason, collie.reasons).
PageStatus = Literal["queued", "kept", "duplicate", "wronglang", "dropped"]
DocumentKind = Literal["target", "wronglang"]
SuspectLevel = Literal["page", "site"]  # judged on its own text, or with its site


@dataclass(frozen=True)
class QueueEntry:
    url: str
    site: str
    loop: int
    source: str  # search or crawl
    depth: int
    priority: float
    query_id: int | None = None
    referrer_id: int | None = None


@dataclass(frozen=True)
class QueuedPage:
    id: int
    url: str
    site: str
    loop: int
    source: str
    depth: int


@dataclass(frozen=True)
class Exchange:
    """One HTTP request and its answer as they went over the wire, for the workspace's
    WARC files: the request's headers, the response's status line and headers in their
    order (repeats kept), and the body as received (before its Content-Encoding is
    undone), cut where collie stopped reading (`truncated`: "length" at fetch.max_bytes,
    "time" at fetch.read_timeout, "disconnect" when the connection broke, "" whole)."""

    url: str
    request_headers: tuple[tuple[str, str], ...]
    status: int
    reason: str
    http_version: str  # "HTTP/1.1"
    headers: tuple[tuple[str, str], ...]
    body: bytes
    fetched_at: float  # wall-clock time the request was sent
    truncated: str = ""
    method: str = "GET"


@dataclass(frozen=True)
class WarcLocation:
    """Where a record is in the workspace's WARC files (collie.archive.writer): its file's
    name, the offset and length of its gzip member, its WARC-Record-ID, and the payload
    digest of the response (for revisit records of the same payload later)."""

    file: str
    offset: int
    length: int
    record_id: str
    digest: str = ""


@dataclass(frozen=True)
class FetchResult:
    """What fetching one URL gave: a response to process, or a drop with its reason."""

    url: str  # as requested
    final_url: str  # after redirects (== url without any)
    status: int | None  # HTTP status of the final response; None when there was none
    headers: dict[str, str] = field(default_factory=dict)  # final response, lower-case names
    body: bytes = b""  # at most fetch.max_bytes
    truncated: bool = False  # the body was cut at fetch.max_bytes
    redirects: tuple[str, ...] = ()  # every hop's URL, in order
    outcome: str = "fetched"  # "fetched" or "dropped"
    reason: str | None = None  # drop reason: "robots", "not-html:application/pdf", "http-404"...
    fetched_at: float = 0.0  # wall-clock time of the final request (time.time())
    elapsed: float = 0.0  # seconds spent on this URL, waiting included
    # every HTTP exchange of this fetch, in order: robots.txt, redirect hops, retried
    # answers and the final one (what the WARC files keep)
    exchanges: tuple[Exchange, ...] = ()
    # what the origin's /.well-known/tdmrep.json says of the final URL (collie.fetch.
    # tdmrep): 1 reserved, 0 not reserved, None nothing
    tdmrep: int | None = None


@dataclass(frozen=True)
class ParagraphSketch:
    """The long paragraphs of a document: every key (for lookups), the few smallest
    (collie.decide.dedup.SKETCH of them, what an index keeps) and their total length in
    characters."""

    keys: frozenset[int]
    sketch: tuple[int, ...]
    chars: int

    def to_text(self) -> str:
        """The stored form: "chars:key,key,..." (hex keys, the sketch only)."""
        return f"{self.chars}:" + ",".join(f"{k:x}" for k in self.sketch)

    @classmethod
    def from_text(cls, text: str) -> ParagraphSketch:
        chars, _, keys = text.partition(":")
        sketch = tuple(int(k, 16) for k in keys.split(",") if k)
        return cls(frozenset(sketch), sketch, int(chars or 0))


@dataclass
class DocumentRow:
    kind: DocumentKind
    lang: str
    text: str
    paragraphs: list[tuple[str, str, float]]  # (text, lang, probability)
    words: int
    duplicate_of: int | None = None  # filled in by `record`
    exact_key: str | None = None  # fingerprints, when computed already (on a worker)
    simhash: int | None = None
    sketch: ParagraphSketch | None = None


@dataclass
class SuspectRow:
    """A page that looks like a close relative of a target learnt from documents: most of
    its text nearest to the target failed the target's open-set tests."""

    level: SuspectLevel
    pass_share: float  # of its (or its site's) target-like letters, those taken for it
    text: str
    paragraphs: list[tuple[str, str, float, bool]]  # (text, lang, probability, near)
    words: int


@dataclass
class PageOutcome:
    """What became of one queued page; `status` is kept, wronglang or dropped (record
    turns a kept page whose text duplicates an earlier document into `duplicate`)."""

    page_id: int
    site: str
    status: PageStatus
    reason: str | None = None
    final_url: str | None = None
    http_status: int | None = None
    fetched_at: float | None = None
    encoding: str | None = None
    encoding_method: str | None = None
    title: str | None = None
    lang_attribute: str | None = None
    lang: str | None = None
    lang_prob: float | None = None
    target_share: float | None = None
    text_chars: int | None = None
    body_sha1: str | None = None
    content_type: str | None = None
    document: DocumentRow | None = None
    links: list[tuple[str, str]] = field(default_factory=list)
    cards: bool = False  # a page of cards by its links (Page.cards): listing evidence
    target_letters: int = 0  # letters identified as the target
    near_letters: int = 0  # letters nearest to a learnt target but failing its tests
    suspect: SuspectRow | None = None  # a relative's page, maybe (status dropped)
    warc: WarcLocation | None = None  # its final answer's record in the WARC files
    licence: str | None = None  # the licence the page states (SPDX; collie.page.rights)
    tdm: str | None = None  # where it reserves text and data mining (collie.page.rights)
    tdm_file: int | None = None  # its site's tdmrep.json's verdict (FetchResult.tdmrep)
    # how its language was identified (collie.mining.provenance): the model's version and
    # SHA-256, its langid.threshold, the margin between the top two languages' shares of
    # its letters and the characters the model classified; None: not identified
    lid_model: str | None = None
    lid_sha256: str | None = None
    lid_threshold: float | None = None
    lid_margin: float | None = None
    lid_chars: int | None = None


@dataclass(frozen=True)
class LoopState:
    number: int
    searched: bool
    finished: bool


@dataclass(frozen=True)
class CompressedBody:
    sha1: str  # of the raw body
    data: bytes  # gzip, level 6, no timestamp: the same body gives the same file


@dataclass
class Examined:
    """One page as a worker leaves it: the outcome to record, the body to keep, and for
    a short page its text, waiting for the vote of the pages linking to it."""

    queued: QueuedPage
    outcome: PageOutcome
    body: CompressedBody | None = None
    short_text: str | None = None  # set: the language is the driver's to decide
    short_paragraphs: list[str] = field(default_factory=list)
    short_labels: list[tuple[str, str, float]] = field(default_factory=list)  # the model's own
    exchanges: tuple[Exchange, ...] = ()  # the fetch's HTTP exchanges, for the WARC files


@dataclass(frozen=True)
class CachedPage:
    """A recorded page whose raw body was kept: in the WARC files (the record holding its
    payload: its own, or for a revisit the first answer with that payload) or, without
    them, in the body cache; a page a scan found has its record in the archive file too."""

    id: int
    url: str
    site: str
    loop: int
    source: str
    depth: int
    final_url: str | None
    http_status: int | None
    fetched_at: float | None
    content_type: str | None
    encoding: str | None
    encoding_method: str | None
    body_sha1: str
    status: PageStatus  # before reprocessing
    warc_file: str | None = None
    warc_offset: int | None = None
    # found by `collie scan`: the archive file's record (a response, or a WET conversion)
    archive_file: str | None = None
    archive_offset: int | None = None
    archive_kind: str | None = None
    tdm_file: int | None = None  # its site's tdmrep.json's verdict when it was fetched


@dataclass(frozen=True)
class Referrer:
    """A classified page that links to a URL."""

    lang: str  # its language (ISO 639-3 or "und")
    text_bytes: int  # its amount of text
    lang_attribute: str = ""  # its <html lang>, as written


@dataclass(frozen=True)
class Segment:
    """One paragraph of a document as an export sees it (collie.decide.segments)."""

    text: str
    language: str  # the paragraph's label (`und`: not identified)
    target: float  # the share of its letters in the target language
    kept: bool  # written by a target-language export


@dataclass(frozen=True)
class ExportRow:
    """A corpus document (or a relative-suspected page) as an export reads it from the
    store (`CorpusStore.export_rows`, `suspect_rows`): its page's facts and its
    paragraphs; `segments` once the export has marked them. `to_json` is its JSON-lines
    object."""

    id: int  # the document's (a suspect's: its page's)
    site: str
    url: str
    final_url: str | None
    title: str | None
    loop: int
    source: str  # search, crawl or archive
    depth: int
    query: str | None  # the query whose result it was
    referrer: str | None  # the URL of the page linking to it
    lang: str | None
    lang_prob: float | None
    target_share: float | None
    words: int
    encoding: str | None
    encoding_method: str | None
    fetched_at: float | None  # Unix time
    simhash: str | None  # 16 hex digits (None: a suspect)
    paragraphs: list[tuple[str, str, float]]  # (text, lang, probability), teasers left out
    teasers: int = 0  # teaser paragraphs left out (collie.decide.teasers)
    warc_file: str | None = None  # where the answer is in warc/ (None: not archived)
    warc_offset: int | None = None
    warc_length: int | None = None
    warc_record_id: str | None = None
    warc_digest: str | None = None  # its payload's
    level: SuspectLevel | None = None  # a suspect's (None: a corpus document)
    pass_share: float | None = None
    label: str | None = None  # a suspect's review label
    segments: list[Segment] | None = None  # the paragraphs as the export marked them
    site_labels: tuple[str, ...] = ()  # its site's (collie.decide.sitelabels)
    licence: str | None = None  # the licence its page states (SPDX), None: none found
    tdm: str | None = None  # where its page reserves text and data mining, None: nowhere
    lid_model: str | None = None  # how its language was identified (PageOutcome's)
    lid_sha256: str | None = None
    lid_threshold: float | None = None
    lid_margin: float | None = None
    lid_chars: int | None = None

    def warc_pointer(self) -> dict[str, Any] | None:
        """Where the answer its text came from is in the workspace's WARC files (the file
        under the workspace, the offset and length of its gzip member, its
        WARC-Record-ID), or None (fetched before the workspace kept WARC files, or
        warc.keep left it out)."""
        if not self.warc_file:
            return None
        return {
            "file": f"warc/{self.warc_file}",
            "offset": self.warc_offset,
            "length": self.warc_length,
            "record_id": self.warc_record_id,
        }

    def langid(self) -> dict[str, Any] | None:
        """How its language was identified: the model's version and SHA-256, its
        threshold (langid.threshold), the margin between the top two languages' shares
        of its letters, the characters classified; None for a page identified before
        collie kept them (`collie reprocess` fills them in)."""
        if self.lid_chars is None:
            return None
        return {
            "model": self.lid_model,
            "sha256": self.lid_sha256,
            "threshold": self.lid_threshold,
            "margin": self.lid_margin,
            "chars": self.lid_chars,
        }

    def to_json(self, text: str) -> dict[str, Any]:
        """The JSON-lines object of the document (keys in this order): `text` as written,
        and `paragraphs`, the whole document (each paragraph with its language, its
        target share and whether `text` holds it: `segments`)."""
        record: dict[str, Any] = {
            "id": self.id,
            "url": self.url,
            "final_url": self.final_url or self.url,
            "title": self.title,
            "loop": self.loop,
            "source": self.source,
            "depth": self.depth,
            "query": self.query,
            "referrer": self.referrer,
            "language": self.lang,
            "probability": self.lang_prob,
            "target_share": self.target_share,
            "words": count_words(text),
            "encoding": self.encoding,
            "encoding_method": self.encoding_method,
            "fetched_at": iso_time(self.fetched_at),
            "simhash": self.simhash,
            "warc": self.warc_pointer(),
            "site_labels": list(self.site_labels),
            "licence": self.licence,
            "tdm_reserved": self.tdm,
            "langid": self.langid(),
            "text": text,
            "paragraphs": [
                {
                    "text": normal_text(m.text),
                    "language": m.language,
                    "target": m.target,
                    "kept": m.kept,
                }
                for m in self.segments or ()
            ],
        }
        if self.level is not None:
            record |= {"suspected": self.level, "pass_share": self.pass_share}
        return record


def iso_time(stamp: float | None) -> str | None:
    """A Unix time as ISO 8601 in UTC, as `collie status` prints times."""
    if stamp is None:
        return None
    return dt.datetime.fromtimestamp(stamp, dt.timezone.utc).isoformat(timespec="seconds")


@dataclass(frozen=True)
class SearchResult:
    url: str
    title: str
    snippet: str
    rank: int  # 1-based, across pages (offset + position)
    backend: str


@dataclass(frozen=True)
class SearchResponse:
    results: list[SearchResult]
    raw: list[Any]  # the backend's own result list, as received (keys never in it)
