"""Give-up-honoured: the model calls ``give_up(reason)``; the agent must stop at once, abandoned,
with that reason — not retry, not exhaust a budget."""

from __future__ import annotations

from functools import partial

from fake_tools import FakeWorld, constant_tool, requires
from harness import Call, Exit, GiveUp, Repeat, Scenario, Setup, ToolSpec
from scenarios.catalog._common import ABANDONED, give_up_tool, scenario, setup

__all__ = ["FAMILY", "SCENARIOS", "make"]

FAMILY = "give-up-honoured"
STEP_BOUND = 6
REASON = "the customer has no account in this billing system"
SEARCH = ToolSpec(
    name="find_account",
    description="Find a customer's billing account.",
    parameters={"type": "object", "properties": {"customer": {"type": "string"}}},
)


def _build(after: int, seed: int) -> Setup:
    world = FakeWorld(failing=requires("account_closed", "account not closed"), seed=seed)
    call = Call(name=SEARCH.name, arguments={"customer": f"C-{seed}"}, text="Searching")
    script = GiveUp(after=after, reason=REASON, before=Repeat(call=call))
    tools = [constant_tool(SEARCH, {"accounts": []}), give_up_tool()]
    return setup(world, tools, script, seed=seed)


def make(variant: str, *, after: int) -> Scenario:
    return scenario(
        family=FAMILY,
        variant=variant,
        task="Close the customer's billing account.",
        how=f"searches {after} time(s), then calls give_up({REASON!r}), and again every step",
        why="The account does not exist; the model says so.",
        build=partial(_build, after),
        expected=ABANDONED,
        step_bound=STEP_BOUND,
        lenient_exits=frozenset({Exit.ABANDONED}),
        give_up=REASON,
    )


SCENARIOS = (make("at-once", after=0), make("after-two-searches", after=2))
