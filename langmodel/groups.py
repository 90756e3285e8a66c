"""The discriminators of the confusable groups (collie.langid.groups), for the build.

The groups are in `groups.tsv` beside this file (one group a line, its members'
ISO 639-3 codes). Each member's training text is every source it has, training part
only: the UDHR's training articles (collie.langid.corpus) and the real text of the
build (`build.real_sources`: NTREX-128, OLDI Seed, lid-registers' train files,
news-text's training blocks); never a test file or a held-out block. A member takes at
most BUDGET characters, shared evenly by its sources (`build.share_evenly`), so that no
member wins because it has more text. The discriminator is multinomial naive Bayes over
the character 1-5-grams seen at least MIN_COUNT times in the group's text, additive
smoothing ALPHA, each row centred; rows whose members differ by less than PRUNE are
left out (they cannot change a decision much). Deterministic: sorted arrays, no
sampling. Never imported at run time.
"""

from __future__ import annotations

import sys
from pathlib import Path

from collie.langid.groups import Discriminator, train_discriminator

GROUPS = Path(__file__).resolve().parent / "groups.tsv"
BUDGET = 400_000  # characters a member at most (150,000 measured: 0.2 points lower on dev)
MIN_COUNT = 2  # n-grams seen fewer times in the group's text are left out
ALPHA = 0.1
PRUNE = 0.05  # rows whose largest and smallest weight differ by less: left out


def read_groups(path: Path = GROUPS) -> list[tuple[str, ...]]:
    """The groups of the table: the first column of each line, comma-separated codes."""
    groups = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#") and not line.startswith("members\t"):
            groups.append(tuple(line.split("\t")[0].split(",")))
    return groups


def member_texts(
    code: str,
    udhr: dict[str, list[tuple[int, str]]],
    sources: dict[str, dict[str, list[tuple[int, str]]]],
    budget: int,
) -> list[str]:
    """A member's training text: at most `budget` characters shared evenly by its sources."""
    from langmodel.build import share_evenly

    by_source = {source: by[code] for source, by in sources.items() if by.get(code)}
    own = [
        pair for key, pairs in sorted(udhr.items()) if key.split("/")[0] == code for pair in pairs
    ]
    if own:
        by_source["udhr"] = own
    taken = share_evenly(by_source, budget)
    return [text for source in sorted(taken) for _, text in taken[source]]


def train_groups(
    codes: set[str],
    udhr: dict[str, list[tuple[int, str]]],
    sources: dict[str, dict[str, list[tuple[int, str]]]],
) -> list[Discriminator]:
    """A discriminator for each group of the table with two members or more among
    `codes` (the model's classes); says what it trained."""
    out = []
    for group in read_groups():
        members = tuple(code for code in group if code in codes)
        if len(members) < 2:
            print(f"group {','.join(group)}: fewer than two members in the model", file=sys.stderr)
            continue
        texts = {code: member_texts(code, udhr, sources, BUDGET) for code in members}
        made = train_discriminator(members, texts, MIN_COUNT, ALPHA, PRUNE)
        sizes = ", ".join(f"{code} {sum(map(len, texts[code])):,}" for code in members)
        print(
            f"group {','.join(members)}: {len(made.keys):,} n-grams ({sizes} characters)",
            file=sys.stderr,
        )
        out.append(made)
    return out
