"""Records built by hand for metrics and report tests, and a small real run of the library."""

from __future__ import annotations

import functools

import unsolvable
from tests import _builders as b
from unsolvable import (
    Code,
    Ending,
    Failure,
    Observed,
    Outcome,
    Rule,
    Stop,
    TerminationRecord,
    TraceStep,
    Verdict,
    scenarios,
)

FAMILIES = ("constant-return", "missing-permission", "long-healthy")
"""Two unsolvable families and one control family: every kind of group, quickly."""


def record(
    *,
    scenario: str = "fam/a",
    agent: str = "a",
    seed: int = 0,
    steps: int = 5,
    stagnant: int = 2,
    bound: int = 10,
    solvable: bool = False,
    code: Code | None = Code.NO_PROGRESS,
    outcome: Outcome | None = None,
    passed: bool = True,
    world_complete: bool = False,
    completed_at: int | None = None,
    lag_tokens: int = 100,
) -> TerminationRecord:
    """One judged record; the family is the scenario name up to its slash. A world complete
    at the end became complete at ``completed_at`` (default: the last step)."""
    observed = Observed(
        steps=steps,
        tool_calls=steps,
        first_stagnant_step=stagnant,
        input_tokens=10 * steps,
        output_tokens=steps,
        cost_usd=0.001 * steps,
        lag_tokens=lag_tokens,
        lag_cost_usd=lag_tokens / 100_000,
        max_repeated_action=1,
        distinct_world_states=1,
        world_complete=world_complete,
        completed_at_step=(completed_at or steps) if world_complete else None,
        evidence_step=None if solvable else stagnant,
        tail=(TraceStep(step=steps, said="<b>still</b> | searching"),),
    )
    stop = Stop(code=code, reason="why") if code else None
    ending = Ending(
        outcome=outcome or (Outcome.STOPPED if code else Outcome.UNSTRUCTURED),
        reported=stop,
        observed=observed,
    )
    return TerminationRecord(
        scenario=scenario,
        family=scenario.split("/")[0],
        seed=seed,
        agent=agent,
        outcome=ending.outcome,
        reported=stop,
        observed=observed,
        step_bound=bound,
        solvable=solvable,
        budget={"max_steps": bound},
        verdict=_verdict(ending, solvable=solvable, bound=bound, passed=passed),
    )


def _verdict(ending: Ending, *, solvable: bool, bound: int, passed: bool) -> Verdict:
    """The real verdict on a scenario of this shape; ``passed=False`` adds one failure."""
    judged = unsolvable.judge(ending, b.scenario(solvable=solvable, step_bound=bound))
    broke = () if passed else (Failure(rule=Rule.PAST_BOUND, message="it | broke"),)
    failures = (*judged.failures, *broke)
    return Verdict(passed=not failures, strict=False, failures=failures)


@functools.cache
def library_records() -> tuple[TerminationRecord, ...]:
    """Both reference agents on `FAMILIES`, every seed, in the CLI's order."""
    return tuple(
        unsolvable.run(agent, scenario, seed=seed)
        for scenario in scenarios.select(FAMILIES)
        for seed in scenario.seeds
        for agent in ("naive", "contract")
    )
