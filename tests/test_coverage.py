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


def test_jackknife_coverage_and_extrapolation_by_hand() -> None:
    """The figures beside Chao2 (Chao and Jost 2012; Chao et al. 2014), computed by hand:
    30 sites in 45 queries, 6 seen once, 2 twice, 150 incidences."""
    e = chao2(30, 6, 2, 45, incidences=150)
    assert e.jackknife == pytest.approx(30 + 6 * 44 / 45)
    assert e.coverage == pytest.approx(1 - 6 / 150 * (44 * 6 / (44 * 6 + 2 * 2)))
    unseen = 44 / 45 * 36 / 4  # f0 = (m - 1) / m * Q1^2 / (2 Q2)
    assert e.estimate == pytest.approx(30 + unseen)
    assert e.new_sites(10) == pytest.approx(unseen * (1 - (1 - 6 / (45 * unseen + 6)) ** 10))
    assert 0 < e.new_sites(1) < e.new_sites(10) < e.new_sites(10_000) <= unseen + 1e-9
    assert e.new_sites(0) == 0
    # nothing seen once: nothing left to find, full coverage
    done = chao2(30, 0, 3, 45, incidences=150)
    assert (done.new_sites(400), done.coverage, done.jackknife) == (0, 1.0, 30)
    assert e.at_least() == round(e.estimate) and done.at_least() == 30
    first = chao2(3, 3, 0, 1, incidences=3)  # one query: every site seen once
    assert first.coverage == 0.0 and first.jackknife == 3 and first.new_sites(10) >= 0
    said = e.sentence("searxng")
    assert said.startswith("found 30 target sites; at least 39 are reachable through searxng")
    assert "(lower bound; jackknife 36; sample coverage 96%) after 45 queries" in said


def test_the_extrapolation_rule_weighs_what_the_unspent_queries_can_bring() -> None:
    """search.stop_rule = extrapolation: the same minimum and quiet probe, then the new
    sites the loop's unspent queries are expected to bring, against min_new."""
    rule = StopRule(0.9, min_queries=40, probe=10, rule="extrapolation", min_new=0.5)
    full = chao2(30, 0, 3, 45, incidences=150)
    assert not rule.saturated(full, 39, True, 39, 300)  # the first loop's minimum
    assert rule.saturated(full, 40, True, 10, 300)
    assert not rule.saturated(full, 40, True, 9, 300)  # a new site 9 queries ago
    # one site seen once among many seen often: a few more queries are unlikely to
    # bring it, hundreds likely
    one = chao2(30, 3, 3, 200, incidences=900)
    assert one.new_sites(5) < 0.5 <= one.new_sites(300)
    assert rule.saturated(one, 200, True, 50, 5) and not rule.saturated(one, 200, True, 50, 300)
    # a long tail (2 seen once, 4 twice): the extrapolation is bounded by Chao2's unseen
    # (0.49 here) and stops, where the upper bound of the interval (28) still waits: the
    # trade-off docs/search-backends.md measures
    tail = chao2(22, 2, 4, 52, incidences=80)
    assert tail.new_sites(98) < 0.5 and rule.saturated(tail, 52, True, 12, 98)
    assert not StopRule(0.9, 40, 10, "upper-bound").saturated(tail, 52, True, 12, 98)
    assert not StopRule(0.9, 20, 10, "none").saturated(full, 99, True, 99, 300)
    assert not StopRule(0.9, 20, 10, "extrapolation", 0).saturated(full, 99, True, 99, 300)
