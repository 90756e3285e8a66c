"""`collie export` and `collie report`: what a user takes away (click only)."""

from __future__ import annotations

import json
from dataclasses import asdict, replace
from pathlib import Path

import click

from collie.api.corpus import export_to, workspace_report
from collie.api.outputs import check_output
from collie.cli.options import CONTEXT, App, FiniteFloatRange, common_options, note
from collie.cli.outputs import force_option
from collie.corpus.export import FORMATS, RIGHTS, SEGMENTS, SHARDS, TDM_RESERVED, ExportChoice
from collie.corpus.report import html_report, summary_lines
from collie.corpus.sites import SITE_FORMATS
from collie.corpus.status import written_totals
from collie.decide.sitelabels import LABELS
from collie.errors import ArchiveDamaged, InputError, plural
from collie.files import atomic_write


def parse_labels(value: str | None) -> tuple[str, ...]:
    """`--exclude religious,multilingual` as label names (a usage error for others)."""
    names = tuple(part.strip() for part in (value or "").split(",") if part.strip())
    unknown = [name for name in names if name not in (*LABELS, TDM_RESERVED)]
    if unknown:
        raise click.BadParameter(
            f"{', '.join(unknown)}: not a site label (labels: {', '.join(LABELS)}) nor "
            f"{TDM_RESERVED}"
        )
    return names


