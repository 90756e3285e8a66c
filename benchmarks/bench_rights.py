"""The rights of a page (issue 57): its Creative Commons licence and any reservation of
text and data mining, as collie.page.rights reads them, measured on a closed world with
planted signals, beside a naive baseline measured in the same run.

The world: `make demo`'s generator (300 sites), whose build plants (collie.mininet.rights)
in about one HTML page in five a licence (a rel="license" link, a dcterms.license or
dc.rights meta, CC0, a ported NC-ND licence), a reservation (the TDMRep header or meta,
robots noai, X-Robots-Tag noai), both, or a decoy stating neither (tdm-reservation: 0, a
plain robots meta, a description naming creativecommons.org). Every HTML page of the world
goes through collie's page processing (collie.page.process, as a fetched answer does) and
its rights are compared with the planted truth (no signal: no licence, no reservation):

- licences: planted, found with the right SPDX identifier, missed, wrong, invented;
- reservations: planted, found (by the right source), missed, invented.

Some target sites of the world also serve a `/.well-known/tdmrep.json` (one reserving a
section, the next the whole site; mininet.rights.plant_tdmrep), which no page links to.
The world is served on 127.0.0.1 as `collie demo` serves it, and collie's fetch layer
(Fetcher.robots_for: robots.txt, then tdmrep.json once per host, paced) reads each host's
file; each page's rights are then weighed with what the file says of its URL
(collie.page.rights.with_site_file), as a run does. The baseline never reads the file.

Baseline: substring search, as a quick script would do it: a licence when
"creativecommons.org/licenses/" or "creativecommons.org/publicdomain/" is in the page
(identified by the first such URL), a reservation when "tdm-reservation" or "noai" is in
the head or the headers.

Target (issue 57): every planted licence and reservation found, none invented. These
figures are on pages the project generated. Real pages (../shared/data/extraction-dev, 945
pages as served; no rights truth): the licences and reservations found are counted and
the first few printed with their source, for a reader to check; said when absent.

Run: python benchmarks/bench_rights.py   (a few seconds once the world is built)
"""

from __future__ import annotations

import gzip
import logging
import os
import re
import sys
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

from collie.fetch.fetcher import FetchConfig, Fetcher
from collie.fetch.robots import RobotsRecord
from collie.mininet.demo import demo_options, ensure_world
from collie.mininet.server import MiniWebServer
from collie.mininet.worldfile import StoredWorld
from collie.models import FetchResult
from collie.page.process import process
from collie.page.rights import detect_rights, licence_of_url, with_site_file

REAL = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "extraction-dev"
_CC = re.compile(r"creativecommons\.org/(?:licenses|publicdomain)/[^\s\"'<>]*", re.I)


def baseline(body: str, headers: dict[str, str]) -> tuple[str | None, str | None]:
    """Substring search: the first creativecommons.org licence URL, and "tdm-reservation"
    or "noai" anywhere in the head or the headers."""
    found = _CC.search(body)
    licence = licence_of_url(found[0]) if found else None
    head = body.split("</head>", 1)[0].lower() + " ".join(headers).lower()
    head += " ".join(headers.values()).lower()
    tdm = "found" if ("tdm-reservation" in head or "noai" in head) else None
    return licence, tdm


class Score:
    def __init__(self) -> None:
        self.n = Counter[str]()

    def licence(self, truth: str | None, got: str | None) -> None:
        self.n["licence planted"] += truth is not None
        if truth is not None and got == truth:
            self.n["licence found"] += 1
        elif truth is not None and got is None:
            self.n["licence missed"] += 1
        elif truth is not None:
            self.n["licence wrong"] += 1
        elif got is not None:
            self.n["licence invented"] += 1

    def tdm(self, truth: str | None, got: str | None, exact: bool) -> None:
        self.n["tdm planted"] += truth is not None
        if truth is not None and got is not None and (got == truth or not exact):
            self.n["tdm found"] += 1
        elif truth is not None and got is not None:
            self.n["tdm wrong source"] += 1
        elif truth is not None:
            self.n["tdm missed"] += 1
        elif got is not None:
            self.n["tdm invented"] += 1

    def line(self) -> str:
        keys = ("licence planted", "licence found", "licence missed", "licence wrong",
                "licence invented", "tdm planted", "tdm found", "tdm wrong source",
                "tdm missed", "tdm invented")  # fmt: skip
        return ", ".join(f"{k} {self.n[k]}" for k in keys)


