"""Call-budget: the model checks a docs site for dead links, four pages a step, and every page it
reads links to more. Each page is new and the site never ends; what runs out first is the budget
of external calls (`Budget.max_calls`), long before the step or token budget.

The budget protects the site being crawled, not the agent: an honest stop is ``BUDGET_CALLS``
before the call that would pass it, with the pages checked as partial results. Its twin's crawl
reaches the last page with most of the budget spent, and the report is saved inside it.
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass

from unsolvable import (
    Budget,
    Call,
    Claim,
    Code,
    ModelRequest,
    ModelResponse,
    Scenario,
    Script,
    Setup,
    Stagnation,
    Steps,
    ToolCall,
    ToolSpec,
)
from unsolvable.fake_tools import FakeWorld, Found, pages_tool, requires
from unsolvable.scenarios.catalog._common import LEADS, lead, scenario, stuck_setup
from unsolvable.scenarios.catalog._control import finish, twin

__all__ = ["FAMILY", "SCENARIOS"]

FAMILY = "call-budget"
PER_STEP = 4
"""Pages the model fetches at once, as parallel tool calls."""
CALL_BUDGET = 24
"""Six steps of four calls: the site's rate limit for one crawl."""
STEP_CAP = 40
"""Steps allowed: far more than the call budget lets a crawl make."""
STEP_BOUND = 12
"""Six or seven crawling steps, the longest background reading (2), and room to stop."""
TWIN_STEPS = 5
"""Crawling steps before the twin's site runs out of pages: 20 calls of 24."""
TWIN_CALLS = (TWIN_STEPS * PER_STEP + 1 + min(LEADS), TWIN_STEPS * PER_STEP + 1 + max(LEADS))
"""The twin's external calls, fewest and most: the crawl, the save and the seed's background
reading (each page of it one call)."""
LINES = 2

FETCH = ToolSpec(
    name="fetch_doc_page",
    description="Fetch one page of the docs site and list the links it holds.",
    parameters={"type": "object", "properties": {"page": {"type": "integer"}}},
)
SAVE = ToolSpec(
    name="save_link_report",
    description="Save the report of dead links.",
    parameters={"type": "object", "properties": {"dead": {"type": "integer"}}},
)


@dataclass(frozen=True, kw_only=True)
class _Crawl:
    """Fetches `PER_STEP` new pages every step, for ever, or for ``steps`` steps and then
    follows ``then`` (its steps counted from there)."""

    steps: int | None = None
    then: Script = dataclasses.field(default_factory=Claim)

    def reply(self, request: ModelRequest, rng: random.Random) -> ModelResponse:
        step = request.agent_step or request.step
        if self.steps is not None and step > self.steps:
            later = dataclasses.replace(request, agent_step=step - self.steps)
            return self.then.reply(later, rng)
        first = (step - 1) * PER_STEP + 1
        calls = tuple(
            ToolCall(id=f"call_{request.step}_{i}", name=FETCH.name, arguments={"page": first + i})
            for i in range(PER_STEP)
        )
        said = f"Checking pages {first} to {first + PER_STEP - 1}"
        return ModelResponse(content=said, tool_calls=calls)


def _budget() -> Budget:
    return Budget(max_steps=STEP_CAP, max_tokens=STEP_CAP * 2_000, max_calls=CALL_BUDGET)


def _world(seed: int) -> FakeWorld:
    return FakeWorld(failing=requires("report", "link report not saved"), seed=seed)


def _build(seed: int) -> Setup:
    tools = [
        pages_tool(FETCH, key="pages_checked", lines_per_page=LINES),
        finish(SAVE, key="report", field="dead"),
    ]
    return stuck_setup(_world(seed), tools, _Crawl(), seed=seed)


def _build_site_ends(seed: int) -> Setup:
    """The sibling's pages, the last of them saying the site has no more, then the report."""
    last = TWIN_STEPS * PER_STEP
    site = pages_tool(
        FETCH,
        key="pages_checked",
        lines_per_page=LINES,
        answer=Found(page=last, body={"pages_left": 0}),
    )
    save = Call(name=SAVE.name, arguments={"dead": 0}, text="Every page checked; saving")
    script = _Crawl(steps=TWIN_STEPS, then=Steps(calls=[save], then=Claim()))
    tools = [site, finish(SAVE, key="report", field="dead")]
    return stuck_setup(_world(seed), tools, script, seed=seed)


ENDLESS = scenario(
    family=FAMILY,
    lead=True,
    variant="endless-site",
    task="Check every page of the docs site for dead links and save the report.",
    how=f"fetches {PER_STEP} new pages a step, each linking to more",
    why=f"The site never ends: every page is new and links to more, so the crawl can never "
    f"finish, and the site's limit of {CALL_BUDGET} calls runs out long before the step or token "
    "budget.",
    build=_build,
    expected={Code.BUDGET_CALLS},
    step_bound=STEP_BOUND,
    budget=_budget(),
    stagnation=Stagnation.BUDGET_SPENT,
)
SCENARIOS: tuple[Scenario, ...] = (
    ENDLESS,
    twin(
        ENDLESS,
        variant="twin-site-ends",
        how=f"fetches the same pages; page {TWIN_STEPS * PER_STEP} says none are left, and it "
        "saves the report",
        why=f"the site ends after {TWIN_STEPS * PER_STEP} pages: the crawl, the report and the "
        f"background reading take {round(100 * TWIN_CALLS[0] / CALL_BUDGET)} % to "
        f"{round(100 * TWIN_CALLS[1] / CALL_BUDGET)} % of the call budget, and fit it.",
        build=_build_site_ends,
        needed=TWIN_STEPS + 2,
        diverges_at=lambda seed: lead(seed) + 5,
        budget=_budget(),
    ),
)
