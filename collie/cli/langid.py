"""`collie langid ...`: identify languages, list them, train a new one (click only)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from collie.api.langid import Identification, identify_with, language_model
from collie.api.outputs import refuse_own_files
from collie.cli.options import CONTEXT, App, common_options, note
from collie.errors import InputError, LanguageNotFound, UsageProblem
from collie.langid.compare import METHODS, train_comparison
from collie.langid.corpus import udhr_heldout_texts, udhr_training_texts
from collie.langid.evaluate import evaluate, format_report, heldout_snippets, read_tsv
from collie.langid.learn import (
    learn_language,
    load_model_for,
    split_documents,
    split_paragraphs,
    workspace_model_path,
)
from collie.langid.model import OTHER, LangModel, summarise_languages
from collie.langid.modelfile import read_model, save_model
from collie.languages import resolve_language
from collie.page.encoding import decode_text_file
from collie.workspace.seedfiles import SeedInput, plan_seed_documents, wronglang_input

MODEL_HELP = "A model file (.npz) instead of the workspace's or the bundled one."


@click.group(context_settings=CONTEXT)
def langid() -> None:
    """Language identification over 400+ languages (ISO 639-3 codes).

    \b
    Example:
      echo "Abantu bonke bazalwa bekhululekile" | collie langid identify
      collie langid languages
    """


def choose_model(app: App, model_path: Path | None) -> LangModel:
    """--model, else the workspace's model, else the bundled one; with the und settings."""
    return language_model(app.find_root_or_none(), model_path, app.flags)


def read_input(source: str, encoding: str | None = None) -> str:
    """The text of FILE, or of stdin for '-'."""
    if source == "-":
        data = sys.stdin.buffer.read()
        name = "stdin"
    else:
        try:
            data = Path(source).read_bytes()
        except OSError as exc:
            raise InputError(
                f"Cannot read {source}: {exc.strerror}.",
                "Give a text file this user may read, or - for standard input.",
            ) from None
        name = source
    decoded = decode_text_file(data, encoding=encoding)
    if decoded.text is None:
        raise InputError(
            f"{name} is not readable text ({decoded.reason}).",
            "Give a text file (UTF-8 is safest).",
        )
    return decoded.text


@langid.command(context_settings=CONTEXT)
@click.argument("source", metavar="[FILE|-]", default="-")
@click.option(
    "--top",
    type=click.IntRange(1),
    default=1,
    show_default=True,
    help="Print the K most probable languages of each text.",
)
@click.option("--probs", is_flag=True, help="Print probabilities beside the codes.")
@click.option(
    "--paragraphs",
    is_flag=True,
    help="Read the whole file as one document and label each paragraph.",
)
@click.option(
    "--model", "model_path", type=click.Path(dir_okay=False, path_type=Path), help=MODEL_HELP
)
@click.option("--json", "as_json", is_flag=True, help="JSON on stdout.")
@common_options
@click.pass_obj
def identify(
    app: App,
    source: str,
    top: int,
    probs: bool,
    paragraphs: bool,
    model_path: Path | None,
    as_json: bool,
) -> None:
    """Print the language of each line of FILE (or stdin), `und` when unsure.

    A text whose best probability is under langid.threshold, far from every language
    the model knows, or with fewer than langid.min_chars letters, is `und`; one with no
    word (numbers, addresses, code) is `zxx`. With --paragraphs the file is one document:
    one line per paragraph (blank-line separated), then its languages' shares on stderr.

    \b
    Example:
      echo "Kila mtu ana haki ya kupumzika na kupata burudani" | collie langid identify --probs
      collie langid identify page.txt --paragraphs --json
    """
    model = choose_model(app, model_path)
    text = read_input(source)
    texts = split_paragraphs(text, max_chars=10**9) if paragraphs else text.splitlines()
    answers = identify_with(model, texts, top)
    if as_json:
        items = [_label_data(t, answer) for t, answer in zip(texts, answers, strict=True)]
        data: Any = items
        if paragraphs:
            summary = summarise_languages(model, texts)
            data = {"paragraphs": items, "shares": summary.shares}
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    for answer in answers:
        if top > 1:
            click.echo("\t".join(f"{c} {p:.3f}" if probs else c for c, p in answer.top))
        else:
            click.echo(f"{answer.lang}\t{answer.probability:.3f}" if probs else answer.lang)
    if paragraphs and not app.quiet:
        shares = summarise_languages(model, texts).shares
        note("shares: " + ", ".join(f"{c} {s:.0%}" for c, s in shares.items()))


def _label_data(text: str, answer: Identification) -> dict[str, Any]:
    return {
        "lang": answer.lang,
        "prob": round(answer.probability, 4),
        "chars": len(text),
        "top": [{"lang": c, "prob": round(p, 4)} for c, p in answer.top],
    }


