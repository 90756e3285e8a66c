"""The review's stratified sample and the audit's estimator, on plain data
(collie.corpus.review.sample and .audit): the strata covered, proportional, a cap per
site, deterministic; the interval computed by hand."""

from __future__ import annotations

import math
from collections import Counter

from collie.corpus.review import needed_for_half_width, wilson
from collie.corpus.review.audit import Judged, audit, estimate
from collie.corpus.review.sample import SITE_CAP, Candidate, Stratum, allocate, draw_sample


def wilson_by_hand(k: float, n: float, z: float = 1.96) -> tuple[float, float]:
    """Wilson (1927): (p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n), p = k/n."""
    p = k / n
    centre = p + z**2 / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z**2 / (4 * n**2))
    return (centre - spread) / (1 + z**2 / n), (centre + spread) / (1 + z**2 / n)


def corpus() -> list[Candidate]:
    """One big site (loop 1 and loop 2), six small ones, ten middling ones, a scan's
    three sites."""
    docs, next_id = [], 1
    shape = {("big.example", "loop 1"): 400, ("big.example", "loop 2"): 100}
    shape |= {(f"small{i}.example", "loop 1"): 3 + i for i in range(6)}
    shape |= {(f"mid{i}.example", "loop 2"): 30 for i in range(10)}
    shape |= {(f"archive{i}.example", "scan"): 4 * (i + 1) for i in range(3)}
    for (site, origin), count in shape.items():
        for _ in range(count):
            docs.append(Candidate(next_id, site, origin))
            next_id += 1
    return docs


def test_every_stratum_is_drawn_and_no_site_fills_the_sample() -> None:
    docs = corpus()
    sizes = Counter(d.stratum for d in docs)
    chosen = draw_sample(docs, 100, seed=7)
    assert len(chosen) == len(set(chosen)) == 100
    strata = Counter(next(d.stratum for d in docs if d.doc_id == i) for i in chosen)
    assert set(strata) == set(sizes)  # every stratum, the smallest (3 documents) too
    per_site = Counter(s.site for s in strata.elements())
    assert max(per_site.values()) == per_site["big.example"] == math.ceil(SITE_CAP * 100)
    # the rest proportional: the scan's sites of 4, 8 and 12 documents give 1 : 2 : 3
    scan = [strata[Stratum(f"archive{i}.example", "scan")] for i in range(3)]
    assert scan[1] == 2 * scan[0] and scan[2] == 3 * scan[0]
    assert draw_sample(docs, 100, seed=7) == chosen  # the same for a seed
    assert draw_sample(docs, 100, seed=8) != chosen


def test_the_cap_rises_only_as_far_as_the_sample_needs() -> None:
    """A site may give a tenth of the sample, or more when the other sites cannot fill it
    (the least cap with which they can)."""
    sizes = {Stratum("a.example", "loop 1"): 1000, Stratum("b.example", "loop 1"): 5}
    given = allocate(sizes, 100)
    assert given == {Stratum("a.example", "loop 1"): 95, Stratum("b.example", "loop 1"): 5}
    assert allocate(sizes, 2000) == sizes  # a sample as large as the corpus takes it all


def test_more_strata_than_the_sample_covers_every_origin_and_label_first() -> None:
    sizes = {Stratum(f"s{i}.example", "loop 1"): 50 - i for i in range(20)}
    sizes[Stratum("tiny.example", "scan")] = 1
    sizes[Stratum("chapel.example", "loop 1")] = 2
    labels = {"chapel.example": ["religious"]}
    given = allocate(sizes, 5, labels)
    assert sum(given.values()) == 5
    assert given[Stratum("tiny.example", "scan")] == 1  # the one scan stratum
    assert given[Stratum("chapel.example", "loop 1")] == 1  # the one religious site
    assert given[Stratum("s0.example", "loop 1")] == 1  # then the largest


def test_the_stratified_estimate_by_hand() -> None:
    """Two strata: 900 documents (4 of 5 judged mainly) and 100 (1 of 5): the share is
    (900 * 0.8 + 100 * 0.2) / 1000, the interval Wilson's at Kish's effective n."""
    big, small = Stratum("big.example", "loop 1"), Stratum("small.example", "loop 1")
    judged = [Judged(big, "mainly")] * 4 + [Judged(big, "none")]
    judged += [Judged(small, "mainly")] + [Judged(small, "some")] * 4
    row = estimate(judged, {big: 900, small: 100}, "all")
    share = (900 * 0.8 + 100 * 0.2) / 1000
    n_eff = 1000**2 / (5 * (900 / 5) ** 2 + 5 * (100 / 5) ** 2)  # (Σw)² / Σw²
    assert row.count == 5 and row.judged == 10 and row.weighted
    assert math.isclose(row.share or 0, share) and math.isclose(row.effective, n_eff)
    low, high = wilson_by_hand(share * n_eff, n_eff)
    assert math.isclose(row.low or 0, low) and math.isclose(row.high or 0, high)
    # proportional (5 of 500 and 5 of 500): the plain Wilson interval of 5 of 10
    plain = estimate(judged, {big: 500, small: 500}, "all")
    assert not plain.weighted and plain.share == 0.5 and plain.effective == 10
    assert (plain.low, plain.high) == wilson(5, 10)
    assert all(
        math.isclose(a, b) for a, b in zip(wilson(5, 10), wilson_by_hand(5, 10), strict=True)
    )


def test_how_many_more_judgements_narrow_it_to_five_points() -> None:
    def half(p: float, n: int) -> float:
        low, high = wilson_by_hand(p * n, n)
        return (high - low) / 2

    for p in (0.5, 0.9, 0.0):
        n = needed_for_half_width(p)
        assert half(p, n) <= 0.05 < half(p, n - 1)
    assert needed_for_half_width(None) == needed_for_half_width(0.5)
    stratum = Stratum("a.example", "loop 1")
    row = estimate([Judged(stratum, "mainly")] * 9 + [Judged(stratum, "none")], {stratum: 50}, "a")
    assert row.more_needed == needed_for_half_width(0.9) - 10
    data = audit([Judged(stratum, "mainly")] * 9, {stratum: 50}, skipped=2)
    assert data["judged"] == 9 and data["skipped"] == 2 and data["overall"]["count"] == 9


def test_a_site_label_gets_its_own_line() -> None:
    """Labels are the sites' (the caller's mapping): a label's line weighs the strata of
    its sites only; an origin's line appears when there are several."""
    chapel, shop = Stratum("chapel.example", "loop 1"), Stratum("shop.example", "scan")
    judged = [Judged(chapel, "mainly")] * 3 + [Judged(shop, "none")] * 2
    data = audit(judged, {chapel: 30, shop: 20}, {"chapel.example": ["religious"]})
    groups = {g["group"]: g for g in data["groups"]}
    assert list(groups) == ["loop 1", "scan", "label religious"]
    religious = groups["label religious"]
    assert (religious["count"], religious["judged"], religious["documents"]) == (3, 3, 30)
    assert (religious["low"], religious["high"]) == wilson(3, 3)
    assert math.isclose(data["overall"]["share"], 30 / 50)  # 30 documents all mainly
