"""`collie init`'s work: check the request, resolve the language, plan the seed
documents, decide whether the target can be learnt (refuse, or warn), create the
workspace, train its model. The command line parses and prints; this module decides
and creates (messages go through the `note` it is given)."""

from __future__ import annotations

import codecs
import os
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from collie.config import Settings
from collie.errors import (
    InputError,
    UnusableDocuments,
    UsageProblem,
)
from collie.langid.learn import (
    ENOUGH_LEARN_WORDS,
    FOREIGN_SHARE,
    MIN_DOCUMENT_CHARS,
    NEIGHBOUR_WARNING,
    REAL_SUFFIX,
    LearnedLanguage,
    base_model,
    foreign_documents,
    learning_problem,
    load_model_for,
    needs_own_model,
    split_paragraphs,
    train_workspace_model,
)
from collie.langid.model import OTHER, LangModel, summarise_languages
from collie.languages import Language, get_language, members, resolve_language
from collie.page.encoding import decode_text_file
from collie.search.google import end_notice
from collie.store.database import record_init_warnings
from collie.workspace.folder import (
    DB_FILE,
    SEED_WORDS_FILE,
    check_can_init,
    create_workspace,
    is_workspace,
    publish_workspace,
    read_settings,
    read_word_list,
    staged_workspace,
)
from collie.workspace.seedfiles import (
    SeedDocument,
    SeedInput,
    SeedPlan,
    plan_seed_documents,
    wronglang_input,
)


@dataclass(frozen=True)
class InitRequest:
    """What `collie init` was asked for."""

    root: Path
    lang: str
    docs: tuple[Path, ...]
    wronglang: tuple[str, ...]
    seed_words: Path | None
    encoding: str | None
    force: bool
    flags: Mapping[str, tuple[Any, str]]  # --set/--search values: key -> (value, flag)


@dataclass(frozen=True)
class Created:
    """The new workspace's language, seed documents and manual seed words."""

    language: Language
    plan: SeedPlan
    words: list[str]
    warnings: list[str] = field(default_factory=list)  # also kept for `collie status`


def create(request: InitRequest, note: Callable[[str], None]) -> Created:
    """Create the workspace of `request` (nothing is created when it is refused). The
    warnings `note` hears are kept in the workspace too, for `collie status` (issue 46)."""
    warnings: list[str] = []

    def tell(line: str) -> None:
        if line.startswith(WARNING):
            warnings.append(line.removeprefix(WARNING))
        note(line)

    check_can_init(request.root)
    with staged_workspace(request.root) as staging:  # whole or not at all (issue 58)
        made = _create(request, tell, staging)
        if warnings:
            record_init_warnings(staging / DB_FILE, warnings)
        publish_workspace(staging, request.root)
    return Created(made.language, made.plan, made.words, warnings)


WARNING = "warning: "


def _create(request: InitRequest, note: Callable[[str], None], staging: Path) -> Created:
    """Check the request and build its workspace in `staging` (moved to request.root
    once whole)."""
    root, lang, docs = request.root, request.lang, request.docs
    wronglang, seed_words, encoding = request.wronglang, request.seed_words, request.encoding
    outer = next((p for p in root.parents if is_workspace(p)), None)
    _check_encoding(encoding)
    if not docs and not seed_words:
        raise UsageProblem(
            "collie needs seed documents (--docs) or a seed word list (--seed-words) to "
            "build its first queries.",
            "Example: collie init --lang luo --docs my-luo-texts/",
        )
    resolution = resolve_language(lang)
    language = resolution.language
    if not language.active or language.scope == "S":
        raise UsageProblem(f"'{lang}' ({language.code}) cannot be a target language.")
    if resolution.note:
        note(resolution.note)
    settings = read_settings(None, os.environ, request.flags)
    _check_one_language(settings, language)
    if settings["search.backend"] == "google":  # its API ends: said now, refused after
        note(WARNING + end_notice(time.time()))
    inputs = [SeedInput(p, "target", language.code) for p in docs]
    inputs += [wronglang_input(value) for value in wronglang]
    plan = plan_seed_documents(inputs, settings["encoding.min_confidence"], encoding)
    if docs and not plan.count("target"):
        raise _no_usable_documents(plan)
    words = _read_seed_words(seed_words, settings["encoding.min_confidence"], encoding)
    hidden = hidden_languages(settings["langid.hide"], language.code)
    base = base_model(hidden)  # the bundled model, or it without the hidden languages
    problem = learning_problem(language.code, plan.words("target"), base)
    member = _known_member(language, base)
    if member is not None and not request.force:
        if problem is not None:
            raise UsageProblem(
                f"{language.code} is the {language.display_name} macrolanguage, which "
                f"collie's model knows through its member {member.code} "
                f"({member.display_name}); it could only learn {language.code} from your "
                f"seed documents, which are too few ({plan.words('target'):,} words).",
                f"Give --lang {member.code} to mine {member.code}"
                + (
                    f" (--lang {language.display_name} names it too)"
                    if member.code == language.principal
                    else ""
                )
                + ", or more text with --docs.",
            )
        note(
            f"{WARNING}{language.code} is a macrolanguage: collie learns it from your "
            f"documents; its model knows its member {member.display_name} ({member.code}): "
            f"for that, make the workspace with --lang {member.code}."
        )
    if problem is not None and not request.force:
        raise UsageProblem(
            problem, "Give more text with --docs, or go on anyway with --force (not advised)."
        )
    if problem is not None:
        note(f"warning: {problem} Going on (--force).")
    elif needs_own_model(language.code, base) and (plan.words("target") < ENOUGH_LEARN_WORDS):
        note(
            f"warning: {plan.words('target'):,} words of {language.code} to learn it from; "
            f"{ENOUGH_LEARN_WORDS:,} or more are recommended."
        )
    chosen: dict[str, Any] = {key: value for key, (value, _flag) in request.flags.items()}
    chosen["language.code"] = language.code
    chosen.setdefault("run.seed", secrets.randbelow(2**31 - 1) + 1)
    if words:
        chosen["seeds.manual"] = SEED_WORDS_FILE
    create_workspace(staging, chosen, plan, words)
    learned = train_workspace_model(staging, language.code, plan.documents, base)
    codes = [h for h in hidden if not h.endswith(REAL_SUFFIX)]
    if codes:
        note(f"langid.hide: the model does not know {', '.join(codes)} in this workspace")
    if len(codes) < len(hidden):
        known = ", ".join(h.removesuffix(REAL_SUFFIX) for h in hidden if h.endswith(REAL_SUFFIX))
        note(f"langid.hide: the model knows {known} from the UDHR alone in this workspace")
    for line in foreign_documents(load_model_for(staging), language.code, plan.documents):
        note(f"warning: {line}; is it in the right folder?")
    if learned is not None:
        for line in learned_lines(learned):
            note(line)
    for line in seed_language_warnings(base, language, plan.documents, learned):
        note(f"{WARNING}{line}")
    if outer is not None:
        note(f"note: this workspace lies inside another one, {outer}")
    return Created(language, plan, words)


