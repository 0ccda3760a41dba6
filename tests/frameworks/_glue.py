"""Runs an SDK agent (in-process, over the loopback server, or as a child process) as a harness
agent: the only code between the scenario and the unmodified agent."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from harness import Session, Stop, TerminationRecord, Verdict
from harness.wire import Wire

ROOT = Path(__file__).parents[2]
CHILD_SECONDS = 60
"""A child agent answers in about a second; the cap only stops a hung child from hanging CI."""


def child_agent(module: str, *args: str) -> Callable[[Session], Any]:
    """A harness agent that serves the wire on loopback and runs ``python -m module`` against
    it, the SDK configured only by environment variables; the child's stdout is its stop."""

    def agent(session: Session) -> Mapping[str, Any]:
        with Wire(session) as wire, wire.serve() as server:
            env = {**os.environ, **server.environ(), "PYTHONPATH": str(ROOT)}
            tools = json.dumps(session.openai_tools)
            child = subprocess.run(
                [sys.executable, "-m", module, session.task, tools, *args],
                env=env,
                capture_output=True,
                text=True,
                timeout=CHILD_SECONDS,
                check=True,
            )
        return dict(json.loads(child.stdout))

    return agent


def reported(record: TerminationRecord) -> Stop:
    """The agent's reported stop, which these tests expect to exist."""
    assert record.reported is not None, f"no reported stop: {record.outcome}"
    return record.reported


def verdict(record: TerminationRecord) -> Verdict:
    return record.verdict
