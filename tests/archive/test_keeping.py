"""archive/keeping.py: the warc.keep policy."""

from __future__ import annotations

import pytest

from collie.archive.keeping import keeps
from collie.config.table import SETTINGS_BY_KEY


@pytest.mark.parametrize(
    ("policy", "target", "kept"),
    [
        ("all", False, True),
        ("all", True, True),
        ("target", True, True),
        ("target", False, False),
        ("none", True, False),
        ("none", False, False),
    ],
)
def test_what_each_policy_keeps(policy: str, target: bool, kept: bool) -> None:
    assert keeps(policy, target) is kept


def test_the_policies_are_the_settings_choices() -> None:
    assert set(SETTINGS_BY_KEY["warc.keep"].choices or ()) == {"all", "target", "none"}
