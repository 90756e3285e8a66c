"""Build collie's language table: codes, names, autonyms, countries, domain extensions.

Writes two committed, derived tables that the installed package reads at run time:

    collie/data/languages.tsv   one row per ISO 639-3 code (active and retired)
    collie/data/countries.tsv   ISO 3166-1 territories with their country-code TLDs

Sources (open data from PyPI, pinned in pyproject's `build-data` extra):

- python-iso639: the ISO 639-3 code tables of SIL (codes, reference names, the name
  index's alternative names, macrolanguage mappings, retirements);
- babel: Unicode CLDR (English language names, autonyms, territory-language data,
  macrolanguage aliases such as swh -> sw that name a macrolanguage's principal member);
- pycountry: ISO 3166-1 country names;
- ethnologue/alt_names.tsv: a small hand-kept list of names users clearly use that the
  sources above lack (each with the reason it is there).

The `alt_names` column merges that list with every CLDR locale's Latin-script name for the
language (Acholi, Kijaluo, Suaheli, ...): names to resolve and suggest, not to show.

Ethnologue itself is not open data; the directory keeps the name of the CorpusCollie
component it replaces. Run from the repository root:

    python ethnologue/build.py            # rewrite the tables
    python ethnologue/build.py --check    # exit 1 if the committed tables differ

The output depends only on the pinned package versions: no dates, no environment.
"""

from __future__ import annotations

import argparse
import re
import sys
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path

import iso639
import pycountry
from babel import Locale, UnknownLocaleError, localedata
from babel.core import get_global

ROOT = Path(__file__).resolve().parent.parent
LANGUAGES_TSV = ROOT / "collie" / "data" / "languages.tsv"
COUNTRIES_TSV = ROOT / "collie" / "data" / "countries.tsv"
HAND_ALT_NAMES = Path(__file__).resolve().parent / "alt_names.tsv"

# Country-code top-level domains that are not the lower-cased ISO 3166-1 code.
# None: no delegated ccTLD in use (web pages there live under generic domains).
TLD_EXCEPTIONS: dict[str, str | None] = {
    "GB": "uk",  # .gb is reserved but unused; the United Kingdom uses .uk
    "EH": None,  # Western Sahara: .eh has never been delegated
    "BQ": None,  # Caribbean Netherlands: .bq is reserved but unused
    "BV": None,  # Bouvet Island: .bv is delegated but not open for registration
    "SJ": None,  # Svalbard and Jan Mayen: .sj is delegated but not open for registration
    "UM": None,  # US Minor Outlying Islands: .um was retired in 2008
}
# CLDR territories outside ISO 3166-1 proper, with the domain used there.
CLDR_EXTRA_TERRITORIES: dict[str, tuple[str, str | None]] = {
    "AC": ("Ascension Island", "ac"),
    "CP": ("Clipperton Island", None),
    "DG": ("Diego Garcia", "io"),
    "EA": ("Ceuta and Melilla", "es"),
    "IC": ("Canary Islands", "es"),
    "TA": ("Tristan da Cunha", "sh"),
    "XK": ("Kosovo", None),
}

LANGUAGE_COLUMNS = [
    "code",  # ISO 639-3
    "part1",  # ISO 639-1, if any
    "part2b",  # ISO 639-2/B, if any and different from the 639-3 code
    "scope",  # I individual, M macrolanguage, S special
    "type",  # L living, E extinct, A ancient, H historical, C constructed, S special
    "status",  # A active, R retired
    "name",  # ISO 639-3 reference name
    "english",  # CLDR English names, |-separated
    "other_names",  # alternative names from the ISO 639-3 name index
    "autonyms",  # the language's name for itself (CLDR)
    "macrolanguage",  # the macrolanguage this individual language belongs to
    "principal",  # for a macrolanguage: the member CLDR treats as the language
    "countries",  # ISO 3166-1 alpha-2, by CLDR population share, |-separated
    "retired",  # for a retired code: the code that replaces it, or the remedy text
    "alt_names",  # hand-kept names, then CLDR names in other locales (Latin script)
]


@dataclass
class Row:
    code: str
    part1: str = ""
    part2b: str = ""
    scope: str = ""
    type: str = ""
    status: str = ""
    name: str = ""
    english: list[str] = field(default_factory=list)
    other_names: list[str] = field(default_factory=list)
    autonyms: list[str] = field(default_factory=list)
    macrolanguage: str = ""
    principal: str = ""
    countries: dict[str, float] = field(default_factory=dict)
    retired: str = ""
    alt_names: list[str] = field(default_factory=list)

    def cells(self) -> list[str]:
        ordered = sorted(self.countries.items(), key=lambda kv: (-kv[1], kv[0]))
        values = [
            self.code,
            self.part1,
            self.part2b,
            self.scope,
            self.type,
            self.status,
            self.name,
            "|".join(self.english),
            "|".join(self.other_names),
            "|".join(self.autonyms),
            self.macrolanguage,
            self.principal,
            "|".join(code for code, _ in ordered),
            self.retired,
            "|".join(self.alt_names),
        ]
        for value in values:
            if re.search(r"[\t\n\r]", value):
                raise ValueError(f"{self.code}: tab or newline in {value!r}")
        return values


