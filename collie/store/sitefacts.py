"""What a site's labels and its line of the site list are made of (issue 44): its corpus
documents and words, its URLs and the links between its pages, the relatives pass's
judgement, how its pages were found, and what the audit judged of its documents. Read
only; collie.decide.sitelabels decides, collie.corpus.sites writes."""

from __future__ import annotations

from dataclasses import dataclass

from collie.reasons import RELATIVE_SUSPECTED
from collie.store.base import Database

MAX_TEXTS = 200  # documents a site's labels are decided from (the first, by id)
MAX_URLS = 5000  # URLs of a site looked at for language codes
CORPUS = "d.kind = 'target' AND d.duplicate_of IS NULL AND p.status = 'kept'"  # as export_rows


@dataclass(frozen=True)
class CorpusSite:
    """A site with documents in the corpus."""

    site: str
    documents: int
    words: int
    first_url: str  # its first corpus document's URL (after redirects)


class SiteFactsStore:
    """Reads of one open workspace for the site labels and the site list."""

    def __init__(self, db: Database) -> None:
        self.db, self.conn = db, db.conn

    def change_marks(self) -> list[int]:
        """What moves when a site's labels may change beyond its corpus documents (which
        `corpus_version` follows): the newest page and link, the reviewers' verdicts on
        set-aside pages."""
        return [
            int(self.conn.execute(sql).fetchone()[0] or 0)
            for sql in (
                "SELECT MAX(id) FROM pages",
                "SELECT MAX(rowid) FROM links",
                "SELECT COUNT(label) FROM suspects",
            )
        ]

    def corpus_sites(self) -> list[CorpusSite]:
        """The sites with corpus documents, most words first."""
        rows = self.conn.execute(
            "SELECT p.site, COUNT(*), SUM(d.words), MIN(d.id) FROM documents d "
            f"JOIN pages p ON p.id = d.page_id WHERE {CORPUS} GROUP BY p.site "
            "ORDER BY SUM(d.words) DESC, p.site"
        ).fetchall()
        first = dict(
            self.conn.execute(
                "SELECT d.id, COALESCE(p.final_url, p.url) FROM documents d "
                f"JOIN pages p ON p.id = d.page_id WHERE {CORPUS}"
            ).fetchall()
        )
        return [
            CorpusSite(site, n, int(words or 0), first[start]) for site, n, words, start in rows
        ]

    def site_texts(self, site: str) -> list[str]:
        """The texts of the site's target documents (corpus and set aside), at most
        MAX_TEXTS, in id order."""
        rows = self.conn.execute(
            "SELECT d.text FROM documents d JOIN pages p ON p.id = d.page_id "
            "WHERE p.site = ? AND d.kind = 'target' AND d.duplicate_of IS NULL "
            "ORDER BY d.id LIMIT ?",
            (site, MAX_TEXTS),
        )
        return [text for (text,) in rows]

    def site_urls(self, site: str) -> list[str]:
        """The site's pages' URLs and the URLs its pages link to, at most MAX_URLS."""
        rows = self.conn.execute(
            "SELECT url FROM pages WHERE site = ? UNION SELECT l.to_url FROM links l "
            "JOIN pages p ON p.id = l.from_page WHERE p.site = ? LIMIT ?",
            (site, site, MAX_URLS),
        )
        return [url for (url,) in rows]

    def relative_sites(self) -> dict[str, float]:
        """The sites the relatives pass set aside -> their pass share."""
        found = {}
        prefix = f"{RELATIVE_SUSPECTED}:site"
        for site, reason in self.conn.execute(
            "SELECT site, stopped FROM sites WHERE stopped LIKE ?", (prefix + "%",)
        ):
            try:
                found[site] = float(reason[len(prefix) :].strip().split()[0])
            except (IndexError, ValueError):
                found[site] = 0.0
        return found

    def judged_target_sites(self) -> set[str]:
        """Sites whose set-aside pages a reviewer judged the target's more often than a
        relative's."""
        rows = self.conn.execute(
            "SELECT p.site FROM suspects s JOIN pages p ON p.id = s.page_id "
            "WHERE s.label IN ('target', 'relative') GROUP BY p.site "
            "HAVING SUM(s.label = 'target') > SUM(s.label = 'relative')"
        )
        return {site for (site,) in rows}

    def found_by(self) -> dict[str, set[str]]:
        """Site -> how its corpus documents' pages were found: search, crawl (a link),
        sitemap (a sitemap or feed), archive (`collie scan`)."""
        found: dict[str, set[str]] = {}
        rows = self.conn.execute(
            "SELECT p.site, CASE WHEN a.page_id IS NOT NULL THEN 'archive' "
            "WHEN p.source = 'search' THEN 'search' WHEN p.referrer_id IS NOT NULL THEN "
            "'crawl' WHEN l.site IS NOT NULL THEN 'sitemap' ELSE 'crawl' END AS how "
            "FROM documents d JOIN pages p ON p.id = d.page_id "
            "LEFT JOIN archive_pages a ON a.page_id = p.id "
            "LEFT JOIN (SELECT DISTINCT site FROM listings WHERE queued > 0) l "
            f"ON l.site = p.site WHERE {CORPUS} GROUP BY p.site, how"
        )
        for site, how in rows:
            found.setdefault(site, set()).add(how)
        return found

    def audit_by_site(self) -> dict[str, tuple[int, int]]:
        """Site -> (documents judged mainly in the target, documents judged), from the
        review's judgements (skips left out)."""
        rows = self.conn.execute(
            "SELECT p.site, SUM(r.label = 'mainly'), COUNT(*) FROM reviews r "
            "JOIN documents d ON d.id = r.doc_id JOIN pages p ON p.id = d.page_id "
            "WHERE r.label IN ('mainly', 'some', 'none') GROUP BY p.site"
        )
        return {site: (int(mainly), int(n)) for site, mainly, n in rows}
