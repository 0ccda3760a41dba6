"""An ``exec:`` agent, and a coding agent's CLI, is given the same for a twin as for its sibling:
its environment, its arguments, its working directory, its config files, the wire's first answer
and the MCP server's account of itself, the run's own random key, ports and folders aside — no
channel names the scenario."""

from __future__ import annotations

import re
import shlex
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

pytest.importorskip("mcp")

import unsolvable
from unsolvable import Outcome, scenarios
from unsolvable.adapters._coding_agent import CodingAgentAdapter
from unsolvable.adapters._command_line import PLACEHOLDERS
from unsolvable.adapters.claude_code import ClaudeCodeAdapter
from unsolvable.adapters.codex_cli import CodexAdapter
from unsolvable.adapters.gemini_cli import GeminiCliAdapter

HERE = Path(__file__).parent
READER = HERE / "reader_agent.py"
PLACES = [f"{{{name}}}" for name in sorted(PLACEHOLDERS | {"mcp_url"})]
"""Every placeholder of the command line, each an argument the agent reads."""
RUN_OWN = [
    (re.compile(r"\b[0-9a-f]{32}\b"), "<key>"),
    (re.compile(r"127\.0\.0\.1:[0-9]+"), "127.0.0.1:<port>"),
    (re.compile(r"/unsolvable-[A-Za-z0-9_-]+"), "/unsolvable-<folder>"),
]
"""What each run makes afresh, whatever its scenario: its key in every loopback URL, the ports
its servers bind, its private folders."""
TWINS = [
    "constant-return/ambiguous-found-late",
    "missing-permission/twin-other-route",
    "fan-out/twin-workers-succeed",
]


def _given(name: str, out: Path) -> str:
    """What the reader agent was given on a run of ``name`` (unredacted: the record would mask
    a URL's path, where a tell could hide), the run's own values masked."""
    agent = "exec:" + shlex.join([sys.executable, str(READER), str(out), *PLACES])
    record = unsolvable.run(agent, scenarios.get(name))
    assert record.outcome is Outcome.STOPPED, record.observed.error
    return _masked(out.read_text())


@pytest.mark.parametrize("name", TWINS)
def test_an_exec_agent_is_given_the_same_on_a_twin_as_on_its_sibling(
    name: str, tmp_path: Path
) -> None:
    twin = _given(name, tmp_path / "twin.json")
    assert twin == _given(scenarios.get(name).twin_of or "", tmp_path / "sibling.json")
    assert "UNSOLVABLE_TASK" in twin and "chatcmpl-" in twin and '"instructions"' in twin


CODING_AGENTS = [ClaudeCodeAdapter, CodexAdapter, GeminiCliAdapter]


def _masked(text: str) -> str:
    """``text`` with the run's own values (`RUN_OWN`) masked."""
    for pattern, mask in RUN_OWN:
        text = pattern.sub(mask, text)
    return text


@pytest.mark.parametrize("make", CODING_AGENTS, ids=lambda make: make.__name__)
def test_a_coding_agents_cli_is_given_the_same_on_a_twin_as_on_its_sibling(
    make: Callable[..., CodingAgentAdapter], tmp_path: Path
) -> None:
    """The command line, the config files and the environment each adapter writes for its CLI,
    read by a stand-in CLI (`reader_cli.py`)."""
    out, cli = tmp_path / "seen.jsonl", tmp_path / "cli"
    reader = shlex.join([sys.executable, str(HERE / "reader_cli.py"), str(out)])
    cli.write_text(f'#!/bin/sh\nexec {reader} "$@"\n')
    cli.chmod(0o755)
    adapter = make(executable=str(cli), isolate_network=False)
    twin = scenarios.get(TWINS[1])
    for scenario in (twin, scenarios.get(twin.twin_of or "")):
        unsolvable.run(adapter, scenario)
    mine, theirs = (_masked(line) for line in out.read_text().splitlines())
    assert mine == theirs
    assert "config" in mine or "settings" in mine
