"""Settings: registry, TOML round trip, and the precedence default < toml < env < flag."""

from __future__ import annotations

import pytest

from collie.config import (
    SETTINGS,
    load_settings,
    parse_assignment,
    read_toml,
    render_toml,
)
from collie.errors import ConfigError


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
