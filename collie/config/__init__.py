"""Settings: the table of every setting (collie/config/table.py) and how values are read,
checked and layered, defaults < collie.toml < environment < flags (collie/config/load.py).
This face hands their public names on; it defines nothing.
"""

from collie.config.load import (
    Settings,
    Value,
    check_value,
    load_settings,
    lookup,
    parse_assignment,
    parse_text,
    read_toml,
    render_toml,
    toml_literal,
    unknown_environment,
    value_range,
)
from collie.config.table import (
    ENV_PREFIX,
    INT_MAX,
    OTHER_ENV_VARS,
    SECTIONS,
    SETTINGS,
    SETTINGS_BY_KEY,
    Setting,
    user_agent_header,
)

__all__ = [
    "ENV_PREFIX",
    "INT_MAX",
    "OTHER_ENV_VARS",
    "SECTIONS",
    "SETTINGS",
    "SETTINGS_BY_KEY",
    "Setting",
    "Settings",
    "Value",
    "check_value",
    "load_settings",
    "lookup",
    "parse_assignment",
    "parse_text",
    "read_toml",
    "render_toml",
    "toml_literal",
    "unknown_environment",
    "user_agent_header",
    "value_range",
]
