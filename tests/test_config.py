"""Settings: registry, TOML round trip, and the precedence default < toml < env < flag."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from collie.config import (
    INT_MAX,
    SETTINGS,
    Setting,
    check_value,
    load_settings,
    parse_assignment,
    read_toml,
    render_toml,
    value_range,
)
from collie.errors import ConfigError

FLOATS = [s for s in SETTINGS if s.kind is float]
INTS = [s for s in SETTINGS if s.kind is int]
NOT_FINITE_TEXT = ["nan", "NaN", "-nan", "inf", "-inf", "+inf", "Infinity", "-Infinity", "1e999"]
NOT_FINITE_TOML = ["nan", "+nan", "-nan", "inf", "+inf", "-inf"]


def test_precedence_default_toml_environment_flag() -> None:
    toml = {"fetch.delay": 2.0, "crawl.depth": 3, "seeds.count": 100}
    env = {"COLLIE_CRAWL_DEPTH": "4", "COLLIE_SEEDS_COUNT": "200"}
    flags = {"seeds.count": (300, "--set seeds.count")}
    settings = load_settings(toml, env, flags)
    assert settings["fetch.workers"] == 64
    assert settings.entry("fetch.workers").source == "default"
    assert settings["fetch.delay"] == 2.0
    assert settings.entry("fetch.delay").source == "collie.toml"
    assert settings["crawl.depth"] == 4
    assert settings.entry("crawl.depth").source == "environment (COLLIE_CRAWL_DEPTH)"
    assert settings["seeds.count"] == 300
    assert settings.entry("seeds.count").source == "flag (--set seeds.count)"


def test_rendered_toml_lists_every_setting_and_round_trips() -> None:
    text = render_toml({"language.code": "luo", "crawl.depth": 2, "safetynet.ignore": ["eng"]})
    for setting in SETTINGS:
        name = setting.key.split(".", 1)[1]
        assert f"{name} = " in text, setting.key
    assert read_toml(text) == {
        "language.code": "luo",
        "crawl.depth": 2,
        "safetynet.ignore": ["eng"],
    }


def test_uncommenting_a_default_line_gives_valid_toml() -> None:
    text = render_toml({"language.code": "luo"})
    edited = text.replace("# delay = 1.0", "delay = 2.5")
    assert read_toml(edited)["fetch.delay"] == 2.5


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[fetch]\ndealy = 2\n", "Did you mean fetch.delay"),
        ("[fetch]\ndelay = 'slow'\n", "fetch.delay must be a number"),
        ("[fetch]\ndelay = -1\n", "at least 0"),
        ("[extract]\nboilerplate = 'maybe'\n", "one of rules, none"),
        ("delay = 2\n", "must be a [section]"),
        ("[fetch\n", "not valid TOML"),
    ],
)
def test_bad_toml_is_explained(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("[", r"\[")):
        read_toml(text)


def test_environment_values_are_typed() -> None:
    env = {
        "COLLIE_FETCH_ALLOW_PRIVATE": "yes",
        "COLLIE_LANGUAGE_EXTRA_DOMAINS": ".tz, .ug",
        "COLLIE_FETCH_DELAY": "0",
    }
    settings = load_settings({}, env, {})
    assert settings["fetch.allow_private"] is True
    assert settings["language.extra_domains"] == [".tz", ".ug"]
    assert settings["fetch.delay"] == 0.0


def test_bad_environment_value_names_the_variable() -> None:
    with pytest.raises(ConfigError, match="COLLIE_FETCH_WORKERS"):
        load_settings({}, {"COLLIE_FETCH_WORKERS": "many"}, {})


def test_parse_assignment() -> None:
    assert parse_assignment("fetch.delay=2") == ("fetch.delay", 2.0)
    assert parse_assignment("queries.tld = auto") == ("queries.tld", "auto")
    with pytest.raises(ConfigError, match="KEY=VALUE"):
        parse_assignment("fetch.delay")
    with pytest.raises(ConfigError, match="unknown setting"):
        parse_assignment("nope.nope=1")


def test_non_defaults() -> None:
    settings = load_settings({"language.code": "luo", "crawl.depth": 5}, {}, {})
    assert [v.key for v in settings.non_defaults()] == ["language.code"]


def test_the_search_url_must_be_an_http_url_with_a_host(capsys) -> None:
    from collie.config import SETTINGS_BY_KEY, check_value

    url = SETTINGS_BY_KEY["search.url"]
    assert check_value(url, "http://localhost:8888", "t") == "http://localhost:8888"
    assert check_value(url, "", "t") == ""  # the backend's public endpoint
    for bad in ("notaurl", "ftp://x.y", "http://", "localhost:8888"):
        with pytest.raises(ConfigError, match="http:// or https:// URL with a host"):
            check_value(url, bad, "--search-url")


def _refused(setting: Setting, shown: str, call: Callable[..., object], *args: object) -> None:
    """`call(*args)` raises a ConfigError naming the setting, the value and the range."""
    low, high = value_range(setting) or (0, 0)
    with pytest.raises(ConfigError) as info:
        call(*args)
    message = str(info.value)
    assert setting.key in message and shown in message, message
    low_text, high_text = (str(int(v)) if float(v).is_integer() else str(v) for v in (low, high))
    assert f"at least {low_text} and at most {high_text}" in message, message


@given(st.sampled_from(FLOATS), st.sampled_from(NOT_FINITE_TEXT))
def test_no_float_setting_takes_nan_or_infinity_from_any_source(
    setting: Setting, text: str
) -> None:
    env = {setting.env_var: text}
    _refused(setting, text, parse_assignment, f"{setting.key}={text}")
    _refused(setting, text, load_settings, {}, env, {})
    _refused(setting, setting.env_var, load_settings, {}, env, {})
    flags = {setting.key: (float(text), "--max-time")}  # a command's own option
    _refused(setting, "--max-time", load_settings, {}, {}, flags)
    section, name = setting.key.split(".", 1)
    for literal in NOT_FINITE_TOML:
        toml = f"[{section}]\n{name} = {literal}\n"
        shown = "nan" if "nan" in literal else literal.lstrip("+")  # as Python reads it
        _refused(setting, shown, read_toml, toml)


@given(st.sampled_from(FLOATS + INTS), st.floats(allow_nan=False, allow_infinity=False))
def test_number_settings_take_exactly_their_range(setting: Setting, number: float) -> None:
    low, high = value_range(setting) or (0, 0)
    value = float(number) if setting.kind is float else int(number)
    if low <= value <= high or value == setting.off:
        assert check_value(setting, value, "t") == value
        assert parse_assignment(f"{setting.key}={value!r}")[1] == value
    else:
        _refused(setting, repr(value), check_value, setting, value, "t")


def test_every_number_setting_has_a_finite_range_holding_its_default() -> None:
    for setting in FLOATS + INTS:
        low, high = value_range(setting) or (math.nan, math.nan)
        assert setting.minimum is not None, setting.key  # no negative counts or delays
        assert low <= setting.default <= high <= INT_MAX or setting.default == setting.off
        assert setting.maximum is not None, setting.key  # a bound chosen, for ints too
        assert setting.off is None or not low <= setting.off <= high, setting.key
        assert setting.effect.endswith("."), setting.key  # what it does to the corpus


@pytest.mark.parametrize(
    ("assignment", "shown"),
    [
        ("fetch.workers=-1", "'-1'"),
        ("fetch.workers=99999999999999999999", "'99999999999999999999'"),
        ("run.max_pages=-5", "'-5'"),
        ("run.max_pages=9223372036854775808", "'9223372036854775808'"),  # SQLite's overflow
        ("dedup.max_distance=64", "'64'"),  # a 64-bit fingerprint has 63 bits to differ by
        ("fetch.delay=31536000", "'31536000'"),  # a year between two requests to a host
        ("encoding.min_confidence=1.5", "'1.5'"),  # no page would ever be certain enough
        ("fetch.max_bytes=1", "'1'"),  # every page cut to a byte, lost for good (issue 46)
        ("dedup.max_distance=63", "'63'"),  # every document a copy of the first
        ("search.rate_limit=1e-300", "'1e-300'"),  # a wait that overflows
        ("extract.site_repeats=1", "'1'"),  # every paragraph taken for boilerplate
    ],
)
def test_counts_overflow_and_progress_stopping_values_are_refused(
    assignment: str, shown: str
) -> None:
    with pytest.raises(ConfigError, match=r"must be an? .*at least .* and at most") as info:
        parse_assignment(assignment)
    assert shown in str(info.value)
