"""Language codes and names, countries and country domains.

Reads the table that `ethnologue/build.py` derives from ISO 639-3 (SIL), Unicode CLDR and
ISO 3166-1 (`collie/data/languages.tsv`, `countries.tsv`). `resolve_language` turns what a
user types (`luo`, `sw`, `Dholuo`, `swahili`, `Acholi`) into one ISO 639-3 code, or fails
with the closest matches by edit distance over every name, alternate names included; it
never guesses silently.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Callable, Iterable
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
    alt_names: tuple[str, ...] = ()  # other locales' and hand-kept names: to resolve, not show

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
        macro, principal, countries, retired, alt_names = cells[10:15]
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
            alt_names=_split(alt_names),
        )
    return table


def get_language(code: str) -> Language:
    """The language with this exact ISO 639-3 code (KeyError if there is none)."""
    return all_languages()[code]


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
    """Name keys -> codes, strongest tier first.

    Full names, then ISO alternative forms, then both accent-folded, then the alternate
    names (other locales' and hand-kept ones), as typed and accent-folded.
    """
    primary: dict[str, set[str]] = {}
    secondary: dict[str, set[str]] = {}
    alternate: dict[str, set[str]] = {}
    for lang in all_languages().values():
        if not lang.active:
            continue
        for name in (lang.name, *lang.english, *lang.autonyms):
            primary.setdefault(normalise_name(name), set()).add(lang.code)
        for name in (_strip_qualifier(lang.name), *lang.other_names):
            secondary.setdefault(normalise_name(name), set()).add(lang.code)
        for name in lang.alt_names:
            alternate.setdefault(normalise_name(name), set()).add(lang.code)
    return [primary, secondary, _folded(primary, secondary), alternate, _folded(alternate)]


def _folded(*tiers: dict[str, set[str]]) -> dict[str, set[str]]:
    folded: dict[str, set[str]] = {}
    for tier in tiers:
        for key, codes in tier.items():
            folded.setdefault(fold_accents(key), set()).update(codes)
    return folded


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
        raise LanguageNotFound(
            "No language given: the code or name is empty.",
            "Give an ISO 639-3 code or a name, e.g. `zul` or `Zulu` (`collie language NAME` "
            "finds one).",
            [],
        )
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
    """Languages whose codes or names (alternate names included) come closest to `query`.

    Prefix and whole-word matches rank first, then names within an edit distance of a
    third of their length, nearest first (`Dhuolo` -> Dholuo); when nothing is that close,
    the few most similar ISO and CLDR English names (difflib's ratio) are still offered.
    """
    key = fold_accents(normalise_name(query))
    parts = [key] + [p for p in re.split(r"[-_\s]+", key) if len(p) >= 3 and p != key]
    tiers = _name_tiers()
    close = _best_scores(parts, _closeness, (tiers[2], tiers[4]))
    for part in re.split(r"[-_\s]+", key):
        for code in _code_matches(part):
            close[code] = max(close.get(code, 0.0), 0.9)
    found = _ranked(close, 2 / 3)[:limit]
    if len(found) < 3:
        loose = _ranked(_best_scores(parts, _rough_similarity, (tiers[2],)), 0.3)
        found += [c for c in loose if c not in found][: 3 - len(found)]
    return [get_language(c) for c in found]


def _best_scores(
    parts: list[str], measure: Callable[[str, str], float], tiers: tuple[dict[str, set[str]], ...]
) -> dict[str, float]:
    """Code -> the best score of any of its names in `tiers` against any part."""
    scores: dict[str, float] = {}
    for tier in tiers:
        for name, codes in tier.items():
            score = max(measure(part, name) for part in parts)
            if score > 0.0:
                for code in codes:
                    scores[code] = max(scores.get(code, 0.0), score)
    return scores


def _ranked(scores: dict[str, float], floor: float) -> list[str]:
    kept = [c for c in scores if scores[c] >= floor]
    return sorted(kept, key=lambda c: (-scores[c], -len(get_language(c).countries), c))


def _closeness(key: str, name: str) -> float:
    """Above 1 for a prefix or whole-word match, else 1 - edit distance / length (or 0)."""
    if len(key) >= 3 and (name.startswith(key) or key in name.split()):
        return 1.0 + len(key) / max(len(name), 1)
    longest = max(len(key), len(name))
    bound = longest // 3
    if abs(len(key) - len(name)) > bound:
        return 0.0
    matcher = difflib.SequenceMatcher(None, key, name)
    if matcher.quick_ratio() < 0.6:  # too few letters in common for `bound` edits
        return 0.0
    distance = edit_distance(key, name, bound)
    return 1.0 - distance / longest if distance <= bound else 0.0


def _rough_similarity(key: str, name: str) -> float:
    matcher = difflib.SequenceMatcher(None, key, name)
    if matcher.real_quick_ratio() < 0.3 or matcher.quick_ratio() < 0.3:
        return 0.0
    return matcher.ratio()


def edit_distance(a: str, b: str, bound: int) -> int:
    """Edits (insert, delete, substitute, swap two neighbours) from a to b; bound+1 past bound."""
    if abs(len(a) - len(b)) > bound:
        return bound + 1
    before: list[int] | None = None
    row = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            current[j] = min(row[j] + 1, current[j - 1] + 1, row[j - 1] + cost)
            if before and i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], before[j - 2] + 1)
        if min(current) > bound:
            return bound + 1
        before, row = row, current
    return row[-1]


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
