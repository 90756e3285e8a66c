"""A Common-Crawl-like archive of a closed world, for `collie scan` (issue 34).

Common Crawl publishes each monthly crawl as segments of WARC files (per page a request,
a response and a metadata record) and WET files (per page a conversion record: the
page's plain text, referring to its response), listed in `warc.paths.gz` and
`wet.paths.gz`. This module writes that layout from a closed world: the world's own
answered HTML pages (its target sites, the relatives' sites, the rest; a sample of
`target_pages` target pages and as many of the others in proportion) diluted with a
bulk of other-language pages so that the target is as rare as on the real web
(`target_rate`, 1 in 1,000 by default). Bulk pages are GENERATED: the UDHR's held-out
articles (21-30; never training text) in a mix of languages weighted like Common
Crawl's (English about 45%, then Russian, German, Japanese, Chinese, Spanish, French...,
and a long tail of 150 languages), laid out by collie.mininet.pages.

The records' order is shuffled (deterministically): a crawl's segments mix sites.
`truth.json` beside the files gives every world page's URL, language and whether it is
a target document (its kind "page", language the target, not a listing page).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import random
import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from collie.mininet.messages import Response
from collie.mininet.pages import build_page
from collie.mininet.worldfile import StoredWorld

CRAWL = "CC-MAIN-2026-47"
SEGMENT = "1763000000000.11"
# Common Crawl's languages by share of pages (rounded from its published statistics), the
# bulk's mix; the rest of the bulk is spread over LONG_TAIL other languages.
HEAD_LANGUAGES = {
    "eng": 0.45,
    "rus": 0.06,
    "deu": 0.055,
    "jpn": 0.05,
    "cmn_hans": 0.045,
    "spa": 0.045,
    "fra": 0.045,
    "ita": 0.025,
    "por": 0.02,
    "pol": 0.018,
    "nld": 0.017,
    "ind": 0.012,
    "tur": 0.011,
    "vie": 0.011,
    "ces": 0.01,
    "kor": 0.007,
    "swe": 0.007,
    "arb": 0.006,
    "pes": 0.006,
    "ukr": 0.006,
}
LONG_TAIL = 150
FETCH_DATE = 1_763_000_000.0  # 2025-11-13, the crawl's first fetch


@dataclass(frozen=True)
class Capture:
    """One page of the archive."""

    url: str
    status: int
    headers: list[tuple[str, str]]
    body: bytes
    lang: str
    target: bool  # a target document of the world
    bulk: bool = False  # GENERATED, not the world's


@dataclass
class ArchiveSummary:
    warc_files: list[str]
    wet_files: list[str]
    records: int  # captures (each a request, response and metadata record in WARC)
    target: int  # target documents among them
    world_pages: int  # pages taken from the world (target, relatives, others)
    bulk: int  # GENERATED other-language pages


def write_archive(
    world_path: Path,
    out: Path,
    *,
    records: int = 10_000,
    target_pages: int = 10,
    files: int = 4,
    seed: int = 1,
) -> ArchiveSummary:
    """Write warc.paths.gz, wet.paths.gz, the files under crawl-data/ and truth.json to
    `out` (module docstring); `records` captures in all, `target_pages` of them the
    world's target documents (fewer when the world has fewer)."""
    rng = random.Random(seed)
    world = StoredWorld(world_path)
    try:
        captures = _world_captures(world, rng, target_pages, records)
        target = world.target
    finally:
        world.close()
    bulk_count = max(0, records - len(captures))
    captures += list(_bulk(rng, bulk_count, target))
    rng.shuffle(captures)
    warc_names, wet_names = write_captures(out, captures, files, rng)
    world_pages = sum(not c.bulk for c in captures)
    return ArchiveSummary(
        warc_names,
        wet_names,
        len(captures),
        sum(c.target for c in captures),
        world_pages,
        len(captures) - world_pages,
    )


