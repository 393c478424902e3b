"""The package's import graph: no circle, and every import points down the declared layers.

Read from the source with `ast` (nothing is imported): an edge is any ``import`` a module runs,
at its top or inside a function (a function-level import still closes a circle, only later),
but not one under ``if TYPE_CHECKING:``, which never runs. The names of the lazy tables
(`toolcalls._lazy`) are strings, not imports: they load on first use, from the package down.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "toolcalls"

LAYERS: tuple[tuple[str, ...], ...] = (
    ("toolcalls._errors", "toolcalls._lazy", "toolcalls._version"),
    ("toolcalls.tools",),
    ("toolcalls.parsing",),
    ("toolcalls.providers",),
    ("toolcalls.arrow",),
    ("toolcalls.budget",),
    ("toolcalls.decoding", "toolcalls.grammars"),  # the grammar export, renamed to decoding
    ("toolcalls.runtime",),
    ("toolcalls.serve",),
    ("toolcalls.testing",),
    ("toolcalls.cli",),
    ("toolcalls.integrations",),
    ("toolcalls", "toolcalls.__main__"),
)
"""The subpackages (and top-level modules) from the bottom up: a module may import from its own
layer or a lower one. Tools are definitions, read by the parse core; providers read and write
parsed calls; arrow writes both as columns; budget renders and counts through providers; the
grammar export builds on the formats (and its test samplers on budget's tokenizers); the
runtime runs calls and renders its tools through all of those; the proxy uses them all;
testing and the CLI drive everything; the integrations (toolcalls inside vLLM and SGLang) are
imported by those servers only; the top level re-exports."""

FLOORS: Mapping[str, tuple[tuple[str, ...], ...]] = {
    "toolcalls.budget": (
        ("_tokens", "_model_tokens", "_profiles", "_counts", "_truncate"),  # counting
        ("_search", "_semantic", "_minilm", "_session", "_deferral"),  # search and sessions
        ("_plan",),  # planning
        ("_prices", "_traces", "_simulate"),  # cost simulation
        ("_render",),  # rendering: the entry points
    ),
}
"""Subpackages whose modules stand in floors (their ``__init__`` says what each floor is): a
module imports from its own floor or lower ones, and every module has a floor."""


@dataclass(frozen=True)
class Edge:
    importer: str
    imported: str
    line: int
    in_function: bool

    def __str__(self) -> str:
        where = "inside a function" if self.in_function else "at module level"
        return f"{self.importer}:{self.line} imports {self.imported} ({where})"


def module_files(root: Path, package: str = PACKAGE) -> dict[str, Path]:
    """Every module of `package` under `root` by its dotted name (a package by its own name)."""
    found = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def import_edges(root: Path, package: str = PACKAGE) -> list[Edge]:
    """The imports of `package`'s own modules that run, TYPE_CHECKING blocks left out."""
    modules = module_files(root, package)
    edges = []
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        for node, in_function in _running_imports(ast.parse(path.read_text(encoding="utf-8"))):
            for target in _targets(node, name, is_package, modules):
                if target != name:
                    edges.append(Edge(name, target, node.lineno, in_function))
    return edges


def _running_imports(
    nodes: ast.AST | list[ast.stmt], in_function: bool = False
) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    children = nodes if isinstance(nodes, list) else list(ast.iter_child_nodes(nodes))
    for child in children:
        if isinstance(child, ast.If) and _is_type_checking(child.test):
            yield from _running_imports(child.orelse, in_function)  # the else branch runs
            continue
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child, in_function
        inside = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
        yield from _running_imports(child, inside)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _targets(node: ast.Import | ast.ImportFrom, importer: str, is_package: bool,
             modules: Mapping[str, Path]) -> list[str]:
    """The package's modules `node` runs: the module named, or its submodules named."""
    if isinstance(node, ast.Import):
        return [_owner(alias.name, modules) for alias in node.names
                if alias.name.split(".")[0] == PACKAGE]
    base = node.module or ""
    if node.level:
        anchor = importer.split(".") if is_package else importer.split(".")[:-1]
        anchor = anchor[: len(anchor) - (node.level - 1)]
        base = ".".join([*anchor, *([base] if base else [])])
    if base.split(".")[0] != PACKAGE:
        return []
    submodules = [f"{base}.{alias.name}" for alias in node.names
                  if f"{base}.{alias.name}" in modules]
    named = [alias for alias in node.names if f"{base}.{alias.name}" not in modules]
    return submodules + ([_owner(base, modules)] if named or not submodules else [])


def _owner(name: str, modules: Mapping[str, Path]) -> str:
    """`name`, or the nearest enclosing module that exists."""
    while name not in modules and "." in name:
        name = name.rpartition(".")[0]
    return name


def cycles(edges: Iterable[Edge]) -> list[frozenset[str]]:
    """The circles of the graph: its strongly connected components of two or more modules."""
    graph: dict[str, set[str]] = {}
    for edge in edges:
        graph.setdefault(edge.importer, set()).add(edge.imported)
        graph.setdefault(edge.imported, set())
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def visit(start: str) -> None:  # Tarjan's algorithm, without recursion
        work = [(start, iter(sorted(graph[start])))]
        order[start] = low[start] = len(order)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            successor = next(successors, None)
            if successor is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == order[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(frozenset(component))
            elif successor not in order:
                order[successor] = low[successor] = len(order)
                stack.append(successor)
                on_stack.add(successor)
                work.append((successor, iter(sorted(graph[successor]))))
            elif successor in on_stack:
                low[node] = min(low[node], order[successor])

    for node in sorted(graph):
        if node not in order:
            visit(node)
    return found


def layer_of(module: str, layers: tuple[tuple[str, ...], ...] = LAYERS) -> int:
    """The index in `layers` of the longest entry that is `module` or encloses it."""
    best, index = "", -1
    for position, members in enumerate(layers):
        for member in members:
            if (module == member or module.startswith(member + ".")) and len(member) > len(best):
                best, index = member, position
    if index < 0:
        raise AssertionError(f"{module} is in no layer: add it to LAYERS")
    return index


def upward_edges(edges: Iterable[Edge]) -> list[Edge]:
    """The imports from a lower layer of a higher one."""
    return [edge for edge in edges if layer_of(edge.importer) < layer_of(edge.imported)]


def floor_problems(edges: Iterable[Edge], modules: Iterable[str]) -> list[str]:
    """Modules of a floored package without a floor, and imports up its floors."""
    problems = []
    for package, floors in FLOORS.items():
        level = {f"{package}.{name}": index for index, names in enumerate(floors)
                 for name in names}
        members = {module for module in modules if module.startswith(package + ".")}
        floored = set(level)
        problems += [f"{module} has no floor in FLOORS" for module in sorted(members - floored)]
        problems += [f"{module} in FLOORS does not exist" for module in sorted(floored - members)]
        problems += [f"{edge}: up from floor {level[edge.importer] + 1} to floor "
                     f"{level[edge.imported] + 1}" for edge in edges
                     if edge.importer in level and edge.imported in level
                     and level[edge.importer] < level[edge.imported]]
    return problems


# -- the package ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def edges() -> list[Edge]:
    return import_edges(ROOT)


def test_the_graph_is_read(edges: list[Edge]) -> None:
    """Known imports are found, function-level ones included: the checks below see the graph."""
    pairs = {(edge.importer, edge.imported) for edge in edges}
    assert ("toolcalls.parsing._api", "toolcalls.tools._read") in pairs
    assert any(edge.in_function and edge.importer == "toolcalls.tools._read" for edge in edges)


def test_no_import_circle(edges: list[Edge]) -> None:
    found = [sorted(cycle) for cycle in cycles(edges)]
    assert found == [], "import circles (function-level imports count): move the function to " \
                        "the floor it belongs on instead"


def test_imports_point_down_the_layers(edges: list[Edge]) -> None:
    assert [str(edge) for edge in upward_edges(edges)] == []


def test_every_module_has_a_layer() -> None:
    for module in module_files(ROOT):
        layer_of(module)


def test_floored_packages_import_down_their_floors(edges: list[Edge]) -> None:
    assert floor_problems(edges, module_files(ROOT)) == []


# -- the checker itself, on a small tree -----------------------------------------------------


def _tree(root: Path, files: Mapping[str, str]) -> Path:
    for name, source in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")
    return root


def test_a_function_level_import_closes_a_circle(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "toolcalls/__init__.py": "",
        "toolcalls/a.py": "from .b import g\n",
        "toolcalls/b.py": "def g():\n    from .a import f\n    return f\n",
    })
    assert cycles(import_edges(root)) == [frozenset({"toolcalls.a", "toolcalls.b"})]


def test_type_checking_imports_never_run(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "toolcalls/__init__.py": "",
        "toolcalls/a.py": "from .b import g\n",
        "toolcalls/b.py": ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                           "    from .a import f\nelse:\n    from . import c\n"),
        "toolcalls/c.py": "",
    })
    edges = import_edges(root)
    assert cycles(edges) == []
    assert {(edge.importer, edge.imported) for edge in edges} == {
        ("toolcalls.a", "toolcalls.b"), ("toolcalls.b", "toolcalls.c")}


def test_relative_imports_resolve_to_modules_and_packages(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "toolcalls/__init__.py": "from .sub import x\nimport toolcalls.sub.deep\n",
        "toolcalls/sub/__init__.py": "from . import deep\nfrom .. import top\n",
        "toolcalls/sub/deep.py": "from ..top import y\n",
        "toolcalls/top.py": "",
    })
    assert {(edge.importer, edge.imported) for edge in import_edges(root)} == {
        ("toolcalls", "toolcalls.sub"), ("toolcalls", "toolcalls.sub.deep"),
        ("toolcalls.sub", "toolcalls.sub.deep"), ("toolcalls.sub", "toolcalls.top"),
        ("toolcalls.sub.deep", "toolcalls.top"),
    }


def test_an_import_up_the_layers_is_found() -> None:
    up = Edge("toolcalls.tools._x", "toolcalls.parsing._y", 3, in_function=True)
    down = Edge("toolcalls.parsing._y", "toolcalls.tools._x", 4, in_function=False)
    assert upward_edges([up, down]) == [up]
