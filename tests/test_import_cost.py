"""Importing the pytest plugin, as every pytest run of every user does, stays cheap: none of the
heavy packages (scenario library, syrupy, hypothesis, respx, httpx, the frameworks) comes along."""

from __future__ import annotations

import json
import subprocess
import sys

from benchmarks.plugin_import import PACKAGE, autoloaded_plugins, closure

HEAVY = (
    "unsolvable.scenarios",
    "unsolvable.fake_tools",
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


def _is_heavy(module: str) -> bool:
    return any(module == heavy or module.startswith(heavy + ".") for heavy in HEAVY)


def _modules_after(statement: str) -> set[str]:
    code = f"import sys, json\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    return set(json.loads(out.stdout))


def test_importing_the_plugin_imports_nothing_heavy() -> None:
    loaded = _modules_after("import unsolvable.plugin")
    assert not sorted(name for name in loaded if _is_heavy(name))


def test_the_plugin_adds_few_modules_to_pytest() -> None:
    """Measured against pytest alone: today it is the stdlib-only engine and the plugin faces."""
    added = _modules_after("import pytest, unsolvable.plugin") - _modules_after("import pytest")
    ours = {name for name in added if name.split(".")[0] == "unsolvable"}
    assert "unsolvable.plugin" in ours and "unsolvable.agents" not in ours
    assert not any(name.startswith("unsolvable.imports") for name in ours)  # scenario files: lazy


def test_the_core_install_autoloads_no_heavy_plugin() -> None:
    """Every pytest11 plugin the core install brings loads in every pytest run of the user's,
    so none may import a heavy package: respx, hypothesis and syrupy are extras."""
    plugins = autoloaded_plugins(closure([PACKAGE]))
    assert "unsolvable.plugin" in plugins
    loaded = _modules_after("import pytest\n" + "\n".join(f"import {p}" for p in plugins))
    assert not sorted(name for name in loaded if _is_heavy(name))