def _known_member(language: Language, base: LangModel) -> Language | None:
    """The member the model knows of a macrolanguage target it does not know as such
    (swa: swh), its principal member first; None otherwise."""
    if not language.is_macrolanguage or not needs_own_model(language.code, base):
        return None
    found = [m for m in members(language) if not needs_own_model(m.code, base)]
    found.sort(key=lambda m: (m.code != language.principal, m.code))
    return found[0] if found else None


def _check_encoding(name: str | None) -> None:
    """--encoding names a codec Python knows (a misspelt one is refused, not ignored)."""
    if name is None:
        return
    try:
        codecs.lookup(name)
    except LookupError:
        raise UsageProblem(
            f"--encoding {name!r} is not an encoding collie knows; nothing was created.",
            "Give a name such as utf-8, latin-1, cp1252 or utf-16 (Python's codec names).",
        ) from None


def _check_one_language(settings: Settings, language: Language) -> None:
    """--lang names the language; a language.code from --set or the environment that
    names another is refused, not silently overridden (issue 46)."""
    entry = settings.entry("language.code")
    if entry.source == "default" or entry.value in ("", language.code):
        return
    raise UsageProblem(
        f"--lang names {language.display_name} ({language.code}), and {entry.source} "
        f"names {entry.value!r}: a workspace has one language; nothing was created.",
        "Give the language with --lang only (language.code is set from it).",
    )


LOW_RECALL = 0.5  # init warns when the model finds less of the held-back text the target's


def seed_language_warnings(
    base: LangModel,
    language: Language,
    documents: Sequence[SeedDocument],
    learned: LearnedLanguage | None,
) -> list[str]:
    """What is wrong with the seed text as a whole, and what to do (issue 46): too
    little to learn an unknown target from (no model: a run finds nothing), text the
    bundled model takes for another language, a model that finds little of it."""
    code, name = language.code, f"{language.display_name} ({language.code})"
    targets = [d.text for d in documents if d.role == "target"]
    again = f"make the workspace again (in a new folder) with more {code} text in --docs"
    if learned is None and needs_own_model(code, base):
        chars = sum(len(t) for t in targets)
        return [
            f"no language model was trained: collie's model does not know {name}, and your "
            f"seed documents hold {chars:,} characters, fewer than the "
            f"{MIN_DOCUMENT_CHARS:,} needed to learn it; `collie run` would find no {code} "
            f"documents. To mine {code}, {again}."
        ]
    lines = []
    other = _mostly_other(base, code, targets)
    if other is not None:
        lines.append(
            f"your seed documents are mostly {other[1]} ({other[0]}), not {name}: "
            f"{other[2]:.0%} of their letters look like {other[0]}. If the text is "
            f"{other[1]}, make the workspace with --lang {other[0]}; if it is "
            f"{language.display_name}, check the files given to --docs."
        )
    if learned is not None and learned.tested and learned.recall < LOW_RECALL:
        lines.append(
            f"the model finds only {learned.recall:.0%} of your held-back {code} text "
            f"to be {code}, so `collie run` would miss most {code} pages. If the text is "
            f"{language.display_name}, {again}; if it is another language, give that "
            "language's code to --lang."
        )
    return lines


