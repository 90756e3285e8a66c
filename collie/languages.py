"""Language codes and names, countries and country domains.

Reads the table that `ethnologue/build.py` derives from ISO 639-3 (SIL), Unicode CLDR and
ISO 3166-1 (`collie/data/languages.tsv`, `countries.tsv`). `resolve_language` turns what a
user types (`luo`, `sw`, `Dholuo`, `swahili`) into one ISO 639-3 code, or fails with the
closest matches; it never guesses silently.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from collie.errors import LanguageNotFound

_BCP47 = re.compile(r"^([a-z]{2,3})(?:[-_][a-z0-9]{1,8})+$")


@dataclass(frozen=True)
class Country:
    code: str  # ISO 3166-1 alpha-2
    name: str
    tld: str | None  # ".ke", or None where no ccTLD is in use


@dataclass(frozen=True)
class Language:
    code: str  # ISO 639-3
    part1: str | None
    part2b: str | None
    scope: str  # I individual, M macrolanguage, S special
    type: str
    active: bool
    name: str  # ISO 639-3 reference name
    english: tuple[str, ...]
    other_names: tuple[str, ...]
    autonyms: tuple[str, ...]
    macrolanguage: str | None
    principal: str | None  # a macrolanguage's principal member (CLDR)
    countries: tuple[str, ...]
    retired: str | None

    @property
    def display_name(self) -> str:
        """The CLDR English name when there is one, else the ISO reference name."""
        return self.english[0] if self.english else self.name

    @property
    def is_macrolanguage(self) -> bool:
        return self.scope == "M"

    def country_list(self) -> list[Country]:
        table = _countries()
        return [table[c] for c in self.countries if c in table]

    def domains(self) -> list[str]:
        """Country-code domain extensions where the language is spoken, in table order."""
        seen: list[str] = []
        for country in self.country_list():
            if country.tld and country.tld not in seen:
                seen.append(country.tld)
        return seen


@dataclass(frozen=True)
class Resolution:
    """The outcome of `resolve_language`: the language and, if needed, a note for the user."""

    language: Language
    note: str | None = None


def _split(cell: str) -> tuple[str, ...]:
    return tuple(v for v in cell.split("|") if v)


def _data_lines(name: str) -> Iterable[list[str]]:
    text = resources.files("collie").joinpath("data").joinpath(name).read_text(encoding="utf-8")
    lines = (line for line in text.splitlines() if line and not line.startswith("#"))
    next(lines)  # column names
    for line in lines:
        yield line.split("\t")


@lru_cache(maxsize=1)
def _countries() -> dict[str, Country]:
    return {
        code: Country(code, name, tld or None) for code, name, tld in _data_lines("countries.tsv")
    }


@lru_cache(maxsize=1)
def all_languages() -> dict[str, Language]:
    """Every ISO 639-3 code in the table, active and retired, by code."""
    table: dict[str, Language] = {}
    for cells in _data_lines("languages.tsv"):
        (code, part1, part2b, scope, type_, status, name, english, other, autonyms) = cells[:10]
        macro, principal, countries, retired = cells[10:14]
        table[code] = Language(
            code=code,
            part1=part1 or None,
            part2b=part2b or None,
            scope=scope,
            type=type_,
            active=status == "A",
            name=name,
            english=_split(english),
            other_names=_split(other),
            autonyms=_split(autonyms),
            macrolanguage=macro or None,
            principal=principal or None,
            countries=_split(countries),
            retired=retired or None,
        )
    return table


def get_language(code: str) -> Language:
    """The language with this exact ISO 639-3 code (KeyError if there is none)."""
    return all_languages()[code]


def get_country(code: str) -> Country:
    return _countries()[code.upper()]


def members(macro: Language) -> list[Language]:
    """The active individual languages of a macrolanguage."""
    return [
        lang
        for lang in all_languages().values()
        if lang.active and lang.macrolanguage == macro.code
    ]


def normalise_name(text: str) -> str:
    """Case-, space- and width-insensitive form of a name or code."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def fold_accents(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _strip_qualifier(name: str) -> str:
    return re.sub(r"\s*\([^)]*\)\s*$", "", name)


