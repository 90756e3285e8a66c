"""Reading settings: parsing and checking values, the layers (built-in defaults <
collie.toml < environment variables (`COLLIE_FETCH_DELAY=2`) < command-line flags
(`--set fetch.delay=2`, or a command's own option such as `--crawl-depth`)), and writing
collie.toml. `load_settings` records where each value came from, which is what
`collie config` shows.
"""

from __future__ import annotations

import difflib
import json
import math
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from collie.config.table import (
    ENV_PREFIX,
    INT_MAX,
    OTHER_ENV_VARS,
    SECTIONS,
    SETTINGS,
    SETTINGS_BY_KEY,
    Setting,
)
from collie.errors import ConfigError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

_KIND_NAMES = {
    bool: "true or false",
    int: "an integer",
    float: "a number",
    str: "a string",
    list: "a list of strings",
}


@dataclass(frozen=True)
class Value:
    key: str
    value: Any
    source: str  # "default", "collie.toml", "environment (COLLIE_...)", "flag (...)"


class Settings(Mapping[str, Any]):
    """Effective settings: a read-only mapping of key -> value that knows each source."""

    def __init__(self, values: dict[str, Value]) -> None:
        self._values = values

    def __getitem__(self, key: str) -> Any:
        return self._values[key].value

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def entry(self, key: str) -> Value:
        return self._values[key]

    def entries(self) -> list[Value]:
        return list(self._values.values())

    def non_defaults(self) -> list[Value]:
        """Settings whose value differs from the built-in default."""
        return [v for v in self._values.values() if v.value != SETTINGS_BY_KEY[v.key].default]


def lookup(key: str, where: str) -> Setting:
    """The setting called `key`, or a ConfigError naming the closest ones."""
    if key in SETTINGS_BY_KEY:
        return SETTINGS_BY_KEY[key]
    close = difflib.get_close_matches(key, SETTINGS_BY_KEY, n=3, cutoff=0.6)
    hint = f"Did you mean {' or '.join(close)}?" if close else "`collie config` lists them all."
    raise ConfigError(f"{where}: unknown setting '{key}'.", hint)


def unknown_environment(environ: Mapping[str, str]) -> list[str]:
    """One line for each COLLIE_ environment variable that names no setting (and is
    none of OTHER_ENV_VARS): a misspelt setting, which would be ignored (issue 46)."""
    known = {s.env_var: s.key for s in SETTINGS}
    names = [*known, *OTHER_ENV_VARS]
    lines = []
    for name in sorted(environ):
        if not name.startswith(ENV_PREFIX) or name in names:
            continue
        tails = {n.removeprefix(ENV_PREFIX): n for n in names}  # COLLIE_ matches nothing
        close = difflib.get_close_matches(name.removeprefix(ENV_PREFIX), tails, n=1, cutoff=0.6)
        if close:
            real = tails[close[0]]
            meant = f"{real} ({known[real]})" if real in known else real
            advice = f"did you mean {meant}?"
        else:
            advice = "`collie config` lists the settings (COLLIE_SECTION_NAME)."
        lines.append(f"{name} is not a collie setting and is ignored; {advice}")
    return lines


def value_range(setting: Setting) -> tuple[float, float] | None:
    """The lowest and highest value a number setting takes, or None for other kinds."""
    if setting.kind not in (int, float):
        return None
    low = setting.minimum if setting.minimum is not None else -INT_MAX
    high = setting.maximum if setting.maximum is not None else INT_MAX
    return low, high


def _check_range(setting: Setting, value: Any, where: str, shown: str) -> None:
    """Refuse nan, infinities and values out of the setting's range, naming all three."""
    bounds = value_range(setting)
    if bounds is None:
        return
    low, high = bounds
    finite = not isinstance(value, float) or math.isfinite(value)
    if finite and (low <= value <= high or value == setting.off):
        return
    what = "a finite number" if setting.kind is float else "an integer"
    allowed = f"at least {_number(low)} and at most {_number(high)}"
    off = "" if setting.off is None else f", or {_number(setting.off)} (off)"
    never = "; nan and inf are never accepted" if setting.kind is float else ""
    raise ConfigError(
        f"{where}: {setting.key} must be {what} {allowed}{off}, not {shown}.",
        f"Give a value from {_number(low)} to {_number(high)}{off} (the default is "
        f"{_number(setting.default)}){never}." + (f" {setting.effect}" if setting.effect else ""),
    )


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def check_value(setting: Setting, value: Any, where: str, shown: str | None = None) -> Any:
    """Validate a typed value (as read from TOML or given by code); return it normalised.
    `shown` is the value as the user typed it, for the message."""
    kind = setting.kind
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if kind is list:
        ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
    else:
        ok = isinstance(value, kind) and (kind is bool or not isinstance(value, bool))
    if not ok:
        expected = _KIND_NAMES[kind]
        raise ConfigError(f"{where}: {setting.key} must be {expected}, not {value!r}.")
    if setting.choices and value not in setting.choices:
        raise ConfigError(
            f"{where}: {setting.key} must be one of {', '.join(setting.choices)}, not {value!r}."
        )
    _check_range(setting, value, where, repr(value) if shown is None else repr(shown))
    if setting.url and value:
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(
                f"{where}: {setting.key} must be an http:// or https:// URL with a host, "
                f"not {value!r}.",
                "For example http://localhost:8888 (a SearXNG instance's base URL).",
            )
    return value


