"""No module of ``harness.wire`` or ``harness.adapters`` imports another in a cycle (issue 9).

Lazy imports inside functions count: they hide a cycle, they do not break it. Imports under
``if TYPE_CHECKING:`` do not, since they never run.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[4]
PACKAGES = ("harness.wire", "harness.adapters")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _imported(node: ast.AST, modules: set[str]) -> set[str]:
    """Which of ``modules`` ``node`` imports; ``from package import _module`` imports that
    module."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names} & modules
    if not isinstance(node, ast.ImportFrom) or node.module is None or node.level:
        return set()
    named = {f"{node.module}.{alias.name}" for alias in node.names} & modules
    return named or ({node.module} & modules)


def _edges(node: ast.AST, modules: set[str]) -> set[str]:
    if _is_type_checking(node):
        return set()
    found = _imported(node, modules)
    for child in ast.iter_child_nodes(node):
        found |= _edges(child, modules)
    return found


def _graph(package: str) -> dict[str, set[str]]:
    paths = sorted((ROOT / package.replace(".", "/")).glob("*.py"))
    modules = {_module_name(path) for path in paths}
    return {_module_name(path): _edges(ast.parse(path.read_text()), modules) for path in paths}


def _cycle_from(start: str, graph: dict[str, set[str]]) -> list[str] | None:
    """A path ``start → … → start`` through ``graph``, if there is one."""
    stack = [(start, [start])]
    seen: set[str] = set()
    while stack:
        node, path = stack.pop()
        for target in sorted(graph[node]):
            if target == start:
                return [*path, start]
            if target not in seen:
                seen.add(target)
                stack.append((target, [*path, target]))
    return None


@pytest.mark.parametrize("package", PACKAGES)
def test_no_module_imports_another_in_a_cycle(package: str) -> None:
    graph = _graph(package)
    cycles = [cycle for module in graph if (cycle := _cycle_from(module, graph))]
    assert not cycles, " ; ".join(" -> ".join(cycle) for cycle in cycles)


def test_the_graph_sees_lazy_imports() -> None:
    tree = ast.parse("def f():\n    from harness.wire import _wire\n")
    assert _edges(tree, {"harness.wire._wire"}) == {"harness.wire._wire"}


def test_the_graph_ignores_type_checking_imports() -> None:
    tree = ast.parse("if TYPE_CHECKING:\n    from harness.wire._wire import Wire\n")
    assert _edges(tree, {"harness.wire._wire"}) == set()
