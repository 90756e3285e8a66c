"""The reasons vocabulary: kinds, details, descriptions."""

from __future__ import annotations

from collie.reasons import REASONS, describe, is_known, kind_of


def test_a_reason_is_cut_at_its_first_colon_only() -> None:
    assert kind_of("relative-suspected:page 0.33") == "relative-suspected"
    assert kind_of("not-html:text/html: odd") == "not-html"
    assert kind_of("robots") == "robots"


def test_every_kind_is_described_and_http_statuses_by_their_pattern() -> None:
    assert all(line.strip() for line in REASONS.values())
    assert is_known("http-404") and is_known("http-503") and not is_known("http-4040")
    assert describe("http-404") == REASONS["http-<status>"]
    assert is_known("near-duplicate:84") and describe("near-duplicate:84")
    assert not is_known("made-up") and describe("made-up") == ""
