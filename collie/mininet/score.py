"""`collie mininet score`: a corpus measured against the world's ground truth.

Precision in CorpusCollie's three classes (a document is *mainly* target when at least
MAINLY of the letters of its page's main text are in the target language, *some* when at
least SOME are, else *no* target; a listing page, a hub of teasers, is not a document and
counts as *no* target), and the same classes over the text as exported (each exported
line given the language of the main-text line it matches; lines matching none are not
main text), which is what a reader of the corpus sees; the words exported that are not
main text (a listing page's words, teasers, boilerplate); recall of the world's target
pages (listing pages are not target pages; all of them, and those reachable from pages
search can return), counted once per duplicate group;
near-duplicates that leaked into the corpus; boilerplate that leaked (exported tokens
that are not in the page's main text); documents with mojibake their page lacks; pages
fetched per target document; and, from the
server's request log, politeness: requests for robots.txt-disallowed URLs and requests to
one host closer together than the delay asked for.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

from collie.errors import InputError
from collie.mininet.pages import tokens
from collie.mininet.reach import REACH, is_disallowed
from collie.mininet.records import Truth
from collie.mininet.worldfile import WorldFile

MAINLY = 0.5
SOME = 0.05
SLACK = 0.9  # a gap under SLACK * delay is a politeness violation (timer jitter allowed)


@dataclass(frozen=True)
class Scores:
    """The figures of one corpus (see the module docstring)."""

    target: str
    exported: int
    mainly: int
    some: int
    no_target: int
    unknown: int  # exported URLs the world never served
    precision_some: float
    precision_mainly: float
    target_pages: int  # duplicate groups with target text
    target_reachable: int
    found: int
    found_reachable: int
    recall_all: float
    recall_reachable: float
    near_duplicates_leaked: int
    relatives: list[str]  # the target's close relatives in the world
    relative_pages_fetched: int | None  # pages in a relative without target text
    relative_pages_exported: int
    relative_words: int  # words of those pages in the corpus
    boilerplate_leaked: float
    mojibake: int  # documents with a mojibake marker their page's text lacks
    pages_fetched: int | None
    pages_per_target_document: float | None
    robots_violations: int | None
    trap_requests: int | None  # requests into the world's endless URL spaces
    repeat_requests: int | None  # requests for a URL requested before (robots.txt aside)
    politeness_violations: int | None
    delay: float | None
    thresholds: dict[str, float]
    # how a target page is reachable (mininet.reach.REACH) -> [found, target pages]
    recall_by_reach: dict[str, list[int]] = field(default_factory=dict)
    listing_pages_exported: int = 0  # hubs of teasers: not documents
    no_target_text: int = 0  # documents whose exported text holds no target main text
    no_target_text_share: float = 0.0  # of the documents exported
    precision_some_text: float = 0.0  # classes over the exported text (listing pages: no)
    precision_mainly_text: float = 0.0
    words_exported: int = 0  # tokens (mininet.pages.tokens)
    non_main_words: int = 0  # of them, not main text: listing pages, teasers, boilerplate
    non_main_share: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _truth_of(
    world: WorldFile, truths: Mapping[str, Truth], doc: Mapping[str, Any]
) -> Truth | None:
    for key in ("final_url", "url"):
        url = str(doc.get(key) or "")
        for candidate in (url, url.rstrip("/") if url.count("/") > 3 else url + "/"):
            if candidate in truths:
                return truths[candidate]
        trap = world.trap_truth(url)
        if trap is not None:
            return trap
    return None


def score(
    world: WorldFile,
    docs: Iterable[Mapping[str, Any]],
    log: Iterable[Mapping[str, Any]] | None = None,
    delay: float | None = None,
) -> Scores:
    """Score exported documents (dicts with url, final_url, text) against `world`."""
    truths, target = world.truths(), world.target
    classes: Counter[str] = Counter()
    read: Counter[str] = Counter()  # the classes of the exported text
    groups: Counter[str] = Counter()
    found: set[str] = set()
    leaked = total = non_main = listings = relative_docs = relative_words = mojibake = 0
    for doc in docs:
        truth = _truth_of(world, truths, doc)
        text = str(doc.get("text") or "")
        if truth is None:
            classes["unknown"] += 1
            read["unknown"] += 1
            continue
        share = 0.0 if truth.listing else truth.shares.get(target, 0.0)
        listings += truth.listing
        if _is_relative(truth, world):
            relative_docs += 1
            relative_words += len(text.split())
        classes[_class_of(share)] += 1
        read["no" if truth.listing else _class_of(exported_share(text, truth, target))] += 1
        groups[truth.dup_group] += 1
        if share >= SOME:
            found.add(truth.dup_group)
        mojibake += has_mojibake(text, truth.main_text)
        got, want = tokens(text), tokens(truth.main_text)
        extra = sum((got - want).values())
        leaked += extra
        non_main += sum(got.values()) if truth.listing else extra
        total += sum(got.values())
    wanted = _target_groups(truths.values(), target)
    reachable = {g for g, members in wanted.items() if any(t.reachable for t in members)}
    by_reach: dict[str, list[int]] = {how: [0, 0] for how in REACH}
    for group in reachable:
        how = min((t.reach for t in wanted[group] if t.reach), key=REACH.index, default="")
        if how:
            by_reach[how][1] += 1
            by_reach[how][0] += group in found
    exported = sum(classes.values())
    fetched, robots, impolite, relative_fetched, trapped, repeated = (
        _from_log(world, truths, log, delay) if log is not None else (None,) * 6
    )
    return Scores(
        target=target,
        exported=exported,
        mainly=classes["mainly"],
        some=classes["some"],
        no_target=classes["no"],
        unknown=classes["unknown"],
        precision_some=_ratio(classes["mainly"] + classes["some"], exported),
        precision_mainly=_ratio(classes["mainly"], exported),
        target_pages=len(wanted),
        target_reachable=len(reachable),
        found=len(found & set(wanted)),
        found_reachable=len(found & reachable),
        recall_all=_ratio(len(found & set(wanted)), len(wanted)),
        recall_reachable=_ratio(len(found & reachable), len(reachable)),
        near_duplicates_leaked=sum(n - 1 for n in groups.values()),
        relatives=world.relatives,
        relative_pages_fetched=relative_fetched,
        relative_pages_exported=relative_docs,
        relative_words=relative_words,
        boilerplate_leaked=_ratio(leaked, total),
        mojibake=mojibake,
        pages_fetched=fetched,
        pages_per_target_document=round(fetched / len(found), 2) if fetched and found else None,
        robots_violations=robots,
        trap_requests=trapped,
        repeat_requests=repeated,
        politeness_violations=impolite,
        delay=delay,
        thresholds={"mainly": MAINLY, "some": SOME},
        recall_by_reach=by_reach,
        listing_pages_exported=listings,
        no_target_text=read["no"],
        no_target_text_share=_ratio(read["no"], exported),
        precision_some_text=_ratio(read["mainly"] + read["some"], exported),
        precision_mainly_text=_ratio(read["mainly"], exported),
        words_exported=total,
        non_main_words=non_main,
        non_main_share=_ratio(non_main, total),
    )


def _class_of(share: float) -> str:
    return "mainly" if share >= MAINLY else "some" if share >= SOME else "no"


def exported_share(text: str, truth: Truth, target: str) -> float:
    """The target's share of the letters of the exported lines that are main text: each
    line takes the language of the main-text line sharing most of its tokens (at least
    half of them; a line matching none is not main text and is left out)."""
    index = [(lang, tokens(line)) for lang, line in truth.lines()]
    letters = target_letters = 0
    for line in text.split("\n"):
        got = tokens(line)
        size = sum(got.values())
        if not size or not index:
            continue
        lang, overlap = max(
            ((code, sum((got & want).values())) for code, want in index), key=lambda m: m[1]
        )
        if 2 * overlap < size:
            continue
        count = sum(c.isalpha() for c in line)
        letters += count
        target_letters += count if lang == target else 0
    return target_letters / letters if letters else 0.0


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The objects of a JSON-lines file (an export, a request log)."""
    try:
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    except (OSError, ValueError) as exc:
        raise InputError(
            f"{path}: not a JSONL file ({exc}).",
            "Give --corpus a folder `collie export --format dir` wrote (its manifest.jsonl), "
            "and --log a request log of `collie mininet serve --log`.",
        ) from None


