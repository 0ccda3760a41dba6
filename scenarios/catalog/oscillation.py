"""Oscillation: the model flips a setting between plan A and plan B; the world flips with it.

Every step *changes* the world, so "state unchanged" never fires: only counting revisited states
(or repeated observations) shows that nothing moves.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from fake_tools import FakeWorld, requires, setting_tool
from harness import Alternate, Call, Code, Cycle, Scenario, Script, Setup, ToolSpec
from scenarios.catalog._common import scenario, setup

__all__ = ["FAMILY", "SCENARIOS", "make"]

FAMILY = "oscillation"
STEP_BOUND = 12
"""Two plans must both be tried before the loop shows; the rest is slack for a slower detector."""
SYMPTOMS = {
    "on": "integration test fails: TimeoutError in cache warm-up",
    "off": "integration test fails: stale read from replica",
    "auto": "integration test fails: TimeoutError in cache warm-up",
}
SET_MODE = ToolSpec(
    name="set_cache_mode",
    description="Set the service's cache mode and rerun the integration test.",
    parameters={"type": "object", "properties": {"mode": {"type": "string"}}},
)


def _plan(mode: str) -> Call:
    return Call(name=SET_MODE.name, arguments={"mode": mode}, text=f"Trying cache mode {mode}")


def _build(modes: Sequence[str], restyled: bool, seed: int) -> Setup:
    world = FakeWorld(failing=requires("test_green", "integration test still failing"), seed=seed)
    tool = setting_tool(SET_MODE, key="cache_mode", field="mode", symptoms=SYMPTOMS)
    plans = [_plan(mode) for mode in modes]
    script: Script = (
        Alternate(plans=(plans[0], plans[1]), restyled=restyled)
        if len(plans) == 2
        else Cycle(calls=plans)
    )
    return setup(world, [tool], script, seed=seed)


def make(variant: str, *, modes: Sequence[str] = ("on", "off"), restyled: bool = False) -> Scenario:
    return scenario(
        family=FAMILY,
        variant=variant,
        task="Make the integration test pass; the cache mode is the suspect (set_cache_mode).",
        how=f"cycles the cache mode through {', '.join(modes)}"
        + (", changing case and spacing every round" if restyled else ""),
        why="The test fails in every mode, each with its own symptom: the world only revisits "
        "states it has been in.",
        build=partial(_build, tuple(modes), restyled),
        expected={Code.NO_PROGRESS},
        step_bound=STEP_BOUND,
    )


SCENARIOS = (
    make("a-b"),
    make("a-b-restyled", restyled=True),
    make("a-b-c", modes=("on", "off", "auto")),
)
