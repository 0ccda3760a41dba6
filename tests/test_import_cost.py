"""Importing the pytest plugin, as every pytest run of every user does, stays cheap: none of the
heavy packages (scenario library, syrupy, hypothesis, respx, httpx, the frameworks) comes along."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import metadata

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

HEAVY = (
    "scenarios",
    "fake_tools",
    "syrupy",
    "hypothesis",
    "respx",
    "httpx",
    "httpx2",
    "langchain_core",
    "langgraph",
    "openai",
    "anthropic",
    "pydantic_ai",
    "agents",
    "smolagents",
    "llama_index",
    "autogen_agentchat",
    "autogen_core",
    "autogen_ext",
    "mcp",
    "mcp_types",
)


def _modules_after(statement: str) -> set[str]:
    code = f"import sys, json\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    return set(json.loads(out.stdout))


def test_importing_the_plugin_imports_nothing_heavy() -> None:
    loaded = _modules_after("import harness.plugin")
    assert not sorted(name for name in loaded if name.split(".")[0] in HEAVY)


def test_the_plugin_adds_few_modules_to_pytest() -> None:
    """Measured against pytest alone: today it is the stdlib-only engine and the plugin faces."""
    added = _modules_after("import pytest, harness.plugin") - _modules_after("import pytest")
    ours = {name for name in added if name.split(".")[0] == "harness"}
    assert "harness.plugin" in ours and "harness.agents" not in ours
    assert not any(name.startswith("harness.imports") for name in ours)  # scenario files: lazy


def _core_distributions() -> set[str]:
    """What ``pip install pytest-unsolvable`` installs: its requirements without extras, and
    theirs, recursively."""
    found: set[str] = set()
    todo = ["pytest-unsolvable"]
    while todo:
        name = canonicalize_name(todo.pop())
        if name in found:
            continue
        found.add(name)
        for line in metadata.requires(name) or ():
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(requirement.name)
    return found


def test_the_core_install_autoloads_no_heavy_plugin() -> None:
    """Every pytest11 plugin the core install brings loads in every pytest run of the user's,
    so none may import a heavy package: respx, hypothesis and syrupy are extras (issue 14)."""
    core = _core_distributions()
    plugins = sorted(
        {
            entry.value
            for dist in metadata.distributions()
            if canonicalize_name(dist.metadata["Name"]) in core
            for entry in dist.entry_points
            if entry.group == "pytest11"
        }
    )
    assert "harness.plugin" in plugins
    loaded = _modules_after("import pytest\n" + "\n".join(f"import {p}" for p in plugins))
    assert not sorted(name for name in loaded if name.split(".")[0] in HEAVY)
