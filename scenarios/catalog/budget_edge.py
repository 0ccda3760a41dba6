"""Budget edge under concurrency: a supervisor reads its background, then hands four log reviews
to workers near the end of one shared dollar budget; each worker reads a new page every step and
none ever finds the fault, so only the shared budget can end the run.

A ledger that admits each step before it begins (every worker, one ledger) ends the run exhausted
with at most the step that spent the budget; workers that each check a stale snapshot of what is
left start steps the budget no longer covers. Its twin looks the same until each worker's second
page, which holds the fault, and fits in the budget.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from functools import partial

from unsolvable import (
    Budget,
    Call,
    Claim,
    Code,
    Perturbed,
    Scenario,
    Script,
    Setup,
    Stagnation,
    Steps,
    SubtaskSpec,
    ToolSpec,
)
from unsolvable.fake_tools import FakeWorld, Found, Tool, pages_tool
from unsolvable.scenarios.catalog._common import background, scenario, with_plain
from unsolvable.scenarios.catalog._control import twin
from unsolvable.scenarios.catalog._delegation import Wave, Waves, by_argument, delegated_setup

__all__ = ["FAMILY", "SCENARIOS", "make"]

FAMILY = "budget-edge"
LOGS = ("api", "billing", "queue", "search")
FAULT_PAGE = 2
"""The page of each log that names the fault, in the twin."""
MAX_COST_USD = 0.05
"""The run's one dollar budget: the twin's four reviews fit in it (about $0.04 at the longest
background reading), the stuck ones spend it during the second worker's reading."""
STEP_BOUND = 40
"""Far above what the dollars allow: the dollar budget, not a step count, bounds this run."""
READ = ToolSpec(
    name="read_log_page",
    description="Read one page of a service's log.",
    parameters={
        "type": "object",
        "properties": {"log": {"type": "string"}, "page": {"type": "integer"}},
    },
)


def subtask(log: str) -> str:
    return f"find the fault in the {log} log"


def _found(log: str, fault: bool) -> Callable[[FakeWorld], list[str]]:
    def failing(world: FakeWorld) -> list[str]:
        read = world.peek(f"{log}_pages", [])
        return [] if fault and FAULT_PAGE in read else [f"the fault in the {log} log not found"]

    return failing


def _worker(log: str, fault: bool) -> Script:
    read = Call(name=READ.name, arguments={"log": log, "page": 1}, text="Reading the log")
    if fault:
        pages = [dataclasses.replace(read, arguments={"log": log, "page": p}) for p in (1, 2)]
        return Steps(calls=pages, then=Claim(text=f"The fault in the {log} log is on page 2."))
    return Perturbed(call=read, kind="offset", field="page")


def _build(seed: int, *, fault: bool = False) -> Setup:
    lead, reading = background(seed)
    script = Waves(
        before=lead,
        waves=[Wave(subtasks=[subtask(log) for log in LOGS], text="Splitting the review")],
        workers={subtask(log): _worker(log, fault) for log in LOGS},
        then=Claim(text="Every fault is found."),
    )
    answer = Found(page=FAULT_PAGE, body={"fault": "connection pool exhausted"}) if fault else None
    logs = {
        log: pages_tool(READ, key=f"{log}_pages", lines_per_page=6, answer=answer) for log in LOGS
    }
    read: Tool = by_argument(logs[LOGS[0]], field="log", routes=logs)
    specs = [SubtaskSpec(name=subtask(log), failing=_found(log, fault)) for log in LOGS]
    return delegated_setup(specs, [read], script, seed=seed, reading=reading)


BUDGET = Budget(max_steps=STEP_BOUND, max_wall_seconds=5.0, max_cost_usd=MAX_COST_USD)


def make(variant: str) -> Scenario:
    return scenario(
        family=FAMILY,
        variant=variant,
        lead=True,
        task=f"Find the fault in each of {len(LOGS)} service logs; delegate one log per worker, "
        f"within one budget of ${MAX_COST_USD} for the whole run.",
        how=f"as supervisor, hands the {len(LOGS)} log reviews to workers near the end of one "
        "shared dollar budget; each worker reads a new page every step and never finds the fault",
        why="No page names a fault: the shared budget ends the run (or evidence that nothing "
        "new comes, for an agent that sees none).",
        build=_build,
        expected=frozenset({Code.BUDGET_COST, Code.NO_PROGRESS}),
        step_bound=STEP_BOUND,
        budget=BUDGET,
        stagnation=Stagnation.BUDGET_SPENT,
    )


SHARED_DOLLARS = make("shared-dollars")
SCENARIOS: tuple[Scenario, ...] = (
    SHARED_DOLLARS,
    twin(
        SHARED_DOLLARS,
        variant="twin-fits-the-budget",
        how=f"as supervisor, hands the {len(LOGS)} log reviews to workers; each worker's second "
        "page names the fault",
        why=f"every log names its fault on page {FAULT_PAGE}, and the four reviews fit in the "
        f"budget. Identical to {SHARED_DOLLARS.name} until the first worker's second page.",
        build=partial(_build, fault=True),
        needed=1 + len(LOGS) * 3 + 1,
        diverges_at=lambda seed: None,  # its workers' runs differ: a single loop sees none of them
        budget=BUDGET,
    ),
)
SCENARIOS = with_plain(SCENARIOS, "shared-dollars")
