"""The closed-world web and the mining stages meet only over HTTP (DESIGN.md)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "collie"
# What the local web may use besides itself: the UDHR data package.
MININET_MAY_IMPORT = {"collie.mininet", "collie.udhr", "collie.errors"}


def collie_imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("collie"):
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names |= {a.name for a in node.names if a.name.startswith("collie")}
    return names


def test_mininet_imports_no_mining_stage() -> None:
    for path in (PACKAGE / "mininet").glob("*.py"):
        for name in collie_imports(path):
            assert any(name == m or name.startswith(m + ".") for m in MININET_MAY_IMPORT), (
                f"{path.name} imports {name}"
            )


# The command line wires both sides together (`collie mininet score -w`, `collie demo`).
WIRING = {"cli_mininet.py"}


def test_mining_stages_do_not_import_mininet() -> None:
    for path in PACKAGE.rglob("*.py"):
        if "mininet" in path.parts or path.name in WIRING:
            continue
        assert not any(n.startswith("collie.mininet") for n in collie_imports(path)), path
