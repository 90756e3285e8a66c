"""Settings: every setting, its default and its meaning, in one place.

Values apply in this order: built-in defaults < collie.toml < environment variables
(`COLLIE_FETCH_DELAY=2`) < command-line flags (`--set fetch.delay=2`, or a command's own
option such as `--crawl-depth`). `load_settings` records where each value came from,
which is what `collie config` shows.
"""

from __future__ import annotations

import difflib
import json
import math
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from collie.errors import ConfigError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

ENV_PREFIX = "COLLIE_"
INT_MAX = 2**31 - 1  # the largest integer setting: far beyond any useful count, safe in SQLite
HOUR, YEAR = 3600.0, 365 * 86400.0
_KIND_NAMES = {
    bool: "true or false",
    int: "an integer",
    float: "a number",
    str: "a string",
    list: "a list of strings",
}


@dataclass(frozen=True)
class Setting:
    key: str  # "section.name"
    default: Any
    help: str
    choices: tuple[str, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None  # None: no bound but a finite float, or INT_MAX
    url: bool = False  # an http(s) URL with a host, or ""

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
    Setting("seeds.count", 400, "Seed words per loop (the Luo case study used 400).", minimum=1),
    Setting("seeds.min_length", 3, "Shortest word, in characters, that can be a seed.", minimum=1),
    Setting(
        "seeds.min_doc_freq",
        2,
        "Odds-ratio seeds occur in at least this many target documents (capped at their number).",
        minimum=1,
    ),
    Setting(
        "seeds.min_count",
        2,
        "Odds-ratio seeds occur at least this often in target text.",
        minimum=1,
    ),
    Setting(
        "seeds.manual",
        "",
        "A file of seed words, one per line (relative to the workspace); replaces "
        "automatic selection when set.",
    ),
    Setting("safetynet.top", 200, "Frequent words per safetynet language.", minimum=0),
    Setting("safetynet.ignore", [], "Safetynet languages that never filter seed words."),
    Setting("queries.count", 400, "Search queries per loop.", minimum=1),
    Setting("queries.words", 3, "Seed words per query.", minimum=1),
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
        choices=("searxng", "brave", "google"),
    ),
    Setting("search.url", "", "Endpoint URL; empty means the backend's public endpoint.", url=True),
    Setting("search.results", 20, "Results requested per query.", minimum=1),
    Setting("search.max_queries", 0, "Query budget of the workspace; 0 means none.", minimum=0),
    Setting("search.max_queries_per_run", 0, "Query budget of one run; 0 means none.", minimum=0),
    Setting(
        "search.rate_limit",
        1.0,
        "Requests per second at most; 0 means no limit.",
        minimum=0,
        maximum=1000,
    ),
    Setting(
        "search.timeout",
        20.0,
        "Seconds to wait for the backend's answer.",
        minimum=0.1,
        maximum=HOUR,
    ),
    Setting(
        "search.retries",
        3,
        "Retries of a query that got 429, 5xx or no answer.",
        minimum=0,
        maximum=100,
    ),
    Setting(
        "search.max_failures",
        5,
        "Failed queries in a row that stop the search stage (the rest of the loop goes on).",
        minimum=1,
    ),
    Setting(
        "search.max_empty",
        50,
        "Queries answered in a row with no result at all that stop the search stage (a "
        "backend with no working engine spends no more); 0 means no limit.",
        minimum=0,
    ),
    Setting(
        "search.max_fruitless",
        20,
        "Queries sent in a row that brought no new URL (all their results known already) "
        "that end a loop's search stage early; 0 means no limit.",
        minimum=0,
    ),
    Setting("search.country", "", "ISO 3166-1 country to localise results to (brave, google)."),
    Setting("search.brave_key_env", "BRAVE_API_KEY", "Environment variable holding the Brave key."),
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
        "fetch.delay", 1.0, "Seconds between two requests to one host.", minimum=0, maximum=HOUR
    ),
    Setting(
        "fetch.max_crawl_delay",
        30.0,
        "Hosts whose robots.txt asks for a longer Crawl-delay are skipped.",
        minimum=0,
        maximum=86400,
    ),
    Setting(
        "fetch.workers",
        64,
        "Requests in flight at once, each to a different host (threads; a host still gets "
        "one request at a time, fetch.delay apart).",
        minimum=1,
        maximum=1024,
    ),
    Setting(
        "fetch.connect_timeout",
        10.0,
        "Seconds to wait for a connection.",
        minimum=0.1,
        maximum=HOUR,
    ),
    Setting("fetch.read_timeout", 30.0, "Seconds to wait for data.", minimum=0.1, maximum=HOUR),
    Setting("fetch.max_bytes", 5 * 1024 * 1024, "Body size cap; the rest is discarded.", minimum=1),
    Setting("fetch.max_redirects", 10, "Redirects followed per URL.", minimum=0),
    Setting("fetch.retries", 3, "Retries of a transient failure.", minimum=0, maximum=100),
    Setting(
        "fetch.robots_retry",
        60.0,
        "Seconds before a robots.txt that could not be fetched (no answer, 5xx) is asked "
        "again; the wait doubles, three tries a run. Its pages stay queued meanwhile.",
        minimum=0.0,
        maximum=HOUR,
    ),
    Setting(
        "fetch.allow_private",
        False,
        "Allow IP-literal hosts in private, loopback or link-local ranges.",
    ),
    Setting(
        "encoding.min_confidence",
        0.7,
        "Pages whose detected encoding is less certain are dropped.",
        minimum=0,
        maximum=1,
    ),
    Setting(
        "extract.main",
        "trafilatura",
        "Main-text extraction: trafilatura finds the main content on the parsed page; "
        "rules only removes navigation markup with regular expressions (collie before 0.2).",
        choices=("trafilatura", "rules"),
    ),
    Setting(
        "extract.site_repeats",
        3,
        "A paragraph found in this many documents of one site is that site's boilerplate "
        "(menus, bylines, footers in the site's language) and is left out of exports; 0 keeps it.",
        minimum=0,
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
        "Texts whose best language probability is lower are undetermined (und).",
        minimum=0,
        maximum=1,
    ),
    Setting("langid.min_chars", 20, "Shorter texts are undetermined (und).", minimum=0),
    Setting(
        "langid.hide",
        [],
        "Languages taken out of the bundled model before the target is learnt, set at "
        'init: e.g. ["zul", "xho"] makes Zulu and Xhosa unknown, to try collie on a '
        "language it lacks among unknown relatives (the demo does).",
    ),
    Setting(
        "langid.min_share",
        0.2,
        "A page is a target-language document when at least this share of its letters is "
        "in the target language (0.5: mainly target).",
        minimum=0,
        maximum=1,
    ),
    Setting(
        "langid.min_pass",
        0.5,
        "A language learnt from documents: a page (or a site) whose text nearest to it "
        "passes its open-set tests at a lower share is relative-suspected, not a target "
        "document (0: no such check).",
        minimum=0,
        maximum=1,
    ),
    Setting("crawl.depth", 5, "Link depth crawled from a page search found.", minimum=0),
    Setting("crawl.max_pages_per_site", 500, "Pages fetched per site at most.", minimum=1),
    Setting(
        "crawl.max_new_sites",
        40,
        "Sites not met before that a loop enters through a target document's link to "
        "them (blogrolls, citations); 0 means crawling stays within sites.",
        minimum=0,
    ),
    Setting(
        "crawl.sitemaps",
        True,
        "Read the sitemaps (robots.txt Sitemap lines, else /sitemap.xml) and feeds of each "
        "site that yields a target document, and queue the pages they list.",
    ),
    Setting(
        "crawl.short_page_chars",
        200,
        "Pages with less text are decided by the pages linking to them.",
        minimum=0,
    ),
    Setting(
        "crawl.min_votes",
        2,
        "Linking pages (of 400+ bytes of text) needed to decide a short page's language.",
        minimum=1,
    ),
    Setting(
        "crawl.site_min_pages",
        10,
        "Pages of a site fetched before its target-language yield is judged.",
        minimum=1,
    ),
    Setting(
        "crawl.site_min_yield",
        0.1,
        "Sites whose share of target-language pages stays lower stop being crawled.",
        minimum=0,
        maximum=1,
    ),
    Setting(
        "dedup.max_distance",
        3,
        "Simhash Hamming distance of near-duplicates.",
        minimum=0,
        maximum=63,
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
    ),
    Setting(
        "run.seed",
        0,
        "Seed of the random generator (query combinations...); `collie init` picks one.",
        minimum=0,
    ),
    Setting("run.max_pages", 0, "Pages fetched per loop at most; 0 means no limit.", minimum=0),
    Setting(
        "run.max_time", 0.0, "Seconds per run at most; 0 means no limit.", minimum=0, maximum=YEAR
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
        "dask.retries", 2, "Times Dask retries a batch whose worker failed.", minimum=0, maximum=100
    ),
)

