"""Sites: counts, letters, stops; relatives' sites and the corpus judged again."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from collie.models import (
    SuspectRow,
)
from collie.reasons import RELATIVE_SUSPECTED
from collie.store.base import Database, now_iso
from collie.store.pages import PageTable

LISTING_ASKED = "asked"  # a listings row's reason: asked for, not read yet


class SiteTable:
    """Sites and the relatives' decisions' writes."""

    def __init__(self, db: Database, pages: PageTable) -> None:
        self.db, self.conn = db, db.conn
        self.pages = pages  # a relative's site makes its documents suspects

    # -- sites ------------------------------------------------------------------------
    def site_counts(self, site: str) -> tuple[int, int, str | None]:
        """(pages fetched, target pages, stop reason) of a site."""
        row = self.conn.execute(
            "SELECT pages, target, stopped FROM sites WHERE site = ?", (site,)
        ).fetchone()
        return (row[0], row[1], row[2]) if row else (0, 0, None)

    def site_letters(self, site: str) -> tuple[int, int]:
        """(letters taken for the target, letters nearest to it that failed its tests) of
        a site's fetched pages."""
        row = self.conn.execute(
            "SELECT target_letters, near_letters FROM sites WHERE site = ?", (site,)
        ).fetchone()
        return (row[0], row[1]) if row else (0, 0)

    def suspect_site(self, site: str, pass_share: float) -> int:
        """A relatives' site: stop crawling it and make its target documents suspects
        (level "site"; their documents rows stay, out of the corpus). Returns how many."""
        reason = f"{RELATIVE_SUSPECTED}:site {pass_share:.2f}"
        rows = self.conn.execute(
            "SELECT p.id, d.text, d.paragraphs, d.words FROM pages p JOIN documents d ON "
            "d.page_id = p.id WHERE p.site = ? AND p.status IN ('kept', 'duplicate')",
            (site,),
        ).fetchall()
        self.stop_site(site, reason)
        with self.db.batch():
            for page_id, text, paragraphs, words in rows:
                marked = [(*p[:3], p[1] in ("und", "zxx")) for p in json.loads(paragraphs)]
                self.pages.insert_suspect(
                    page_id, SuspectRow("site", pass_share, text, marked, words)
                )
            self.conn.executemany(
                "UPDATE pages SET status = 'dropped', reason = ? WHERE id = ?",
                [(reason, r[0]) for r in rows],
            )
        return len(rows)

    def corpus_paragraphs(self) -> list[tuple[int, str, str, list[Any], int]]:
        """(page id, site, text, labelled paragraphs, words) of the corpus's pages: kept
        target documents, near-duplicates not included."""
        rows = self.conn.execute(
            "SELECT p.id, p.site, d.text, d.paragraphs, d.words FROM pages p JOIN documents d "
            "ON d.page_id = p.id WHERE p.status = 'kept' AND d.kind = 'target' ORDER BY p.id"
        )
        return [(r[0], r[1], r[2], json.loads(r[3]), r[4]) for r in rows]

    def wronglang_texts(self, lang: str) -> dict[str, list[str]]:
        """site -> the texts of its wrong-language documents in `lang` (the web's text of
        a known neighbour of the target: collie.mining.neighbours)."""
        rows = self.conn.execute(
            "SELECT p.site, d.text FROM pages p JOIN documents d ON d.page_id = p.id "
            "WHERE d.kind = 'wronglang' AND d.lang = ? ORDER BY p.id",
            (lang,),
        )
        out: dict[str, list[str]] = {}
        for site, text in rows:
            out.setdefault(site, []).append(text)
        return out

    def suspect_paragraphs(self) -> list[tuple[str, str, list[Any]]]:
        """(site, text, paragraphs with the near flag) of the relative-suspected pages
        that no reviewer has called target text."""
        rows = self.conn.execute(
            "SELECT p.site, s.text, s.paragraphs FROM suspects s JOIN pages p ON "
            "p.id = s.page_id WHERE COALESCE(s.label, '') != 'target' ORDER BY s.page_id"
        )
        return [(r[0], r[1], json.loads(r[2])) for r in rows]

    def forget_suspects(self, page_ids: Sequence[int]) -> list[int]:
        """Drop the suspects rows of pages about to be recorded as documents after all
        (and the documents rows a suspected corpus page kept: recorded again). A page
        whose documents row another row refers to (a near-duplicate of it, a review)
        stays a suspect. Returns the pages freed."""
        rows = self.conn.execute(
            "SELECT d.page_id FROM documents d WHERE d.id IN (SELECT duplicate_of FROM "
            "documents WHERE duplicate_of IS NOT NULL UNION SELECT doc_id FROM reviews)"
        )
        referred = {r[0] for r in rows}
        freed = [i for i in page_ids if i not in referred]
        with self.db.batch():
            for table in ("suspects", "documents"):
                self.conn.executemany(
                    f"DELETE FROM {table} WHERE page_id = ?", [(i,) for i in freed]
                )
        return freed

    def judge_again(
        self,
        relabelled: Sequence[tuple[int, Sequence[Any], float]],
        suspected: Sequence[tuple[int, SuspectRow]],
        site_letters: dict[str, tuple[int, int]],
    ) -> None:
        """In one transaction: the corpus pages' paragraphs labelled again by a new model
        ((page id, paragraphs, target share)), the pages it makes relative-suspected
        (status dropped, documents rows kept), and the sites' letters counted again."""
        with self.db.batch():
            for page_id, paragraphs, share in relabelled:
                self.conn.execute(
                    "UPDATE documents SET paragraphs = ? WHERE page_id = ?",
                    (json.dumps(paragraphs, ensure_ascii=False), page_id),
                )
                self.conn.execute(
                    "UPDATE pages SET target_share = ? WHERE id = ?", (round(share, 4), page_id)
                )
            for page_id, suspect in suspected:
                self.pages.insert_suspect(page_id, suspect)
                reason = f"{RELATIVE_SUSPECTED}:{suspect.level} {suspect.pass_share:.2f}"
                self.conn.execute(
                    "UPDATE pages SET status = 'dropped', reason = ?, lang = 'und' WHERE id = ?",
                    (reason, page_id),
                )
            self.conn.executemany(
                "UPDATE sites SET target_letters = ?, near_letters = ? WHERE site = ?",
                [(mine, near, site) for site, (mine, near) in sorted(site_letters.items())],
            )

    def listed_sites(self) -> set[str]:
        """Sites whose sitemaps and feeds were read (collie.listings)."""
        return {r[0] for r in self.conn.execute("SELECT DISTINCT site FROM listings")}

    def sites_to_list(self) -> list[tuple[str, str]]:
        """(site, URL of a target document of it) of the sites with target documents
        whose sitemaps were never read (a run stopped before, or an older collie)."""
        rows = self.conn.execute(
            "SELECT site, MIN(COALESCE(final_url, url)) FROM pages WHERE status = 'kept' "
            "AND site NOT IN (SELECT site FROM listings) GROUP BY site ORDER BY site"
        )
        return [(r[0], r[1]) for r in rows]

    def listing_urls(self) -> set[str]:
        """The sitemaps and feeds read, or asked for (`note_asked`)."""
        return {r[0] for r in self.conn.execute("SELECT url FROM listings")}

    def note_asked(self, wanted: Iterable[tuple[str, str]], loop: int) -> None:
        """Sitemaps and feeds asked for ((site, URL)), not read yet (inside `batch`): a
        row each, which `record_listing` replaces once read; a run killed before asks for
        them again (`asked_listings`)."""
        self.conn.executemany(
            "INSERT OR IGNORE INTO listings (url, site, loop, reason, fetched_at) "
            f"VALUES (?, ?, ?, '{LISTING_ASKED}', '')",
            [(url, site, loop) for site, url in wanted],
        )

    def asked_listings(self) -> list[tuple[str, str]]:
        """(site, URL) of the sitemaps and feeds asked for and never read."""
        rows = self.conn.execute(
            f"SELECT site, url FROM listings WHERE reason = '{LISTING_ASKED}' "
            "AND http_status IS NULL AND fetched_at = '' ORDER BY rowid"
        )
        return [(r[0], r[1]) for r in rows]

    def record_listing(
        self,
        url: str,
        site: str,
        loop: int,
        status: int | None,
        reason: str | None,
        urls: int,
        queued: int,
    ) -> None:
        """A sitemap or feed read (inside `batch`, with the URLs it queued)."""
        self.conn.execute(
            "INSERT OR REPLACE INTO listings (url, site, loop, http_status, reason, urls, "
            "queued, fetched_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (url, site, loop, status, reason, urls, queued, now_iso()),
        )

    def sites_entered_by_link(self, loop: int) -> list[str]:
        """Sites whose first page a loop queued from another site's link."""
        rows = self.conn.execute(
            "SELECT p.site FROM pages p JOIN pages r ON r.id = p.referrer_id "
            "WHERE p.loop = ? AND p.source = 'crawl' AND p.site != r.site "
            "AND p.id = (SELECT MIN(id) FROM pages WHERE site = p.site)",
            (loop,),
        )
        return [r[0] for r in rows]

    def site_size(self, site: str) -> int:
        """Pages of the site known to the frontier (queued or done)."""
        return int(
            self.conn.execute("SELECT COUNT(*) FROM pages WHERE site = ?", (site,)).fetchone()[0]
        )

    def stop_site(self, site: str, reason: str) -> None:
        with self.db.batch():
            self.conn.execute(
                "INSERT INTO sites (site, stopped) VALUES (?, ?) "
                "ON CONFLICT (site) DO UPDATE SET stopped = excluded.stopped",
                (site, reason),
            )
            self.conn.execute(
                "UPDATE pages SET status = 'dropped', reason = ? "
                "WHERE site = ? AND status = 'queued'",
                (f"site-stopped:{reason}", site),
            )
