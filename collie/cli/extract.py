"""`collie extract`: what the pipeline keeps of one page (click only)."""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import asdict
from pathlib import Path

import click

from collie.cli.options import CONTEXT, App, common_options, note, set_flag
from collie.decide.listing import is_listing
from collie.errors import CollieError, InputError
from collie.fetch.fetcher import FetchConfig, Fetcher
from collie.models import FetchResult
from collie.page.maintext import check_installed
from collie.page.process import Page, process
from collie.workspace.folder import read_settings


@click.command(context_settings=CONTEXT)
@click.argument("source", metavar="FILE.html|URL")
@click.option(
    "--base-url",
    metavar="URL",
    help="The URL a file was fetched from: resolves its relative links.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "markdown", "json"]),
    default="text",
    show_default=True,
    help="text: the clean text; markdown: the kept lines with their Markdown "
    "markup; json: everything (title, lang attribute, encoding decision, links, "
    "paragraphs, dropped boilerplate lines and their rules).",
)
@click.option(
    "--boilerplate",
    type=click.Choice(["rules", "none"]),
    expose_value=False,
    callback=set_flag("extract.boilerplate"),
    help="Boilerplate removal (default: extract.boilerplate).",
)
@click.option(
    "--main",
    type=click.Choice(["trafilatura", "fast", "rules"]),
    expose_value=False,
    callback=set_flag("extract.main"),
    help="Main-text extraction (default: extract.main).",
)
@common_options
@click.pass_obj
def extract(app: App, source: str, base_url: str | None, fmt: str) -> None:
    """Show what collie keeps of one page: its clean text, or everything it learnt.

    A URL is fetched the way `collie run` fetches (robots.txt, User-Agent, the fetch.*
    settings, HTTP_PROXY); a file is taken as the bytes a server sent, its encoding
    detected the same way. Inside a workspace its settings apply. A page the pipeline
    would drop exits with status 1 and the reason (with --format json: outcome and
    reason in the JSON, status 0). A listing page (a home or section page of teasers)
    is printed, with a note that a run crawls it but keeps it out of the corpus
    (--format json: "listing": true).

    \b
    Example:
      collie extract saved-page.html --base-url http://example.co.ke/news/1
      collie extract http://example.co.ke/ --format json
    """
    check_installed()
    settings = read_settings(app.find_root_or_none(), os.environ, app.flags)
    if source.lower().startswith(("http://", "https://")):
        with Fetcher(FetchConfig.from_settings(settings)) as fetcher:
            response = fetcher.fetch(source)
    else:
        response = _file_response(Path(source), base_url or "")
    page = process(
        response.url,
        response,
        min_confidence=settings["encoding.min_confidence"],
        boilerplate=settings["extract.boilerplate"],
        engine=settings["extract.main"],
        code=settings["extract.code"],
    )
    listing = (
        settings["extract.listings"]
        and page.outcome == "kept"
        and is_listing(page.final_url, page.paragraphs, page.links, page.cards)
    )
    if fmt == "json":
        data = page_json(page, response)
        data["listing"] = listing
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    if page.outcome != "kept":
        raise CollieError(
            f"collie would drop this page: {page.reason}{_why_empty(page)}.",
            "Try --format json for the details (encoding decision, dropped lines).",
        )
    click.echo(page.markdown if fmt == "markdown" else page.text)
    if not app.quiet and page.dropped:
        note(f"{len(page.dropped)} boilerplate lines dropped (see --format json).")
    if listing:
        note(
            "A listing page (headlines and teasers of its site's articles): collie run "
            "crawls its links but keeps it out of the corpus (reason listing; "
            "extract.listings = false keeps it)."
        )


def _why_empty(page: Page) -> str:
    """For a page left without text: the rules that dropped its lines, most lines first
    (issue 56: say why a page is dropped)."""
    if page.reason != "empty-text" or not page.dropped:
        return ""
    counts = Counter(rule for _, rule in page.dropped)
    rules = ", ".join(f"{n} {rule}" for rule, n in counts.most_common())
    return f" (every line of it was boilerplate: {rules})"


def _file_response(path: Path, base_url: str) -> FetchResult:
    try:
        body = path.read_bytes()
    except OSError as exc:
        raise InputError(
            f"Cannot read {path}: {exc.strerror or exc}.",
            "Give an HTML file or an http(s):// URL.",
        ) from None
    url = base_url or path.resolve().as_uri()
    return FetchResult(url, url, None, {"content-type": "text/html"}, body)


def page_json(page: Page, response: FetchResult) -> dict[str, object]:
    """Everything `collie extract --format json` prints."""
    data = asdict(page)
    data["links"] = [{"url": u, "anchor": a} for u, a in page.links]
    data["dropped"] = [{"line": line, "rule": rule} for line, rule in page.dropped]
    data["fetch"] = {
        "status": response.status,
        "redirects": list(response.redirects),
        "truncated": response.truncated,
        "bytes": len(response.body),
        "content_type": response.headers.get("content-type"),
    }
    return data