SETTINGS_BY_KEY: dict[str, Setting] = {s.key: s for s in SETTINGS}


@dataclass(frozen=True)
class Value:
    key: str
    value: Any
    source: str  # "default", "collie.toml", "environment (COLLIE_...)", "flag (...)"


class Settings(Mapping[str, Any]):
    """Effective settings: a read-only mapping of key -> value that knows each source."""

    def __init__(self, values: dict[str, Value]) -> None:
        self._values = values

    def __getitem__(self, key: str) -> Any:
        return self._values[key].value

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def entry(self, key: str) -> Value:
        return self._values[key]

    def entries(self) -> list[Value]:
        return list(self._values.values())

    def non_defaults(self) -> list[Value]:
        """Settings whose value differs from the built-in default."""
        return [v for v in self._values.values() if v.value != SETTINGS_BY_KEY[v.key].default]


def lookup(key: str, where: str) -> Setting:
    """The setting called `key`, or a ConfigError naming the closest ones."""
    if key in SETTINGS_BY_KEY:
        return SETTINGS_BY_KEY[key]
    close = difflib.get_close_matches(key, SETTINGS_BY_KEY, n=3, cutoff=0.6)
    hint = f"Did you mean {' or '.join(close)}?" if close else "`collie config` lists them all."
    raise ConfigError(f"{where}: unknown setting '{key}'.", hint)


