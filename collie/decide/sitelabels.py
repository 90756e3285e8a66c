"""What a site of the corpus is, beside its language (issue 44): three labels that every
public corpus of a small language needs and none reports, each decided per site with
the reason it was given.

- `religious`: a known religious domain; or its documents cite scripture ("Johana
  3:16") or number their verses, *and* use church vocabulary (in English and in the
  names the languages of the region give Jesus, Christ, the Bible, the church, found
  inside prefixed words: uJesu, eBhayibhelini): in a third of its documents each, or
  two citing documents on a site whose words are 1.5% church words. Either cue alone
  is not enough: news gives times and football scores ("Gor Mahia 2:1") and thanks God;
  a Bible site gives both.
- `multilingual` (probably machine-translated): the same pages under several language
  codes, as a path segment (`/sw/`, `/luo/`), a subdomain (`fr.shop.example`) or a
  query (`?lang=fr`): shops, apps and template sites that serve every locale. A code
  counts only when some page of the site is there under three codes or more, two of
  them a big web language's (English, French, ...), so that `/all/`, `/new/`, `/tag/`
  and `/top/` (ISO 639-3 codes too) do not.
- `relative`: the relatives pass judged the site a close relative's (its pass share).

Pure functions over what the store holds; collie.corpus.sites gathers the evidence.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from urllib.parse import parse_qsl, urlsplit


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


RELIGIOUS, MULTILINGUAL, RELATIVE = "religious", "multilingual", "relative"
LABELS = (RELIGIOUS, MULTILINGUAL, RELATIVE)

# Registered domains of scripture, mission and church publishers that carry small
# languages (Common Crawl's own Dholuo list has jw.org and bibleforchildren.org).
RELIGIOUS_DOMAINS = _words(
    """
    jw.org bible.com bible.is biblegateway.com bible.org bibles.org ebible.org
    bibleforchildren.org churchofjesuschrist.org lds.org wordproject.org
    globalrecordings.net scriptureearth.org jesusfilm.org vatican.va biblica.com
    youversion.com bibleinmylanguage.com gladtidings-bs.com 5fish.mobi
    faithcomesbyhearing.com stepbible.org unitedbiblesocieties.org bibleserver.com
    sermon-online.com gospelgo.com christianitytoday.com biblesociety.org
    bibliaonline.com.br wycliffe.org
    """
)

# Church words: English, and the forms of Jesus, Christ, Jehovah, Bible, gospel, church,
# amen and hallelujah in the languages of the regions collie is used for (folded).
CHURCH_WORDS = _words(
    """
    jesus christ lord church churches bible gospel gospels scripture scriptures sermon
    pastor apostle apostles disciples psalm psalms prophet prophets amen hallelujah
    alleluia jehovah yahweh holy worship salvation baptism congregation parish bishop
    verse verses chapter yesu yezu yeesu jesu yesuk kristo kristu kristus kristi krisito
    klisto christo yehova jehova yehowa yawe yahwe bibilia biblia baibul baibuli bibeli
    bibele bhayibheli ibhayibheli bayibulo bayibuli injili evangeli evanjeli ivanjeli
    amina aleluya haleluya aleluia kanisa kanisani ekanisa kereke ikereke ekleziya
    eklezia eklesia
    """
)

# Stems of church words found inside a word, whatever its prefix or suffix (Zulu
# uJesu, likaJesu, eBhayibhelini; Swahili Yesu, Kristo): names no other word holds.
CHURCH_STEMS = _words(
    """
    jesu yesu yezu kristu kristo christ bhayibhel bayibul baibul bibili haleluy aleluy
    hallelu jehov yehov injili evangel ivanjel nkulunkulu
    """
)
STEM = re.compile("|".join(sorted(CHURCH_STEMS)))
SCRIPTURE = re.compile(  # "Johana 3:16", "1 Yohana 2:3-5", "Mat. 5:3"
    r"(?<![\w:])(?:[1-3]\s?)?[^\W\d_][^\W\d_'’-]{1,20}\.?\s(\d{1,3}):(\d{1,3})"
    r"(?:\s?[-–]\s?\d{1,3})?(?![\d:])"
)
INLINE_VERSE = re.compile(r"(?:^|(?<=[\s.,;:!?\"”’)]))(\d{1,3})[\s\u00a0]?(?=[^\W\d_])")
VERSE = re.compile(r"^\s*(\d{1,3})[\s.)]\s*\S")  # a paragraph that starts with its number
WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")

HOST_WORDS = _words("www api app cdn dev web ftp img static media mail shop blog www2 m")
MIN_SCRIPTURE = 2  # references a document needs to count as citing scripture
MIN_VERSES = 5  # paragraphs in a row numbered 1, 2, 3... to count as verse numbering
CHURCH_RATE = 0.012  # church words a word of the document, to count as church vocabulary
SITE_SHARE = 0.3  # documents of a site with each cue
# church words a word of the whole site, beside two documents citing scripture: real news
# of seven languages stays below 1.1% (a church story), Bible and church sites above 1.9%
SITE_CHURCH_RATE = 0.015
STRONG_SHARE = 0.6  # documents with church vocabulary that make it religious alone
MIN_CODES = 4  # language codes a multilingual site serves
SHARED_CODES = 3  # codes the same page must be under
MIN_MAJOR = 2  # of them the codes of big web languages: a locale site serves them first
# Big web languages, as ISO 639-1, -2/B and -3 codes: a site's /all/, /new/, /tag/ and
# /top/ are ISO 639-3 codes too, but no locale site leaves English and French out.
MAJOR_CODES = _words(
    """
    en fr de es pt it ru zh ja ar nl pl tr ko vi id hi sw fa uk eng fra fre deu ger spa
    por ita rus zho chi jpn ara nld dut pol tur kor vie ind hin swa swh fas per ukr
    """
)


@dataclass(frozen=True)
class SiteLabel:
    """A label of a site and why it was given."""

    label: str
    reason: str


@dataclass(frozen=True)
class SiteEvidence:
    """What a site's labels are decided from."""

    site: str  # the registered domain
    documents: Sequence[str] = ()  # its target documents' texts
    urls: Sequence[str] = ()  # its pages' URLs and the links between them
    relative_share: float | None = None  # the relatives pass's, when it set the site aside
    judged_target: bool = False  # a reviewer said its set-aside pages are the target's


