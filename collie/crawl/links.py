"""Crawling out of target-language sites: what a site is, which links look promising.

Pure policy, no state: the loop (collie/mining/) keeps the frontier in the workspace and
asks these functions which links to queue and in what order.

- `site_of`: a site is a registered domain (eTLD+1) by the Public Suffix List, bundled
  by the publicsuffixlist package (no network), its private section included
  (`nation.co.ke`, `udsm.ac.tz`, `bbc.co.uk`, `x.blogspot.com`, `x.github.io`), plus the
  hosting domains the list lacks (HOSTING_SUFFIXES: `x.wordpress.com`).
- `url_family`, `follows_link`: a near-duplicate's links are followed, but not into its
  own URL family (digits made `#`): an endless calendar's next month.
- `crawl_url`: the normal form a link is queued under (canonical, fragment-free, session
  ids dropped), or None for links a crawler must not follow (other schemes, traps: very
  long URLs, deep paths, a path segment repeated).
- `link_layer`: the Serbian crawler's three layers from URL and anchor-text tokens
  (lower-cased, digits trimmed, numbers dropped) matched against language "needles"
  (ISO codes, language names in English and in the language): primary (a target needle),
  reserve (another language's needle, e.g. `/en/`, `/english/`), secondary (neither).
- `link_priority`: a score combining that layer with what the pages linking to the URL
  were (ClueWeb09: referrers under 400 bytes of text do not vote), the referrers' HTML
  lang attribute, and the link's domain extension against the language's country domains.
- `site_stop_reason`: stop crawling a site whose share of target-language pages stays under a
  threshold after a minimum number of pages (SpiderLing).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

from publicsuffixlist import PublicSuffixList

from collie.languages import Language, all_languages, get_language
from collie.models import Referrer
from collie.urls import canonical_url

# Hosting domains where every subdomain is someone's own site but which the Public Suffix
# List's private section does not list (it has blogspot.com, github.io, wixsite.com...).
HOSTING_SUFFIXES = frozenset(
    [
        "blogspot.com",
        "blogspot.co.ke",
        "wordpress.com",
        "github.io",
        "tumblr.com",
        "weebly.com",
        "wixsite.com",
        "substack.com",
        "neocities.org",
        "jimdofree.com",
        "over-blog.com",
    ]
)
SESSION_PARAMS = re.compile(
    r"^(?:s|sid|session|sessionid|session_id|phpsessid|jsessionid|"
    r"aspsessionid\w*|cfid|cftoken|zenid)$",
    re.I,
)
MAX_URL_LENGTH = 512
MAX_PATH_SEGMENTS = 12
SHORT_REFERRER_BYTES = 400  # ClueWeb09: shorter referrers do not vote
_TOKEN = re.compile(r"[^\W\d_]+[\w]*", re.UNICODE)
_EXTENSION = re.compile(r"\.(?:s?html?|php\d?|aspx?|jsp|cgi)$", re.I)
_QUALIFIER = re.compile(r"\s*\([^)]*\)")
_PATH_SESSION = re.compile(r";(?:jsessionid|phpsessid|sid)=[^/?#]*", re.I)


@lru_cache(maxsize=1)
def _public_suffixes() -> PublicSuffixList:
    return PublicSuffixList()  # the bundled list, ICANN and private sections; no network


@lru_cache(maxsize=65536)
def site_of(url_or_host: str) -> str:
    """The registered domain of a URL or host name by the Public Suffix List (its private
    section included: someone.blogspot.com is a site of its own), plus HOSTING_SUFFIXES;
    an IP address is its own site; "" when there is no host."""
    host = urlsplit(url_or_host).hostname if "//" in url_or_host else url_or_host
    host = (host or "").lower().rstrip(".")
    if not host or host.replace(".", "").isdigit() or ":" in host:
        return host
    labels = host.split(".")
    for suffix in HOSTING_SUFFIXES:
        if host.endswith("." + suffix) and len(labels) > suffix.count(".") + 1:
            return ".".join(labels[-(suffix.count(".") + 2) :])
    return _public_suffixes().privatesuffix(host) or host  # a bare suffix: itself


def same_site(a: str, b: str) -> bool:
    return site_of(a) == site_of(b) != ""


def crawl_url(url: str) -> str | None:
    """The form a link is queued under, or None when it must not be followed."""
    parts = urlsplit(url.strip())
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    path = _PATH_SESSION.sub("", parts.path)
    pairs = [
        (k, v)
        for k, v in parse_qsl(parts.query, keep_blank_values=True)
        if not SESSION_PARAMS.match(k)
    ]
    query = urlencode(pairs)
    cleaned = urlunsplit((parts.scheme, parts.netloc, "/", "", ""))
    cleaned = urljoin(cleaned, (path or "/") + (f"?{query}" if query else ""))  # no ./ ../
    canonical = canonical_url(cleaned)
    segments = [s for s in urlsplit(canonical).path.split("/") if s]
    if (
        len(canonical) > MAX_URL_LENGTH
        or len(segments) > MAX_PATH_SEGMENTS
        or max(segments.count(s) for s in segments or [""]) > 2
    ):
        return None
    return canonical


@dataclass(frozen=True)
class Token:
    text: str
    whole: bool  # a whole path segment, host label or query value (`/en/`, `?lang=en`)


def _piece_tokens(piece: str) -> list[Token]:
    piece = _EXTENSION.sub("", piece)
    base = piece.strip("0123456789-_.~").lower()
    found = [m.group(0).strip("0123456789_").lower() for m in _TOKEN.finditer(piece)]
    found = [t for t in found if t]
    whole = len(found) == 1 and found[0] == base
    return [Token(t, whole) for t in found]


def url_tokens(url: str, anchor: str = "") -> list[Token]:
    """Tokens of a link's host (left of its public suffix), path segments, query values
    and anchor text: lower-cased, digits trimmed from their ends, numbers dropped."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    site = site_of(host)
    pieces = host.removesuffix(site).split(".")[:-1] + site.split(".")[:1]
    pieces += [p for p in parts.path.split("/") if p]
    pieces += [v for _, v in parse_qsl(parts.query)]
    tokens = [t for piece in pieces for t in _piece_tokens(piece)]
    words = [m.group(0).strip("0123456789_").lower() for m in _TOKEN.finditer(anchor)]
    words = [w for w in words if w]
    return tokens + [Token(w, len(words) == 1) for w in words]