def user_agent_header(user_agent: str, contact_url: str = "") -> str:
    """The User-Agent collie sends, to web sites and search backends alike
    (fetch.user_agent, with fetch.contact_url in brackets when set)."""
    return f"{user_agent} (+{contact_url})" if contact_url else user_agent


def value_range(setting: Setting) -> tuple[float, float] | None:
    """The lowest and highest value a number setting takes, or None for other kinds."""
    if setting.kind not in (int, float):
        return None
    low = setting.minimum if setting.minimum is not None else -INT_MAX
    high = setting.maximum if setting.maximum is not None else INT_MAX
    return low, high


def _check_range(setting: Setting, value: Any, where: str, shown: str) -> None:
    """Refuse nan, infinities and values out of the setting's range, naming all three."""
    bounds = value_range(setting)
    if bounds is None:
        return
    low, high = bounds
    finite = not isinstance(value, float) or math.isfinite(value)
    if finite and low <= value <= high:
        return
    what = "a finite number" if setting.kind is float else "an integer"
    allowed = f"at least {_number(low)} and at most {_number(high)}"
    never = "; nan and inf are never accepted" if setting.kind is float else ""
    raise ConfigError(
        f"{where}: {setting.key} must be {what} {allowed}, not {shown}.",
        f"Give a value from {_number(low)} to {_number(high)} (the default is "
        f"{_number(setting.default)}){never}.",
    )


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def check_value(setting: Setting, value: Any, where: str, shown: str | None = None) -> Any:
    """Validate a typed value (as read from TOML or given by code); return it normalised.
    `shown` is the value as the user typed it, for the message."""
    kind = setting.kind
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if kind is list:
        ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
    else:
        ok = isinstance(value, kind) and (kind is bool or not isinstance(value, bool))
    if not ok:
        expected = _KIND_NAMES[kind]
        raise ConfigError(f"{where}: {setting.key} must be {expected}, not {value!r}.")
    if setting.choices and value not in setting.choices:
        raise ConfigError(
            f"{where}: {setting.key} must be one of {', '.join(setting.choices)}, not {value!r}."
        )
    _check_range(setting, value, where, repr(value) if shown is None else repr(shown))
    if setting.url and value:
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(
                f"{where}: {setting.key} must be an http:// or https:// URL with a host, "
                f"not {value!r}.",
                "For example http://localhost:8888 (a SearXNG instance's base URL).",
            )
    return value


