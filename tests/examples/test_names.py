"""Every Python name of the package the documentation gives a user is one the package has: a
module split or a class renamed leaves no page naming the old path. A name the package cannot
import here (an adapter whose framework lives in an environment of its own) is found in its
module's source instead."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re

import pytest

from tests._docs import DOCS

PROSE = re.sub(r"```python\n.*?```", "", DOCS, flags=re.S)
"""The pages without their Python examples, which run (`test_readme` and the faces' tests), and
in which ``unsolvable`` may be the fixture of that name."""
NAME = re.compile(r"(?<![\w.])unsolvable((?:\.[A-Za-z_]\w*)+)(?::([A-Za-z_]\w*))?(\()?")
"""``unsolvable.x.Y``, a ``unsolvable.x:attr`` spec, and whether a call follows."""


def _python_names() -> list[str]:
    """The dotted names the pages' text gives that are Python's: a spec, a name under a module
    of the package, a class or a call. The rest spell other things the same way: span attributes
    (``unsolvable.code``), JUnit properties (``unsolvable.lag_steps``), file names
    (``unsolvable.json``)."""
    found = set()
    for match in NAME.finditer(PROSE):
        dotted, attribute, call = match.groups()
        first = dotted.split(".")[1]
        name = f"unsolvable{dotted}" + (f".{attribute}" if attribute else "")
        module = importlib.util.find_spec(f"unsolvable.{first}") is not None
        if attribute or module or call or first[0].isupper():
            found.add(name)
    return sorted(found)


def _defined(module: str, names: list[str]) -> bool:
    """Whether ``module``, which does not import here, defines ``names`` at its top level (the
    first of them: its members are not read without importing it)."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        return False
    if not names:
        return True
    with open(spec.origin, encoding="utf-8") as source:
        tree = ast.parse(source.read())
    defined: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            defined.add(node.name)
        elif isinstance(node, ast.Assign):
            defined |= {target.id for target in node.targets if isinstance(target, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            defined.add(node.target.id)
    return names[0] in defined


def _resolves(name: str) -> bool:
    """Whether ``name`` imports: its longest module, then each attribute after it."""
    parts = name.split(".")
    end = 1
    while end < len(parts):
        module = ".".join(parts[: end + 1])
        try:
            importlib.import_module(module)
        except ImportError as error:
            if isinstance(error, ModuleNotFoundError) and error.name == module:
                break  # no such module: the rest are attributes
            return _defined(module, parts[end + 1 :])  # its framework is not installed here
        end += 1
    found: object = importlib.import_module(".".join(parts[:end]))
    for attribute in parts[end:]:
        if not hasattr(found, attribute):
            return False
        found = getattr(found, attribute)
    return True


NAMES = _python_names()


def test_the_pages_name_modules_classes_and_specs() -> None:
    """The selection has something to check, of each kind it selects."""
    assert {"unsolvable.agents.contract", "unsolvable.Stop", "unsolvable.fake_tools"} <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_each_name_shown_imports(name: str) -> None:
    assert _resolves(name), f"the docs name {name}, which the package does not have"
