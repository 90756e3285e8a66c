"""A closed world on disk: one SQLite file with every answer, the ground truth and the
search index (FTS5, BM25), and `StoredWorld`, which serves it.

Tables: `meta` (format, options, sources), `pages` (every URL: status, headers, body,
delay; and its truth: kind, language shares, main text and each line's language,
duplicate group, indexed, disallowed, reachable, listing page or not), `traps`
(endless URL spaces served from a template with `@@N@@` and `@@NEXT@@`), `seed_docs`
(target text kept out of the world's pages, for `collie init`), `sites` (every host's
kind, language and the labels a site labeller should give it), `search` (FTS5 over the
title and main text of the pages a search engine has indexed).
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from collie.errors import InputError
from collie.files import atomic_path
from collie.mininet.messages import Behaviour, Response, normalise_host
from collie.mininet.reach import REACH
from collie.mininet.records import SiteTruth, Trap, Truth, World
from collie.mininet.search import RESULTS_PER_PAGE, SearchHit, SearchPage, tokenise

FORMAT = "collie-mininet-world/4"  # 2: reachable says how; 3: listing, line_langs; 4: sites
SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE pages (
    url TEXT PRIMARY KEY, site TEXT NOT NULL, status INTEGER NOT NULL, headers TEXT NOT NULL,
    body BLOB NOT NULL, delay REAL NOT NULL, encoding TEXT NOT NULL, kind TEXT NOT NULL,
    lang TEXT NOT NULL, shares TEXT NOT NULL, title TEXT NOT NULL, main_text TEXT NOT NULL,
    dup_group TEXT NOT NULL,
    indexed INTEGER NOT NULL, disallowed INTEGER NOT NULL,
    reachable INTEGER NOT NULL,  -- 0 = no, else 1 + the index of how in reach.REACH
    listing INTEGER NOT NULL,  -- a hub page of teasers: not a document
    line_langs TEXT NOT NULL);  -- JSON: the language of each line of main_text
CREATE TABLE traps (site TEXT NOT NULL, prefix TEXT NOT NULL, headers TEXT NOT NULL,
    body BLOB NOT NULL, lang TEXT NOT NULL, main_text TEXT NOT NULL, PRIMARY KEY (site, prefix));
CREATE TABLE sites (host TEXT PRIMARY KEY, kind TEXT NOT NULL, lang TEXT NOT NULL,
    labels TEXT NOT NULL,  -- JSON: the labels a site labeller should give it
    target_pages INTEGER NOT NULL);  -- pages with >= 5% target text
CREATE TABLE seed_docs (name TEXT PRIMARY KEY, lang TEXT NOT NULL, text TEXT NOT NULL);
CREATE VIRTUAL TABLE search USING fts5(url UNINDEXED, title, body,
    tokenize = 'unicode61 remove_diacritics 0');
"""
_ROW = ",".join("?" * 18)
TARGET_SHARE = 0.05  # a page with target text (score.SOME)
_SITE = re.compile(r"\bsite:(\S+?)\)?(?=\s|$)", re.I)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def write_world(out: Path, world: World) -> None:
    """Write `world` to `out` through a temporary file (an interrupted build leaves nothing)."""
    with atomic_path(out) as tmp:
        db = sqlite3.connect(tmp)
        try:
            with db:
                db.executescript(SCHEMA)
                _write_rows(db, world)
        finally:
            db.close()