def clean(name: str) -> str:
    return unicodedata.normalize("NFC", " ".join(name.split()))


def add_unique(names: list[str], name: str) -> None:
    name = clean(name)
    if name and name.casefold() not in {n.casefold() for n in names}:
        names.append(name)


def iso_rows() -> dict[str, Row]:
    rows: dict[str, Row] = {}
    for lang in sorted(iso639.ALL_LANGUAGES, key=lambda x: x.part3):
        row = Row(
            code=lang.part3,
            part1=lang.part1 or "",
            part2b=lang.part2b if lang.part2b and lang.part2b != lang.part3 else "",
            scope=lang.scope or "",
            type=lang.type or "",
            status=lang.status or "",
            name=clean(lang.name),
            macrolanguage=lang.macrolanguage or "",
        )
        for other in lang.other_names or []:
            if clean(other.print).casefold() != row.name.casefold():
                add_unique(row.other_names, other.print)
        if lang.status == "R":
            row.retired = lang.retire_change_to or clean(lang.retire_remedy or "")
        rows[row.code] = row
    return rows


def cldr_to_iso3(cldr_code: str, rows: dict[str, Row], by_part1: dict[str, str]) -> str | None:
    """Map a CLDR language code (`sw`, `luo`, `sr_Latn`) to an active ISO 639-3 code."""
    base = cldr_code.split("_")[0].split("-")[0].lower()
    if len(base) == 2:
        return by_part1.get(base)
    row = rows.get(base)
    if row and row.status == "A":
        return base
    return None


def principal_members(rows: dict[str, Row], by_part1: dict[str, str]) -> dict[str, str]:
    """Macrolanguage -> principal member, from CLDR aliases such as swh -> sw, cmn -> zh."""
    result: dict[str, str] = {}
    for alias, target in sorted(get_global("language_aliases").items()):
        member = rows.get(alias)
        macro = by_part1.get(target)
        if member and macro and member.macrolanguage == macro and member.status == "A":
            result[macro] = alias
    return result


def cldr_codes() -> list[str]:
    """Plain language codes of every CLDR locale (`sw`, `luo`, not `sw_KE`)."""
    codes = set()
    for ident in localedata.locale_identifiers():
        base = ident.split("_")[0]
        if re.fullmatch(r"[a-z]{2,3}", base):
            codes.add(base)
    return sorted(codes)


def add_cldr_names(rows: dict[str, Row], by_part1: dict[str, str]) -> None:
    english = Locale("en").languages
    for cldr_code in sorted(english):
        if not re.fullmatch(r"[a-z]{2,3}", cldr_code):
            continue
        code = cldr_to_iso3(cldr_code, rows, by_part1)
        if code:
            add_unique(rows[code].english, english[cldr_code])
    for cldr_code in cldr_codes():
        code = cldr_to_iso3(cldr_code, rows, by_part1)
        if not code:
            continue
        try:
            autonym = Locale.parse(cldr_code).languages.get(cldr_code)
        except (UnknownLocaleError, ValueError):
            continue
        if autonym:
            add_unique(rows[code].autonyms, autonym)


