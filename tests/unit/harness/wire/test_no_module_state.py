"""The wire keeps no state in its modules: what it remembers between requests lives on the `Wire`
that owns the conversation. Module-level values are constants of immutable types, the formats
keep nothing between requests, and no function rebinds a module's names or caches its results."""

from __future__ import annotations
import __future__

import ast
import importlib
import re
from pathlib import Path
from types import MappingProxyType, ModuleType
from typing import Any

import pytest

WIRE = Path(__file__).parents[4] / "harness" / "wire"
MODULES = sorted(path.stem for path in WIRE.glob("*.py"))
IMMUTABLE = (str, bytes, int, float, bool, type(None), frozenset, re.Pattern)
CACHES = {"cache", "lru_cache", "cached_property"}


def _immutable(value: Any) -> bool:
    if isinstance(value, IMMUTABLE):
        return True
    if isinstance(value, tuple):
        return all(map(_immutable, value))
    if isinstance(value, MappingProxyType):
        return all(map(_immutable, value.values()))
    # an object of a class that can hold nothing of its own: a wire format
    return not hasattr(value, "__dict__") and getattr(type(value), "__slots__", None) == ()


def _module(stem: str) -> ModuleType:
    package = "unsolvable.wire"
    return importlib.import_module(package if stem == "__init__" else f"{package}.{stem}")


@pytest.mark.parametrize("stem", MODULES)
def test_every_module_level_value_is_an_immutable_constant(stem: str) -> None:
    module = _module(stem)
    values = {
        name: value
        for name, value in vars(module).items()
        if not name.startswith("__")
        and not isinstance(value, ModuleType | type)
        and not callable(value)
        and getattr(value, "__module__", None) != "typing"
        and value is not __future__.annotations
    }
    assert [name for name, value in values.items() if not _immutable(value)] == []


@pytest.mark.parametrize("stem", MODULES)
def test_no_function_rebinds_module_names_or_caches_results(stem: str) -> None:
    tree = ast.parse((WIRE / f"{stem}.py").read_text())
    rebinding = [n for n in ast.walk(tree) if isinstance(n, ast.Global | ast.Nonlocal)]
    decorators = [
        ast.unparse(d)
        for n in ast.walk(tree)
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
        for d in n.decorator_list
    ]
    assert (
        rebinding == []
        and [d for d in decorators if d.split(".")[-1].split("(")[0] in CACHES] == []
    )
