"""Learning a language from the user's documents, and the workspace's own model.

`learn_language` adds (or retrains) the target language on top of a model, with the
user's "wronglang" documents as negative data: as their own class when a code is given
(added to that language's counts if the model knows it), else pooled into the anonymous
class `mis`, which is reported as `und` and never as the target. The target also gets a
novelty test (collie.langid.novelty): text whose trigrams its documents cover far less
than they cover themselves is `und`, so that an unseen close relative is rarely taken
for it. Every fifth paragraph
of the target documents is first held back to measure recall (and the confusions); the
returned model is then trained on all of them.

A workspace whose target language the bundled model does not know (or knows from little
text) gets its own model in `models/langid.npz`; `load_model_for` picks it up. A target
the bundled model knows is fitted to the user's documents instead (`fit_language`):
they become a column of its own (`code/user`, real text beside its UDHR and news
columns), so that the user's register of the language is the target's too; its recall
on held-back documents and the neighbours that take them are measured the same way.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from collie.errors import InputError, WorkspaceError
from collie.langid.features import letter_counts
from collie.langid.model import LENDING, NO_ANSWER, OTHER, LangModel, summarise_languages
from collie.langid.modelfile import load_model, read_model, save_model
from collie.langid.neighbours import closeness, margins, taken_shares
from collie.langid.novelty import fit_novelty
from collie.langid.train import add_language, remove_columns, remove_languages

WORKSPACE_MODEL = "models/langid.npz"
HOLD_EVERY = 5
MIN_BUNDLED_CHARS = 3000  # a bundled language with less training text is retrained
MIN_DOCUMENT_CHARS = 2000  # less text than this trains no workspace model
MIN_LEARN_WORDS = 1000  # init refuses to learn a language from fewer words (without --force)
ENOUGH_LEARN_WORDS = 3000  # fewer words than this: init warns
MAX_PARAGRAPH = 600  # longer paragraphs are cut (at word boundaries) for held-out tests
OPEN_SET_RECALL = 0.98  # of held-back target paragraphs that the open-set margin keeps
MIN_OPEN_SET_PARAGRAPHS = 10
_BLANK = re.compile(r"\n\s*\n")


NEIGHBOUR_WARNING = 0.05  # init warns when one language takes this share of held-back text
USER_COLUMN = "user"  # the register of a known target's column of the user's documents


@dataclass
class LearnedLanguage:
    """The new model and how well it tells the target from the rest."""

    model: LangModel
    code: str
    recall: float  # share of held-back target paragraphs identified as the target
    tested: int  # held-back target paragraphs (those with >= min_chars letters)
    confusions: list[tuple[str, int]] = field(default_factory=list)  # what they were taken for
    fitted: bool = False  # a known language fitted to the documents (not learnt anew)
    # known languages close to a fitted target: the share of the held-back paragraphs the
    # bundled model took for each (collie.langid.neighbours.closeness), and the share of
    # the user's documents in one that the fitted target takes, when given (`taken`)
    near: dict[str, float] = field(default_factory=dict)
    taken: dict[str, float] = field(default_factory=dict)

    def neighbours(self, share: float = NEIGHBOUR_WARNING) -> list[tuple[str, int]]:
        """The languages (not `und`) that took at least `share` of the held-back text."""
        return [
            (code, n)
            for code, n in self.confusions
            if code not in NO_ANSWER and self.tested and n >= share * self.tested
        ]


def split_paragraphs(text: str, max_chars: int = MAX_PARAGRAPH) -> list[str]:
    """Blank-line paragraphs (lines, when there are no blank lines), long ones cut."""
    blocks = _BLANK.split(text) if _BLANK.search(text) else text.splitlines()
    paragraphs: list[str] = []
    for block in blocks:
        words = block.split()
        current: list[str] = []
        size = 0
        for word in words:
            if current and size + len(word) + 1 > max_chars:
                paragraphs.append(" ".join(current))
                current, size = [], 0
            current.append(word)
            size += len(word) + 1
        if current:
            paragraphs.append(" ".join(current))
    return paragraphs


def learn_language(
    base: LangModel,
    code: str,
    documents: Sequence[str],
    wronglang: Mapping[str | None, Sequence[str]] | None = None,
) -> LearnedLanguage:
    """`base` with `code` learnt from `documents` (texts) and the wronglang texts."""
    paragraphs, fit, held, negatives = _held_back(base, code, documents, wronglang)
    trial = _train(base, code, fit or paragraphs, negatives)
    _set_per_code(trial, "novelty", code, fit_novelty(trial, code, fit or paragraphs))
    margin = open_set_margin(trial, code, held) if held and fit else None
    _set_per_code(trial, "open_set", code, margin)
    labels = trial.identify_batch(held) if held and fit else []
    recall, confusions = _recall(code, labels)
    model = _train(base, code, paragraphs, negatives)
    _set_per_code(model, "novelty", code, fit_novelty(model, code, paragraphs))
    _set_per_code(model, "open_set", code, margin)
    _set_per_code(model, "recall", code, recall if labels else None)
    return LearnedLanguage(model, code, recall, len(labels), confusions)


def fit_language(
    base: LangModel,
    code: str,
    documents: Sequence[str],
    wronglang: Mapping[str | None, Sequence[str]] | None = None,
) -> LearnedLanguage:
    """`base`, which knows `code`, with the documents as a column of the target's own
    (`code/user`) and the wronglang texts as `learn_language` adds them; recall and
    confusions measured on every fifth paragraph, held back from a trial model."""
    paragraphs, fit, held, negatives = _held_back(base, code, documents, wronglang)
    labels = []
    trial = None
    if held and fit:
        trial = _train(base, code, fit, negatives, column=USER_COLUMN)
        labels = trial.identify_batch(held)
    recall, confusions = _recall(code, labels)
    model = _train(base, code, paragraphs, negatives, column=USER_COLUMN)
    _set_per_code(model, "recall", code, recall if labels else None)
    near = closeness(base, code, held or paragraphs)
    _set_per_code(model, "neighbours", code, near or None)
    # How far the target leads each of them on text it did not learn (else on all).
    lead = margins(trial or model, code, list(near), held or paragraphs)
    _set_per_code(model, "neighbour_margins", code, lead or None)
    theirs = {c: texts for c, texts in negatives.items() if c in near}
    taken = taken_shares(model, code, list(near), theirs)
    learned = LearnedLanguage(model, code, recall, len(labels), confusions, fitted=True)
    learned.near, learned.taken = near, taken
    return learned


def _held_back(
    base: LangModel,
    code: str,
    documents: Sequence[str],
    wronglang: Mapping[str | None, Sequence[str]] | None,
) -> tuple[list[str], list[str], list[str], dict[str, list[str]]]:
    """(all the target's paragraphs, those a trial model learns from, the held-back ones
    of at least `min_chars` letters, the wronglang paragraphs by code or OTHER)."""
    paragraphs = [p for doc in documents for p in split_paragraphs(doc)]
    if not paragraphs:
        raise InputError(f"The documents for {code} hold no text.", "Give documents with text.")
    held = paragraphs[HOLD_EVERY - 1 :: HOLD_EVERY]
    fit = [p for i, p in enumerate(paragraphs) if i % HOLD_EVERY != HOLD_EVERY - 1]
    negatives = {
        (other or OTHER): [p for doc in docs for p in split_paragraphs(doc)]
        for other, docs in (wronglang or {}).items()
    }
    held = [p for p, n in zip(held, letter_counts(held), strict=True) if n >= base.min_chars]
    return paragraphs, fit, held, negatives


def _recall(code: str, labels: Sequence[tuple[str, float]]) -> tuple[float, list[tuple[str, int]]]:
    """(share of held-back paragraphs taken for `code`, the five languages that took most)."""
    recall = sum(lang == code for lang, _ in labels) / len(labels) if labels else float("nan")
    return recall, Counter(lang for lang, _ in labels if lang != code).most_common(5)


def relearn(
    base: LangModel,
    code: str,
    documents: Sequence[str],
    negatives: Mapping[str | None, Sequence[str]],
    tests: LangModel,
) -> LangModel:
    """`code` learnt again from `documents` with other negative texts, keeping the
    open-set tests of `tests` (no held-back trial: a quick model for a comparison)."""
    paragraphs = [p for doc in documents for p in split_paragraphs(doc)]
    split = {
        (k or OTHER): [p for d in v for p in split_paragraphs(d)] for k, v in negatives.items()
    }
    model = _train(base, code, paragraphs, split)
    for key in ("novelty", "open_set"):
        _set_per_code(model, key, code, tests.meta.get(key, {}).get(code))
    return model


def open_set_margin(model: LangModel, code: str, held: Sequence[str]) -> float | None:
    """The margin (per n-gram, over the next language) that OPEN_SET_RECALL of the
    held-back target paragraphs reach: text that is only similar to the target (a close
    relative the model has never seen) rarely reaches it, and is `und` instead."""
    proba, _, margins = model._proba_margins(held)
    mine = proba.argmax(axis=1) == model.codes.index(code)
    if mine.sum() < MIN_OPEN_SET_PARAGRAPHS:
        return None
    return float(max(0.0, np.quantile(margins[mine], 1 - OPEN_SET_RECALL)))


def _set_per_code(model: LangModel, key: str, code: str, value: Any) -> None:
    """Set `model.meta[key][code]` (the open-set margin or novelty test of a learnt
    language), or drop an earlier one, fitted to other documents, when `value` is None
    (the new documents were too few to fit one)."""
    entries = {c: v for c, v in model.meta.get(key, {}).items() if c != code}
    if value is not None:
        entries[code] = value
    if entries:
        model.meta[key] = entries
    else:
        model.meta.pop(key, None)


def _train(
    base: LangModel,
    code: str,
    paragraphs: Sequence[str],
    negatives: Mapping[str, Sequence[str]],
    column: str | None = None,
) -> LangModel:
    model = add_language(base, code, paragraphs, column=column)
    for other, texts in sorted(negatives.items()):
        if other == code or not texts:
            continue
        model = add_language(model, other, texts, keep=True)
    return model


def workspace_model_path(root: Path) -> Path:
    return root / WORKSPACE_MODEL


def load_model_for(root: Path | None) -> LangModel:
    """The workspace's own model when it has one, else the bundled model. A damaged
    workspace model (a cut or garbled file) is named, with the command that rebuilds it."""
    if root is not None and workspace_model_path(root).is_file():
        try:
            return read_model(workspace_model_path(root))
        except InputError as exc:
            raise damaged_model_error(workspace_model_path(root)) from exc
    return load_model()


def damaged_model_error(path: Path) -> WorkspaceError:
    """The error for a workspace model file that cannot be read (issue 58)."""
    return WorkspaceError(
        f"the workspace's language model {path} is damaged (cut short or garbled): no "
        "page can be identified with it.",
        "Rebuild it from the seed documents: `collie init --recover` in the workspace "
        "(nothing else is changed).",
    )


def missing_model_error(path: Path) -> WorkspaceError:
    """The error for a workspace model file that `init` wrote and that is gone."""
    return WorkspaceError(
        f"the workspace's language model {path} is missing: init trained it from your seed "
        "documents, and without it no page is identified as the workspace was made to.",
        "Rebuild it from the seed documents: `collie init --recover` in the workspace "
        "(nothing else is changed).",
    )


REAL_SUFFIX = "/real"  # langid.hide "xho/real": Xhosa's real-text columns only


def base_model(hidden: Sequence[str] = ()) -> LangModel:
    """The bundled model, without the `hidden` languages (setting langid.hide); an entry
    "CODE/real" takes only that language's real-text columns away (known from the UDHR
    alone then, as Kirundi is: a known neighbour's case, benchmarks/bench_neighbour.py)."""
    model = load_model()
    codes = {h for h in hidden if not h.endswith(REAL_SUFFIX)} & set(model.codes)
    real = {h.removesuffix(REAL_SUFFIX) for h in hidden if h.endswith(REAL_SUFFIX)}
    if codes:
        model = remove_languages(model, codes)
    registers: dict[str, str] = model.meta.get("registers", {})
    columns = {c for c in model.columns if c.split("/")[0] in real and registers.get(c) in LENDING}
    return remove_columns(model, columns) if columns else model