@lru_cache(maxsize=1)
def _name_tiers() -> list[dict[str, set[str]]]:
    """Name keys -> codes, strongest tier first (full names, then alternative forms)."""
    primary: dict[str, set[str]] = {}
    secondary: dict[str, set[str]] = {}
    for lang in all_languages().values():
        if not lang.active:
            continue
        for name in (lang.name, *lang.english, *lang.autonyms):
            primary.setdefault(normalise_name(name), set()).add(lang.code)
        for name in (_strip_qualifier(lang.name), *lang.other_names):
            secondary.setdefault(normalise_name(name), set()).add(lang.code)
    folded: dict[str, set[str]] = {}
    for tier in (primary, secondary):
        for key, codes in tier.items():
            folded.setdefault(fold_accents(key), set()).update(codes)
    return [primary, secondary, folded]


@lru_cache(maxsize=1)
def _short_codes() -> dict[str, set[str]]:
    """ISO 639-1 and 639-2/B codes -> the active ISO 639-3 codes they stand for."""
    index: dict[str, set[str]] = {}
    for lang in all_languages().values():
        for short in (lang.part1, lang.part2b):
            if lang.active and short:
                index.setdefault(short, set()).add(lang.code)
    return index


def _code_matches(key: str) -> set[str]:
    table = all_languages()
    if len(key) == 3 and key in table and table[key].active:
        return {key}
    return set(_short_codes().get(key, ()))


def _collapse_macrolanguage(codes: set[str]) -> str | None:
    """If the codes are one macrolanguage plus some of its members, the macrolanguage."""
    table = all_languages()
    macros = [c for c in codes if table[c].is_macrolanguage]
    if len(macros) != 1:
        return None
    rest = codes - {macros[0]}
    return macros[0] if all(table[c].macrolanguage == macros[0] for c in rest) else None


def _principal_note(query: str, macro: Language, principal: Language) -> str:
    others = [m.code for m in members(macro) if m.code != principal.code]
    shown = ", ".join(sorted(others)[:8]) + (", ..." if len(others) > 8 else "")
    return (
        f"'{query}' names the macrolanguage {macro.display_name} ({macro.code}); "
        f"collie uses its principal member {principal.code}, {principal.name}. "
        f"Use '{macro.code}' for the macrolanguage itself"
        + (f", or another member: {shown}." if others else ".")
    )


def _finish(query: str, code: str, via_code3: bool, note: str | None = None) -> Resolution:
    lang = get_language(code)
    if lang.is_macrolanguage and lang.principal and not via_code3:
        principal = get_language(lang.principal)
        notes = [n for n in (note, _principal_note(query, lang, principal)) if n]
        return Resolution(principal, " ".join(notes))
    return Resolution(lang, note)


def _retired_problem(query: str, lang: Language) -> LanguageNotFound:
    hint = f"Use '{lang.retired}' instead." if lang.retired and len(lang.retired) == 3 else None
    detail = f": {lang.retired}" if lang.retired and not hint else ""
    return LanguageNotFound(
        f"'{query}' is a retired ISO 639-3 code ({lang.name}){detail}.",
        hint or "Choose one of the languages it was split into or merged with.",
        [lang.retired] if hint and lang.retired else [],
    )


