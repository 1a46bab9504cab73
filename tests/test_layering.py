"""No import circles between gradcli's modules (issue 25).

Dependencies point one way: cli -> api -> {parse, graph, autograd, symbolic} -> ops, and
the renderers see the result types (gradcli/results.py), never the engine. A circle makes
import order matter, lets a renderer reach the engine through the back door, and is how
api.py, the script tracer and render/ grew into one knot.

The graph is read from the source, not from sys.modules: every import counts, at module
level, inside a function (a lazy import is still a dependency) and under TYPE_CHECKING (an
annotation that names a type still ties the two modules together).
"""

from __future__ import annotations

import ast
from collections import deque
from dataclasses import dataclass
from pathlib import Path

import pytest

import gradcli

PACKAGE = Path(gradcli.__file__).parent

# Edges a circle may run through, each with its reason. Every entry must still be in the code
# (a stale one fails below), so the list only shrinks.
ALLOWED = {
    # A package __init__ that assembles its registry: ops/__init__.py imports every family
    # module, and core.call() looks an op up in the assembled registry when a rule runs.
    ("gradcli.ops.core", "gradcli.ops"): "call() reads the registry its package assembles",
}


@dataclass(frozen=True)
class Import:
    target: str
    path: str  # relative to the repository: gradcli/api.py
    line: int
    how: str  # "top", "function" or "TYPE_CHECKING"

    def where(self) -> str:
        return f"{self.path}:{self.line} ({self.how})"


def _modules() -> dict[str, tuple[Path, bool]]:
    """Each gradcli module by dotted name: its file, and whether it is a package __init__."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if package else parts)] = (path, package)
    return found


def _base(module: str, package: bool, level: int, name: str | None) -> str:
    """The module a `from ... import` names, relative imports resolved."""
    if level == 0:
        return name or ""
    parts = module.split(".")
    if not package:
        parts = parts[:-1]
    parts = parts[: len(parts) - (level - 1)]
    return ".".join(parts + ([name] if name else []))


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _add(edges: list[Import], edge: Import) -> None:
    if edge not in edges:  # `from .api import A, B` is one import
        edges.append(edge)


def import_graph() -> dict[str, list[Import]]:
    """Every gradcli module's imports of other gradcli modules."""
    modules = _modules()
    graph: dict[str, list[Import]] = {name: [] for name in modules}
    for module, (path, package) in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        shown = path.relative_to(PACKAGE.parent).as_posix()
        pending = deque([(node, "top") for node in tree.body])
        while pending:
            node, how = pending.popleft()
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in modules:
                        _add(graph[module], Import(alias.name, shown, node.lineno, how))
            elif isinstance(node, ast.ImportFrom):
                base = _base(module, package, node.level, node.module)
                for alias in node.names:
                    # `from . import shape` names a module; `from .core import Op` a name in one
                    target = f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                    if target in modules and target != module:
                        _add(graph[module], Import(target, shown, node.lineno, how))
            inner = how
            if isinstance(node, ast.If) and _is_type_checking(node):
                pending.extend((child, "TYPE_CHECKING") for child in node.body)
                pending.extend((child, how) for child in node.orelse)
                continue
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and how == "top":
                inner = "function"
            pending.extend((child, inner) for child in ast.iter_child_nodes(node))
    return graph


def _shortest_cycle(graph: dict[str, list[Import]], start: str, within: set[str]) -> list[Import]:
    """The shortest circle through `start`, as the imports that make it."""
    came: dict[str, Import | None] = {start: None}
    queue = deque([start])
    while queue:
        module = queue.popleft()
        for edge in graph[module]:
            if edge.target not in within:
                continue
            if edge.target == start:
                path = [edge]
                while came[module] is not None:
                    step = came[module]
                    path.append(step)
                    module = next(m for m in came if any(e is step for e in graph[m]))
                return path[::-1]
            if edge.target not in came:
                came[edge.target] = edge
                queue.append(edge.target)
    return []


