"""The rights a page states: its Creative Commons licence and any reservation of text and
data mining, read from its HTML and its HTTP headers (issue 57).

    rights = detect_rights(html, {"tdm-reservation": "1"})
    rights.licence   # "CC-BY-SA-4.0" (an SPDX identifier), or None
    rights.tdm       # "tdmrep-header", or None: no reservation found
    with_site_file(rights, 1).tdm   # the site's tdmrep.json reserves it: "tdmrep-file"

The licence, strongest signal first: a `rel="license"` link (`<a>` or `<link>`) to a
creativecommons.org licence or public-domain tool; a `dc.rights`, `dcterms.license` (or
`dc.license`, `dcterms.rights`) meta whose content is such a URL or names one ("CC BY-SA
4.0", "CC0"). The variant (BY, BY-SA, BY-NC, BY-ND, BY-NC-SA, BY-NC-ND, CC0, the Public
Domain Mark), the version and a ported licence's jurisdiction are kept, as SPDX writes
them (CC-BY-3.0-DE). A plain link to a licence, without rel="license", is not taken for
the page's: on 945 real pages (benchmarks/bench_rights.py) half of those seen were an
image's credit (a Flickr or Wikimedia photo's CC BY-SA), not the text's licence.

A reservation of text and data mining: the W3C TDMRep `tdm-reservation: 1` header or
`<meta name="tdm-reservation" content="1">` (0 says there is none), or a robots meta
(`robots`, or one naming a crawler) or an X-Robots-Tag header with `noai` or
`noimageai`. A site-wide `/.well-known/tdmrep.json` (the fetcher reads it once per
site: collie.fetch.tdmrep) reserves the pages its rules reserve (`tdmrep-file`) unless a
page states its own choice: the page's header or meta, `tdm-reservation` 0 or 1, outranks
the site's file (`with_site_file`), as TDMRep's HTTP fields override the file.

Regular expressions over the tags, not a parser: the page is parsed once already, by
extract.py; this reads a few tags' attributes, fast, and never raises.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

# Licences whose terms let anyone share and adapt the text (the Open Definition's
# conformant Creative Commons licences): no NonCommercial, no NoDerivatives.
OPEN_PREFIXES = ("CC0-", "CC-PDM-", "CC-BY-")
_CLOSED_PARTS = ("-NC", "-ND")

_TAG = re.compile(r"<(a|link|meta)\b([^>]*)>", re.I)
_ATTR = re.compile(r"""([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""")
_CC_URL = re.compile(
    r"creativecommons\.org/(?:licenses/(?P<variant>by(?:-nc)?(?:-nd|-sa)?)"
    r"|publicdomain/(?P<tool>zero|mark))/(?P<version>\d\.\d)"
    r"(?:/(?P<port>[a-z]{2}(?:-[a-z]+)?)(?![\w.-]))?",  # a port, not deed.de or legalcode
    re.I,
)
_CC_NAME = re.compile(
    r"\bCC[\s-]?(?P<variant>BY(?:[\s-]NC)?(?:[\s-](?:ND|SA))?)[\s-]+(?P<version>\d\.\d)\b"
    r"|\bCC0\b(?:[\s-]+(?P<zero>1\.0))?",
    re.I,
)
_LICENCE_META = frozenset({"dc.rights", "dcterms.rights", "dc.license", "dcterms.license"})
_NOAI = re.compile(r"\bno(?:image)?ai\b", re.I)


@dataclass(frozen=True)
class Rights:
    """What a page says of its rights: its licence (an SPDX identifier) and where it was
    found (`rel-license`, `meta`), and its reservation of text and data mining
    (`tdmrep-header`, `tdmrep-meta`, `robots-noai`, `x-robots-noai`; `tdmrep-file` by its
    site's file: `with_site_file`), None when absent."""

    licence: str | None = None
    licence_source: str | None = None
    tdm: str | None = None
    tdm_stated: bool = False  # the page states tdm-reservation itself (0 or 1)

    @property
    def open(self) -> bool:
        """Is the licence an open one (CC0, the Public Domain Mark, CC BY, CC BY-SA)?"""
        return is_open(self.licence)


def is_open(licence: str | None) -> bool:
    """CC0, the Public Domain Mark, CC BY and CC BY-SA (any version); not NC, not ND."""
    if not licence or not licence.startswith(OPEN_PREFIXES):
        return False
    return not any(part in licence for part in _CLOSED_PARTS)


def licence_of_url(url: str) -> str | None:
    """The SPDX identifier of a creativecommons.org licence or tool URL, or None."""
    found = _CC_URL.search(url)
    if found is None:
        return None
    version, port = found["version"], found["port"]
    if found["tool"]:
        name = "CC0" if found["tool"].lower() == "zero" else "CC-PDM"
        return f"{name}-{version}"
    spdx = f"CC-{found['variant'].upper()}-{version}"
    return f"{spdx}-{port.upper()}" if port else spdx


def licence_of_name(text: str) -> str | None:
    """The SPDX identifier a licence's name ("CC BY-SA 4.0", "CC0 1.0") or URL gives."""
    by_url = licence_of_url(text)
    if by_url is not None:
        return by_url
    found = _CC_NAME.search(text)
    if found is None:
        return None
    if found["variant"]:
        parts = re.split(r"[\s-]+", found["variant"].upper())
        return f"CC-{'-'.join(parts)}-{found['version']}"
    return "CC0-1.0"


def _attributes(text: str) -> dict[str, str]:
    return {
        m[1].lower(): (m[2] if m[2] is not None else m[3] if m[3] is not None else m[4])
        for m in _ATTR.finditer(text)
    }


def detect_rights(html: str, headers: Mapping[str, str] | None = None) -> Rights:
    """The licence and the TDM reservation `html` and its `headers` state (see above)."""
    found: dict[str, str] = {}  # source -> licence, the first of each
    tdm: str | None = None
    stated = False
    for match in _TAG.finditer(html):
        tag, attrs = match[1].lower(), _attributes(match[2])
        if tag in ("a", "link"):
            href = attrs.get("href", "")
            licence = licence_of_url(href) if "creativecommons.org" in href.lower() else None
            if licence is not None and "license" in attrs.get("rel", "").lower().split():
                found.setdefault("rel-license", licence)
            continue
        name = (attrs.get("name") or attrs.get("property") or "").lower()
        content = attrs.get("content", "")
        if name in _LICENCE_META:
            licence = licence_of_name(content)
            if licence is not None:
                found.setdefault("meta", licence)
        elif name == "tdm-reservation" and content.strip() in ("0", "1"):
            stated = True
            tdm = tdm or ("tdmrep-meta" if content.strip() == "1" else None)
        elif (name == "robots" or name.endswith("bot")) and _NOAI.search(content):
            tdm = tdm or "robots-noai"
    lowered = {key.lower(): value for key, value in (headers or {}).items()}
    tdm = _header_reservation(lowered) or tdm
    stated = stated or lowered.get("tdm-reservation", "").strip() in ("0", "1")
    for source in ("rel-license", "meta"):
        if source in found:
            return Rights(found[source], source, tdm, stated)
    return Rights(None, None, tdm, stated)


def with_site_file(rights: Rights, file_says: int | None) -> Rights:
    """`rights` with what the site's /.well-known/tdmrep.json says of the page (1
    reserved, 0 not, None nothing): a reservation `tdmrep-file` when the file reserves
    the page and the page neither reserves it already nor states its own choice."""
    if file_says != 1 or rights.tdm is not None or rights.tdm_stated:
        return rights
    return replace(rights, tdm="tdmrep-file")


def _header_reservation(lowered: Mapping[str, str]) -> str | None:
    """The reservation the HTTP headers (lower-case names) state (they outrank the
    page's own markup)."""
    if lowered.get("tdm-reservation", "").strip() == "1":
        return "tdmrep-header"
    if _NOAI.search(lowered.get("x-robots-tag", "")):
        return "x-robots-noai"
    return None
