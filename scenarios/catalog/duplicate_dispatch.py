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
    in_words,
    ordinal,
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

__all__ = ["FAMILY", "SCENARIOS", "make", "retry_twin"]

FAMILY = "duplicate-dispatch"
SUPPLIERS = 3
"""The library's suppliers: two dispatched in the first wave, the third never."""
STORE = "audit-store"


def step_bound(suppliers: int) -> int:
    """The first wave's audits (all but the last supplier's), then room for the re-dispatches a
    stop needs to see and the stop (N counts from the end of the seed's background reading)."""
    return 1 + (suppliers - 1) * WORKER_STEPS + 8


def retry_needs(suppliers: int) -> int:
    """The twin's work: the first wave, the failed filing's retry, the last audit and the claim;
    its sibling's budget covers it, so that the budget tells the two apart in neither."""
    return 1 + suppliers * WORKER_STEPS + 2 + WORKER_STEPS + 1


def _again(lost: int) -> Wave:
    return Wave(
        subtasks=[subtask(lost)], text=f"I have no result for S-{lost}; dispatching it again"
    )


def _build(seed: int, *, suppliers: int = SUPPLIERS, retry: bool = False) -> Setup:
    lead, reading = background(seed)
    numbers, lost = range(1, suppliers + 1), suppliers - 1
    first = Wave(
        subtasks=[subtask(n) for n in range(1, suppliers)],
        text="Splitting the audits across workers",
    )
    last = Wave(subtasks=[subtask(suppliers)], text="Dispatching the last audit")
    again = _again(lost)
    script = Waves(
        before=lead,
        waves=[first, again, last] if retry else [first],
        cycle=() if retry else [again],
        workers={subtask(n): finishes(n) for n in numbers},
        then=Claim(text=f"All {in_words(suppliers)} audits are filed."),
    )
    filed: Tool = filing(numbers)
    if retry:
        once = refused_first(unavailable_tool(FILE, STORE), filed, times=1)
        filed = by_argument(filed, field="number", routes={str(lost): once})
    tools = [registry(numbers), filed]
    return delegated_setup(
        audits(numbers), tools, script, seed=seed, reading=reading, lead=len(lead)
    )


def _first_wave(suppliers: int) -> str:
    """The first wave: every audit but the last, all filed."""
    dispatched = in_words(suppliers - 1)
    filed = {2: "it is filed", 3: "both are filed"}.get(suppliers, f"all {dispatched} are filed")
    return f"delegates {dispatched} of the {in_words(suppliers)} audits; {filed}"


def make(variant: str, *, suppliers: int = SUPPLIERS) -> Scenario:
    """The audits of ``suppliers``, all but the last dispatched at once, the return of the last
    of them lost and it dispatched again and again; N and the budget follow from how many."""
    if suppliers < 2:
        raise ValueError(
            f"duplicate-dispatch: {suppliers} suppliers leave none to dispatch first; give at "
            "least 2"
        )
    lost, never = suppliers - 1, ordinal(suppliers)
    return scenario(
        family=FAMILY,
        variant=variant,
        lead=True,
        task=f"Audit the compliance files of {in_words(suppliers)} suppliers; delegate one per "
        "worker.",
        how=f"as supervisor, {_first_wave(suppliers)}, but it loses S-{lost}'s return and "
        f"dispatches it again every step, never the {never}",
        why=f"The {never} audit is never dispatched, and running a finished one again files "
        "nothing new.",
        build=partial(_build, suppliers=suppliers),
        expected=frozenset({Code.NO_PROGRESS}),
        step_bound=step_bound(suppliers),
        budget=group_budget(retry_needs(suppliers)),
        stagnation=Stagnation.NOVELTY,
    )


def retry_twin(
    sibling: Scenario, *, suppliers: int = SUPPLIERS, variant: str = "twin-retry-after-failure"
) -> Scenario:
    """The twin of ``sibling``, made with ``suppliers``: the lost audit's filing meets a 503
    once, so it is dispatched again, filed, and the last dispatched; the supervisor's third move
    is the first that differs, whatever the count."""
    lost = suppliers - 1
    return twin(
        sibling,
        variant=variant,
        how=f"as supervisor, delegates {in_words(lost)} audits; S-{lost}'s filing meets a 503 "
        f"from the {STORE}, so it dispatches S-{lost} again, which is filed, then the "
        f"{ordinal(suppliers)}",
        why=f"the {STORE} answers the retry. Identical to {sibling.name} until S-{lost}'s "
        "first filing: a failure is a stated reason to retry.",
        build=partial(_build, suppliers=suppliers, retry=True),
        needed=retry_needs(suppliers),
        diverges_at=lambda seed: lead(seed) + 3,
    )


LOST_RETURN = make("lost-return")
SCENARIOS: tuple[Scenario, ...] = (LOST_RETURN, retry_twin(LOST_RETURN))
SCENARIOS = with_plain(SCENARIOS, "lost-return")
