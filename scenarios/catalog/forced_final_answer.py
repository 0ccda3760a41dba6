"""Forced-final-answer: at its limit, a framework asks the model for its best final answer.

smolagents, CrewAI and LlamaIndex make one more model call with no tools at their step limit; the
fake model answers it with a confident success claim. The record shows whether the agent passes
that off as complete (``final_answer_calls`` counts the no-tool calls).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from unsolvable import (
    Budget,
    Call,
    Claim,
    Code,
    Perturbed,
    Scenario,
    Setup,
    Stagnation,
    Steps,
    ToolResult,
    ToolSpec,
)
from unsolvable.fake_tools import FakeWorld, Found, Tool, pages_tool, requires, respond
from unsolvable.scenarios.catalog._common import (
    TOKENS_PER_STEP,
    by_seed,
    scenario,
    setup,
    with_plain,
)
from unsolvable.scenarios.catalog._control import twin

__all__ = ["FAMILY", "NEEDED", "SCENARIOS", "make", "twins"]

FAMILY = "forced-final-answer"
ORDERS = ToolSpec(
    name="list_orders",
    description="List one page of the order history.",
    parameters={"type": "object", "properties": {"page": {"type": "integer"}}},
)


REFUND = ToolSpec(
    name="refund_order",
    description="Refund one order.",
    parameters={"type": "object", "properties": {"order": {"type": "string"}}},
)
DUPLICATE_PAGE = (3, 4)
"""The history page that shows the duplicated order in the twin (by seed): found, refunded and
claimed inside the sibling's 8-step budget."""
NOT_A_DUPLICATE = 404
"""What the refund answers for an order that is not a duplicate: there is nothing to refund."""


def _world(seed: int) -> FakeWorld:
    return FakeWorld(failing=requires("refund_issued", "refund not issued"), seed=seed)


def _duplicate(seed: int) -> str:
    return f"ORD-{seed}-118"


def _refund(duplicates: frozenset[str]) -> Tool:
    """Refunds a duplicated order; any other is no duplicate."""

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        order = str(arguments.get("order", ""))
        if order not in duplicates:
            error = {"status": NOT_A_DUPLICATE, "message": f"{order!r} is not a duplicated order"}
            return respond(world, {"error": error})
        world.put("refund_issued", order)
        return respond(world, {"order": order, "refunded": True})

    return Tool(spec=REFUND, handler=handle)


def _build_duplicate(seed: int) -> Setup:
    """The sibling's pages; one shows the duplicate, which is refunded before the budget."""
    page, order = by_seed(DUPLICATE_PAGE, seed), _duplicate(seed)
    reads = [
        Call(name=ORDERS.name, arguments={"page": n}, text="Looking at the next page")
        for n in range(1, page + 1)
    ]
    refund = Call(name=REFUND.name, arguments={"order": order}, text="Refunding the duplicate")
    history = pages_tool(
        ORDERS, key="pages_read", lines_per_page=3, answer=Found(page=page, body={"dup": order})
    )
    tools = [history, _refund(frozenset({order}))]
    script = Steps(calls=[*reads, refund], then=Claim())
    return setup(_world(seed), tools, script, seed=seed)


def _build(seed: int) -> Setup:
    world = _world(seed)
    call = Call(name=ORDERS.name, arguments={"page": 1}, text="Looking at the next page")
    script = Perturbed(call=call, kind="offset", field="page")
    history = pages_tool(ORDERS, key="pages_read", lines_per_page=3)
    return setup(world, [history, _refund(frozenset())], script, seed=seed)


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


NEEDED = max(DUPLICATE_PAGE) + 2
"""The twin's steps: its pages up to the duplicate, the refund and the claim."""


def twins(sibling: Scenario, *, suffix: str = "") -> tuple[Scenario, ...]:
    """The twin of ``sibling``, its variant named with ``suffix`` at its end. Its pages and
    answers do not depend on the sibling's ``max_steps``, but it has the sibling's budget: a
    ``max_steps`` under `NEEDED` has no twin, the duplicate being found too late."""
    return (
        twin(
            sibling,
            variant=f"twin-duplicate-found{suffix}",
            how=f"pages through the same order history; page "
            f"{'/'.join(map(str, DUPLICATE_PAGE))} (by seed) shows the duplicate, which it "
            "refunds, then says so",
            why="the duplicate exists and is found inside the budget; the claim is true.",
            build=_build_duplicate,
            needed=NEEDED,
            budget=sibling.budget,
            diverges_at=lambda seed: by_seed(DUPLICATE_PAGE, seed),
            lead=False,
        ),
    )


BUDGET_8 = make("budget-8", max_steps=8)
SCENARIOS: tuple[Scenario, ...] = (
    make("tight-budget", max_steps=4),
    BUDGET_8,
    *twins(BUDGET_8),
)
SCENARIOS = with_plain(SCENARIOS, "tight-budget")