def resolve_language(query: str) -> Resolution:
    """Resolve an ISO 639-3/639-1/639-2B code, a BCP 47 tag or a name to one language.

    A 639-1 code or a name that denotes a macrolanguage with a principal member in CLDR
    (`sw` -> `swh`, `zh` -> `cmn`) resolves to that member, with a note saying so.
    Raises LanguageNotFound (a usage problem) with the closest matches otherwise.
    """
    key = normalise_name(query)
    if not key:
        raise LanguageNotFound("No language given.", "Give an ISO 639-3 code or a name.", [])
    codes = _code_matches(key)
    if codes:
        return _finish(query, sorted(codes)[0], via_code3=len(key) == 3)
    retired = all_languages().get(key)
    if retired is not None and not retired.active:
        raise _retired_problem(query, retired)
    tag = _BCP47.match(key)
    if tag and _code_matches(tag.group(1)):
        code = sorted(_code_matches(tag.group(1)))[0]
        note = f"'{query}' is a language tag; collie uses its language subtag only."
        return _finish(query, code, via_code3=len(tag.group(1)) == 3, note=note)
    for tier in _name_tiers():
        found = tier.get(key) or tier.get(fold_accents(key))
        if not found:
            continue
        if len(found) == 1:
            return _finish(query, next(iter(found)), via_code3=False)
        macro = _collapse_macrolanguage(found)
        if macro:
            return _finish(query, macro, via_code3=False)
        raise _ambiguous(query, found)
    raise _unknown(query)


def describe(lang: Language) -> str:
    """One line: `luo  Luo (Kenya and Tanzania) [Dholuo]; KE`."""
    extra = [n for n in lang.autonyms if n != lang.name][:1]
    names = lang.name + (f" [{extra[0]}]" if extra else "")
    where = ", ".join(lang.countries[:6]) + (" ..." if len(lang.countries) > 6 else "")
    return f"{lang.code}  {names}" + (f"; {where}" if where else "")


def _ambiguous(query: str, codes: set[str]) -> LanguageNotFound:
    langs = sorted(
        (get_language(c) for c in codes), key=lambda lang: (-len(lang.countries), lang.code)
    )
    lines = [describe(lang) for lang in langs[:12]]
    return LanguageNotFound(
        f"'{query}' matches {len(codes)} languages:\n  " + "\n  ".join(lines),
        "Give the ISO 639-3 code of the one you mean, e.g. --lang " + langs[0].code,
        [lang.code for lang in langs],
    )


def closest_languages(query: str, limit: int = 8) -> list[Language]:
    """Languages whose codes or names come closest to `query`.

    Prefix and whole-word matches rank first, then names by similarity; when nothing is
    close, the few most similar names are still offered.
    """
    key = fold_accents(normalise_name(query))
    parts = [key] + [p for p in re.split(r"[-_\s]+", key) if len(p) >= 3 and p != key]
    scores: dict[str, float] = {}
    for tier in _name_tiers()[1:]:
        for name, codes in tier.items():
            score = max(_similarity(part, name) for part in parts)
            for code in codes:
                scores[code] = max(scores.get(code, 0.0), score)
    for part in re.split(r"[-_\s]+", key):
        for code in _code_matches(part):
            scores[code] = max(scores.get(code, 0.0), 0.9)
    ranked = sorted(scores, key=lambda c: (-scores[c], -len(get_language(c).countries), c))
    close = [c for c in ranked if scores[c] >= 0.75][:limit]
    if len(close) < 3:
        close += [c for c in ranked if 0.3 <= scores[c] < 0.75][: 3 - len(close)]
    return [get_language(c) for c in close]


def _similarity(key: str, name: str) -> float:
    if len(key) >= 3 and (name.startswith(key) or key in name.split()):
        return 1.0 + len(key) / max(len(name), 1)
    matcher = difflib.SequenceMatcher(None, key, name)
    if matcher.real_quick_ratio() < 0.3 or matcher.quick_ratio() < 0.3:
        return 0.0
    return matcher.ratio()


def _unknown(query: str) -> LanguageNotFound:
    close = closest_languages(query)
    if close:
        listing = "\n  ".join(describe(lang) for lang in close)
        message = f"Unknown language '{query}'. Closest matches:\n  {listing}"
    else:
        message = f"Unknown language '{query}'; nothing comes close."
    return LanguageNotFound(
        message,
        "Give an ISO 639-3 code or a language name; `collie language NAME` looks one up.",
        [lang.code for lang in close],
    )