def write_captures(
    out: Path, captures: list[Capture], files: int, rng: random.Random
) -> tuple[list[str], list[str]]:
    """`captures`, in their order, as Common Crawl lays them out under `out`: `files`
    WARC files (request, response and metadata records, one gzip member a record) and
    their WET files, warc.paths.gz, wet.paths.gz and truth.json (a capture's URL: its
    language, whether it is a target document, whether it is bulk). Returns the WARC
    and WET files' paths under `out`."""
    base = Path("crawl-data") / CRAWL / "segments" / SEGMENT
    warc_names, wet_names = [], []
    per_file = -(-len(captures) // max(1, files))
    for number in range(max(1, files)):
        part = captures[number * per_file : (number + 1) * per_file]
        if not part:
            break
        stamp = f"CC-MAIN-20251113000000-20251113030000-{number:05d}"
        warc_name = str(base / "warc" / f"{stamp}.warc.gz")
        wet_name = str(base / "wet" / f"{stamp}.warc.wet.gz")
        _write_files(out / warc_name, out / wet_name, part, rng, number * per_file)
        warc_names.append(warc_name)
        wet_names.append(wet_name)
    for name, listed in (("warc.paths.gz", warc_names), ("wet.paths.gz", wet_names)):
        (out / name).write_bytes(gzip.compress("".join(f"{n}\n" for n in listed).encode(), mtime=0))
    truth = {c.url: {"lang": c.lang, "target": c.target, "bulk": c.bulk} for c in captures}
    (out / "truth.json").write_text(json.dumps(truth, sort_keys=True), encoding="utf-8")
    return warc_names, wet_names


def _world_captures(
    world: StoredWorld, rng: random.Random, target_pages: int, records: int
) -> list[Capture]:
    """The world's answered HTML pages: `target_pages` target documents sampled, and of
    the rest the same share (never more than a tenth of `records`)."""
    truths = world.truths()
    pages = [
        t
        for t in truths.values()
        if t.status == 200 and t.kind == "page" and t.url.startswith("http")
    ]
    target = sorted(
        (t for t in pages if t.lang == world.target and not t.listing), key=lambda t: t.url
    )
    others = sorted((t for t in pages if t not in target), key=lambda t: t.url)
    chosen_target = rng.sample(target, min(target_pages, len(target)))
    share = len(chosen_target) / max(1, len(target))
    chosen_others = rng.sample(others, min(len(others), round(len(others) * share), records // 10))
    captures = []
    for truth in chosen_target + chosen_others:
        host, _, path = truth.url.removeprefix("http://").partition("/")
        answer = world.lookup(host, "/" + path)
        if not isinstance(answer, Response):
            continue
        headers, chosen = list(answer.headers), truth in chosen_target
        captures.append(Capture(truth.url, 200, headers, bytes(answer.body), truth.lang, chosen))
    return captures


def _bulk(rng: random.Random, count: int, target: str) -> Iterator[Capture]:
    """GENERATED other-language pages: UDHR articles 21-30 in Common Crawl's mix (never
    the target's own: the world's pages are the only target text of the archive)."""
    from collie.udhr import load_declarations

    declarations = load_declarations()
    texts = {}
    for name, declaration in sorted(declarations.items()):
        held_out = [p for n in range(21, 31) for p in declaration.articles.get(n, [])]
        if len(held_out) >= 5 and declaration.iso6393 != target:
            texts[name] = (declaration.iso6393, held_out)
    head = {name: weight for name, weight in HEAD_LANGUAGES.items() if name in texts}
    tail_pool = sorted(set(texts) - set(head))
    tail = rng.sample(tail_pool, min(LONG_TAIL, len(tail_pool)))
    rest = max(0.0, 1.0 - sum(head.values()))
    names = [*head, *tail]
    weights = [*head.values(), *([rest / len(tail)] * len(tail))] if tail else list(head.values())
    for number in range(count):
        name = rng.choices(names, weights)[0]
        code, paragraphs = texts[name]
        chosen = rng.sample(paragraphs, min(len(paragraphs), rng.randint(2, 6)))
        page = build_page(
            number,
            chosen[0][:60],
            chosen,
            lang=code,
            template=rng.choice(("blog", "news", "portal", "docs", "forum", "wiki", "legacy")),
            padding_kb=rng.randint(1, 12),
            site_seed=rng.randint(0, 2000),
        )
        host = f"bulk-{number % 4000:04d}.{code}.example"
        url = f"http://{host}/{number}.html"
        headers = [("Content-Type", page.content_type), ("Content-Length", str(len(page.body)))]
        yield Capture(url, 200, headers, page.body, code, False, bulk=True)


def _write_files(
    warc_path: Path, wet_path: Path, captures: list[Capture], rng: random.Random, first: int
) -> None:
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    warc_path.parent.mkdir(parents=True, exist_ok=True)
    wet_path.parent.mkdir(parents=True, exist_ok=True)
    with warc_path.open("wb") as warc_out, wet_path.open("wb") as wet_out:
        warc = WARCWriter(warc_out, gzip=True, warc_version="WARC/1.0")
        wet = WARCWriter(wet_out, gzip=True, warc_version="WARC/1.0")
        info = {"software": "collie mininet ccarchive", "isPartOf": CRAWL, "operator": "none"}
        warc.write_record(warc.create_warcinfo_record(warc_path.name, info))
        wet.write_record(wet.create_warcinfo_record(wet_path.name, info))
        for number, capture in enumerate(captures, start=first):
            date = _date(FETCH_DATE + number * 0.37)
            host = capture.url.split("/")[2]
            path = "/" + capture.url.split("/", 3)[3] if capture.url.count("/") >= 3 else "/"
            request = warc.create_warc_record(
                capture.url,
                "request",
                payload=io.BytesIO(b""),
                length=0,
                http_headers=StatusAndHeaders(
                    f"GET {path} HTTP/1.1",
                    [("Host", host), ("User-Agent", "CCBot/2.0"), ("Accept", "text/html")],
                    is_http_request=True,
                ),
                warc_headers_dict={"WARC-Date": date},
            )
            response = warc.create_warc_record(
                capture.url,
                "response",
                payload=io.BytesIO(capture.body),
                length=len(capture.body),
                http_headers=StatusAndHeaders(
                    f"{capture.status} OK", capture.headers, protocol="HTTP/1.1"
                ),
                warc_headers_dict={"WARC-Date": date, "WARC-IP-Address": "10.0.0.1"},
            )
            response_id = response.rec_headers.get_header("WARC-Record-ID")
            request.rec_headers.add_header("WARC-Concurrent-To", response_id)
            fetch_ms = rng.randint(40, 900)
            metadata_text = f"fetchTimeMs: {fetch_ms}\r\ncharset-detected: UTF-8\r\n".encode()
            metadata = warc.create_warc_record(
                capture.url,
                "metadata",
                payload=io.BytesIO(metadata_text),
                length=len(metadata_text),
                warc_content_type="application/warc-fields",
                warc_headers_dict={"WARC-Date": date, "WARC-Concurrent-To": response_id},
            )
            for record in (request, response, metadata):
                warc.write_record(record)
            text = plain_text(capture.body).encode("utf-8")
            conversion = wet.create_warc_record(
                capture.url,
                "conversion",
                payload=io.BytesIO(text),
                length=len(text),
                warc_content_type="text/plain",
                warc_headers_dict={
                    "WARC-Date": date,
                    "WARC-Refers-To": response_id,
                    "WARC-Record-ID": f"<urn:uuid:{uuid.UUID(int=rng.getrandbits(128))}>",
                    "WARC-Block-Digest": "sha1:" + _b32(hashlib.sha1(text).digest()),
                },
            )
            wet.write_record(conversion)


def _date(seconds: float) -> str:
    import time

    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def _b32(digest: bytes) -> str:
    import base64

    return base64.b32encode(digest).decode("ascii")


# The tags that start a new line of the text (_Text): sections and headings, the rest.
_SECTIONS = ("section", "article", "header", "footer", "nav", *(f"h{n}" for n in range(1, 7)))
BLOCKS = {"p", "div", "br", "pre", "blockquote", "title", "li", "tr", "td", "th", *_SECTIONS}


class _Text(HTMLParser):
    """Every text node outside script and style, a line per block (as a WET file has
    it: boilerplate included)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.current: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if tag in ("script", "style"):
            self.skip += 1
        elif tag in BLOCKS:
            self._end_line()

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self.skip = max(0, self.skip - 1)
        elif tag in BLOCKS:
            self._end_line()

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.current.append(data)

    def _end_line(self) -> None:
        line = re.sub(r"\s+", " ", "".join(self.current)).strip()
        if line:
            self.lines.append(line)
        self.current = []


def plain_text(body: bytes) -> str:
    """The page's text as Common Crawl's WET files give it (approximately)."""
    parser = _Text()
    parser.feed(_decode(body))
    parser.close()
    parser._end_line()
    return "\n".join(parser.lines)


def _decode(body: bytes) -> str:
    head = body[:2048].decode("ascii", "replace").lower()
    found = re.search(r"charset=[\"']?([a-z0-9_\-]+)", head)
    try:
        return body.decode(found.group(1) if found else "utf-8", "replace")
    except LookupError:
        return body.decode("utf-8", "replace")