def read_export_dir(folder: Path) -> list[dict[str, Any]]:
    """The documents of a `collie export --format dir` folder: each manifest record with
    the text of its file (what a txt export writes for it)."""
    docs = read_jsonl(folder / "manifest.jsonl")
    try:
        for doc in docs:
            doc["text"] = (folder / str(doc["file"])).read_text(encoding="utf-8").rstrip("\n")
    except (OSError, KeyError) as exc:
        raise InputError(f"{folder}: not a collie export folder ({exc}).") from None
    return docs


_MOJIBAKE = re.compile("[\ufffd\x80-\x9f]|â€|Ã[\x80-\xbf]")


def has_mojibake(text: str, truth: str) -> bool:
    """Does `text` hold U+FFFD, a C1 control, `â€` or `Ã` + a Latin-1 continuation (UTF-8
    read as windows-1252) that the page's own text does not?"""
    found = set(_MOJIBAKE.findall(text))
    return bool(found - set(_MOJIBAKE.findall(truth)))


def _ratio(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0


def _target_groups(truths: Iterable[Truth], target: str) -> dict[str, list[Truth]]:
    groups: dict[str, list[Truth]] = defaultdict(list)
    for truth in truths:
        if truth.listing:
            continue  # a hub of teasers is not a document
        if truth.kind == "page" and truth.status == 200 and truth.shares.get(target, 0) >= SOME:
            groups[truth.dup_group].append(truth)
    return groups


def _is_relative(truth: Truth, world: WorldFile) -> bool:
    """A page in one of the target's close relatives, without target text."""
    return truth.lang in world.relatives and truth.shares.get(world.target, 0.0) < SOME


def _from_log(
    world: WorldFile,
    truths: Mapping[str, Truth],
    log: Iterable[Mapping[str, Any]],
    delay: float | None,
) -> tuple[int, int, int | None, int, int, int]:
    """(pages fetched, robots.txt violations, too-close requests, relatives' pages
    fetched, requests into endless URL spaces, requests for a URL requested before)
    from the request log."""
    robots = world.robots()
    fetched = disallowed = relatives = trapped = repeated = 0
    seen: set[str] = set()
    requested: set[str] = set()
    times: dict[str, list[float]] = defaultdict(list)
    for entry in log:
        host = str(entry.get("host") or "")
        if host not in world.hosts:
            continue  # the search endpoint, unknown hosts
        times[host].append(float(entry["monotonic"]))
        if str(entry.get("path", "")).startswith("/robots.txt"):
            continue
        fetched += 1
        url = str(entry["url"])
        disallowed += is_disallowed(url, robots)
        trapped += world.trap_truth(url) is not None
        repeated += url in requested
        requested.add(url)
        truth = truths.get(url)
        if truth is not None and url not in seen and truth.kind == "page":
            relatives += _is_relative(truth, world)
            seen.add(url)
    if delay is None:
        return fetched, disallowed, None, relatives, trapped, repeated
    impolite = 0
    for arrivals in times.values():
        arrivals.sort()
        impolite += sum(b - a < delay * SLACK for a, b in pairwise(arrivals))
    return fetched, disallowed, impolite, relatives, trapped, repeated


def _relative_lines(s: Scores) -> list[str]:
    if not s.relatives:
        return []
    fetched = s.relative_pages_fetched
    share = f" ({s.relative_pages_exported / fetched:.1%})" if fetched else ""
    of = f" of {fetched} fetched{share}" if fetched is not None else ""
    return [
        f"relatives' pages exported  {s.relative_pages_exported}{of}; "
        f"{s.relative_words} words in the corpus ({', '.join(s.relatives)})"
    ]


def format_scores(s: Scores) -> list[str]:
    """The score table, a line at a time."""
    some, mainly = s.thresholds["some"], s.thresholds["mainly"]
    lines = [
        f"target language            {s.target}",
        f"documents exported         {s.exported}: {s.mainly} mainly target (>= {mainly:.0%} of "
        f"the main text), {s.some} some target (>= {some:.0%}), {s.no_target} no target"
        + (f", {s.unknown} unknown URLs" if s.unknown else ""),
        f"precision (some target)    {s.precision_some:.4f}",
        f"precision (mainly target)  {s.precision_mainly:.4f}",
        f"recall, reachable pages    {s.recall_reachable:.4f}  ({s.found_reachable} of "
        f"{s.target_reachable} target pages reachable from search results)",
        f"recall, all pages          {s.recall_all:.4f}  ({s.found} of {s.target_pages}; "
        "duplicates count once, listing pages are not target pages)",
        *(
            f"  reachable {how:<16} {found:>4} of {total:<4} found"
            + (f" ({found / total:.0%})" if total else "")
            for how, (found, total) in s.recall_by_reach.items()
        ),
        f"no target text             {s.no_target_text} documents ({s.no_target_text_share:.2%} "
        f"of the export; {s.listing_pages_exported} listing pages among them)",
        f"precision, text as read    some {s.precision_some_text:.4f}, mainly "
        f"{s.precision_mainly_text:.4f} (the exported lines' own languages)",
        f"words not main text        {s.non_main_share:.4f} of exported words ({s.non_main_words}"
        f" of {s.words_exported}: listing pages, teasers, boilerplate)",
        f"near-duplicates leaked     {s.near_duplicates_leaked}",
        *_relative_lines(s),
        f"boilerplate leaked         {s.boilerplate_leaked:.4f} of exported tokens",
        f"mojibake                   {s.mojibake} documents",
    ]
    if s.pages_fetched is not None:
        per = s.pages_per_target_document
        lines.append(
            f"pages fetched              {s.pages_fetched}"
            + (f" ({per} per target page found)" if per is not None else "")
        )
        lines.append(f"robots.txt violations      {s.robots_violations}")
        lines.append(f"requests into traps        {s.trap_requests} (endless calendars)")
        share = ""
        if s.pages_fetched and s.repeat_requests is not None:
            share = f" ({s.repeat_requests / s.pages_fetched:.1%} of page requests)"
        lines.append(f"repeated requests          {s.repeat_requests}{share}")
    if s.politeness_violations is not None:
        lines.append(
            f"politeness violations      {s.politeness_violations} (requests to one "
            f"host under {s.delay} s apart)"
        )
    return lines
