"""The settings table: every setting, its default, its meaning and its allowed values,
in one place (docs/settings.md and the commented collie.toml are written from it).

How the values are read, checked and layered is in collie/config/load.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ENV_PREFIX = "COLLIE_"
# The COLLIE_ variables that are not settings: the workspace, the traceback switch and
# the UDHR cache (collie/udhr.py). Any other COLLIE_ name is a misspelt setting.
OTHER_ENV_VARS = ("COLLIE_WORKSPACE", "COLLIE_TRACEBACK", "COLLIE_CACHE_DIR")
INT_MAX = 2**31 - 1  # the largest integer setting: far beyond any useful count, safe in SQLite
HOUR, YEAR = 3600.0, 365 * 86400.0


@dataclass(frozen=True)
class Setting:
    key: str  # "section.name"
    default: Any
    help: str
    choices: tuple[str, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None  # None: no bound but a finite float, or INT_MAX
    url: bool = False  # an http(s) URL with a host, or ""
    # A value outside [minimum, maximum] that switches the setting off ("0 means no
    # limit"), where the values next to it would not: a rate of 1e-300 requests a second.
    off: float | None = None
    # What values near the ends of the range do to the corpus (docs/settings.md). The
    # range itself keeps results sane: a value that would lose pages or documents for
    # good (fetch.max_bytes=1, dedup.max_distance=63) is refused (issue 46).
    effect: str = ""

    @property
    def kind(self) -> type:
        return type(self.default)

    @property
    def env_var(self) -> str:
        return ENV_PREFIX + self.key.replace(".", "_").upper()


SECTIONS: dict[str, str] = {
    "language": "The target language.",
    "seeds": "Seed words: what the search queries are made of.",
    "safetynet": "Frequent words of other languages, kept out of the seed list.",
    "queries": "Search queries built from the seed words.",
    "search": "The search backend. API keys are read from the environment variables named here.",
    "fetch": "Polite downloading.",
    "warc": "The WARC files (ISO 28500) that keep every HTTP exchange of a run, in warc/.",
    "encoding": "Turning fetched bytes into text.",
    "extract": "HTML to clean text.",
    "langid": "Language identification.",
    "crawl": "Crawling out of target-language sites.",
    "dedup": "Near-duplicate filtering.",
    "run": "The mining loop.",
    "dask": "Scale-out on Dask (`pip install 'collie[dask]'`), when run.executor is dask.",
}

SETTINGS: tuple[Setting, ...] = (
    Setting("language.code", "", "ISO 639-3 code of the target language (set by `collie init`)."),
    Setting(
        "language.extra_domains",
        [],
        'Domain extensions to add to the language\'s country domains, e.g. [".tz", ".ug"].',
    ),
    Setting(
        "seeds.count",
        400,
        "Seed words per loop (the Luo case study used 400).",
        minimum=1,
        maximum=10000,
        effect=(
            "Fewer seed words make fewer distinct queries; more than the seed documents hold adds"
            " nothing."
        ),
    ),
    Setting(
        "seeds.min_length",
        3,
        "Shortest word, in characters, that can be a seed.",
        minimum=1,
        maximum=20,
        effect=(
            "Higher values leave short languages' common words out; past the longest words of the"
            " seed documents no seed word is left."
        ),
    ),
    Setting(
        "seeds.min_doc_freq",
        2,
        "Odds-ratio seeds occur in at least this many target documents (capped at their number).",
        minimum=1,
        maximum=10000,
        effect=(
            "Higher values keep only words spread over many documents: fewer odds-ratio seed "
            "words, so fewer new queries, in later loops."
        ),
    ),
    Setting(
        "seeds.min_count",
        2,
        "Odds-ratio seeds occur at least this often in target text.",
        minimum=1,
        maximum=10000,
        effect="Higher values leave later loops fewer odds-ratio seed words, so fewer new queries.",
    ),
    Setting(
        "seeds.manual",
        "",
        "A file of seed words, one per line (relative to the workspace); replaces "
        "automatic selection when set.",
    ),
    Setting(
        "safetynet.top",
        200,
        "Frequent words per safetynet language.",
        minimum=0,
        maximum=10000,
        effect=(
            "0 keeps no other language's words out of the seed list, so queries find more pages "
            "in other languages."
        ),
    ),
    Setting("safetynet.ignore", [], "Safetynet languages that never filter seed words."),
    Setting(
        "queries.count",
        400,
        "Search queries per loop.",
        minimum=1,
        maximum=100000,
        effect=(
            "More queries find more sites, for more search requests; the stop rule may end a "
            "loop's search sooner."
        ),
    ),
    Setting(
        "queries.words",
        3,
        "Seed words per query.",
        minimum=1,
        maximum=8,
        effect=(
            "Long queries find fewer pages: past a few words, search engines answer with little "
            "or nothing."
        ),
    ),
    Setting(
        "queries.bandit",
        False,
        "From the second loop, draw seed words by the target documents their queries "
        "brought in earlier loops (Thompson sampling) instead of uniformly at random. Off "
        "by default: what it draws can depend on fetch timing, so a killed and resumed run "
        "may send other queries than an uninterrupted one.",
    ),
    Setting(
        "queries.tld",
        "off",
        '"auto" restricts queries to the language\'s country domains plus generic ones.',
        choices=("off", "auto"),
    ),
    Setting(
        "search.backend",
        "searxng",
        "Search backend.",
        choices=("searxng", "brave", "mojeek", "google"),
    ),
    Setting("search.url", "", "Endpoint URL; empty means the backend's public endpoint.", url=True),
    Setting(
        "search.results",
        20,
        "Results requested per query.",
        minimum=1,
        maximum=100,
        effect=(
            "More results a query reach more pages with the same queries; a backend may give "
            "fewer than asked."
        ),
    ),
    Setting(
        "search.max_queries",
        0,
        "Query budget of the workspace; 0 means none.",
        minimum=0,
        maximum=INT_MAX,
        effect=(
            "Once it is spent, no more queries are sent from this workspace: the corpus grows"
            " only by crawling."
        ),
    ),
    Setting(
        "search.max_queries_per_run",
        0,
        "Query budget of one run; 0 means none.",
        minimum=0,
        maximum=INT_MAX,
        effect=(
            "Once it is spent, the run sends no more queries: the corpus grows only by crawling."
        ),
    ),
    Setting(
        "search.rate_limit",
        1.0,
        "Requests per second at most; 0 means no limit.",
        minimum=0.01,
        maximum=1000,
        off=0,
        effect=(
            "Below 0.01 (one request a hundred seconds) a loop's search would not end in any "
            "useful time."
        ),
    ),
    Setting(
        "search.timeout",
        20.0,
        "Seconds to wait for the backend's answer.",
        minimum=1.0,
        maximum=600,
        effect="Below a second, most answers would be lost as failures.",
    ),
    Setting(
        "search.retries",
        3,
        "Retries of a query that got 429, 5xx or no answer.",
        minimum=0,
        maximum=10,
        effect="0 loses the queries a backend failed in passing.",
    ),
    Setting(
        "search.max_failures",
        5,
        "Failed queries in a row that stop the search stage (the rest of the loop goes on).",
        minimum=1,
        maximum=1000,
        effect="Low values end a loop's search at a backend's first bad minutes.",
    ),
    Setting(
        "search.max_empty",
        50,
        "Queries answered in a row with no result at all that stop the search stage (a "
        "backend with no working engine spends no more); 0 means no limit.",
        minimum=0,
        maximum=100000,
        effect="Low values end a loop's search after a few queries a backend found nothing for.",
    ),
    Setting(
        "search.max_fruitless",
        20,
        "Queries sent in a row that brought no new URL (all their results known already) "
        "that end a loop's search stage early; 0 means no limit.",
        minimum=0,
        maximum=100000,
        effect="Low values end a loop's search early, and with it the sites it would have found.",
    ),
    Setting(
        "search.stop_rule",
        "upper-bound",
        'What stops a loop\'s search once it has seen enough: "upper-bound" when the sites '
        "found reach search.saturation of the upper bound of the coverage estimate's 95% "
        'interval, "extrapolation" when the loop\'s unspent queries are expected to bring '
        'fewer than search.min_new_sites new target sites, "none" to spend every query.',
        choices=("extrapolation", "upper-bound", "none"),
    ),
    Setting(
        "search.min_new_sites",
        0.5,
        "With search.stop_rule = extrapolation: stop a loop's search when its unspent "
        "queries are expected to bring fewer new target sites than this (Chao et al.'s "
        "extrapolation over the queries' results); 0 means never.",
        minimum=0,
        maximum=100,
        effect="High values stop the search after its first queries, with few sites found.",
    ),
    Setting(
        "search.saturation",
        0.9,
        "With search.stop_rule = upper-bound: stop a loop's search when the target sites "
        "found are at least this share of the upper bound of the coverage estimate's 95% "
        "interval (Chao2 over the queries' results); 0 means never.",
        minimum=0,
        maximum=1,
        effect=(
            "Low values stop the search before it has found most of the target sites it could."
        ),
    ),
    Setting(
        "search.min_queries",
        40,
        "Queries the first loop answers before the stop rule (search.stop_rule) may stop it.",
        minimum=1,
        maximum=100000,
        effect="Low values let the stop rule end the first loop's search on little evidence.",
    ),
    Setting(
        "search.probe_queries",
        10,
        "Queries a later loop answers before the stop rule may stop it (its new seed "
        "words' probe); in every loop, the last this many queries must have brought no new "
        "target site.",
        minimum=1,
        maximum=100000,
        effect="Low values let the stop rule end a later loop's search on little evidence.",
    ),
    Setting(
        "search.contrast_pages",
        10,
        "Relative-suspected pages a loop fetches before its search's results are judged "
        "again against their text (and again each time they double, twice at most), so "
        "that a close relative's sites stop counting as the target's long before the "
        "loop's end; 0 means only at the loop's end.",
        minimum=0,
        maximum=100000,
        effect=(
            "It changes which search results count for the stop rule, not which pages are kept."
        ),
    ),
    Setting(
        "search.next_page",
        "new-target",
        'When to ask for a query\'s next page of results: "new-target" while the page '
        'before brought a target-language result new to the search, "always" up to '
        "search.results.",
        choices=("new-target", "always"),
    ),
    Setting(
        "search.monthly_requests",
        -1,
        "Search requests a month the plan allows (a warning before a run that would go "
        "over it); -1 means the backend's default (docs/search-backends.md), 0 means no limit.",
        minimum=-1,
        maximum=INT_MAX,
        effect="No effect on the corpus: only the warning before a run.",
    ),
    Setting(
        "search.price_per_1000",
        -1.0,
        "Price in US dollars of 1,000 requests beyond the allowance; -1 means the "
        "backend's default (docs/search-backends.md).",
        minimum=-1,
        maximum=1000,
        effect="No effect on the corpus: only the warning before a run.",
    ),
    Setting(
        "search.country", "", "ISO 3166-1 country to localise results to (brave, mojeek, google)."
    ),
    Setting("search.brave_key_env", "BRAVE_API_KEY", "Environment variable holding the Brave key."),
    Setting(
        "search.mojeek_key_env", "MOJEEK_API_KEY", "Environment variable holding the Mojeek key."
    ),
    Setting(
        "search.google_key_env", "GOOGLE_API_KEY", "Environment variable holding the Google key."
    ),
    Setting(
        "search.google_cx_env",
        "GOOGLE_CSE_ID",
        "Environment variable holding the Google search engine id.",
    ),
    Setting("fetch.user_agent", "collie/0.1", "User-Agent product token sent with every request."),
    Setting("fetch.contact_url", "", "A URL about your crawl, added to the User-Agent."),
    Setting("fetch.email", "", "Sent as the From header when set."),
    Setting(
        "fetch.delay",
        1.0,
        "Seconds between two requests to one host.",
        minimum=0,
        maximum=HOUR,
        effect=(
            "0 sends a host requests back to back (only for a test web of your own); high values "
            "make a run last days."
        ),
    ),
    Setting(
        "fetch.max_crawl_delay",
        30.0,
        "Hosts whose robots.txt asks for a longer Crawl-delay are skipped.",
        minimum=1.0,
        maximum=86400,
        effect="Low values skip every host that asks for a Crawl-delay, and their pages with them.",
    ),
    Setting(
        "fetch.workers",
        64,
        "Requests in flight at once, each to a different host (threads; a host still gets "
        "one request at a time, fetch.delay apart).",
        minimum=1,
        maximum=1024,
        effect="No effect on the corpus: only on speed, and on the machine's load.",
    ),
    Setting(
        "fetch.connect_timeout",
        10.0,
        "Seconds to wait for a connection.",
        minimum=1.0,
        maximum=600,
        effect="Below a second, slow hosts are lost as failures.",
    ),
    Setting(
        "fetch.read_timeout",
        30.0,
        "Seconds to wait for data.",
        minimum=1.0,
        maximum=600,
        effect="Below a second, slow pages are lost as failures.",
    ),
    Setting(
        "fetch.max_bytes",
        5 * 1024 * 1024,
        "Body size cap; the rest is discarded.",
        minimum=256 * 1024,
        maximum=100 * 1024 * 1024,
        effect=(
            "A page larger than this is cut there and its text after the cut is lost; at least "
            "256 KiB, so that ordinary pages are kept whole."
        ),
    ),
    Setting(
        "fetch.max_redirects",
        10,
        "Redirects followed per URL.",
        minimum=1,
        maximum=30,
        effect="Below 1, every moved page (http to https, a trailing slash) would be lost.",
    ),
    Setting(
        "fetch.retries",
        3,
        "Retries of a transient failure.",
        minimum=0,
        maximum=10,
        effect="0 loses the pages of a host that failed once in passing.",
    ),
    Setting(
        "fetch.robots_retry",
        60.0,
        "Seconds before a robots.txt that could not be fetched (no answer, 5xx) is asked "
        "again; the wait doubles, three tries a run. Its pages stay queued meanwhile.",
        minimum=0.0,
        maximum=3600,
        effect="A host's pages wait for its robots.txt: they are fetched only once it answers.",
    ),
    Setting(
        "fetch.tdmrep",
        True,
        "Read each site's /.well-known/tdmrep.json (W3C TDMRep) once, right after its "
        "robots.txt (one request more per host, paced, when robots.txt allows it), and "
        "apply its rules to the reservation of text and data mining of the site's pages.",
        effect="Off: a reservation a site states only in that file is not seen (the pages' "
        "own headers and meta still are).",
    ),
    Setting(
        "fetch.allow_private",
        False,
        "Allow IP-literal hosts in private, loopback or link-local ranges.",
    ),
    Setting(
        "warc.keep",
        "all",
        "Which HTTP exchanges the WARC files keep: all (robots.txt, pages, listings, "
        "redirects, errors), target (only the fetches of target-language documents, for "
        "users short of disk), none (no WARC files).",
        choices=("all", "target", "none"),
    ),
    Setting(
        "warc.max_bytes",
        1_000_000_000,
        "A WARC file is closed, and the next one begun, once it holds this many bytes.",
        minimum=1024,
        maximum=INT_MAX,
        effect="Small values make many small files; nothing is lost.",
    ),
    Setting(
        "encoding.min_confidence",
        0.7,
        "Pages whose detected encoding is less certain are dropped.",
        minimum=0,
        maximum=0.99,
        effect=(
            "High values drop pages whose encoding is plain but not certain; near 1 almost every "
            "page would be dropped."
        ),
    ),
    Setting(
        "extract.main",
        "trafilatura",
        "Main-text extraction: trafilatura finds the main content on the parsed page; "
        "fast is trafilatura's fast mode alone, without collie's pre-cleaning of the whole "
        "page (trafilatura's default speed, less F1: for scans, docs/text-cleaning.md); "
        "rules only removes navigation markup with regular expressions (collie before 0.2).",
        choices=("trafilatura", "fast", "rules"),
    ),
    Setting(
        "extract.code",
        "apart",
        "Code blocks (<pre>) of documentation and forum pages: apart keeps each as "
        "paragraphs of its own, judged by language identification like any paragraph (code "
        "rarely passes as the target); out leaves them out of the page's text.",
        choices=("apart", "out"),
    ),
    Setting(
        "extract.site_repeats",
        3,
        "A paragraph found in this many documents of one site is that site's boilerplate "
        "(menus, bylines, footers in the site's language) and is left out of exports; 0 keeps it.",
        minimum=2,
        maximum=100000,
        off=0,
        effect="1 would take every paragraph for boilerplate and leave the corpus empty.",
    ),
    Setting(
        "extract.listings",
        True,
        "Home, section, tag and archive pages listing a site's articles (headlines, their "
        "first words, read more) are crawled for their links but are not documents "
        "(reason listing); false keeps them as documents.",
    ),
    Setting(
        "extract.teasers",
        True,
        "A paragraph that is a truncated copy of a paragraph of another document of the same "
        "site (an article's opening cut off, an ellipsis, read more) is left out of the "
        "corpus; a page left with nothing of its own is dropped (reason teaser).",
    ),
    Setting(
        "extract.boilerplate",
        "rules",
        "Boilerplate lines removed after extraction (copyright, share bars, link lists...).",
        choices=("rules", "none"),
    ),
    Setting(
        "langid.threshold",
        0.5,
        "Texts whose best language probability is lower are undetermined (und); the "
        "members of a macrolanguage (hrv, bos, srp) count together.",
        minimum=0,
        maximum=0.99,
        effect="High values leave most text undetermined, and pages with it are not documents.",
    ),
    Setting(
        "langid.min_chars",
        20,
        "Texts with fewer letters are undetermined (und); a Han character counts as 3, "
        "a kana, Hangul or Ethiopic one as 2.",
        minimum=0,
        maximum=1000,
        effect=(
            "High values leave short paragraphs undetermined, and short pages out of the corpus."
        ),
    ),
    Setting(
        "langid.hide",
        [],
        "Languages taken out of the bundled model before the target is learnt, set at "
        'init: e.g. ["zul", "xho"] makes Zulu and Xhosa unknown, to try collie on a '
        'language it lacks among unknown relatives (the demo does); "xho/real" takes only '
        "Xhosa's real-text columns away (known from the UDHR alone, as Kirundi is).",
    ),
    Setting(
        "langid.min_share",
        0.2,
        "A page is a target-language document when at least this share of its letters is "
        "in the target language (0.5: mainly target).",
        minimum=0,
        maximum=1,
        effect=(
            "0 takes pages with any target text at all (an ablation: the corpus fills with other "
            "languages); 1 only pages with no other language."
        ),
    ),
    Setting(
        "langid.min_target_words",
        3,
        "A page is a target document only with at least this many words of running "
        "target-language text (paragraphs of 3 words or more; e-mail and web addresses and "
        "numbers are not words): a contact page, a page of phone numbers or a bare menu is "
        "not one, whatever its share (reason too-little-target-text), and an export leaves "
        "out a document whose exported text holds fewer; 0 lets the share alone decide. "
        "Chosen by measurement: a short real page is one sentence, and on the real Zulu "
        "news text 2.4% of sentences have fewer than 3 words, 6.3% fewer than 5; the "
        "shortest real page of the news world's corpus holds 4 such words, the pages this "
        "is for hold none.",
        minimum=0,
        maximum=1000,
        effect="High values leave short documents out of the corpus.",
    ),
    Setting(
        "langid.min_pass",
        0.5,
        "A language learnt from documents: a page (or a site) whose text nearest to it "
        "passes its open-set tests at a lower share is relative-suspected, not a target "
        "document (0: no such check).",
        minimum=0,
        maximum=1,
        effect=(
            "0 turns the check off (a close relative's pages may enter the corpus); high "
            "values leave target pages out as relative-suspected."
        ),
    ),
    Setting(
        "langid.site_own_text",
        True,
        "A page lifted by its site (judged with a target site, or a short page voted for by "
        "the pages linking to it) must still hold target-language text of its own; false "
        "lets the site decide alone (as collie 0.1 did).",
    ),
    Setting(
        "crawl.depth",
        5,
        "Link depth crawled from a page search found.",
        minimum=0,
        maximum=100,
        effect="0 keeps only the pages search found (no crawling).",
    ),
    Setting(
        "crawl.max_pages_per_site",
        500,
        "Pages fetched per site at most.",
        minimum=1,
        maximum=1000000,
        effect="Low values leave the rest of a large target site out of the corpus.",
    ),
    Setting(
        "crawl.max_new_sites",
        40,
        "Sites not met before that a loop enters through a target document's link to "
        "them (blogrolls, citations); 0 means crawling stays within sites.",
        minimum=0,
        maximum=100000,
        effect="0 finds no site that search does not return.",
    ),
    Setting(
        "crawl.chain_budget",
        3,
        "Steps the crawl takes along a chain of a site's pages under one path whose links "
        "lead to more such pages (a calendar's days, an archive by date, faceted filters: "
        "/calendar/2024/05/06/) before the chain has found a target document, and again "
        "after it last found one; 0 means chains are not limited.",
        minimum=0,
        maximum=1000,
        effect="0 lets an endless calendar a server makes up take every request the site's "
        "page cap allows; low values stop a paginated archive that yields only now and then.",
    ),
    Setting(
        "crawl.sitemaps",
        True,
        "Read the sitemaps (robots.txt Sitemap lines, else /sitemap.xml) and feeds of each "
        "site that yields a target document, and queue the pages they list.",
    ),
    Setting(
        "crawl.cdx_api",
        "",
        "A web archive's CDX index API (e.g. Common Crawl's "
        "https://index.commoncrawl.org/CC-MAIN-2025-47-index, or a pywb collection's "
        "http://HOST/COLL/cdx): with crawl.sitemaps, a site that yields a target document "
        "is also looked up there and the HTML pages the archive holds for it are queued, "
        "as a sitemap's. Empty: not used.",
    ),
    Setting(
        "crawl.cdx_limit",
        1000,
        "Captures asked of crawl.cdx_api for one site.",
        minimum=1,
        maximum=1000000,
        effect="Low values read fewer of a site's archived pages (with crawl.cdx_api).",
    ),
    Setting(
        "crawl.short_page_chars",
        200,
        "Pages with less text are decided by the pages linking to them.",
        minimum=0,
        maximum=100000,
        effect="High values leave most pages to the vote of the pages linking to them.",
    ),
    Setting(
        "crawl.min_votes",
        2,
        "Linking pages (of 400+ bytes of text) needed to decide a short page's language.",
        minimum=1,
        maximum=100,
        effect="High values leave short pages undecided, out of the corpus.",
    ),
    Setting(
        "crawl.site_min_pages",
        10,
        "Pages of a site fetched before its target-language yield is judged.",
        minimum=1,
        maximum=100000,
        effect="Low values judge a site on a few pages, and may stop crawling a good site early.",
    ),
    Setting(
        "crawl.site_min_yield",
        0.1,
        "Sites whose share of target-language pages stays lower stop being crawled.",
        minimum=0,
        maximum=0.9,
        effect="High values stop crawling sites that mix languages, with their target pages.",
    ),
    Setting(
        "dedup.max_distance",
        3,
        "Simhash Hamming distance of near-duplicates.",
        minimum=0,
        maximum=10,
        effect=(
            "Higher values take different documents for copies of each other and leave them out "
            "(at 63 a whole corpus is one document); 0 leaves only exact copies out."
        ),
    ),
    Setting(
        "dedup.paragraphs",
        True,
        "Also compare documents by their long paragraphs: a copy with a paragraph dropped, "
        "a word changed or text added is a near-duplicate too.",
    ),
    Setting(
        "run.loops",
        2,
        "Loops `collie run` brings the workspace to, in all (not loops added per run).",
        minimum=1,
        maximum=1000,
        effect="More loops find more, each with new seed words.",
    ),
    Setting(
        "run.seed",
        0,
        "Seed of the random generator (query combinations...); `collie init` picks one.",
        minimum=0,
        maximum=INT_MAX,
        effect="Another seed draws other queries; how pages are judged does not change.",
    ),
    Setting(
        "run.max_pages",
        0,
        "Pages fetched per loop at most; 0 means no limit.",
        minimum=0,
        maximum=INT_MAX,
        effect="A loop it stops is finished, its queued pages left for the next loop.",
    ),
    Setting(
        "run.max_time",
        0.0,
        "Seconds per run at most; 0 means no limit.",
        minimum=0,
        maximum=YEAR,
        effect="A run stopped by its time limit leaves its loop open: the next run goes on.",
    ),
    Setting(
        "run.executor",
        "local",
        "Where pages are fetched and processed: in this process, or on a Dask cluster.",
        choices=("local", "dask"),
    ),
    Setting("dask.scheduler", "", "Address of a running Dask scheduler (tcp://host:8786)."),
    Setting(
        "dask.cluster",
        "",
        'A cluster to start: "local:N" (N worker processes on this machine) or "slurm" '
        "(dask-jobqueue); empty with no scheduler: one local process per core.",
    ),
    Setting(
        "dask.cluster_options",
        [],
        'KEY=VALUE options of the cluster, e.g. ["queue=short", "cores=8", "memory=16GB", '
        '"walltime=02:00:00", "jobs=4"] for slurm.',
    ),
    Setting(
        "dask.retries",
        2,
        "Times Dask retries a batch whose worker failed.",
        minimum=0,
        maximum=10,
        effect="No effect on the corpus but for a batch whose worker fails more often than this.",
    ),
)

SETTINGS_BY_KEY: dict[str, Setting] = {s.key: s for s in SETTINGS}


def user_agent_header(user_agent: str, contact_url: str = "") -> str:
    """The User-Agent collie sends, to web sites and search backends alike
    (fetch.user_agent, with fetch.contact_url in brackets when set)."""
    return f"{user_agent} (+{contact_url})" if contact_url else user_agent
