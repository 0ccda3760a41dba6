"""Dependency rules that keep the house easy to change, checked on the source with ``ast``.

Every import counts, lazy ones inside functions included; only imports under
``if TYPE_CHECKING:`` are left out, because they never run. Layers are folders:

- the engine (the modules at the ``harness/`` root) imports no face, no framework, not pytest,
  and neither ``scenarios`` nor ``fake_tools``;
- the two faces (``harness/plugin/``, ``harness/cli/``) never import each other;
- the reports (``harness/reports/``) know no face and no adapter: they read records;
- the importer and scenario files (``harness/imports/``) know no face, no framework, not pytest,
  and the engine does not know them (they build on it, and on ``scenarios`` and ``fake_tools``);
- ``scenarios`` and ``fake_tools`` know neither pytest nor a face; ``fake_tools`` not ``scenarios``;
- the MCP server (``harness/mcp/``) knows no face, no adapter, no wire and no pytest; the engine
  does not know it;
- no import cycle anywhere in ``harness/``, not even one closed by an import for type checking.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
PYTEST = {"pytest", "_pytest", "syrupy", "xdist"}
FRAMEWORKS = {
    "a2a",
    "acp",
    "agents",
    "anthropic",
    "autogen_agentchat",
    "autogen_core",
    "autogen_ext",
    "crewai",
    "httpx",
    "httpx2",
    "hypothesis",
    "langchain",
    "langchain_core",
    "langgraph",
    "llama_index",
    "mcp",
    "openai",
    "opentelemetry",
    "pydantic_ai",
    "respx",
    "smolagents",
}
SCENARIOS = "unsolvable.scenarios"
FAKE_TOOLS = "unsolvable.fake_tools"
FOLDERS = {"harness": "unsolvable", "scenarios": SCENARIOS, "fake_tools": FAKE_TOOLS}
"""Each folder of the repository and the package it installs as (pyproject.toml's package-dir)."""
FACES = {"unsolvable.plugin", "unsolvable.cli", "unsolvable.snapshot"}
LAYERS: dict[str, set[str]] = {
    "engine": FACES
    | PYTEST
    | FRAMEWORKS
    | {SCENARIOS, FAKE_TOOLS, "unsolvable.mcp", "unsolvable.imports"},
    "unsolvable.imports": FACES | PYTEST | FRAMEWORKS,
    "unsolvable.plugin": {"unsolvable.cli"},
    "unsolvable.cli": {"unsolvable.plugin", "unsolvable.snapshot"} | PYTEST,
    "unsolvable.reports": FACES | PYTEST | FRAMEWORKS | {"unsolvable.adapters"},
    "unsolvable.mcp": FACES
    | PYTEST
    | {"unsolvable.adapters", "unsolvable.agents", "unsolvable.wire"},
    SCENARIOS: FACES | PYTEST,
    FAKE_TOOLS: FACES | PYTEST | {SCENARIOS},
}


def _name(path: Path) -> str:
    folder, *parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join([FOLDERS[folder], *(parts[:-1] if parts[-1] == "__init__" else parts)])


MODULES = {
    _name(path): path for folder in FOLDERS for path in sorted((ROOT / folder).rglob("*.py"))
}


def _is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node, lazy imports included, but not the bodies of ``if TYPE_CHECKING:``."""
    for child in ast.iter_child_nodes(tree):
        if _is_type_checking(child):
            yield from (n for orelse in child.orelse for n in (orelse, *_nodes(orelse)))
            continue
        yield child
        yield from _nodes(child)


def imports(module: str, *, typing_only: bool = False) -> set[str]:
    """What ``module`` imports: a submodule where ``from package import submodule`` names one;
    with ``typing_only``, the imports under ``if TYPE_CHECKING:`` too."""
    found = set()
    tree = ast.parse(MODULES[module].read_text())
    for node in ast.walk(tree) if typing_only else _nodes(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                child = f"{node.module}.{alias.name}"
                found.add(child if child in MODULES else node.module)
    return found


def _layer(module: str) -> str:
    layers = (
        "unsolvable.plugin",
        "unsolvable.cli",
        "unsolvable.reports",
        "unsolvable.mcp",
        "unsolvable.imports",
    )
    for layer in (SCENARIOS, FAKE_TOOLS, *layers):
        if module == layer or module.startswith(layer + "."):
            return layer
    if module in FACES:
        return "unsolvable.plugin"
    return "engine" if module.count(".") <= 1 else "other"


def _breaks(name: str, forbidden: set[str]) -> bool:
    return any(name == f or name.startswith(f + ".") for f in forbidden)


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_each_layer_imports_only_what_it_may(layer: str) -> None:
    offences = [
        f"{module} imports {name}"
        for module in MODULES
        if _layer(module) == layer
        for name in sorted(imports(module))
        if _breaks(name, LAYERS[layer])
    ]
    assert not offences


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph``, or ``None``."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph[node]):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state and (found := visit(target)):
                return found
        path.pop()
        state[node] = 2
        return None

    return next((c for node in sorted(graph) if node not in state if (c := visit(node))), None)


def test_nothing_imports_a_folder_by_its_name_in_the_repository() -> None:
    """Installed, the folders are ``unsolvable``'s subpackages: a top-level ``scenarios`` or
    ``harness`` is a user's own, never ours."""
    offences = [
        f"{module} imports {name}"
        for module in MODULES
        for name in sorted(imports(module))
        if _breaks(name, set(FOLDERS))
    ]
    assert not offences


def test_no_import_cycle_in_the_engine_and_its_faces() -> None:
    ours = [module for module in MODULES if _layer(module) not in (SCENARIOS, FAKE_TOOLS)]
    graph = {module: {name for name in imports(module) if name in ours} for module in ours}
    assert _cycle(graph) is None


def test_no_cycle_hides_behind_an_import_for_type_checking() -> None:
    """An import under ``if TYPE_CHECKING:`` that closes a cycle is a design circle all the same:
    the two modules need each other. A package's own ``__init__`` naming its submodules for its
    lazy attributes is no such need."""
    ours = [module for module in MODULES if _layer(module) not in (SCENARIOS, FAKE_TOOLS)]

    def needed(module: str) -> set[str]:
        lazy = MODULES[module].name == "__init__.py"
        found = imports(module, typing_only=True)
        return {n for n in found if n in ours and not (lazy and n.startswith(module + "."))}

    assert _cycle({module: needed(module) for module in ours}) is None


def test_the_checks_see_lazy_imports_and_cycles() -> None:
    """The rules would catch a lazy import and a cycle, so a green run means something."""
    assert "unsolvable.plugin._fixture" in imports("unsolvable.plugin")  # imported inside hooks
    assert _breaks("unsolvable.cli._main", LAYERS["unsolvable.plugin"])
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