def _write_rows(db: sqlite3.Connection, world: World) -> None:
    opts = world.options
    meta = {
        "format": FORMAT,
        "target": opts.target,
        "languages": _json(sorted(world.texts)),
        "sites": str(opts.sites),
        "seed": str(opts.seed),
        "sources": _json({c: t.source for c, t in sorted(world.texts.items())}),
        "relatives": _json(world.relatives),
        "rights": _json({url: list(truth) for url, truth in world.rights.items()}),
    }
    db.executemany("INSERT INTO meta VALUES (?, ?)", sorted(meta.items()))
    robots = [_robots_row(host, text) for host, text in sorted(world.robots.items())]
    db.executemany(f"INSERT INTO pages VALUES ({_ROW})", robots)
    for url, p in sorted(world.pages.items()):
        db.execute(
            f"INSERT INTO pages VALUES ({_ROW})",
            (
                url,
                p.site,
                p.status,
                _json(p.headers),
                p.body,
                p.delay,
                p.encoding,
                p.kind,
                p.lang,
                _json(p.shares),
                p.title,
                p.main_text,
                p.dup_group or url,
                int(p.indexed),
                int(p.disallowed),
                REACH.index(p.reach) + 1 if p.reach else 0,
                int(p.listing),
                _json(p.line_langs),
            ),
        )
        if p.indexed and p.status == 200 and p.kind == "page":
            db.execute("INSERT INTO search VALUES (?, ?, ?)", (url, p.title, p.main_text))
    for t in sorted(world.traps, key=lambda t: (t.site, t.prefix)):
        db.execute(
            "INSERT INTO traps VALUES (?,?,?,?,?,?)",
            (t.site, t.prefix, _json(t.headers), t.body, t.lang, t.main_text),
        )
    db.executemany(
        "INSERT INTO seed_docs VALUES (?, ?, ?)",
        [
            (f"seed-{i + 1:03d}.txt", opts.target, text)
            for i, text in enumerate(_seed_files(world.seed_docs))
        ],
    )
    db.executemany("INSERT INTO sites VALUES (?, ?, ?, ?, ?)", _site_rows(world))
    db.execute("INSERT INTO search(search) VALUES ('optimize')")


def _site_rows(world: World) -> list[tuple[Any, ...]]:
    target = world.options.target
    counts: dict[str, int] = {}
    for p in world.pages.values():
        if p.kind == "page" and p.status == 200 and p.share(target) >= TARGET_SHARE:
            counts[p.site] = counts.get(p.site, 0) + 1
    return [
        (host, s.kind, s.lang, _json(list(s.labels)), counts.get(host, 0))
        for host, s in sorted(world.sites.items())
    ]


def _robots_row(host: str, text: str) -> tuple[Any, ...]:
    status = 200 if text else 500
    headers = [("Content-Type", "text/plain")]
    return (
        f"http://{host}/robots.txt",
        host,
        status,
        _json(headers),
        text.encode(),
        0.0,
        "utf-8",
        "robots",
        "",
        "{}",
        "",
        "",
        f"http://{host}/robots.txt",
        0,
        0,
        0,
        0,
        "[]",
    )


def _seed_files(paragraphs: list[str], per_file: int = 6) -> Iterator[str]:
    for start in range(0, len(paragraphs), per_file):
        yield "\n\n".join(paragraphs[start : start + per_file]) + "\n"


