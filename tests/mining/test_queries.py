"""mining/queries.py: a loop's seed list and its queries, never one sent before."""

from __future__ import annotations

from pathlib import Path

import pytest

from collie.errors import InputError
from collie.mining.config import RunConfig
from collie.mining.queries import LoopQueries, plan_queries, seed_list_for
from collie.search.base import Backend

from .conftest import open_copy


def test_loop_one_takes_the_seed_documents_frequent_words_minus_the_safetynet(ws) -> None:
    seeds = seed_list_for(ws, 1, RunConfig.of(ws))
    assert seeds.method == "frequency" and seeds.words[0].word == "futhi"  # twice in the text
    assert "wonke" in seeds.removed  # frequent in Xhosa and Ndebele: a poor seed
    assert "wonke" not in {s.word for s in seeds.words}


def test_a_loops_queries_are_combinations_never_repeated(template_ws: Path, tmp_path) -> None:
    with open_copy(template_ws, tmp_path, queries__count=6, queries__words=2) as ws:
        planned = plan_queries(ws, Backend(), 1, RunConfig.of(ws))
    assert len(planned) == 6 and len({text for text, _ in planned}) == 6
    assert all(len(words) == 2 and text == " ".join(words) for text, words in planned)


def test_too_few_seed_words_for_a_query_is_a_clear_error(template_ws: Path, tmp_path) -> None:
    with open_copy(template_ws, tmp_path, queries__words=8, seeds__count=4) as ws:
        with pytest.raises(InputError, match="fewer than a query needs"):
            LoopQueries(ws, Backend(), 1, RunConfig.of(ws), [], 3)
        recorded = [("a b", ["a", "b"])]  # an interrupted loop's queries need no new words
        assert list(LoopQueries(ws, Backend(), 1, RunConfig.of(ws), recorded, 0)) == recorded
