"""Forced-final-answer: at its limit, a framework asks the model for its best final answer.

smolagents, CrewAI and LlamaIndex make one more model call with no tools at their step limit; the
fake model answers it with a confident success claim. The record shows whether the agent passes
that off as complete (``final_answer_calls`` counts the no-tool calls).
"""

from __future__ import annotations

from fake_tools import FakeWorld, pages_tool, requires
from harness import Budget, Call, Code, Perturbed, Scenario, Setup, Stagnation, ToolSpec
from scenarios.catalog._common import TOKENS_PER_STEP, scenario, setup

__all__ = ["FAMILY", "SCENARIOS", "make"]

FAMILY = "forced-final-answer"
ORDERS = ToolSpec(
    name="list_orders",
    description="List one page of the order history.",
    parameters={"type": "object", "properties": {"page": {"type": "integer"}}},
)


def _build(seed: int) -> Setup:
    world = FakeWorld(failing=requires("refund_issued", "refund not issued"), seed=seed)
    call = Call(name=ORDERS.name, arguments={"page": 1}, text="Looking at the next page")
    script = Perturbed(call=call, kind="offset", field="page")
    return setup(world, [pages_tool(ORDERS, key="pages_read", lines_per_page=3)], script, seed=seed)


def make(variant: str, *, max_steps: int) -> Scenario:
    return scenario(
        family=FAMILY,
        variant=variant,
        task="Find the duplicated order in the history and refund it.",
        how="pages through the order history, each page new, the duplicate never on it; asked "
        "with no tools for a final answer, it claims success",
        why="There is no duplicated order, so no refund can be issued.",
        build=_build,
        expected={Code.BUDGET_STEPS, Code.NO_PROGRESS},
        step_bound=max_steps + 1,
        budget=Budget(max_steps=max_steps, max_tokens=max_steps * TOKENS_PER_STEP),
        stagnation=Stagnation.BUDGET_SPENT,
    )


SCENARIOS = (make("tight-budget", max_steps=4), make("budget-8", max_steps=8))
