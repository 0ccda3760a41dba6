"""Each framework adapter imports its framework at module top, and without it says which extra
to install (the test hides the framework in a fresh interpreter; nothing is uninstalled)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

ADAPTERS = {
    "langgraph": ("langgraph", "langgraph"),
    "openai_agents": ("agents", "openai-agents"),
    "pydantic_ai": ("pydantic_ai", "pydantic-ai"),
    "smolagents": ("smolagents", "smolagents"),
}


HIDDEN = """
import sys
sys.modules[sys.argv[1]] = None  # makes `import framework` fail, whatever imported it before
try:
    __import__("unsolvable.adapters." + sys.argv[2])
except ImportError as error:
    print(error)
"""
"""Imports the adapter in a fresh interpreter with its framework hidden: every module of the
adapter that needs the framework is imported anew, whatever this process imported before."""


@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_a_missing_framework_names_its_extra(adapter: str) -> None:
    framework, extra = ADAPTERS[adapter]
    said = subprocess.run(
        [sys.executable, "-c", HIDDEN, framework, adapter],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    assert re.search(rf"pip install 'pytest-unsolvable\[{extra}\]'", said), said
