"""`collie export`: write the corpus (click only)."""

from __future__ import annotations

import click

from collie.clioptions import CONTEXT, App, common_options, note
from collie.errors import InputError
from collie.export import FORMATS, write_export
from collie.store import Store


@click.command(context_settings=CONTEXT)
@click.argument("out", metavar="OUT")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="txt", show_default=True,
              help="txt: documents separated by a blank line, a paragraph a line; jsonl: a "
              "JSON object per document (URL, title, loop, source, query or referrer, "
              "language, share, encoding, simhash, text); dir: a .txt file per document "
              "and manifest.jsonl.")  # fmt: skip
@click.option("--min-share", type=click.FloatRange(0, 1), default=0.0, show_default=True,
              help="Only documents with at least this share of target-language text "
              "(0.5: mainly target).")  # fmt: skip
@click.option("--segments", type=click.Choice(["all", "target"]), default="all",
              show_default=True,
              help="target: only the paragraphs identified as the target language.")  # fmt: skip
@click.option("--loop", "loop", type=click.IntRange(1), help="Only documents of this loop.")
@click.option("--source", type=click.Choice(["search", "crawl"]),
              help="Only documents found by search, or only by crawling.")  # fmt: skip
@common_options
@click.pass_obj
def export(app: App, out: str, fmt: str, min_share: float, segments: str, loop: int | None,
           source: str | None) -> None:  # fmt: skip
    """Write the corpus: the target-language documents, near-duplicates left out.

    OUT is a file (a directory with --format dir), or - for stdout. The file appears only
    when complete: an interrupted export leaves nothing behind. Counts go to stderr.

    \b
    Example:
      collie export corpus.txt
      collie export corpus.jsonl --format jsonl --min-share 0.5
      collie export - --segments target | wc -w
    """
    with app.open() as ws:
        rows = Store(ws).export_rows(loop, source, min_share)
        try:
            count = write_export(rows, out, fmt, ws.language.code, segments)
        except (FileExistsError, FileNotFoundError, NotADirectoryError) as exc:
            raise InputError(
                f"Cannot write {out}: {exc}.",
                "Give a path in an existing directory (for --format dir: a new or empty "
                "directory).",
            ) from None
    if not app.quiet:
        note(f"{count.documents:,} documents, {count.words:,} words written to "
             f"{'stdout' if out == '-' else out}.")  # fmt: skip
