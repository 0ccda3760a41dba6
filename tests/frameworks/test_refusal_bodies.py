"""What an agent receives for a refused call is what the record says it received, byte for byte,
on every face: in-process (as text, or carried by the raised error), on the wire in-process,
and in another process over the loopback server — for every kind of refusal, in every dialect."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import unsolvable
from unsolvable import Code, Session, Stop, TerminationRecord, scenarios

pytest.importorskip("httpx2")

from unsolvable.wire import TOOLS_URL, Wire

STEPS = 4
"""Model calls each agent makes: past every seed's lead, so the refusal comes at least twice."""
REFUSING = [
    "missing-permission/retry-403",
    "missing-permission/retry-raises",
    "missing-permission/retry-new-request-id",
    "dependency-unavailable/retry",
]
"""A denial answered as text, a denial raised, a denial with fresh ids, a dependency down."""
SEEDS = (0, 1, 2)
"""One per dialect: the field names and nesting of the answers change with the seed."""
CHILD = Path(__file__).parent / "_refusal_agent.py"
"""A child agent: the model and the tools over HTTP with urllib."""


def _steps(session: Session, call: Callable[[str, str], str]) -> Stop:
    """Asks the model `STEPS` times and makes each call it asks for with ``call(name,
    arguments)``, which returns the text the agent received."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": session.task}]
    received = []
    for _ in range(STEPS):
        reply = session.call_model(messages, session.tools)
        messages.append({k: v for k, v in reply.items() if k != "usage"})
        for tool_call in reply.get("tool_calls") or ():
            function = tool_call["function"]
            text = call(function["name"], function["arguments"])
            received.append(text)
            messages.append({"role": "tool", "tool_call_id": tool_call["id"], "content": text})
    return Stop(code=Code.NO_PROGRESS, reason="refused", partial=received)


def in_process(session: Session) -> Stop:
    def call(name: str, arguments: str) -> str:
        try:
            return session.call_tool(name, arguments)
        except PermissionError as refused:
            return str(getattr(refused, "body", ""))

    return _steps(session, call)


def on_the_wire(session: Session) -> Stop:
    with Wire(session) as wire:
        client = wire.httpx2_client()

        def call(name: str, arguments: str) -> str:
            return str(client.post(f"{TOOLS_URL}/{name}", content=arguments).text)

        return _steps(session, call)


IN_ANOTHER_PROCESS = f"exec:{shlex.quote(sys.executable)} {shlex.quote(str(CHILD))} {STEPS}"
FACES = {"in-process": in_process, "wire": on_the_wire, "exec": IN_ANOTHER_PROCESS}


def _recorded(record: TerminationRecord) -> list[str]:
    return [tool.result for step in record.observed.trajectory for tool in step.tools]


@pytest.mark.parametrize("face", FACES)
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", REFUSING)
def test_the_record_holds_what_the_agent_received(name: str, seed: int, face: str) -> None:
    record = unsolvable.run(FACES[face], scenarios.get(name), seed=seed)
    assert record.reported is not None, record.observed.error
    received = record.reported.partial
    assert received == _recorded(record)
    refused = [json.loads(text)["error"] for text in received if '"error"' in text]
    assert len(refused) >= 2 and all(error["status"] in (403, 503) for error in refused)
    if name.startswith("missing-permission"):
        assert all(error["missing_permission"] in scenarios.get(name).missing for error in refused)
