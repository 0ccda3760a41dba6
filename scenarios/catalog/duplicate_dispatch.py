"""Duplicate dispatch: a supervisor loses a worker's return and dispatches the same subtask again,
and again, and never dispatches the one that is left.

A subtask starts once unless it is retried after a failure: running a finished audit a second
time is a second execution on the same ticket, and no progress. Its twin looks the same until
the second audit's filing, which a store answers 503 once: that failure is a reason to retry,
and the retry finishes it.
"""

from __future__ import annotations

from functools import partial

from unsolvable import Claim, Code, Scenario, Setup, Stagnation
from unsolvable.fake_tools import Tool, unavailable_tool
from unsolvable.scenarios.catalog._audits import (
    FILE,
    WORKER_STEPS,
    audits,
    filing,
    finishes,
    registry,
    subtask,
)
from unsolvable.scenarios.catalog._common import background, lead, scenario, with_plain
from unsolvable.scenarios.catalog._control import group_budget, twin
from unsolvable.scenarios.catalog._delegation import (
    Wave,
    Waves,
    by_argument,
    delegated_setup,
    refused_first,
)

__all__ = ["FAMILY", "SCENARIOS", "make"]

FAMILY = "duplicate-dispatch"
NUMBERS = (1, 2, 3)
LOST = 2
"""The supplier whose worker's return the supervisor loses."""
STORE = "audit-store"
STEP_BOUND = 1 + 2 * WORKER_STEPS + 8
"""The first wave's two audits, then room for the re-dispatches a stop needs to see and the
stop (N counts from the end of the seed's background reading)."""
RETRY_NEEDS = 1 + 3 * WORKER_STEPS + 2 + WORKER_STEPS + 1
"""The twin's work: the first wave, the failed filing's retry, the third audit and the claim;
its sibling's budget covers it, so that the budget tells the two apart in neither."""
AGAIN = Wave(
    subtasks=[subtask(LOST)],
    text=f"I have no result for S-{LOST}; dispatching it again",
)


def _build(seed: int, *, retry: bool = False) -> Setup:
    lead, reading = background(seed)
    first = Wave(subtasks=[subtask(1), subtask(LOST)], text="Splitting the audits across workers")
    last = Wave(subtasks=[subtask(3)], text="Dispatching the last audit")
    script = Waves(
        before=lead,
        waves=[first, AGAIN, last] if retry else [first],
        cycle=() if retry else [AGAIN],
        workers={subtask(n): finishes(n) for n in NUMBERS},
        then=Claim(text="All three audits are filed."),
    )
    filed: Tool = filing(NUMBERS)
    if retry:
        once = refused_first(unavailable_tool(FILE, STORE), filed, times=1)
        filed = by_argument(filed, field="number", routes={str(LOST): once})
    tools = [registry(NUMBERS), filed]
    return delegated_setup(
        audits(NUMBERS), tools, script, seed=seed, reading=reading, lead=len(lead)
    )


def make(variant: str) -> Scenario:
    return scenario(
        family=FAMILY,
        variant=variant,
        lead=True,
        task="Audit the compliance files of three suppliers; delegate one per worker.",
        how=f"as supervisor, delegates two of the three audits; both are filed, but it loses "
        f"S-{LOST}'s return and dispatches it again every step, never the third",
        why="The third audit is never dispatched, and running a finished one again files "
        "nothing new.",
        build=_build,
        expected=frozenset({Code.NO_PROGRESS}),
        step_bound=STEP_BOUND,
        budget=group_budget(RETRY_NEEDS),
        stagnation=Stagnation.NOVELTY,
    )


LOST_RETURN = make("lost-return")
SCENARIOS: tuple[Scenario, ...] = (
    LOST_RETURN,
    twin(
        LOST_RETURN,
        variant="twin-retry-after-failure",
        how=f"as supervisor, delegates two audits; S-{LOST}'s filing meets a 503 from the "
        f"{STORE}, so it dispatches S-{LOST} again, which is filed, then the third",
        why=f"the {STORE} answers the retry. Identical to {LOST_RETURN.name} until S-{LOST}'s "
        "first filing: a failure is a stated reason to retry.",
        build=partial(_build, retry=True),
        needed=RETRY_NEEDS,
        diverges_at=lambda seed: lead(seed) + 3,
    ),
)
SCENARIOS = with_plain(SCENARIOS, "lost-return")