def site_files(world: StoredWorld, urls: list[str]) -> tuple[dict[str, RobotsRecord], float]:
    """Each host's robots.txt and tdmrep.json as collie's fetch layer reads them, the
    world served on 127.0.0.1 behind its proxy; and the seconds it took."""
    origins = sorted({f"{urlsplit(u).scheme}://{urlsplit(u).netloc}" for u in urls})
    started = time.perf_counter()
    with MiniWebServer(world) as server:
        os.environ.update(HTTP_PROXY=server.proxy_url, http_proxy=server.proxy_url)
        for name in ("NO_PROXY", "no_proxy", "HTTPS_PROXY", "https_proxy"):
            os.environ.pop(name, None)
        with Fetcher(FetchConfig(delay=0.0, retries=0, robots_retry=3600.0)) as fetcher:
            records = {origin: fetcher.robots_for(f"{origin}/") for origin in origins}
    return records, time.perf_counter() - started


def measure_world() -> bool:
    path, built = ensure_world(demo_options())
    world = StoredWorld(path)
    truth_of = world.rights
    collie, naive = Score(), Score()
    pages = 0
    spent = alone = 0.0
    htmls = [u for u, t in world.truths().items() if t.kind == "page" and t.status == 200]
    logging.getLogger("collie").setLevel(logging.ERROR)  # the world's failing robots.txt
    records, fetching = site_files(world, htmls)
    files = sum(bool(r.tdmrep) for r in records.values())
    for url, truth in world.truths().items():
        if truth.kind != "page" or truth.status != 200:
            continue
        parts = urlsplit(url)
        served = world.lookup(parts.netloc, parts.path + (f"?{parts.query}" if parts.query else ""))
        if served is None or not hasattr(served, "body"):
            continue
        headers = {k.lower(): v for k, v in served.headers}
        pages += 1
        started = time.perf_counter()
        page = process(url, FetchResult(url, url, 200, headers, served.body))
        record = records[f"{parts.scheme}://{parts.netloc}"]
        rights = with_site_file(page.rights, record.tdm_reservation(url))
        spent += time.perf_counter() - started
        licence, tdm = truth_of.get(url, (None, None))
        collie.licence(licence, rights.licence)
        collie.tdm(tdm, rights.tdm, exact=True)
        text = served.body.decode("utf-8", "replace")
        started = time.perf_counter()
        detect_rights(text, headers)
        alone += time.perf_counter() - started
        got = baseline(text, headers)
        naive.licence(licence, got[0])
        naive.tdm(tdm, got[1], exact=False)
    planted = sum(1 for t in truth_of.values() if t != (None, None))
    decoys = sum(1 for t in truth_of.values() if t == (None, None))
    by_file = sum(1 for t in truth_of.values() if t[1] == "tdmrep-file")
    print(f"world {path.name} ({'built now' if built else 'cached'}): {pages} HTML pages, "
          f"{planted} with a planted signal ({by_file} reserved by their site's "
          f"tdmrep.json), {decoys} with a decoy (generated pages)")  # fmt: skip
    print(f"  robots.txt and tdmrep.json of {len(records)} hosts read through the fetch "
          f"layer in {fetching:.1f} s: {files} hosts serve a tdmrep.json")  # fmt: skip
    print(f"  collie:   {collie.line()}")
    print(f"  baseline: {naive.line()}")
    per = 1000 / max(pages, 1)
    print(f"  detect_rights {alone * per:.2f} ms a page, the whole page processing (rights "
          f"included) {spent * per:.2f} ms: rights take {alone / spent:.1%} of it")  # fmt: skip
    wrong = ("licence missed", "licence wrong", "licence invented", "tdm missed",
             "tdm wrong source", "tdm invented")  # fmt: skip
    ok = not any(collie.n[k] for k in wrong)
    print(f"  target (every planted signal found, none invented): {'met' if ok else 'NOT met'}")
    return ok


def measure_real() -> None:
    folder = REAL / "html"
    if not folder.is_dir():
        print(f"real pages: {REAL} is absent; skipped")
        return
    licences, reservations, shown = Counter[str](), Counter[str](), []
    files = sorted(folder.glob("*.html.gz"))
    started = time.perf_counter()
    for file in files:
        html = gzip.decompress(file.read_bytes()).decode("utf-8", "replace")
        rights = detect_rights(html)
        if rights.licence:
            licences[f"{rights.licence} ({rights.licence_source})"] += 1
        if rights.tdm:
            reservations[rights.tdm] += 1
        if (rights.licence or rights.tdm) and len(shown) < 8:
            shown.append(f"{file.name}: {rights.licence} {rights.licence_source} {rights.tdm}")
    took = (time.perf_counter() - started) / max(len(files), 1) * 1000
    print(f"real pages ({len(files)}, extraction-dev, bodies only: no headers, no truth): "
          f"{sum(licences.values())} with a licence, {sum(reservations.values())} reserving "
          f"TDM; detect_rights {took:.2f} ms a page")  # fmt: skip
    for name, n in licences.most_common():
        print(f"  {name}: {n}")
    for name, n in reservations.most_common():
        print(f"  tdm {name}: {n}")
    for line in shown:
        print(f"  e.g. {line}")


if __name__ == "__main__":
    met = measure_world()
    measure_real()
    sys.exit(0 if met else 1)