@dataclass
class _Cues:
    scripture: int = 0
    verses: int = 0
    church: int = 0
    examples: Counter[str] = field(default_factory=Counter)
    words: Counter[str] = field(default_factory=Counter)
    total: int = 0  # words of all the documents
    church_total: int = 0  # church words among them

    @property
    def rate(self) -> float:
        return self.church_total / self.total if self.total else 0.0


def label_site(evidence: SiteEvidence) -> list[SiteLabel]:
    """The site's labels (LABELS order), each with its reason."""
    labels = [
        label
        for label in (_religious(evidence), _multilingual(evidence), _relative(evidence))
        if label
    ]
    return labels


def _religious(evidence: SiteEvidence) -> SiteLabel | None:
    if evidence.site in RELIGIOUS_DOMAINS:
        return SiteLabel(RELIGIOUS, f"a known religious domain ({evidence.site})")
    n = len(evidence.documents)
    if not n:
        return None
    cues = _Cues()
    for text in evidence.documents:
        _count_cues(text, cues)
    cited = max(cues.scripture, cues.verses)
    strong = cues.church >= STRONG_SHARE * n and n >= 3
    both = cited >= SITE_SHARE * n and cues.church >= SITE_SHARE * n
    dense = cues.rate >= SITE_CHURCH_RATE and cited >= min(2, n)
    if not (strong or both or dense):
        return None
    parts = []
    if cues.scripture:
        example = cues.examples.most_common(1)[0][0]
        parts.append(f"{cues.scripture} of {n} documents cite scripture (e.g. '{example}')")
    if cues.verses:
        parts.append(f"{cues.verses} of {n} number their verses")
    words = ", ".join(word for word, _ in cues.words.most_common(4))
    parts.append(
        f"{cues.church} of {n} use church vocabulary ({words}; {cues.rate:.1%} of the site's words)"
    )
    return SiteLabel(RELIGIOUS, "; ".join(parts))


def _count_cues(text: str, cues: _Cues) -> None:
    """Add one document's scripture references, verse numbering and church words."""
    references = [m for m in SCRIPTURE.finditer(text) if _plausible_verse(m)]
    if len(references) >= MIN_SCRIPTURE:
        cues.scripture += 1
        cues.examples[references[0].group(0).strip()] += 1
    paragraphs = [p for p in text.split("\n") if p.strip()]
    if max(_numbered_run(paragraphs), _inline_run(paragraphs)) >= MIN_VERSES:
        cues.verses += 1
    words = [w.casefold() for w in WORD.findall(text)]
    church = [w for w in words if w in CHURCH_WORDS or STEM.search(w)]
    cues.total += len(words)
    cues.church_total += len(church)
    if words and len(church) >= max(3, CHURCH_RATE * len(words)):
        cues.church += 1
        cues.words.update(church)


