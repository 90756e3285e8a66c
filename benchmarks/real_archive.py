"""A Common-Crawl-style archive of REAL pages, for bench_scan.py (issue 54).

The bulk: every page of the extraction development set (../shared/data/extraction-dev,
945 real pages, mostly German and English news and blogs) and of WCXB's dev split
(../shared/data/wcxb-dev, 1,497 real pages of 2025: articles, forums, docs, shops,
listings), served as they were kept (bytes as served; `Content-Type: text/html`, the
charset left to collie's detection, as a server that names none). The target: pages of
real news text in the target language (../shared/data/news-text, one sentence a line),
about 1 page in 100, each a run of consecutive sentences wrapped in a news site's HTML
(a menu, a heading, paragraphs, an English footer), half of them on a host under the
target's country domain (.co.za for Zulu). The sentences of the file's head are the
user's documents (`collie init --docs`), held apart: no target page uses them.

Written as Common Crawl lays a crawl out (collie.mininet.ccarchive.write_captures: per
page a request, a response and a metadata record, one gzip member a record; WET files
beside), in a fixed shuffled order. Each set is read when present; the builder says
which are absent (a fresh clone has none: then there is no archive).
"""

from __future__ import annotations

import gzip
import html
import json
import random
from pathlib import Path

from collie.mininet.ccarchive import Capture, write_captures

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
EXTRACTION = SHARED / "extraction-dev"
WCXB = SHARED / "wcxb-dev" / "dev"
NEWS = SHARED / "news-text"
SEED_WORDS = 20_000  # of the target's file's head: the user's documents
SEED_SENTENCES = 25  # a seed document's
COUNTRY = {"zul": "co.za", "xho": "co.za", "tsn": "co.za", "sna": "co.zw", "nya": "mw",
           "kin": "rw", "swa": "co.ke"}  # fmt: skip
MENU = ("Ekhaya", "Izindaba", "Ezemidlalo", "Ezokungcebeleka", "Ezamabhizinisi")


def missing_sets() -> list[str]:
    """The development sets this archive reads that are not here."""
    sets = {"extraction-dev": EXTRACTION / "evaldata.json", "wcxb-dev": WCXB / "html",
            "news-text": NEWS}  # fmt: skip
    return [name for name, path in sets.items() if not path.exists()]


def real_pages() -> list[Capture]:
    """The bulk: every page of extraction-dev and wcxb-dev that is there, each once."""
    pages: dict[str, Capture] = {}
    headers = [("Content-Type", "text/html")]
    if (EXTRACTION / "evaldata.json").exists():
        evaldata = json.loads((EXTRACTION / "evaldata.json").read_text(encoding="utf-8"))
        for key, entry in sorted(evaldata.items()):
            url = _url(key)
            path = EXTRACTION / "html" / entry["file"]
            if path.exists() and url not in pages:
                body = gzip.decompress(path.read_bytes())
                pages[url] = Capture(url, 200, headers, body, "extraction-dev", False, bulk=True)
    if (WCXB / "html").exists():
        for path in sorted((WCXB / "html").glob("*.html.gz")):
            truth = WCXB / "ground-truth" / path.name.replace(".html.gz", ".json")
            url = json.loads(truth.read_text(encoding="utf-8")).get("url")
            if url and url not in pages:  # one page of the set has no URL: left out
                body = gzip.decompress(path.read_bytes())
                pages[url] = Capture(url, 200, headers, body, "wcxb-dev", False, bulk=True)
    return list(pages.values())


def _url(key: str) -> str:
    """An extraction-dev page's URL: its key, but for a few keyed by file name
    ("hard::site.com-name.html"), given one on their site."""
    if key.startswith("http"):
        return key
    name = key.split("::")[-1].removeprefix("x")
    if name.startswith("http"):
        return name
    return f"https://{name.split('-')[0]}/{name}"


def split_news(lang: str) -> tuple[list[str], list[str]]:
    """The target's sentences: (the head, SEED_WORDS words: the user's documents; the
    rest, for the target pages)."""
    lines = [line.strip() for line in (NEWS / f"{lang}.txt").read_text("utf-8").splitlines()]
    lines = [line for line in lines if line]
    words = 0
    for cut, line in enumerate(lines):
        words += len(line.split())
        if words >= SEED_WORDS:
            return lines[: cut + 1], lines[cut + 1 :]
    return lines, []


def target_page(lang: str, number: int, sentences: list[str]) -> Capture:
    """A news site's article page of `sentences` (module docstring)."""
    country = number % 2 == 0
    host = f"www.izindaba-{number:02d}.{COUNTRY.get(lang, 'org') if country else 'com'}"
    url = f"https://{host}/{2025 - number % 3}/izindaba/{number}"
    title = html.escape(" ".join(sentences[0].split()[:9]))
    paragraphs = [" ".join(sentences[i : i + 3]) for i in range(1, len(sentences), 3)]
    body = "".join(f"<p>{html.escape(p)}</p>\n" for p in paragraphs)
    menu = "".join(f'<li><a href="/{m.lower()}">{m}</a></li>' for m in MENU)
    page = (
        f'<!DOCTYPE html>\n<html lang="{lang[:2]}"><head><meta charset="utf-8">'
        f"<title>{title}</title>"
        '<link rel="stylesheet" href="/static/site.css"><script src="/static/app.js"></script>'
        f"</head>\n<body><header><nav><ul>{menu}</ul></nav></header>\n"
        f"<main><article><h1>{title}</h1>\n{body}</article></main>\n"
        "<footer><p>Privacy policy | Terms of use | Contact us</p>"
        f"<p>&copy; 2025 Izindaba {number}. All rights reserved.</p></footer></body></html>\n"
    )
    headers = [("Content-Type", "text/html; charset=utf-8")]
    return Capture(url, 200, headers, page.encode("utf-8"), lang, True)


def build_real_archive(out: Path, lang: str = "zul", rate: float = 0.01, files: int = 4) -> Path:
    """The archive (module docstring) under `out`, built once; the seed folder (the
    user's documents) beside its files. Returns `out`."""
    if (out / "done").exists():
        return out
    rng = random.Random(54)
    bulk = real_pages()
    seeds, rest = split_news(lang)
    count = max(1, round(len(bulk) * rate / (1 - rate)))
    targets, at = [], 0
    for number in range(count):
        length = rng.randint(12, 40)
        if at + length > len(rest):
            break
        targets.append(target_page(lang, number, rest[at : at + length]))
        at += length + rng.randint(0, 30)  # articles are not marked: a gap between pages
    captures = bulk + targets
    rng.shuffle(captures)
    out.mkdir(parents=True, exist_ok=True)
    write_captures(out, captures, files, rng)
    folder = out / "seeds"
    folder.mkdir(exist_ok=True)
    for number in range(0, len(seeds), SEED_SENTENCES):
        text = "\n".join(seeds[number : number + SEED_SENTENCES]) + "\n"
        (folder / f"{lang}-{number // SEED_SENTENCES:03d}.txt").write_text(text, "utf-8")
    (out / "done").write_text(json.dumps({"bulk": len(bulk), "target": len(targets)}))
    return out
