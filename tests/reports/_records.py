"""Records built by hand for metrics and report tests, and a small real run of the library."""

from __future__ import annotations

import functools

import harness
import scenarios
from harness import Code, Observed, Outcome, Stop, TerminationRecord, TraceStep, Verdict

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
    lag_tokens: int = 100,
) -> TerminationRecord:
    """One judged record; the family is the scenario name up to its slash."""
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
        denied_calls=0,
        world_complete=world_complete,
        tail=(TraceStep(step=steps, said="<b>still</b> | searching"),),
    )
    return TerminationRecord(
        scenario=scenario,
        family=scenario.split("/")[0],
        seed=seed,
        agent=agent,
        outcome=outcome or (Outcome.STOPPED if code else Outcome.UNSTRUCTURED),
        reported=Stop(code=code, reason="why") if code else None,
        observed=observed,
        step_bound=bound,
        solvable=solvable,
        budget={"max_steps": bound},
        verdict=Verdict(passed=passed, strict=False, failures=() if passed else ("it | broke",)),
    )


@functools.cache
def library_records() -> tuple[TerminationRecord, ...]:
    """Both reference agents on `FAMILIES`, every seed, in the CLI's order."""
    return tuple(
        harness.run(agent, scenario, seed=seed)
        for scenario in scenarios.select(FAMILIES)
        for seed in scenario.seeds
        for agent in ("naive", "contract")
    )
