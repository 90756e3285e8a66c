"""What a loop sends: its seed list (loop 1: frequency minus the safetynet; later loops:
the odds ratio against wrong-language and relative-suspected text) and its queries
(random seed-word combinations never sent before, or the bandit's draws), in the order
the search stage (search.py) takes them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from collie.errors import InputError
from collie.mining.config import QueryConfig, RunConfig
from collie.search.base import Backend
from collie.search.queries import WordBandit, generate_combinations, loop_rng, query_domains
from collie.search.seeds import SeedList, SeedWord, count_tokens, frequency_seeds, odds_ratio_seeds
from collie.store import Store

if TYPE_CHECKING:  # types only: the caller hands these in
    from collie.workspace.folder import Workspace


def seed_list_for(ws: Workspace, loop: int, config: RunConfig) -> SeedList:
    """The seed list of a loop: the manual list if there is one; else the odds ratio of
    target against wrong-language text when there is wrong-language text (the user's
    wronglang documents, and the pages earlier loops classified as another language);
    else the frequency list. Target text: the seed documents and the target-language
    documents of earlier loops (near-duplicates left out).
    """
    seeds = config.seeds
    manual = ws.manual_seed_words()
    if manual:
        return SeedList("manual", [SeedWord(w, 0.0, 0, 0) for w in manual], {})
    store = Store(ws.db)
    target = count_tokens(ws.seed_texts("target") + store.pages.document_texts("target", loop))
    wrong_texts = ws.seed_texts("wronglang") + store.pages.document_texts("wronglang", loop)
    wrong_texts += store.pages.suspect_texts(loop)  # a relative's words make poor seeds
    code, ignore = ws.language.code, list(seeds.safetynet_ignore)
    if wrong_texts:
        return odds_ratio_seeds(
            target,
            count_tokens(wrong_texts),
            seeds.count,
            min_doc_freq=seeds.min_doc_freq,
            min_count=seeds.min_count,
            target=code,
            min_length=seeds.min_length,
            top=seeds.safetynet_top,
            ignore=ignore,
        )
    return frequency_seeds(
        target,
        seeds.count,
        target=code,
        min_length=seeds.min_length,
        top=seeds.safetynet_top,
        ignore=ignore,
    )


def plan_queries(
    ws: Workspace, backend: Backend, loop: int, config: RunConfig
) -> list[tuple[str, list[str]]]:
    """The queries (text as sent, seed words) a loop would send, none sent before."""
    return list(LoopQueries(ws, backend, loop, config, [], config.queries.count))


class LoopQueries:
    """A loop's queries as the search stage takes them, one at a time: those an
    interrupted run of this loop recorded (answered from the cache when done, never
    re-sent when lost), then new ones up to queries.count: random, or (queries.bandit,
    from the second loop) drawn by the seed words' yields in earlier loops (the target
    documents their queries brought; queries.WordBandit)."""

    def __init__(
        self,
        ws: Workspace,
        backend: Backend,
        loop: int,
        config: RunConfig,
        recorded: list[tuple[str, list[str]]],
        fresh: int,
        start: int = 0,
    ) -> None:
        """`recorded`: the queries recorded for the loop (to send again or answer from
        the cache); `fresh`: how many new ones to draw; `start`: their first position
        in the loop (lost queries count)."""
        settings: QueryConfig = config.queries
        seeds = [seed.word for seed in seed_list_for(ws, loop, config).words]
        if len(seeds) < settings.words and fresh > 0:
            raise InputError(
                f"Loop {loop} has {len(seeds)} seed word{'' if len(seeds) == 1 else 's'}, "
                f"fewer than a query needs (queries.words = {settings.words}): there is "
                "nothing to search for.",
                "Give more seed text (a new workspace with more --docs), lower "
                "seeds.min_length or seeds.min_count, or list seed words in the file named "
                "by seeds.manual (`collie seeds` shows the list).",
            )
        self.backend = backend
        self.recorded = recorded
        self.words = settings.words
        self.fresh = fresh
        self.domains = query_domains(config.language, list(settings.extra_domains), settings.tld)
        rng = loop_rng(settings.seed, loop)
        self.position_rng = lambda i: loop_rng(settings.seed, loop, start + i)
        used = ws.queries.sent_combinations()
        self.bandit: WordBandit | None = None
        self.combos: list[tuple[str, ...]] = []
        prior = ws.queries.word_yields(loop) if settings.bandit else {}
        if any(hits + misses for hits, misses in prior.values()):
            self.bandit = WordBandit(seeds, prior, used)
        else:
            self.combos = generate_combinations(seeds, self.fresh, self.words, rng, used)

    def __len__(self) -> int:
        """How many the loop plans (fewer may be sent: a budget, the yield rule)."""
        return len(self.recorded) + (self.fresh if self.bandit else len(self.combos))

    def __iter__(self) -> Iterator[tuple[str, list[str]]]:
        yield from self.recorded
        for i in range(self.fresh):
            combo = (
                self.bandit.draw(self.words, self.position_rng(i))
                if self.bandit
                else (self.combos[i] if i < len(self.combos) else None)
            )
            if combo is None:
                return
            yield self.backend.restrict_to_domains(" ".join(combo), self.domains), list(combo)


def loop_queries(ws: Workspace, backend: Backend, loop: int, config: RunConfig) -> LoopQueries:
    """The loop's queries (`LoopQueries`)."""
    recorded = ws.queries.loop_queries(loop)
    return LoopQueries(
        ws,
        backend,
        loop,
        config,
        [(text, words) for text, words, status in recorded if status != "lost"],
        max(0, config.queries.count - len(recorded)),
        len(recorded),
    )
