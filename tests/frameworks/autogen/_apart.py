"""Runs an AutoGen agent on a scenario in a process of its own, so that its stderr is what
asyncio and AgentChat leave on it; under pytest, asyncio's reports go to the log capture."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).parents[3]
RUN = """
import gc, json, sys
import unsolvable
from unsolvable import Ceilings, scenarios
agent, name, ceilings = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
record = unsolvable.run(agent, scenarios.get(name), ceilings=Ceilings(**ceilings))
gc.collect()  # an abandoned task reports its exception as it is collected
print(record.to_json())
"""
SECONDS = 120
"""How long the process may take: imports and one short run, seconds on a loaded machine."""
RUN_SECONDS = 100
"""The wall ceiling of a run of the command, inside `SECONDS`: AgentChat's 200 steps to the step
ceiling take 6 s here and more than the default 10 s on a loaded machine, where the wall ceiling
would end the run elsewhere and its record would change with the machine's speed."""


def run_apart(agent: str, name: str, **ceilings: Any) -> tuple[dict[str, Any], str]:
    """The record (its JSON form) of ``agent`` (a spec, ``module:attr``) on scenario ``name``
    under ``ceilings``, and the process's stderr."""
    argv = [sys.executable, "-c", RUN, agent, name, json.dumps(ceilings)]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=SECONDS)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), done.stderr


def records_of_the_command(agent: str, name: str, seed: int, json_path: Path) -> bytes:
    """What ``unsolvable run`` writes with ``--json`` for ``agent`` on scenario ``name`` at
    ``seed``: its worker keeps the output of a failed run in the record, as the pytest face's
    do, where `unsolvable.run` leaves it on the terminal."""
    argv = [sys.executable, "-m", "unsolvable.cli", "run", "--no-progress", "--agent", agent]
    argv += ["--scenario", name, "--seed", str(seed), "--json", str(json_path)]
    argv += ["--ceiling-seconds", str(RUN_SECONDS)]
    subprocess.run(argv, cwd=json_path.parent, capture_output=True, timeout=SECONDS, check=False)
    return json_path.read_bytes()
