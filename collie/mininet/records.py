"""The closed world's records: what a build takes (BuildOptions), the world it makes in
memory (World), an endless URL space in it (Trap) and what the world file knows of one
URL (Truth) and of one host (SiteTruth). collie/mininet/build.py makes them,
collie/mininet/worldfile.py stores and reads them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from collie.mininet.languages import BIG, NEIGHBOURS, RELATIVES
from collie.mininet.sites import WorldPage
from collie.mininet.texts import LanguageText


@dataclass(frozen=True)
class BuildOptions:
    """What `collie mininet build` takes."""

    target: str = "zul"  # ISO 639-3
    langs: tuple[str, ...] = ()  # the other languages; default: relatives, neighbours, BIG
    sites: int = 300
    seed: int = 1
    docs: Mapping[str, Path] = field(default_factory=dict)  # code -> folder of .txt files
    relative_share: float = 0.12  # of the sites, in the target's close relatives
    seed_every: int = 4  # every n-th paragraph of the target's text is a seed document
    seed_head: int = 0  # > 0: the seed documents are the target text's first words instead
    site_labels: bool = False  # religious sites and multilingual shops too (labelled.py)

    def key(self) -> str:
        """The options as a file-name part (the docs folders by name)."""
        docs = "".join(f"-{c}={p.name}" for c, p in sorted(self.docs.items()))
        langs = f"-{'.'.join(self.langs)}" if self.langs else ""
        return (
            f"{self.target}-{self.sites}-{self.seed}-r{self.relative_share:g}-"
            f"s{self.seed_head or self.seed_every}{langs}{docs}"
            + ("-labels" if self.site_labels else "")
        )

    def other_languages(self) -> list[str]:
        if self.langs:
            return [c for c in dict.fromkeys(self.langs) if c != self.target]
        found = [*RELATIVES.get(self.target, ()), *NEIGHBOURS.get(self.target, ()), *BIG]
        return [c for c in dict.fromkeys(found) if c != self.target]


@dataclass
class World:
    """Everything the file will hold."""

    options: BuildOptions
    texts: dict[str, LanguageText]
    seed_docs: list[str]
    pages: dict[str, WorldPage] = field(default_factory=dict)
    traps: list[Trap] = field(default_factory=list)
    robots: dict[str, str] = field(default_factory=dict)  # host -> robots.txt ("" = 500)
    homes: dict[str, dict[int, tuple[str, str]]] = field(default_factory=dict)  # kind -> n -> url
    hidden_count: int = 0
    sites: dict[str, SiteTruth] = field(default_factory=dict)  # host -> its kind and labels
    # url -> (licence, tdm reservation) of the pages rights.py planted a signal or decoy in
    rights: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)

    @property
    def relatives(self) -> list[str]:
        """The target's close relatives among the world's languages."""
        return [c for c in RELATIVES.get(self.options.target, ()) if c in self.texts]


@dataclass(frozen=True)
class Trap:
    """An endless URL space: `prefix` + a number, each page linking to the next."""

    site: str
    prefix: str
    body: bytes
    headers: list[tuple[str, str]]
    lang: str
    main_text: str

    def page(self, number: int) -> tuple[bytes, str]:
        """(body, main text) of page `number`."""
        n, nxt = str(number).encode(), str(number + 1).encode()
        text = self.main_text.replace("@@N@@", str(number)).replace("@@NEXT@@", str(number + 1))
        return self.body.replace(b"@@N@@", n).replace(b"@@NEXT@@", nxt), text


@dataclass(frozen=True)
class SiteTruth:
    """What the world knows of one host: the kind of site it serves (target, hidden,
    mixed, bilingual, mirror, relative, other, religious, multilingual), its language
    ("mul" for a host serving many), the labels a site labeller should give it, and how
    many of its pages hold target text (>= 5% of their letters; set when written)."""

    host: str
    kind: str
    lang: str
    labels: tuple[str, ...] = ()
    target_pages: int = 0


@dataclass(frozen=True)
class Truth:
    """What the world knows of one URL."""

    url: str
    site: str
    status: int
    kind: str  # page, redirect, error, binary, robots, trap
    encoding: str  # the codec of the body
    lang: str
    shares: dict[str, float]
    main_text: str
    dup_group: str
    indexed: bool
    disallowed: bool
    reachable: bool
    reach: str = ""  # how (mininet.reach.REACH); "" = not reachable
    listing: bool = False  # a hub page of teasers (home, section, tag...): not a document
    line_langs: tuple[str, ...] = ()  # the language of each line of main_text

    def lines(self) -> list[tuple[str, str]]:
        """(language, text) of each line of the main text (the page's language for all
        when the world did not record them)."""
        texts = self.main_text.split("\n") if self.main_text else []
        langs = self.line_langs if len(self.line_langs) == len(texts) else (self.lang,) * len(texts)
        return list(zip(langs, texts, strict=True))
