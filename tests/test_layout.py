"""The closed-world web and the mining stages meet only over HTTP (docs/design.md, "Layers")."""

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
WIRING = {"cli/mininet.py"}


def test_mining_stages_do_not_import_mininet() -> None:
    for path in PACKAGE.rglob("*.py"):
        if "mininet" in path.parts or path.relative_to(PACKAGE).as_posix() in WIRING:
            continue
        assert not any(n.startswith("collie.mininet") for n in collie_imports(path)), path


# The mining stages: pure code over plain data. They never import click, never open the
# database, never import the state modules, the loop or the command line.
STAGES = {"fetch", "process", "extract", "maintext", "boilerplate", "encoding", "crawl", "dedup",
          "classify", "examine", "queries", "seeds", "models", "reasons", "robots",
          "hostgate", "fetchpool", "listings", "urls", "bodycache", "langid", "search"}  # fmt: skip
# Only these touch the workspace's state (the database, the workspace folder).
STATE = {"store", "workspace"}
LOOP_AND_COMMANDS = {"pipeline", "searching", "relatives", "reprocess", "executor",
                     "newworkspace", "report", "export", "review", "cli"}  # fmt: skip
# What every layer may use: errors, settings, language names, the seed files, the UDHR
# data package (and the package's entry points, the closed-world web, the data files).
FOUNDATION = {"__init__", "__main__", "errors", "config", "languages", "seedfiles", "udhr",
              "mininet", "data"}  # fmt: skip
# What the state modules may take from the stages' side: records and vocabulary (models,
# reasons, search results), the body cache's format, robots.txt records, the canonical
# form of a URL (the key of the frontier and of the search cache); never a decision (the
# near-duplicate comparison, the link and vote rules are the loop's to apply).
STORE_MAY_IMPORT = {"collie.models", "collie.reasons", "collie.bodycache", "collie.robots",
                    "collie.search.base", "collie.urls"}  # fmt: skip


def _top(path: Path) -> str:
    name = path.relative_to(PACKAGE).with_suffix("").parts[0]
    return "cli" if name.startswith("cli") else name


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
    return names


def _collie_tops(names: set[str]) -> set[str]:
    return {n.split(".")[1] for n in names if n.startswith("collie.") and n.count(".") >= 1}


def test_stages_never_import_click_the_database_state_or_wiring() -> None:
    for path in PACKAGE.rglob("*.py"):
        if _top(path) not in STAGES:
            continue
        names = _imports(path)
        assert not {n for n in names if n.split(".")[0] in ("click", "sqlite3")}, path
        assert not _collie_tops(names) & (STATE | LOOP_AND_COMMANDS), (path, _collie_tops(names))


def test_only_the_state_modules_open_the_database() -> None:
    for path in PACKAGE.rglob("*.py"):
        if _top(path) in STATE or "mininet" in path.parts:  # the world file is the web's own
            continue
        assert "sqlite3" not in _imports(path), path


def test_the_store_imports_records_and_vocabulary_never_a_decision() -> None:
    for path in (PACKAGE / "store").glob("*.py"):
        names = {n for n in _imports(path) if n.startswith("collie.")}
        stages = {n for n in names if n.split(".")[1] in STAGES}
        assert stages <= STORE_MAY_IMPORT, (path, stages - STORE_MAY_IMPORT)
        assert not _collie_tops(names) & LOOP_AND_COMMANDS, path


def test_every_module_has_a_layer() -> None:
    for path in PACKAGE.rglob("*.py"):
        top = _top(path)
        if top in FOUNDATION:
            continue
        assert top in STAGES | STATE | LOOP_AND_COMMANDS, f"{path}: add it to a layer"