def parse_text(setting: Setting, text: str, where: str) -> Any:
    """Parse a value given as text (environment, `--set`) into the setting's type."""
    kind = setting.kind
    value: Any
    try:
        if kind is bool:
            lowered = text.strip().lower()
            if lowered not in ("1", "0", "true", "false", "yes", "no", "on", "off"):
                raise ValueError(text)
            value = lowered in ("1", "true", "yes", "on")
        elif kind is int:
            value = int(text)
        elif kind is float:
            value = float(text)
        elif kind is list:
            value = [part.strip() for part in text.split(",") if part.strip()]
        else:
            value = text
    except ValueError:
        raise ConfigError(
            f"{where}: {setting.key} must be {_KIND_NAMES[kind]}, not {text!r}."
        ) from None
    return check_value(setting, value, where, text)


def parse_assignment(text: str) -> tuple[str, Any]:
    """`fetch.delay=2` -> ("fetch.delay", 2.0), as given to `--set`."""
    key, sep, raw = text.partition("=")
    if not sep:
        raise ConfigError(f"--set {text}: expected KEY=VALUE, e.g. --set fetch.delay=2.")
    setting = lookup(key.strip(), "--set")
    return setting.key, parse_text(setting, raw.strip(), f"--set {key.strip()}")


def read_toml(text: str, where: str = "collie.toml") -> dict[str, Any]:
    """Parse collie.toml into {key: value}, rejecting unknown keys and bad values."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where} is not valid TOML: {exc}.", "Fix or restore the file.") from exc
    values: dict[str, Any] = {}
    for section, table in data.items():
        if not isinstance(table, dict):
            raise ConfigError(
                f"{where}: '{section}' must be a [section]; settings live in sections.",
                "`collie config` lists them all.",
            )
        for name, value in table.items():
            setting = lookup(f"{section}.{name}", where)
            values[setting.key] = check_value(setting, value, where)
    return values


def load_settings(
    toml_values: Mapping[str, Any],
    environ: Mapping[str, str],
    flags: Mapping[str, tuple[Any, str]],
) -> Settings:
    """Combine the layers. `flags` maps key -> (value, flag name as typed)."""
    values: dict[str, Value] = {}
    for setting in SETTINGS:
        entry = Value(setting.key, setting.default, "default")
        if setting.key in toml_values:
            entry = Value(setting.key, toml_values[setting.key], "collie.toml")
        if setting.env_var in environ:
            where = f"environment ({setting.env_var})"
            entry = Value(setting.key, parse_text(setting, environ[setting.env_var], where), where)
        if setting.key in flags:
            value, flag = flags[setting.key]
            entry = Value(setting.key, check_value(setting, value, flag), f"flag ({flag})")
        values[setting.key] = entry
    return Settings(values)


def toml_literal(value: Any) -> str:
    """A TOML literal for a setting value (strings, numbers, booleans, string lists)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_literal(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)  # JSON string escapes are valid TOML


def render_toml(chosen: Mapping[str, Any]) -> str:
    """A commented collie.toml listing every setting; `chosen` values are set, the rest
    are shown commented out at their defaults."""
    lines = [
        "# collie workspace settings.",
        "# Every setting is listed with its default; remove the leading '# ' to change one.",
        "# Precedence: built-in defaults < this file < environment variables",
        "# (COLLIE_SECTION_NAME, e.g. COLLIE_FETCH_DELAY=2) < command-line flags",
        "# (--set fetch.delay=2). `collie config` shows each value and where it came from.",
    ]
    section = ""
    for setting in SETTINGS:
        head, name = setting.key.split(".", 1)
        if head != section:
            section = head
            lines += ["", f"# {SECTIONS[head]}", f"[{head}]"]
        lines.append(f"# {setting.help}")
        if setting.choices:
            lines.append(f"# One of: {', '.join(setting.choices)}.")
        if setting.key in chosen:
            value = check_value(setting, chosen[setting.key], "collie init")
            lines.append(f"{name} = {toml_literal(value)}")
        else:
            lines.append(f"# {name} = {toml_literal(setting.default)}")
    return "\n".join(lines) + "\n"
