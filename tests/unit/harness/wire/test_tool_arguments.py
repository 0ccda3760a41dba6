"""Every library tool, called over the wire with arguments of each JSON type, answers as a tool
does: its result or its own refusal. An argument of another type than its schema's is the
agent's mistake, never a failure of the harness, which would record the run crashed on a
`HarnessFailure` blaming the scenario, whatever the agent did next."""

from __future__ import annotations

from typing import Any

import pytest

import unsolvable
from unsolvable import Ceilings, scenarios
from unsolvable.wire import TOOLS_URL, Wire

VALUES: list[Any] = [None, True, 0, -1, 1.5, 10**30, "", "S-1", [], [1], {}, {"a": 1}]
"""One value of each JSON type, and the edges of the types a tool's schema names."""
SERVER_ERRORS = 500
CALLS = 10_000
"""Far more calls than a scenario's tools and fields take here: the test asks each tool often,
which no ceiling meant for a run should end."""
MEANT = frozenset({503, 504})
"""The server errors a tool answers on purpose: a dependency down, a timeout."""


@pytest.mark.parametrize("scenario", scenarios.select(), ids=lambda scenario: scenario.name)
def test_every_tool_answers_arguments_of_any_type_as_a_tool(scenario: unsolvable.Scenario) -> None:
    """fan-out's file_audit answered a list as its supplier's number 500 ``TypeError: unhashable
    type: 'list'``, and the wire closed on a `HarnessFailure`."""
    ceilings = Ceilings(max_wall_seconds=60, max_tool_calls=CALLS)
    session = unsolvable.Session(scenario, scenario.build(0), seed=0, ceilings=ceilings)
    answered: dict[tuple[str, str, str], int] = {}
    with Wire(session) as wire, wire.httpx2_client() as client:
        for tool in session.openai_tools:
            name = tool["function"]["name"]
            fields = (tool["function"].get("parameters") or {}).get("properties") or {}
            for field in [*fields, "unknown_field"]:
                for value in VALUES:
                    reply = client.post(f"{TOOLS_URL}/{name}", json={field: value})
                    answered[name, field, repr(value)] = reply.status_code
    failed = {call: s for call, s in answered.items() if s >= SERVER_ERRORS and s not in MEANT}
    assert failed == {}