def _mostly_other(
    base: LangModel, code: str, texts: Sequence[str]
) -> tuple[str, str, float] | None:
    """(code, name, share) of the language other than `code` that `base` finds in most
    of the texts' letters (more than FOREIGN_SHARE), when `base` knows `code` (a model
    that does not know the target takes its text for some other language anyway)."""
    if needs_own_model(code, base) or not texts:
        return None
    paragraphs = [p for text in texts for p in split_paragraphs(text)]
    shares = summarise_languages(base, paragraphs).shares
    others = [(share, c) for c, share in shares.items() if c not in (code, "und", OTHER)]
    if not others or max(others)[0] <= FOREIGN_SHARE:
        return None
    share, other = max(others)
    return other, _display_name(other), share


def _display_name(code: str) -> str:
    try:
        return get_language(code).display_name
    except KeyError:
        return code


def learned_lines(learned: LearnedLanguage) -> list[str]:
    """What init says of the workspace's model: recall on the held-back documents, and a
    warning for each language that took a share of them."""
    how = "fitted to your documents" if learned.fitted else "learnt from your documents"
    if learned.tested:
        measured = (
            f"recall on your held-back documents {learned.recall:.1%} ({learned.tested} paragraphs)"
        )
    else:
        measured = "too few paragraphs to hold some back and measure recall"
    lines = [f"trained models/langid.npz: {learned.code} {how}; {measured}"]
    for other, count in learned.neighbours():
        lines.append(
            f"warning: {count} of your {learned.tested} held-back paragraphs were taken for "
            f"{other}, not {learned.code}: if they are {learned.code}, give more of your "
            f"documents; if they are {other}, take them out of --docs"
        )
    lines += neighbour_lines(learned)
    return lines


# Init warns of a known language close to a fitted target when the bundled model took this
# share of the held-back paragraphs for it: the share of the neighbour's own text the
# fitted target takes cannot be measured without that text, and on real news it was 21%
# where the bundled model took 2.4% of the user's (benchmarks/bench_neighbour.py).
CLOSE_WARNING = 0.01


def neighbour_lines(learned: LearnedLanguage) -> list[str]:
    """A warning for each known language close to a fitted target (issue 59): the share
    of the held-back paragraphs the bundled model took for it, and of the user's
    documents in it that the fitted target takes, when given."""
    code, lines = learned.code, []
    for other, share in sorted(learned.near.items(), key=lambda item: -item[1]):
        taken = learned.taken.get(other)
        if share < CLOSE_WARNING and (taken is None or taken < NEIGHBOUR_WARNING):
            continue
        name = _display_name(other)
        measured = (
            f"the fitted model takes {taken:.0%} of your {other} documents"
            if taken is not None
            else f"give some {other} text with --wronglang {other}=FILE to measure how much of "
            f"it the fitted model takes"
        )
        lines.append(
            f"warning: {name} ({other}), which collie knows, is close to {code}: before "
            f"fitting, the model took {share:.0%} of your held-back paragraphs for it; "
            f"{measured}. Each loop judges the corpus again beside the web's {other} pages"
        )
    return lines


def _no_usable_documents(plan: SeedPlan) -> UnusableDocuments:
    """The refusal of --docs that gave no usable document, each file skipped with why."""
    skipped = [(s.source, s.reason) for s in plan.skipped]
    files = "file was" if len(skipped) == 1 else "files were"
    head = "None of the --docs files holds usable text; nothing was created."
    if skipped:
        head += f" {len(skipped)} {files} skipped:"
    return UnusableDocuments(
        head,
        "Give plain-text files in the target language (UTF-8 preferred); name the "
        "encoding of other text files with --encoding NAME.",
        skipped,
    )


def hidden_languages(codes: list[str], target: str) -> list[str]:
    """The languages of langid.hide, as ISO 639-3 codes the bundled model knows."""
    known = set(load_model_for(None).codes)
    hidden = []
    for value in codes:
        name, real = value.removesuffix(REAL_SUFFIX), value.endswith(REAL_SUFFIX)
        code = resolve_language(name).language.code
        if code not in known and (code != target or real):
            raise UsageProblem(
                f"langid.hide: collie's model does not know {name!r} ({code}).",
                "`collie langid languages` lists the languages it knows.",
            )
        hidden.append(code + REAL_SUFFIX if real else code)
    return sorted(set(hidden))


def _read_seed_words(path: Path | None, min_confidence: float, encoding: str | None) -> list[str]:
    if path is None:
        return []
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"Cannot read {path}: {exc.strerror}.") from exc
    decoded = decode_text_file(data, min_confidence, encoding)
    if decoded.text is None:
        raise InputError(
            f"{path}: not readable as text ({decoded.reason}).",
            "Give a UTF-8 file with one seed word per line, or name its encoding with --encoding.",
        )
    words = read_word_list(decoded.text)
    if not words:
        raise UsageProblem(f"{path} holds no seed words.", "Give one word per line.")
    return words