class WorldFile:
    """Read access to a world file (thread-safe: one connection behind a lock)."""

    def __init__(self, path: Path):
        if not path.is_file():
            raise InputError(
                f"{path}: no such world file.", "Build one with `collie mininet build`."
            )
        self.path = path
        self._db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        self._lock = threading.Lock()
        try:
            self.meta = dict(self._query("SELECT key, value FROM meta"))
        except sqlite3.DatabaseError as exc:
            raise InputError(
                f"{path}: not a collie world file ({exc}).",
                "Give a world file made by `collie mininet build`.",
            ) from exc
        if self.meta.get("format") != FORMAT:
            raise InputError(
                f"{path}: world format {self.meta.get('format')!r}, not {FORMAT}.",
                "Rebuild it with this version's `collie mininet build`.",
            )
        self.target = self.meta["target"]
        self.relatives: list[str] = json.loads(self.meta.get("relatives", "[]"))
        # the rights planted (mininet.rights): url -> (licence, tdm reservation)
        self.rights: dict[str, tuple[str | None, str | None]] = {
            url: (truth[0], truth[1])
            for url, truth in json.loads(self.meta.get("rights", "{}")).items()
        }
        self.traps = [
            Trap(r[0], r[1], r[3], [tuple(h) for h in json.loads(r[2])], r[4], r[5])
            for r in self._query("SELECT * FROM traps ORDER BY site, prefix")
        ]
        self.hosts = {h for (h,) in self._query("SELECT DISTINCT site FROM pages")}
        self.hosts |= {t.site for t in self.traps}

    def _query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._db.execute(sql, params).fetchall()

    def close(self) -> None:
        self._db.close()

    def truths(self) -> dict[str, Truth]:
        """The ground truth of every stored URL."""
        rows = self._query(
            "SELECT url, site, status, kind, encoding, lang, shares, main_text, "
            "dup_group, indexed, disallowed, reachable, listing, line_langs FROM pages ORDER BY url"
        )
        return {
            r[0]: Truth(
                r[0],
                r[1],
                r[2],
                r[3],
                r[4],
                r[5],
                json.loads(r[6]),
                r[7],
                r[8],
                bool(r[9]),
                bool(r[10]),
                bool(r[11]),
                REACH[r[11] - 1] if r[11] else "",
                bool(r[12]),
                tuple(json.loads(r[13])),
            )
            for r in rows
        }

    def trap_truth(self, url: str) -> Truth | None:
        """The truth of a URL inside an endless space, or None."""
        found = self._trap_for(url)
        if found is None:
            return None
        trap, number = found
        text = trap.page(number)[1]
        return Truth(
            url,
            trap.site,
            200,
            "trap",
            "utf-8",
            trap.lang,
            {trap.lang: 1.0},
            text,
            f"http://{trap.site}{trap.prefix}",
            False,
            False,
            True,
        )

    def _trap_for(self, url: str) -> tuple[Trap, int] | None:
        for trap in self.traps:
            start = f"http://{trap.site}{trap.prefix}"
            rest = url[len(start) :] if url.startswith(start) else ""
            if rest.isdigit() and len(rest) < 9:
                return trap, int(rest)
        return None

    def robots(self) -> dict[str, str]:
        """host -> robots.txt text ("" where it answers 500); hosts without one are absent."""
        rows = self._query("SELECT site, status, body FROM pages WHERE kind = 'robots'")
        return {host: body.decode() if status == 200 else "" for host, status, body in rows}

    def sites(self) -> dict[str, SiteTruth]:
        """The truth of every host the world built a site on (its kind and labels)."""
        rows = self._query("SELECT host, kind, lang, labels, target_pages FROM sites ORDER BY host")
        return {r[0]: SiteTruth(r[0], r[1], r[2], tuple(json.loads(r[3])), r[4]) for r in rows}

    def seed_docs(self) -> list[tuple[str, str]]:
        """(file name, text) of the target text kept out of the world's pages."""
        return [(n, t) for n, t in self._query("SELECT name, text FROM seed_docs ORDER BY name")]


class StoredWorld(WorldFile):
    """A world file as the proxy server serves it (see server.MiniWebServer)."""

    search_host = "search.mininet"
    search_json_enabled = True
    engine_error = ""
    search_block = ""

    def has_host(self, host: str) -> bool:
        return normalise_host(host) in self.hosts

    def lookup(self, host: str, path: str) -> Behaviour | None:
        """The stored answer for `host` + `path` (query string optional), a trap page, or None."""
        url = f"http://{normalise_host(host)}{path}"
        for candidate in dict.fromkeys([url, url.partition("?")[0]]):
            rows = self._query(
                "SELECT status, headers, body, delay FROM pages WHERE url = ?", (candidate,)
            )
            if rows:
                status, headers, body, delay = rows[0]
                pairs = [(str(k), str(v)) for k, v in json.loads(headers)]
                return Response(status, pairs, body, delay=delay)
        found = self._trap_for(url.partition("?")[0])
        if found is None:
            return None
        trap, number = found
        return Response(200, list(trap.headers), trap.page(number)[0])

    def search(self, query: str, pageno: int = 1, per_page: int = RESULTS_PER_PAGE) -> SearchPage:
        """BM25 over title (weight 2) and text, any query word matching; `site:` filters."""
        sites = [s.lstrip("(").lower() for s in _SITE.findall(query)]
        terms = list(dict.fromkeys(t for t in tokenise(_SITE.sub(" ", query)) if t != "or"))
        if not terms:
            return SearchPage(0, [])
        match = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
        rows = self._query(
            "SELECT url, title, snippet(search, 2, '', '', '…', 32), bm25(search, 0.0, 2.0, 1.0) "
            "FROM search WHERE search MATCH ? ORDER BY bm25(search, 0.0, 2.0, 1.0), url",
            (match,),
        )
        if sites:
            rows = [r for r in rows if _host_matches(r[0], sites)]
        start = (pageno - 1) * per_page
        hits = [SearchHit(u, t, s, round(-b, 6)) for u, t, s, b in rows[start : start + per_page]]
        return SearchPage(len(rows), hits)


def _host_matches(url: str, sites: list[str]) -> bool:
    host = url.split("/")[2]
    return any(host == s.lstrip(".") or host.endswith("." + s.lstrip(".")) for s in sites)
