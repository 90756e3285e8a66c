"""The house's rules, read from the package layout (docs/design.md, "Layers").

collie/ holds shared modules (records, settings, errors, vocabulary), one package per
stage of the loop, the state (workspace/, store/), the loop (mining/), the corpus
(corpus/), the Python API (api/), the command line (cli/) and the closed-world web
(mininet/). A stage imports the shared modules, its own package and the stages listed in
STAGE_USES; never the state, the loop, the corpus, the API or the command line, never
click or sqlite3. The API sits between the corpus and the command line, which calls it;
the package face (collie/__init__.py) names the API, importing it lazily (FACE).
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "collie"

SHARED = {"__init__", "__main__", "errors", "config", "models", "reasons", "languages",
          "urls", "text", "http", "udhr", "files", "lognames", "version"}  # fmt: skip
STAGES = ("search", "fetch", "page", "langid", "decide", "crawl")  # the loop's order
# The one cross-stage use: deciding a page reads the language model's answers.
STAGE_USES = {"decide": {"langid"}}
STATE = ("workspace", "store", "archive")
LOOP = ("mining",)
CORPUS = ("corpus",)
API = ("api",)
CLI = ("cli",)
WEB = ("mininet",)
# What the store may take from the stages: records and vocabulary (search results,
# robots.txt records), never a decision.
STORE_MAY_IMPORT = {"collie.fetch.robots", "collie.search.base"}
# May import: (the rooms of collie/ a room may import besides SHARED and itself).
MAY_IMPORT = {
    **{stage: set(STAGE_USES.get(stage, ())) for stage in STAGES},
    "workspace": {"store", "langid", "search", "page"},  # init learns a language, reads seeds
    "store": set(),
    # The WARC files and raw bodies: the pointers to them are rows of the store's
    # database; a body is read back as the fetch decoded it (fetch.response).
    "archive": {"store", "fetch"},
    "mining": {*STAGES, *STATE},
    "corpus": {*STAGES, *STATE, "mining"},
    "api": {*STAGES, *STATE, *LOOP, *CORPUS},
    "cli": {*STAGES, *STATE, *LOOP, *CORPUS, *API},
    "mininet": set(),
}
# The command line's one module that wires the mining side and the closed world.
WIRING = {"cli/mininet.py"}
# The package face, a shared module, names the Python API (`collie.Workspace`): the one
# exception to the shared modules' rule, and a narrow one. collie/__init__.py may import
# collie.api, only inside a function (its module `__getattr__`) or under TYPE_CHECKING,
# so that `import collie` (and the command line's start-up) loads nothing more; and no
# module of collie/ imports the API through the face (`from collie import Workspace`),
# which would hide the import from these rules.
FACE = "__init__.py"
FACE_MAY_IMPORT = set(API)


def rooms() -> Iterator[tuple[Path, str]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path, path.relative_to(PACKAGE).with_suffix("").parts[0]


def imports(path: Path) -> set[str]:
    """Every module a file imports, TYPE_CHECKING blocks and function bodies included
    (`from package import module` names the module, not the package's face)."""
    known = modules()
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            subs = {f"{node.module}.{a.name}" for a in node.names} & known
            names |= subs
            if len(subs) < len(node.names):
                names.add(node.module)
        elif isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
    return names


@functools.cache
def modules() -> frozenset[str]:
    found = set()
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        found.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return frozenset(found)


def collie_imports(path: Path) -> set[str]:
    """The collie modules a file imports, the package face (`collie`) included."""
    return {n for n in imports(path) if n in modules()}


def test_every_room_has_a_layer() -> None:
    layered = SHARED | set(MAY_IMPORT)
    for path, room in rooms():
        if path.parent == PACKAGE:
            assert room in SHARED, f"{path.name}: a top-level module that is not shared"
        else:
            assert room in layered | {"data"}, f"{room}/: give it a layer"


def test_rooms_import_only_what_their_layer_may() -> None:
    for path, room in rooms():
        if room == "__main__":
            allowed = {"cli"}
        elif room in WEB:
            continue  # test_the_web_and_the_miners_meet_only_over_http
        elif room in SHARED:
            allowed = SHARED
        else:
            allowed = SHARED | MAY_IMPORT[room] | {room}
        if path.relative_to(PACKAGE).as_posix() in WIRING:
            allowed = allowed | set(WEB)
        if path.relative_to(PACKAGE).as_posix() == FACE:
            allowed = allowed | FACE_MAY_IMPORT
        for name in collie_imports(path) - {"collie"}:
            top = name.split(".")[1]
            if room == "store" and name in STORE_MAY_IMPORT:
                continue
            assert top in allowed, f"{path.relative_to(PACKAGE)} imports {name}"


def test_the_package_face_imports_the_api_lazily() -> None:
    """collie/__init__.py imports collie.api only inside a function or under
    TYPE_CHECKING; `import collie` loads no other collie module; no module imports an
    API name from the face."""
    tree = ast.parse((PACKAGE / FACE).read_text(encoding="utf-8"))
    for node in tree.body:
        checking = isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
        if checking or isinstance(node, ast.FunctionDef):
            continue
        for inner in ast.walk(node):
            if isinstance(inner, (ast.Import, ast.ImportFrom)):
                names = [inner.module or ""] if isinstance(inner, ast.ImportFrom) else []
                names += [a.name for a in inner.names]
                assert not [n for n in names if "api" in n.split(".")], ast.unparse(inner)
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, collie; print('\\n'.join(sys.modules))"],
        capture_output=True, text=True, check=True, cwd=PACKAGE.parent,
    ).stdout.splitlines()  # fmt: skip
    assert sorted(name for name in loaded if name.startswith("collie")) == [
        "collie",
        "collie.version",
    ]
    for path, _room in rooms():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "collie":
                for alias in node.names:
                    assert f"collie.{alias.name}" in modules(), (
                        f"{path.relative_to(PACKAGE)} imports {alias.name} from the face"
                    )
            if isinstance(node, ast.Import) and path.name != "__main__.py":
                assert "collie" not in {a.name for a in node.names}, (
                    f"{path.relative_to(PACKAGE)} imports the package face"
                )


