"""The coverage estimate (collie/search/coverage.py): Chao2 and its interval, the
incidence of target sites over queries, and the stop rule."""

from __future__ import annotations

import math

import pytest

from collie.search.coverage import Incidence, StopRule, chao2


def test_chao2_by_hand() -> None:
    """S_obs 10, Q1 4, Q2 2, m 20: 10 + 0.95 * 16 / 4 = 13.8; Chao's variance 25.46 and
    the log-normal interval around it."""
    e = chao2(10, 4, 2, 20)
    assert e.estimate == pytest.approx(13.8)
    k = math.exp(1.959964 * math.sqrt(math.log(1 + 25.46 / 3.8**2)))
    assert e.low == 10  # the sites found: the interval starts there
    assert e.high == pytest.approx(10 + 3.8 * k, rel=1e-3)
    assert e.observed <= e.low <= e.estimate <= e.high


def test_chao2_without_doubletons_and_without_singletons() -> None:
    assert chao2(5, 3, 0, 10).estimate == pytest.approx(5 + 0.9 * 3 * 2 / 2)
    none_once = chao2(30, 0, 4, 50, incidences=70)
    assert none_once.estimate == 30 and none_once.low == 30
    assert none_once.high > 30  # an interval of zero width would claim certainty
    often = chao2(30, 0, 0, 50, incidences=300)  # every site seen ten times
    assert 30 < often.high < none_once.high
    assert chao2(0, 0, 0, 0).estimate == 0


def test_incidence_counts_a_site_once_per_query_and_pages_as_one_sample() -> None:
    inc = Incidence()
    assert inc.add([("a.ke", True), ("a.ke", True), ("b.ke", True), ("c.ke", False)]) == 2
    assert inc.extend([("d.ke", True), ("a.ke", True)]) == 1  # page 2 of the same query
    assert inc.add([("a.ke", True)]) == 0
    assert inc.queries == 2 and inc.seen["a.ke"] == 2 and inc.seen["d.ke"] == 1
    e = inc.estimate()
    assert (e.observed, e.singletons, e.doubletons) == (3, 2, 1)


def test_a_site_mostly_in_another_language_is_not_a_target_site() -> None:
    """A relative's site whose results the model takes for the target now and then."""
    inc = Incidence()
    inc.add([("rel.ke", True)] + [("rel.ke", False)] * 5 + [("luo.ke", True)])
    assert inc.target_sites() == {"luo.ke"}


def test_the_stop_rule_waits_for_its_minimum_a_quiet_probe_and_the_interval() -> None:
    rule = StopRule(0.9, min_queries=40, probe=10)
    full = chao2(30, 0, 3, 45, incidences=150)
    assert full.high <= 30 / 0.9
    assert not rule.saturated(full, 39, True, 39)  # the first loop's minimum
    assert rule.saturated(full, 40, True, 10)
    assert not rule.saturated(full, 40, True, 9)  # a new site 9 queries ago
    assert rule.saturated(full, 10, False, 10)  # a later loop: the probe
    assert not rule.saturated(chao2(30, 6, 2, 45), 50, True, 12)  # 30 of 38.6
    # a long tail: the estimate is close (22 of 22.4), its interval is not (22-27)
    tail = chao2(22, 2, 4, 52, incidences=80)
    assert tail.share > 0.97 and not rule.saturated(tail, 52, True, 12)
    assert not StopRule(0, 20, 10).saturated(full, 99, True, 99)  # off
    assert not rule.saturated(chao2(0, 0, 0, 40), 40, True, 40)  # nothing seen yet
