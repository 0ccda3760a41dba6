"""The calls the pytest page's fixture table gives the ``unsolvable`` fixture are its methods as
they are: the same parameters, in the same order, of the same kind (positional or keyword-only)
and with the same defaults, so a test written from the table calls them right."""

from __future__ import annotations

import ast
import inspect
import re

import pytest

from tests._docs import ROOT, TEXTS
from unsolvable.plugin import UnsolvableRunner

ROW = next(
    line
    for line in TEXTS[ROOT / "docs" / "pytest.md"].splitlines()
    if line.startswith("| `unsolvable` (")
)
SHOWN = re.findall(r"`((\w+)\([^`]*\))`", ROW)
"""Each call the fixture's row shows, and the method it names."""


def _shown(call: str) -> list[tuple[str, object, object]]:
    """The parameters ``call`` shows: name, kind and default (`inspect.Parameter.empty` where it
    shows none)."""
    function = ast.parse(f"def {call}: pass").body[0]
    assert isinstance(function, ast.FunctionDef)
    arguments = function.args
    positional = [(a.arg, inspect.Parameter.POSITIONAL_OR_KEYWORD) for a in arguments.args]
    defaults = [inspect.Parameter.empty] * (len(positional) - len(arguments.defaults))
    defaults += [ast.literal_eval(default) for default in arguments.defaults]
    shown: list[tuple[str, object, object]] = [
        (*parameter, default) for parameter, default in zip(positional, defaults, strict=True)
    ]
    for argument, default in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True):
        value = inspect.Parameter.empty if default is None else ast.literal_eval(default)
        shown.append((argument.arg, inspect.Parameter.KEYWORD_ONLY, value))
    if arguments.kwarg is not None:
        shown.append((arguments.kwarg.arg, inspect.Parameter.VAR_KEYWORD, inspect.Parameter.empty))
    return shown


def test_the_row_shows_the_fixtures_calls() -> None:
    assert {name for _, name in SHOWN} == {"run", "assert_passed"}


@pytest.mark.parametrize(("call", "name"), SHOWN, ids=[name for _, name in SHOWN])
def test_each_call_shown_is_the_methods_signature(call: str, name: str) -> None:
    method = inspect.signature(getattr(UnsolvableRunner, name))
    has = [(p.name, p.kind, p.default) for p in method.parameters.values() if p.name != "self"]
    assert _shown(call) == has, f"the page shows {call}; the fixture has {name}{method}"