def fold(name: str) -> str:
    """Case- and accent-insensitive form, to tell names apart."""
    decomposed = unicodedata.normalize("NFKD", clean(name).casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def is_latin(name: str) -> bool:
    return all(not ch.isalpha() or "LATIN" in unicodedata.name(ch, "") for ch in name)


def hand_alt_names() -> list[tuple[str, str]]:
    """(code, name) pairs from ethnologue/alt_names.tsv (comments and the header skipped)."""
    lines = HAND_ALT_NAMES.read_text(encoding="utf-8").splitlines()
    rows = [line.split("\t") for line in lines if line and not line.startswith("#")]
    return [(cells[0], cells[1]) for cells in rows[1:]]


def cldr_locale_names(rows: dict[str, Row], by_part1: dict[str, str]) -> dict[str, Counter[str]]:
    """ISO 639-3 code -> Latin-script names in every CLDR locale, with how many use each."""
    found: dict[str, Counter[str]] = {}
    for ident in sorted(localedata.locale_identifiers()):
        try:
            names = Locale.parse(ident).languages
        except (UnknownLocaleError, ValueError):
            continue
        for cldr_code, name in names.items():
            code = cldr_to_iso3(cldr_code, rows, by_part1) if "_" not in cldr_code else None
            if code and is_latin(name):
                found.setdefault(code, Counter())[clean(name)] += 1
    return found


def add_alt_names(rows: dict[str, Row], by_part1: dict[str, str]) -> None:
    """The hand-kept names, then other locales' names, most widely used first."""
    for code, name in hand_alt_names():
        if rows[code].status != "A":
            raise ValueError(f"alt_names.tsv: {code} is not an active ISO 639-3 code")
        rows[code].alt_names.append(clean(name))
    for code, counts in sorted(cldr_locale_names(rows, by_part1).items()):
        rows[code].alt_names += sorted(counts, key=lambda n: (-counts[n], n))
    for row in rows.values():
        known = {fold(n) for n in (row.name, *row.english, *row.other_names, *row.autonyms)}
        kept = []
        for name in row.alt_names:
            if fold(name) not in known:
                known.add(fold(name))
                kept.append(name)
        row.alt_names = kept


def territories() -> dict[str, tuple[str, str | None]]:
    """ISO 3166-1 alpha-2 (plus a few CLDR territories) -> (name, ccTLD or None)."""
    result: dict[str, tuple[str, str | None]] = {}
    for country in pycountry.countries:
        code = country.alpha_2
        tld = TLD_EXCEPTIONS.get(code, code.lower())
        result[code] = (country.name, tld)
    result.update(CLDR_EXTRA_TERRITORIES)
    return dict(sorted(result.items()))


def add_countries(
    rows: dict[str, Row],
    by_part1: dict[str, str],
    principals: dict[str, str],
    known: dict[str, tuple[str, str | None]],
) -> list[str]:
    """Attach CLDR territory data; return the CLDR codes that could not be mapped."""
    unmapped: set[str] = set()
    for territory, langs in sorted(get_global("territory_languages").items()):
        if territory not in known:
            continue
        for cldr_code, info in sorted(langs.items()):
            code = cldr_to_iso3(cldr_code, rows, by_part1)
            if not code:
                unmapped.add(cldr_code)
                continue
            share = float(info.get("population_percent") or 0.0)
            targets = [code] + ([principals[code]] if code in principals else [])
            for target in targets:
                countries = rows[target].countries
                countries[territory] = max(share, countries.get(territory, 0.0))
    return sorted(unmapped)


def build() -> tuple[str, str]:
    rows = iso_rows()
    by_part1 = {r.part1: r.code for r in rows.values() if r.part1 and r.status == "A"}
    principals = principal_members(rows, by_part1)
    for macro, member in principals.items():
        rows[macro].principal = member
    add_cldr_names(rows, by_part1)
    add_alt_names(rows, by_part1)
    known = territories()
    unmapped = add_countries(rows, by_part1, principals, known)

    active = [r for r in rows.values() if r.status == "A"]
    header = [
        "# collie language table: ISO 639-3 codes, names, autonyms, countries.",
        "# Built by ethnologue/build.py; do not edit by hand.",
        f"# source: ISO 639-3 code tables (SIL) via python-iso639 {version('python-iso639')}"
        f" (data of {iso639.DATA_LAST_UPDATED})",
        f"# source: Unicode CLDR via babel {version('babel')}"
        " (English names, autonyms, territory languages, macrolanguage aliases)",
        f"# source: ISO 3166-1 via pycountry {version('pycountry')}",
        "# source: ethnologue/alt_names.tsv (hand-kept alternate names)",
        f"# rows: {len(rows)} ({len(active)} active,"
        f" {sum(1 for r in active if r.countries)} with countries,"
        f" {sum(1 for r in active if r.autonyms)} with autonyms)",
        f"# CLDR territory codes without an active ISO 639-3 code: {' '.join(unmapped) or '-'}",
        "\t".join(LANGUAGE_COLUMNS),
    ]
    lines = header + ["\t".join(rows[code].cells()) for code in sorted(rows)]
    languages = "\n".join(lines) + "\n"

    country_lines = [
        "# collie country table: ISO 3166-1 alpha-2, name, country-code top-level domain.",
        "# Built by ethnologue/build.py; do not edit by hand.",
        f"# source: ISO 3166-1 via pycountry {version('pycountry')}; ccTLD = lower-cased code"
        " except: "
        + ", ".join(f"{c} -> {('.' + t) if t else 'none'}" for c, t in TLD_EXCEPTIONS.items()),
        "code\tname\ttld",
    ]
    for code, (name, tld) in known.items():
        country_lines.append(f"{code}\t{clean(name)}\t{('.' + tld) if tld else ''}")
    return languages, "\n".join(country_lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    parser.add_argument("--out-dir", type=Path, help="write both tables here instead")
    args = parser.parse_args(argv)
    languages, countries = build()
    targets = [(LANGUAGES_TSV, languages), (COUNTRIES_TSV, countries)]
    if args.out_dir:
        targets = [(args.out_dir / path.name, text) for path, text in targets]
    status = 0
    for path, text in targets:
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                print(f"{path.name}: differs from a fresh build", file=sys.stderr)
                status = 1
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    return status


if __name__ == "__main__":
    sys.exit(main())
