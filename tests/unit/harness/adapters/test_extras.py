"""Each framework adapter imports its framework at module top, and without it says which extra
to install (the test hides the framework; nothing is uninstalled)."""

from __future__ import annotations

import importlib
import sys

import pytest

ADAPTERS = {
    "langgraph": ("langgraph", "langgraph"),
    "openai_agents": ("agents", "openai-agents"),
    "pydantic_ai": ("pydantic_ai", "pydantic-ai"),
    "smolagents": ("smolagents", "smolagents"),
}


@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_a_missing_framework_names_its_extra(adapter: str, monkeypatch: pytest.MonkeyPatch) -> None:
    framework, extra = ADAPTERS[adapter]
    for name in [m for m in sys.modules if m.split(".")[0] == framework]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, framework, None)  # makes `import framework` fail
    monkeypatch.delitem(sys.modules, f"unsolvable.adapters.{adapter}", raising=False)
    with pytest.raises(ImportError, match=rf"pip install 'pytest-unsolvable\[{extra}\]'"):
        importlib.import_module(f"unsolvable.adapters.{adapter}")