def _components(graph: dict[str, list[Import]]) -> list[set[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted({e.target for e in graph[root]})))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted({e.target for e in graph[child]}))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def cycles(graph: dict[str, list[Import]]) -> list[list[Import]]:
    """The shortest circle through each module that is in one, allowed edges left out; a knot
    of modules that import each other shows every circle it holds this way."""
    kept = {m: [e for e in edges if (m, e.target) not in ALLOWED] for m, edges in graph.items()}
    found: list[list[Import]] = []
    seen: set[frozenset[int]] = set()
    for knot in _components(kept):
        for module in sorted(knot):
            cycle = _shortest_cycle(kept, module, knot)
            key = frozenset(id(e) for e in cycle)
            if key not in seen:
                seen.add(key)
                found.append(cycle)
    return found


def describe(cycle: list[Import], graph: dict[str, list[Import]]) -> str:
    owner = {id(e): m for m, edges in graph.items() for e in edges}
    names = [owner[id(e)] for e in cycle] + [cycle[-1].target]
    steps = "\n".join(f"    {owner[id(e)]} -> {e.target}  at {e.where()}" for e in cycle)
    return " -> ".join(names) + "\n" + steps


def test_no_import_circles():
    graph = import_graph()
    found = cycles(graph)
    assert not found, (
        f"{len(found)} import circle(s) between gradcli's modules; break each at the edge that points "
        "against cli -> api -> {parse, graph, autograd, symbolic} -> ops (shared result types live in "
        "gradcli/results.py):\n" + "\n".join(describe(c, graph) for c in found)
    )


@pytest.mark.parametrize("edge", sorted(ALLOWED))
def test_every_allowed_edge_is_still_there(edge):
    source, target = edge
    assert any(e.target == target for e in import_graph()[source]), (
        f"{source} no longer imports {target}: remove its entry from ALLOWED in tests/test_layering.py"
    )


def test_the_checker_finds_a_circle_and_names_its_lines():
    here = "gradcli/x.py"
    graph = {
        "a": [Import("b", here, 3, "top")],
        "b": [Import("c", here, 7, "function")],
        "c": [Import("a", here, 9, "TYPE_CHECKING"), Import("d", here, 10, "top")],
        "d": [],
    }
    (cycle,) = cycles(graph)
    assert [e.target for e in cycle] == ["b", "c", "a"]
    assert describe(cycle, graph).startswith("a -> b -> c -> a\n")
    assert "gradcli/x.py:7 (function)" in describe(cycle, graph)


RENDERERS_MAY_IMPORT = ("gradcli.render", "gradcli.results", "gradcli.errors", "gradcli.limits")


def test_renderers_see_result_types_never_the_engine():
    """render/ reads results (and its own helpers); explain.py rebuilds the graph on purpose."""
    graph = import_graph()
    wrong = [
        f"{module} -> {edge.target}  at {edge.where()}"
        for module, edges in graph.items()
        if module.startswith("gradcli.render.") and module != "gradcli.render.explain"
        for edge in edges
        if not edge.target.startswith(RENDERERS_MAY_IMPORT)
    ]
    assert not wrong, (
        "renderers import the engine; give them what they need in gradcli/results.py:\n" + "\n".join(wrong)
    )


OWN_POOLS_PENDING: set[str] = set()


def test_one_thread_pool():
    """Threads come from gradcli/pool.py; no module keeps a pool of its own beside it."""
    making = sorted(
        path.relative_to(PACKAGE.parent).as_posix()
        for path in PACKAGE.rglob("*.py")
        if path.name != "pool.py" and "ThreadPoolExecutor(" in path.read_text(encoding="utf-8")
    )
    assert set(making) <= OWN_POOLS_PENDING, (
        "these modules make a thread pool of their own; use gradcli.pool.map_in_order (and "
        f"pool.threads) instead: {sorted(set(making) - OWN_POOLS_PENDING)}"
    )
    assert set(making) == OWN_POOLS_PENDING, (
        f"{sorted(OWN_POOLS_PENDING - set(making))} now use(s) gradcli/pool.py: "
        "remove it from OWN_POOLS_PENDING in tests/test_layering.py"
    )


def test_nothing_in_gradcli_imports_the_real_torch():
    """gradcli's own torch lives at gradcli/torch/ and is reached by relative imports; an
    absolute `import torch` in gradcli/ would reach the real one (a test process has it)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            found += [
                f"{path.relative_to(PACKAGE.parent)}:{node.lineno} {n}"
                for n in names
                if n.split(".")[0] == "torch"
            ]
    assert found == [], found