@langid.command(context_settings=CONTEXT)
@click.option(
    "--model", "model_path", type=click.Path(dir_okay=False, path_type=Path), help=MODEL_HELP
)
@click.option("--json", "as_json", is_flag=True, help="One JSON array on stdout.")
@common_options
@click.pass_obj
def languages(app: App, model_path: Path | None, as_json: bool) -> None:
    """List the model's languages: code, name, training characters.

    \b
    Example:
      collie langid languages
      collie langid languages --json
    """
    model = choose_model(app, model_path)
    rows = [
        {"code": code, "name": _name(code), "training_chars": size}
        for code, size in zip(model.codes, model.code_sizes, strict=True)
    ]
    if as_json:
        click.echo(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    for row in rows:
        click.echo(f"{row['code']}\t{row['name']}\t{row['training_chars']}")
    if not app.quiet:
        note(f"{len(rows)} languages.")


def _name(code: str) -> str:
    if code == OTHER:
        return "(not the target)"
    try:
        return resolve_language(code).language.name
    except LanguageNotFound:
        return ""


@langid.command(context_settings=CONTEXT)
@click.option("--lang", "lang", required=True, metavar="CODE", help="The language to learn.")
@click.argument("docs", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option(
    "--wronglang",
    multiple=True,
    metavar="[CODE=]PATH",
    help="Text that is not in the target language (repeatable); with a code, it "
    "becomes (or adds to) that language's class.",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write the model (default: the workspace's models/langid.npz).",
)
@click.option(
    "--model",
    "model_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The model to start from (default: the bundled one).",
)
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout.")
@common_options
@click.pass_obj
def train(
    app: App,
    lang: str,
    docs: tuple[Path, ...],
    wronglang: tuple[str, ...],
    out: Path | None,
    model_path: Path | None,
    as_json: bool,
) -> None:
    """Learn a language from your documents, on top of the bundled model.

    Every fifth paragraph of DOCS is held back first to measure recall; the model
    written is trained on all of them.

    \b
    Example:
      collie langid train --lang luo luo-texts/ --wronglang ach=acholi.txt --out luo.npz
      collie langid identify --model luo.npz texts.txt
    """
    code = resolve_language(lang).language.code
    root = app.find_root_or_none()
    if out is not None:
        refuse_own_files(out, allowed=("models",), example="models/luo.npz in the workspace")
    if out is None:
        if root is None:
            raise UsageProblem("Outside a workspace, say where to write the model with --out.")
        out = workspace_model_path(root)
    out.parent.mkdir(parents=True, exist_ok=True)  # a place that cannot be, before training
    inputs = [SeedInput(p, "target", code) for p in docs]
    inputs += [wronglang_input(value) for value in wronglang]
    plan = plan_seed_documents(inputs)
    targets, negatives = split_documents(plan.documents)
    base = read_model(model_path) if model_path else load_model_for(None)
    learned = learn_language(base, code, targets, negatives)
    save_model(learned.model, out)
    data = {
        "lang": code,
        "model": str(out),
        "words": plan.words("target"),
        "heldout_paragraphs": learned.tested,
        "recall": round(learned.recall, 4),
        "confusions": dict(learned.confusions),
    }
    if as_json:
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    click.echo(f"{code}: held-out recall {learned.recall:.1%} on {learned.tested} paragraphs")
    if learned.confusions:
        taken = ", ".join(f"{c} {n}" for c, n in learned.confusions)
        click.echo(f"most confused with: {taken}")
    if not app.quiet:
        note(f"wrote {out}")


# langid eval: see collie/langid/evaluate.py
@langid.command(name="eval", context_settings=CONTEXT)
@click.argument(
    "source",
    metavar="[FILE.tsv]",
    required=False,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
)
@click.option(
    "--heldout",
    is_flag=True,
    help="Test on the held-out UDHR snippets (articles 21-30), not a file.",
)
@click.option(
    "--method",
    type=click.Choice(METHODS),
    default="maxent",
    show_default=True,
    help="maxent: collie's model (naive Bayes scores, a maxent layer on top; see "
    "langmodel/README.md); "
    "or a comparison method trained on the same UDHR training text.",
)
@click.option(
    "--model", "model_path", type=click.Path(dir_okay=False, path_type=Path), help=MODEL_HELP
)
@click.option(
    "--worst",
    type=click.IntRange(0),
    default=None,
    metavar="N",
    help="Show only the N worst languages (default: all).",
)
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout.")
@common_options
@click.pass_obj
def eval_command(
    app: App,
    source: Path | None,
    heldout: bool,
    method: str,
    model_path: Path | None,
    worst: int | None,
    as_json: bool,
) -> None:
    """Accuracy and speed on test texts: overall, per length band, per language.

    FILE.tsv has one test text per line, `code<TAB>text`; its length band (<= 50
    characters, <= 150 characters, <= 400 bytes, long) follows from the text. `und`
    answers count as wrong. The top confusions (gold, predicted) close the report.

    \b
    Example:
      collie langid eval test.tsv
      collie langid eval --heldout --method textcat --worst 10
      collie langid eval test.tsv --model luo.npz --json
    """
    if (source is None) == (not heldout):
        raise UsageProblem("Give either FILE.tsv or --heldout.")
    if method != "maxent" and model_path is not None:
        raise UsageProblem("--model goes with --method maxent only.")
    items = read_tsv(source) if source is not None else heldout_snippets(udhr_heldout_texts())
    if not items:
        raise InputError(f"{source} has no test texts.", "Write lines code<TAB>text.")
    if method == "maxent":
        identify_batch = choose_model(app, model_path).identify_batch
    else:
        if not app.quiet:
            note(f"training {method} on the UDHR training text...")
        identify_batch = train_comparison(method, udhr_training_texts()).identify_batch
    report = evaluate(identify_batch, items, method=method)
    if as_json:
        click.echo(report.to_json())
        return
    for line in format_report(report, languages=worst):
        click.echo(line)