def test_one_version_number() -> None:
    """collie/version.py and pyproject.toml name the same version."""
    from collie.version import __version__

    project = (PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8")
    assert f'\nversion = "{__version__}"\n' in project


# What the closed-world web may use besides itself: the UDHR data package, the errors,
# the one way to write a file whole.
WEB_MAY_IMPORT = {"udhr", "errors", "files"}


def test_the_web_and_the_miners_meet_only_over_http() -> None:
    """The closed-world web imports none of the mining side; only the command line's
    wiring module (cli/mininet.py) imports the web."""
    for path, room in rooms():
        tops = {name.split(".")[1] for name in collie_imports(path) - {"collie"}}
        if room in WEB:
            assert tops <= {*WEB, *WEB_MAY_IMPORT}, f"{path.relative_to(PACKAGE)}: {tops}"
        elif path.relative_to(PACKAGE).as_posix() not in WIRING:
            assert not tops & set(WEB), path


def test_shared_and_stages_never_import_click_or_sqlite() -> None:
    for path, room in rooms():
        if room in STAGES or (room in SHARED and room != "__main__"):
            tops = {n.split(".")[0] for n in imports(path)}
            assert not tops & {"click", "sqlite3"}, path


def test_only_the_state_opens_the_database() -> None:
    for path, room in rooms():
        if room in STATE or room in WEB:  # the world file is the web's own
            continue
        assert "sqlite3" not in {n.split(".")[0] for n in imports(path)}, path


def test_commands_open_no_store_of_their_own() -> None:
    """The command line calls the API, which opens the stores; of store/ it takes only
    what it says about a database it cannot write (database.py)."""
    for path, room in rooms():
        if room in CLI:
            for name in collie_imports(path):
                if name.startswith("collie.store"):
                    assert name == "collie.store.database", f"{path.relative_to(PACKAGE)}: {name}"


def test_a_transaction_is_opened_one_way() -> None:
    """`Database.batch()` (store/base.py) is the only place that opens a transaction of
    the workspace database: no `with conn:` and no BEGIN anywhere else (the closed
    world's own database aside)."""
    for path, room in rooms():
        if room in WEB or path.relative_to(PACKAGE).as_posix() == "store/base.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.With):
                for item in node.items:
                    held = ast.unparse(item.context_expr)
                    assert not held.endswith("conn"), f"{path.relative_to(PACKAGE)}: with {held}"
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                assert not node.value.lstrip().upper().startswith("BEGIN"), path


def test_no_import_circles() -> None:
    """No two modules import each other, directly or round a longer circle; imports
    under TYPE_CHECKING and inside functions count too."""
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        graph[name] = {n for n in collie_imports(path) if n != name}
    state: dict[str, int] = {}  # 1 visiting, 2 done

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                circle = [*trail[trail.index(nxt) :], nxt] if nxt in trail else [node, nxt]
                raise AssertionError("import circle: " + " -> ".join(circle))
            if nxt not in state:
                visit(nxt, [*trail, nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])


MAX_FMT_SKIPS = 10  # issue 41: restructure the code ruff format cannot lay out well instead


def test_few_lines_are_kept_from_the_formatter() -> None:
    """At most MAX_FMT_SKIPS `# fmt: skip` (and no `# fmt: off`) in collie/."""
    skips, offs = [], []
    for path, _ in rooms():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            where = f"{path.relative_to(PACKAGE)}:{number}"
            if "# fmt: skip" in line:
                skips.append(where)
            if "# fmt: off" in line:
                offs.append(where)
    assert len(skips) <= MAX_FMT_SKIPS, skips
    assert not offs, offs


def _importgraph():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(
        "importgraph", PACKAGE.parent / "tools" / "importgraph.py"
    )
    assert spec is not None and spec.loader is not None
    graph = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(graph)
    return graph


def test_the_rooms_stand_on_at_most_ten_floors_without_a_circle() -> None:
    """tools/importgraph.py's rooms (a package of collie/, a shared module, the package
    face), with the imports at a module's top level and under TYPE_CHECKING: no two
    rooms import each other, round any circle, and they stand on at most ten floors
    (issue 55's target)."""
    graph = _importgraph()
    rooms = graph.rooms(graph.graph())
    floors = graph.room_floors(rooms)  # raises on a circle, naming it
    assert max(floors.values()) + 1 <= 10, sorted(floors.items(), key=lambda kv: -kv[1])[:5]


def test_the_module_graph_has_at_most_fifteen_floors() -> None:
    """The same graph by module: a ceiling, so that the floors only come down."""
    graph = _importgraph()
    floors = graph.floors(graph.graph())
    assert max(floors.values()) + 1 <= 15, sorted(floors.items(), key=lambda kv: -kv[1])[:5]