@dataclass(frozen=True)
class Needles:
    """Words that name a language in URLs and anchors. Two- and three-letter codes count
    only as whole tokens (`/en/`, not `en` inside a word); names count anywhere."""

    target: frozenset[str]
    target_codes: frozenset[str]
    other: frozenset[str]
    other_codes: frozenset[str]


def _names(lang: Language) -> set[str]:
    names = {*lang.english, *lang.other_names, *lang.autonyms, lang.name}
    words = set()
    for name in (_QUALIFIER.sub("", n) for n in names):
        found = _TOKEN.findall(name)
        if len(found) == 1 and len(found[0]) >= 4:  # "Central Khmer" would make "central" one
            words.add(found[0].lower())
    return words


@lru_cache(maxsize=32)
def language_needles(code: str) -> Needles:
    """The needles of `code` (and its macrolanguage) against every language that has an
    ISO 639-1 code: the languages a site is likely to offer beside the target."""
    target = get_language(code)
    family = {target.code}
    if target.macrolanguage:
        family.add(target.macrolanguage)
    codes = {c for c in family}
    codes |= {get_language(c).part1 or "" for c in family} - {""}
    names = set().union(*(_names(get_language(c)) for c in family))
    other_codes: set[str] = set()
    other_names: set[str] = set()
    for lang in all_languages().values():
        if lang.part1 and lang.code not in family and lang.macrolanguage not in family:
            other_codes |= {lang.part1, lang.code}
            other_names |= _names(lang)
    other_names -= names
    return Needles(
        frozenset(names), frozenset(codes), frozenset(other_names), frozenset(other_codes - codes)
    )