def needs_own_model(code: str, model: LangModel | None = None) -> bool:
    """True when the bundled model does not know `code`, or knows it from little text."""
    model = model or load_model()
    if code not in model.codes:
        return True
    return model.code_sizes[model.codes.index(code)] < MIN_BUNDLED_CHARS


def learning_problem(code: str, words: int, base: LangModel) -> str | None:
    """Why `words` words of seed documents are too few to learn `code` (None when
    `base`, the bundled model without the hidden languages, knows it, or when they are
    enough)."""
    if not needs_own_model(code, base):
        return None
    if words >= MIN_LEARN_WORDS:
        return None
    return (
        f"collie's model does not know {code}, so it learns it from your seed documents, "
        f"which hold {words:,} words: at least {MIN_LEARN_WORDS:,} are needed "
        f"({ENOUGH_LEARN_WORDS:,} or more recommended); with fewer, pages in the target are "
        "missed and close relatives are taken for it."
    )


def ensure_workspace_model(
    root: Path,
    code: str,
    documents: Sequence[str],
    wronglang: Mapping[str | None, Sequence[str]] | None = None,
    base: LangModel | None = None,
) -> LearnedLanguage | None:
    """Train `root`'s model into models/ when the documents hold >= MIN_DOCUMENT_CHARS
    characters: `code` learnt from them when `base` (default: the bundled model; else
    it without the hidden languages, `base_model`) lacks it (or has little of it), else
    fitted to them (`fit_language`); else None (a reduced `base` is still saved as the
    workspace's model)."""
    base = base or load_model()
    if sum(len(d) for d in documents) < MIN_DOCUMENT_CHARS:
        if base is not load_model():
            save_model(base, workspace_model_path(root))
        return None
    if needs_own_model(code, base):
        learned = learn_language(base, code, documents, wronglang)
    else:
        learned = fit_language(base, code, documents, wronglang)
    save_model(learned.model, workspace_model_path(root))
    return learned


