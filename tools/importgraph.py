"""The import graph of the collie package: modules, edges, import floors, largest modules.

A module's floor is 0 when it imports no other collie module, else one more than the
highest floor among those it imports (cycles, through function-level imports, are
counted once). Imports at a module's top level count, those under `if TYPE_CHECKING:`
too (a type a module names is a dependency of its design); a function-level import is
how a module reaches a higher floor on purpose (the command line's lazy imports) and
does not count. The package face (collie/__init__.py) is a module like the others.

    python tools/importgraph.py            # summary
    python tools/importgraph.py --edges    # and every edge, floor by floor
"""

from __future__ import annotations

import argparse
import ast
from functools import cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "collie"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def top_level_imports(path: Path, known: set[str]) -> set[str]:
    """The collie modules `path` imports at its top level or under `if TYPE_CHECKING:`
    (`from collie.x import y` counts as collie.x.y when that is a module, else collie.x)."""
    found = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    body = list(tree.body)
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            body += node.body
    for node in body:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("collie"):
            for alias in node.names:
                candidate = f"{node.module}.{alias.name}"
                found.add(candidate if candidate in known else node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("collie")}
    return {name for name in found if name in known}


def graph() -> dict[str, set[str]]:
    paths = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    known = set(paths)
    return {name: top_level_imports(path, known) - {name} for name, path in sorted(paths.items())}


def floors(edges: dict[str, set[str]]) -> dict[str, int]:
    visiting: set[str] = set()

    @cache
    def floor(name: str) -> int:
        visiting.add(name)
        below = [floor(d) for d in edges[name] if d not in visiting]
        visiting.discard(name)
        return 1 + max(below) if below else 0

    return {name: floor(name) for name in edges}


def room(name: str) -> str:
    """The room a module stands in: its package of collie/, a shared module's own
    name, or `collie` for the package face."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else "collie"


def rooms(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    """The graph by room: a room imports another when one of its modules does."""
    found: dict[str, set[str]] = {}
    for name, imported in edges.items():
        found.setdefault(room(name), set()).update(room(d) for d in imported)
    return {name: imported - {name} for name, imported in found.items()}


def room_floors(edges: dict[str, set[str]]) -> dict[str, int]:
    """Each room's floor; a circle of rooms raises ValueError naming it."""
    levels: dict[str, int] = {}
    trail: list[str] = []

    def floor(name: str) -> int:
        if name in trail:
            raise ValueError(
                "a circle of rooms: " + " -> ".join([*trail[trail.index(name) :], name])
            )
        if name not in levels:
            trail.append(name)
            levels[name] = 1 + max((floor(d) for d in edges.get(name, ())), default=-1)
            trail.pop()
        return levels[name]

    for name in sorted(edges):
        floor(name)
    return levels


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edges", action="store_true", help="print every edge")
    args = parser.parse_args()
    edges = graph()
    levels = floors(edges)
    sizes = {
        module_name(p): len(p.read_text(encoding="utf-8").splitlines())
        for p in PACKAGE.rglob("*.py")
    }
    print(f"{len(edges)} modules, {sum(map(len, edges.values()))} import edges, "
          f"{max(levels.values()) + 1} floors")  # fmt: skip
    by_room = room_floors(rooms(edges))
    print(
        f"{len(by_room)} rooms on {max(by_room.values()) + 1} floors: "
        + ", ".join(f"{n} {f}" for n, f in sorted(by_room.items(), key=lambda kv: -kv[1]))
    )
    largest = sorted(sizes.items(), key=lambda kv: -kv[1])[:8]
    print("largest modules: " + ", ".join(f"{n} {lines}" for n, lines in largest))
    if args.edges:
        for name in sorted(edges, key=lambda n: (levels[n], n)):
            print(f"{levels[name]:2d} {name} -> {', '.join(sorted(edges[name])) or '-'}")


if __name__ == "__main__":
    main()