def _hits(tokens: Sequence[Token], names: frozenset[str], codes: frozenset[str]) -> bool:
    return any(t.text in names or (t.whole and t.text in codes) for t in tokens)


def link_layer(url: str, anchor: str, needles: Needles) -> str:
    """primary, secondary or reserve (see the module docstring)."""
    tokens = url_tokens(url, anchor)
    if _hits(tokens, needles.target, needles.target_codes):
        return "primary"
    if _hits(tokens, needles.other, needles.other_codes):
        return "reserve"
    return "secondary"


@dataclass(frozen=True)
class LinkEvidence:
    url: str
    anchor: str = ""
    referrers: tuple[Referrer, ...] = ()


LAYER_SCORE = {"primary": 0.3, "secondary": 0.0, "reserve": -0.3}


def link_priority(
    evidence: LinkEvidence, target: str, needles: Needles, domains: Iterable[str]
) -> float:
    """A score around 0.5, higher first: referrer votes (+-0.4), layer (+-0.3), the
    referrers' lang attributes (+-0.1), the domain extension (+-0.1)."""
    score = 0.5 + LAYER_SCORE[link_layer(evidence.url, evidence.anchor, needles)]
    voters = [r for r in evidence.referrers if r.text_bytes >= SHORT_REFERRER_BYTES]
    if voters:
        share = sum(r.lang == target for r in voters) / len(voters)
        score += 0.8 * (share - 0.5)
    attributes = [
        r.lang_attribute.lower().split("-")[0] for r in evidence.referrers if r.lang_attribute
    ]
    if attributes:
        share = sum(a in needles.target_codes for a in attributes) / len(attributes)
        score += 0.2 * (share - 0.5)
    host = urlsplit(evidence.url).hostname or ""
    tld = "." + host.rsplit(".", 1)[-1] if "." in host else ""
    if tld in set(domains):
        score += 0.1
    elif len(tld) == 3:  # another country's domain
        score -= 0.1
    return round(score, 4)


_DIGITS = re.compile(r"\d+")


def url_family(url: str) -> str:
    """A URL with every run of digits made `#`: the family of a calendar's months, a
    listing's pages, a forum's threads (/calendar/2024/5 and /calendar/2024/6 are one)."""
    parts = urlsplit(url)
    return f"{parts.netloc}{_DIGITS.sub('#', parts.path)}?{_DIGITS.sub('#', parts.query)}"


def follows_link(status: str, page_url: str, link: str) -> bool:
    """Does crawling out take this link? From a target document, yes; from a
    near-duplicate only out of its own URL family: a duplicate's next month, next page
    of the same listing is the way into an endless calendar (every month the same text),
    while its links elsewhere lead on into the site."""
    if status == "kept":
        return True
    return status == "duplicate" and url_family(link) != url_family(page_url)


def site_stop_reason(target: int, pages: int, min_yield: float, min_pages: int) -> str | None:
    """Why a site's crawl should stop ("low-yield:2/20": too few target-language pages
    among at least `min_pages` fetched), or None."""
    if pages >= min_pages and target < min_yield * pages:
        return f"low-yield:{target}/{pages}"
    return None


def short_page_vote(referrers: Sequence[Referrer], min_votes: int) -> str | None:
    """The majority language of a short page's long referrers (Hayati's inlink vote;
    ClueWeb09: referrers under SHORT_REFERRER_BYTES do not vote) when at least
    `min_votes` voted, else None."""
    votes = [r.lang for r in referrers if r.text_bytes >= SHORT_REFERRER_BYTES]
    if len(votes) < min_votes:
        return None
    best = max(sorted(set(votes)), key=votes.count)
    return best if votes.count(best) * 2 > len(votes) else None
