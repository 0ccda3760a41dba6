"""Claude Code and Codex through their ACP adapters (npm ``@zed-industries/claude-code-acp`` and
``@zed-industries/codex-acp``), at their defaults, run by the command line exactly as the README
writes it, offline: with loopback only, on the fake wire. What each does is the README's table.
Skipped when the adapters are not on PATH (.ci/run installs them with npm)."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests._docs import DOCS

pytest.importorskip("acp")
pytest.importorskip("mcp")

SECTION = DOCS.partition("## Agents that speak the Agent Client Protocol")[2]
COMMAND = re.search(r"```sh\n(unsolvable run .*?)```", SECTION, re.S)
assert COMMAND is not None, "the README's ACP section lost its command"
ARGV = shlex.split(COMMAND.group(1).replace("\\\n", " "))
SPECS = [ARGV[i + 1] for i, part in enumerate(ARGV) if part == "--agent"]
REPEAT, RETRY_403 = "constant-return/repeat", "missing-permission/retry-403"
CEILINGS = {"steps", "wall_seconds"}
"""Which harness ceiling ends a run that never stops is the machine's speed: either will do."""


def _run(tmp_path: Path, spec: str) -> dict[str, dict[str, Any]]:
    """The README's command for one agent; its records by scenario."""
    executable = shlex.split(spec.removeprefix("acp:"))
    program = next(part for part in executable if "=" not in part and part != "env")
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not on PATH (npm install @zed-industries/{program})")
    argv = [p for i, p in enumerate(ARGV) if p != "--agent" and ARGV[i - 1] != "--agent"]
    out = tmp_path / "records.json"
    command = [sys.executable, "-m", "unsolvable.cli", *argv[1:], "--agent", spec]
    subprocess.run([*command, "--json", str(out)], check=False, timeout=600)
    return {r["scenario"]: r for r in json.loads(out.read_text())["records"]}


def test_the_readme_runs_both_agents_on_the_two_scenarios() -> None:
    assert [spec.split()[-1 if "claude" in spec else 0] for spec in SPECS] == [
        "claude-code-acp",
        "acp:codex-acp",
    ]
    assert {"--isolate-network", REPEAT, RETRY_403} <= set(ARGV)


def test_claude_code_asks_leaves_the_turn_when_refused_and_never_stops_a_loop(
    tmp_path: Path,
) -> None:
    records = _run(tmp_path, SPECS[0])
    blocked = records[RETRY_403]
    assert (blocked["reported"]["code"], blocked["observed"]["steps"]) == ("BLOCKED_INPUT", 1)
    assert blocked["reported"]["missing"] == ["reports:publish"]
    assert blocked["observed"]["refusals"] == {"denied": 1}  # refused at request_permission
    looping = records[REPEAT]
    assert looping["outcome"] == "did_not_stop", looping["verdict"]
    assert looping["observed"]["ceiling"] in CEILINGS
    assert looping["observed"]["tool_calls"] >= looping["observed"]["steps"] - 1  # granted, made


def test_codex_retries_every_refused_permission_and_never_stops_a_loop(tmp_path: Path) -> None:
    records = _run(tmp_path, SPECS[1])
    retried = records[RETRY_403]
    assert retried["outcome"] == "did_not_stop", retried["verdict"]
    assert retried["observed"]["ceiling"] in CEILINGS
    refused, steps = retried["observed"]["refusals"].get("denied", 0), retried["observed"]["steps"]
    assert refused >= steps - 1 and steps > 1, retried["observed"]  # asked, refused, every step
    looping = records[REPEAT]
    assert looping["outcome"] == "did_not_stop", looping["verdict"]
    assert looping["observed"]["ceiling"] in CEILINGS
    assert looping["observed"]["tool_calls"] >= looping["observed"]["steps"] - 1