def _plausible_verse(match: re.Match[str]) -> bool:
    """Chapter 1-150 and verse 1-176: a clock (10:30) or a score (2:1) may still pass,
    which is why a reference counts only beside church vocabulary."""
    chapter, verse = int(match.group(1)), int(match.group(2))
    return 1 <= chapter <= 150 and 1 <= verse <= 176


def _numbered_run(paragraphs: Sequence[str]) -> int:
    """The longest run of paragraphs numbered 1, 2, 3... in a row (or n, n+1, ...)."""
    best = run = 0
    last = None
    for paragraph in paragraphs:
        match = VERSE.match(paragraph)
        number = int(match.group(1)) if match else None
        run = (
            run + 1
            if number is not None and last is not None and number == last + 1
            else (1 if number is not None else 0)
        )
        last = number
        best = max(best, run)
    return best


def _inline_run(paragraphs: Sequence[str]) -> int:
    """The longest run of verse numbers 1, 2, 3... inside one paragraph (a chapter whose
    verses were superscript numbers in one block of text)."""
    best = 0
    for paragraph in paragraphs:
        numbers = [int(n) for n in INLINE_VERSE.findall(paragraph)]
        run = 1 if numbers else 0
        for before, number in itertools.pairwise(numbers):
            run = run + 1 if number == before + 1 else 1
            best = max(best, run)
        best = max(best, run)
    return best


def _multilingual(evidence: SiteEvidence) -> SiteLabel | None:
    pages: dict[str, set[str]] = defaultdict(set)  # the rest of a URL -> its codes
    for url in evidence.urls:
        for code, rest in _locales(url):
            pages[rest].add(code)
    shared = {rest for rest, codes in pages.items() if len(codes) >= SHARED_CODES}
    codes = set().union(*(pages[rest] for rest in shared)) if shared else set()
    if len(codes) < MIN_CODES or len(codes & MAJOR_CODES) < MIN_MAJOR:
        return None
    shown = " ".join(sorted(codes)[:8]) + (" ..." if len(codes) > 8 else "")
    return SiteLabel(
        MULTILINGUAL,
        f"the same pages under {len(codes)} language codes ({shown}; {len(shared)} pages "
        f"under {SHARED_CODES} or more): a locale site, probably machine-translated",
    )


def _locales(url: str) -> Iterable[tuple[str, str]]:
    """(language code, the URL without it) for each place a URL names a language."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    segments = [s for s in parts.path.split("/") if s]
    labels = host.split(".")
    if len(labels) >= 3 and (code := _language_code(labels[0], subdomain=True)):
        yield code, ".".join(labels[1:]) + parts.path
    if segments and (code := _language_code(segments[0])):
        yield code, host + "/" + "/".join(segments[1:])
    for key, value in parse_qsl(parts.query):
        if key.lower() in ("lang", "hl", "locale", "language", "lng") and (
            code := _language_code(value)
        ):
            yield code, host + parts.path


def _language_code(text: str, subdomain: bool = False) -> str | None:
    """The language a locale names ("en", "en-US", "pt_br", "luo", "nso"), as its base
    code; a subdomain that names a machine (www, api, cdn...) is none."""
    base = re.split(r"[-_]", text.lower(), maxsplit=1)[0]
    if not base.isascii() or not base.isalpha():
        return None
    if len(base) == 2 and base in _two_letter():
        return base
    if len(base) == 3 and base in _three_letter() and not (subdomain and base in HOST_WORDS):
        return base
    return None


@lru_cache(maxsize=1)
def _two_letter() -> frozenset[str]:
    from collie.languages import all_languages

    return frozenset(lang.part1 for lang in all_languages().values() if lang.part1)


@lru_cache(maxsize=1)
def _three_letter() -> frozenset[str]:
    from collie.languages import all_languages

    return frozenset(code for code, lang in all_languages().items() if lang.active)


def _relative(evidence: SiteEvidence) -> SiteLabel | None:
    if evidence.relative_share is None or evidence.judged_target:
        return None
    return SiteLabel(
        RELATIVE,
        f"the relatives pass set it aside: {evidence.relative_share:.0%} of its text "
        "passes the target's test (a close relative's site, probably)",
    )