def parse_text(setting: Setting, text: str, where: str) -> Any:
    """Parse a value given as text (environment, `--set`) into the setting's type."""
    kind = setting.kind
    value: Any
    try:
        if kind is bool:
            lowered = text.strip().lower()
            if lowered not in ("1", "0", "true", "false", "yes", "no", "on", "off"):
                raise ValueError(text)
            value = lowered in ("1", "true", "yes", "on")
        elif kind is int:
            value = int(text)
        elif kind is float:
            value = float(text)
        elif kind is list:
            value = [part.strip() for part in text.split(",") if part.strip()]
        else:
            value = text
    except ValueError:
        raise ConfigError(
            f"{where}: {setting.key} must be {_KIND_NAMES[kind]}, not {text!r}."
        ) from None
    return check_value(setting, value, where, text)


def parse_assignment(text: str) -> tuple[str, Any]:
    """`fetch.delay=2` -> ("fetch.delay", 2.0), as given to `--set`."""
    key, sep, raw = text.partition("=")
    if not sep:
        raise ConfigError(f"--set {text}: expected KEY=VALUE, e.g. --set fetch.delay=2.")
    setting = lookup(key.strip(), "--set")
    return setting.key, parse_text(setting, raw.strip(), f"--set {key.strip()}")


def read_toml(text: str, where: str = "collie.toml") -> dict[str, Any]:
    """Parse collie.toml into {key: value}, rejecting unknown keys and bad values."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where} is not valid TOML: {exc}.", "Fix or restore the file.") from exc
    values: dict[str, Any] = {}
    for section, table in data.items():
        if not isinstance(table, dict):
            raise ConfigError(
                f"{where}: '{section}' must be a [section]; settings live in sections.",
                "`collie config` lists them all.",
            )
        for name, value in table.items():
            setting = lookup(f"{section}.{name}", where)
            values[setting.key] = check_value(setting, value, where)
    return values


def load_settings(
    toml_values: Mapping[str, Any],
    environ: Mapping[str, str],
    flags: Mapping[str, tuple[Any, str]],
) -> Settings:
    """Combine the layers. `flags` maps key -> (value, flag name as typed)."""
    values: dict[str, Value] = {}
    for setting in SETTINGS:
        entry = Value(setting.key, setting.default, "default")
        if setting.key in toml_values:
            entry = Value(setting.key, toml_values[setting.key], "collie.toml")
        if setting.env_var in environ:
            where = f"environment ({setting.env_var})"
            entry = Value(setting.key, parse_text(setting, environ[setting.env_var], where), where)
        if setting.key in flags:
            value, flag = flags[setting.key]
            entry = Value(setting.key, check_value(setting, value, flag), f"flag ({flag})")
        values[setting.key] = entry
    return Settings(values)


def toml_literal(value: Any) -> str:
    """A TOML literal for a setting value (strings, numbers, booleans, string lists)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_literal(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)  # JSON string escapes are valid TOML


def render_toml(chosen: Mapping[str, Any]) -> str:
    """A commented collie.toml listing every setting; `chosen` values are set, the rest
    are shown commented out at their defaults."""
    lines = [
        "# collie workspace settings.",
        "# Every setting is listed with its default; remove the leading '# ' to change one.",
        "# Precedence: built-in defaults < this file < environment variables",
        "# (COLLIE_SECTION_NAME, e.g. COLLIE_FETCH_DELAY=2) < command-line flags",
        "# (--set fetch.delay=2). `collie config` shows each value and where it came from.",
    ]
    section = ""
    for setting in SETTINGS:
        head, name = setting.key.split(".", 1)
        if head != section:
            section = head
            lines += ["", f"# {SECTIONS[head]}", f"[{head}]"]
        lines.append(f"# {setting.help}")
        if setting.choices:
            lines.append(f"# One of: {', '.join(setting.choices)}.")
        if setting.key in chosen:
            value = check_value(setting, chosen[setting.key], "collie init")
            lines.append(f"{name} = {toml_literal(value)}")
        else:
            lines.append(f"# {name} = {toml_literal(setting.default)}")
    return "\n".join(lines) + "\n"
