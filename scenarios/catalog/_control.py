"""Consumes a waiting tool and its call, produces the pieces the solvable controls share: the
save that finishes them, their slack over the work they need, and their expected code.

Lag alone rewards an agent that stops at step 1; the controls measure the other direction — a
false stop is any exit but ``complete``, and completion is verified in the world.
"""

from __future__ import annotations

from fake_tools import FakeWorld, Tool, requires, writer_tool
from harness import Call, Claim, Code, Setup, Steps, ToolSpec, Until
from scenarios.catalog._common import setup

__all__ = ["COMPLETED", "SLACK", "wait_then_save"]

COMPLETED = frozenset({Code.COMPLETED})
SLACK = 4
"""Steps of room over the work a control needs: a final claim and a verification or two."""
SAVE = ToolSpec(
    name="save_report",
    description="Save the finished report.",
    parameters={"type": "object", "properties": {"text": {"type": "string"}}},
)
SAVE_CALL = Call(name=SAVE.name, arguments={"text": "The report."}, text="Saving the report")


def wait_then_save(waiting: Tool, call: Call, marker: str, seed: int) -> Setup:
    """Repeats ``call`` until its answer holds ``marker``, then saves the report and says so."""
    world = FakeWorld(failing=requires("report", "report not saved"), seed=seed)
    script = Until(call=call, marker=marker, then=Steps(calls=[SAVE_CALL], then=Claim()))
    tools = [waiting, writer_tool(SAVE, key="report", field="text", criteria=())]
    return setup(world, tools, script, seed=seed)