@click.command(context_settings=CONTEXT)
@click.argument("out", metavar="OUT")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="txt",
    show_default=True,
    help="txt: documents separated by a blank line, a paragraph a line; jsonl: a "
    "JSON object per document (URL, title, loop, source, query or referrer, "
    "language, share, encoding, simhash, its WARC record, text, and paragraphs: the "
    "whole document, "
    "each paragraph with its language and target share); dir: a .txt file per "
    "document and manifest.jsonl; warc: the documents' own HTTP answers (response and "
    "request records copied from the workspace's WARC files), to publish with the corpus; "
    "sites: the site list, a TSV line a site of the corpus (URL, documents, words, labels, "
    "how it was found, the audit's verdict, why each label); web-languages: the same "
    "list as Common Crawl's Web Languages Project file of the language; dataset: a folder "
    "to publish, data/ (gzip'd JSON-lines shards) and README.md, a dataset card (YAML header: "
    "language, licence as the rights allow, size; then the collection, site labels, rights, "
    "audit, language model, near-duplicates, robots.txt, known limits).",
)
@click.option(
    "--exclude",
    metavar="LABELS",
    callback=lambda _ctx, _param, value: parse_labels(value),
    help="Leave out the documents of sites with these labels (comma-separated: "
    "religious, multilingual, relative; `collie status` shows each label's share), and "
    "with tdm-reserved, those whose page reserves text and data mining (TDMRep, robots "
    "noai).",
)
@click.option(
    "--rights",
    type=click.Choice(RIGHTS),
    default="any",
    show_default=True,
    help="open: only the documents whose page states an open licence (CC0, CC BY, CC BY-SA, "
    "the Public Domain Mark), to redistribute; jsonl writes each page's `licence` and "
    "`tdm_reserved` either way.",
)
@click.option(
    "--shards",
    type=click.Choice(SHARDS),
    default="jsonl",
    show_default=True,
    help="With --format dataset: the shards' format, gzip'd JSON lines, or Parquet (a row "
    "a document, the same fields as columns; needs pyarrow: pip install 'collie[parquet]').",
)
@click.option(
    "--min-share",
    type=FiniteFloatRange(0, 1),
    default=0.0,
    show_default=True,
    help="Only documents with at least this share of target-language text (0.5: mainly target).",
)
@click.option(
    "--segments",
    type=click.Choice(SEGMENTS),
    help="target (the default; all with --suspects): only the paragraphs in the target "
    "language (a code-switched one when mainly target, a heading with its section); a "
    "document with none is left out; jsonl keeps the whole document in `paragraphs`. "
    "all: every paragraph.",
)
@click.option("--loop", "loop", type=click.IntRange(1), help="Only documents of this loop.")
@click.option(
    "--source",
    type=click.Choice(["search", "crawl", "archive"]),
    help="Only documents found by search, by crawling, or in web archives (collie scan).",
)
@click.option(
    "--suspects",
    is_flag=True,
    help="Instead of the corpus: the pages set aside as relative-suspected (text "
    "mostly near the target but failing its tests: a close relative, maybe), to "
    "check them.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="One JSON object on stdout when done: what was written where (documents, words, "
    "paragraphs left out). Not with OUT = -.",
)
@click.option(
    "--unique-paragraphs",
    is_flag=True,
    help="Leave out every paragraph already written earlier in the corpus (exact, case "
    "and spacing aside); without it they are only counted.",
)
@force_option
@common_options
@click.pass_obj
def export(
    app: App,
    out: str,
    fmt: str,
    min_share: float,
    segments: str | None,
    loop: int | None,
    source: str | None,
    suspects: bool,
    unique_paragraphs: bool,
    exclude: tuple[str, ...],
    rights: str,
    shards: str,
    as_json: bool,
    force: bool,
) -> None:
    """Write the corpus: the target-language documents, near-duplicates left out, and of
    each only its paragraphs in the target language (--segments all: every paragraph).

    OUT is a file (a directory with --format dir), or - for stdout. The file appears only
    when complete: an interrupted export leaves nothing behind. An existing OUT is
    replaced only with --force; the workspace's own files never are. Counts go to stderr.

    \b
    Example:
      collie export corpus.txt
      collie export corpus.jsonl --format jsonl --min-share 0.5
      collie export - --segments all | wc -w
      collie export suspects.jsonl --format jsonl --suspects
      collie export corpus.warc.gz --format warc
      collie export corpus.txt --exclude religious,multilingual
      collie export open.jsonl --format jsonl --rights open --exclude tdm-reserved
      collie export sites.tsv --format sites
      collie export zulu-dataset --format dataset --rights open
      collie export zulu-parquet --format dataset --shards parquet
    """
    if as_json and out == "-":
        raise click.UsageError("--json needs OUT to be a file: stdout carries the corpus.")
    if fmt == "dataset" and (out == "-" or suspects):
        raise click.UsageError(
            "--format dataset writes a folder of the corpus: give OUT a folder name (no -, "
            "no --suspects)."
        )
    if shards != "jsonl" and fmt != "dataset":
        raise click.UsageError("--shards is for --format dataset (its shards' format).")
    choice = ExportChoice(
        fmt, min_share, segments, loop, source, suspects, unique_paragraphs, exclude, rights
    )
    choice = replace(choice, shards=shards)
    count = export_to(app.open, out, choice, force)
    if as_json:
        click.echo(json.dumps({"out": out, "format": fmt, **asdict(count)}, indent=2))
    if fmt in SITE_FORMATS:
        if not app.quiet:
            note(
                f"{count.sites:,} sites ({count.documents:,} documents, {count.words:,} words) "
                f"written to {'stdout' if out == '-' else out}."
            )
            with app.open() as ws:
                documents, words = written_totals(ws)
            note(
                f"The site list counts the corpus's documents as kept, with every word of "
                f"them; a corpus export writes {documents:,} of them ({words:,} words: their "
                "target-language paragraphs less their site's boilerplate), as `collie "
                "status` counts."
            )
        return
    if not app.quiet:
        what = "relative-suspected pages" if suspects else "documents"
        note(
            f"{count.documents:,} {what}, {count.words:,} words written to "
            f"{'stdout' if out == '-' else out}."
        )
        if count.rights_left_out:
            why = "; ".join(
                w
                for w, on in (
                    ("no open licence: --rights open", rights == "open"),
                    (
                        "text and data mining reserved: --exclude tdm-reserved",
                        TDM_RESERVED in exclude,
                    ),
                )
                if on
            )
            note(f"{plural(count.rights_left_out, 'document', 'documents')} left out ({why}).")
        if count.site_boilerplate:
            note(
                f"{count.site_boilerplate:,} paragraphs ({count.site_boilerplate_words:,} words) "
                "left out as their site's boilerplate (extract.site_repeats)."
            )
        if count.other_paragraphs:
            note(
                f"{count.other_paragraphs:,} paragraphs ({count.other_words:,} words) not in "
                "the target language left out (--segments all keeps them)."
            )
        if count.without_record:
            note(
                f"{count.without_record:,} document{'s' if count.without_record != 1 else ''} "
                "without a WARC record (fetched before the workspace kept them, or left out "
                "by warc.keep): not in the WARC file."
            )
        if count.no_target:
            note(
                f"{count.no_target:,} document{'s' if count.no_target != 1 else ''} without "
                "a paragraph in the target language left out."
            )
        if count.too_little_target:
            thin = count.too_little_target
            note(
                f"{thin:,} document{'s' if thin != 1 else ''} with fewer than "
                "langid.min_target_words words of target-language text left out."
            )
        if count.repeated:
            done = (
                "left out"
                if count.repeats_removed
                else "kept (--unique-paragraphs leaves them out)"
            )
            note(
                f"{count.repeated:,} paragraphs ({count.repeated_words:,} words) repeat one "
                f"written earlier: {done}."
            )
    if count.damaged:
        lost = sum(n for _, n in count.damaged.values())
        raise ArchiveDamaged(
            f"the export is incomplete: the answers of {plural(lost, 'document', 'documents')} "
            f"are in damaged WARC files and are not in {'stdout' if out == '-' else out}:",
            count.damaged,
            ("document", "documents"),
        )


@click.command(context_settings=CONTEXT)
@click.option(
    "--html",
    "html_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write one self-contained HTML page with plots (inline SVG).",
)
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout.")
@force_option
@common_options
@click.pass_obj
def report(app: App, html_path: Path | None, as_json: bool, force: bool) -> None:
    """Report what the runs found: per loop queries, URLs, pages, target documents from
    search and from crawling, drop reasons and words; languages of the pages fetched;
    the best sites and queries; each loop's seed words; and the audit of a speaker's
    judgements (`collie review`): each share it estimates with its 95% Wilson interval.

    \b
    Example:
      collie report
      collie report --html report.html
    """
    if html_path is not None:
        check_output(html_path, force)
    data = workspace_report(app.open)
    if html_path is not None:
        _write_atomically(html_path, html_report(data))
        if not app.quiet:
            note(f"Wrote {html_path}.")
    if as_json:
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        click.echo("\n".join(summary_lines(data)))


def _write_atomically(path: Path, text: str) -> None:
    try:
        with atomic_write(path, "w") as handle:
            handle.write(text)
    except OSError as exc:
        raise InputError(f"Cannot write {path}: {exc.strerror or exc}.") from None