FOREIGN_SHARE = 0.5  # a seed document with more of its letters in one other language


def foreign_documents(model: LangModel, code: str, documents: Sequence[Any]) -> list[str]:
    """Lines naming the target documents (SeedDocument-like: role, path, text) that
    `model` puts mostly in one other language: a wrong file among the user's texts."""
    found = []
    for doc in documents:
        if doc.role != "target":
            continue
        summary = summarise_languages(model, split_paragraphs(doc.text))
        others = [
            (share, c) for c, share in summary.shares.items() if c != code and c not in NO_ANSWER
        ]
        if others and max(others)[0] > FOREIGN_SHARE:
            share, other = max(others)
            found.append(f"{doc.path}: {share:.0%} of its letters look like {other}, not {code}")
    return found


def split_documents(
    documents: Sequence[Any],
) -> tuple[list[str], dict[str | None, list[str]]]:
    """(target texts, wrong-language texts by code or None) of seed documents (objects
    with `role` "target"/"wronglang", `lang` and `text`, such as SeedDocument)."""
    targets = [d.text for d in documents if d.role == "target"]
    wronglang: dict[str | None, list[str]] = {}
    for doc in documents:
        if doc.role == "wronglang":
            wronglang.setdefault(doc.lang, []).append(doc.text)
    return targets, wronglang


def train_workspace_model(
    root: Path, code: str, documents: Sequence[Any], base: LangModel | None = None
) -> LearnedLanguage | None:
    """`ensure_workspace_model` from a workspace's seed documents."""
    targets, wronglang = split_documents(documents)
    return ensure_workspace_model(root, code, targets, wronglang, base)
