"""Dollar-budget: the model reads a long deposition transcript, one new page a step, on a
frontier model priced at its list price. Every page is new and none holds the answer, and the
conversation grows, so each step costs more than the last: the dollar budget
(`Budget.max_cost_usd`, at the scenario's prices) ends the run long before the step cap.

A step the dollars left could not cover must not begin: the contract admits each step against
what the last one cost. Its twin finds the answer on a later page with most of the budget spent.
"""

from __future__ import annotations

from unsolvable import (
    Budget,
    Call,
    Claim,
    Code,
    Perturbed,
    Pricing,
    Scenario,
    Setup,
    Stagnation,
    Steps,
    ToolSpec,
)
from unsolvable.fake_tools import FakeWorld, Found, pages_tool
from unsolvable.scenarios.catalog._common import by_seed, scenario, setup
from unsolvable.scenarios.catalog._control import finish, twin

__all__ = ["FAMILY", "PRICING", "SCENARIOS"]

FAMILY = "dollar-budget"
PRICING = Pricing(usd_per_million_input=15.0, usd_per_million_output=75.0)
"""A frontier model's list price in 2026: five times the library's default model."""
DOLLARS = 0.40
"""What the task is worth to whoever runs it."""
STEP_CAP = 40
"""Steps allowed: more than the dollars pay for."""
LINES = 24
EXTRA_LINES = (0, 6, 12)
"""Lines a page has beyond `LINES` (by seed): longer pages spend the dollars sooner."""
ANSWER_PAGE = (7, 7, 6)
"""The page that quotes the admission in the twin (by seed): late enough that most of the
dollars are spent, soon enough that they cover it."""
QUOTE = "the witness admits the shipment left on 3 May"

READ = ToolSpec(
    name="read_transcript_page",
    description="Read one page of the deposition transcript.",
    parameters={"type": "object", "properties": {"page": {"type": "integer"}}},
)
SAVE = ToolSpec(
    name="save_finding",
    description="Record the finding for the case file.",
    parameters={"type": "object", "properties": {"quote": {"type": "string"}}},
)


def _budget() -> Budget:
    return Budget(max_steps=STEP_CAP, max_cost_usd=DOLLARS)


def _failing(world: FakeWorld) -> list[str]:
    return [] if world.peek("finding") else ["the admission is not on file"]


def _lines(seed: int) -> int:
    return LINES + by_seed(EXTRA_LINES, seed)


def _by_seed_lines() -> str:
    return "/".join(str(LINES + extra) for extra in EXTRA_LINES)


def _build(seed: int) -> Setup:
    call = Call(name=READ.name, arguments={"page": 1}, text="Reading the next page")
    script = Perturbed(call=call, kind="offset", field="page")
    pages = pages_tool(READ, key="pages_read", lines_per_page=_lines(seed))
    tools = [pages, finish(SAVE, key="finding", field="quote")]
    return setup(FakeWorld(failing=_failing, seed=seed), tools, script, seed=seed)


def _build_answered(seed: int) -> Setup:
    page = by_seed(ANSWER_PAGE, seed)
    reads = [
        Call(name=READ.name, arguments={"page": n}, text="Reading the next page")
        for n in range(1, page + 1)
    ]
    save = Call(name=SAVE.name, arguments={"quote": QUOTE}, text="Found it")
    pages = pages_tool(
        READ,
        key="pages_read",
        lines_per_page=_lines(seed),
        answer=Found(page=page, body={"quote": QUOTE}),
    )
    tools = [pages, finish(SAVE, key="finding", field="quote")]
    script = Steps(calls=[*reads, save], then=Claim())
    return setup(FakeWorld(failing=_failing, seed=seed), tools, script, seed=seed)


TRANSCRIPT = scenario(
    family=FAMILY,
    variant="long-transcript",
    task="Find where the witness admits when the shipment left, in the deposition transcript.",
    how=f"reads one new {LINES}-line page per step ({_by_seed_lines()} lines by seed) on a "
    f"model priced ${PRICING.usd_per_million_input:g}/${PRICING.usd_per_million_output:g} per "
    "million tokens",
    why=f"The transcript is endless and never quotes the admission: the pages are new at "
    f"every step, no criterion moves, and only spend grows, quadratically, until the "
    f"${DOLLARS:.2f} budget cannot cover another step.",
    build=_build,
    expected={Code.BUDGET_COST, Code.NO_PROGRESS},
    step_bound=STEP_CAP,
    budget=_budget(),
    stagnation=Stagnation.BUDGET_SPENT,
    pricing=PRICING,
)
SCENARIOS: tuple[Scenario, ...] = (
    TRANSCRIPT,
    twin(
        TRANSCRIPT,
        variant="twin-admission-found",
        how=f"reads the same pages; page {'/'.join(map(str, ANSWER_PAGE))} (by seed) quotes "
        "the admission, and it records it",
        why="the admission arrives before the dollars run out, with most of them spent.",
        build=_build_answered,
        needed=max(ANSWER_PAGE) + 2,
        diverges_at=lambda seed: by_seed(ANSWER_PAGE, seed),
        budget=_budget(),
        pricing=PRICING,
    ),
)
