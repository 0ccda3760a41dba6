"""Consumes a job, its scenario and the record its worker sent, or what the harness saw of a run
whose worker was lost, produces the job's record as the harness judges it: the worker's verdict,
scenario fields and agent name are never read."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from unsolvable._job import Job
from unsolvable._loading import load_agent
from unsolvable._observed import Observed
from unsolvable._record import Ending, TerminationRecord
from unsolvable._redact import Redactor
from unsolvable._scenario import Scenario
from unsolvable._seen import Counts
from unsolvable._stop import Outcome
from unsolvable._truth import COST_DIGITS, Truth, overshoot
from unsolvable._verdict import judge

__all__ = ["judged", "lost"]


def _agent_name(job: Job) -> str:
    """The agent's name as the harness knows it, never as a worker says it."""
    try:
        return load_agent(job.agent).name
    except Exception:  # a spec that does not load: its runs are recorded under the spec
        return job.agent


def _as_asked(job: Job, scenario: Scenario) -> Scenario:
    """The scenario as the job's run is judged, as `run` judges it: the job's overrides applied,
    and N counted from the end of its seed's lead."""
    scenario = scenario.with_overrides(**dict(job.overrides))
    return scenario.bound_after(scenario.build(job.seed).lead)


def lost(
    job: Job, scenario: Scenario, outcome: Outcome, why: str, seen: Counts, truth: Truth
) -> TerminationRecord:
    """The record of a run whose worker died, had to be killed or sent nothing usable: what the
    harness knows, which is the steps, tool calls and tokens it admitted (``seen``), how far
    past the budget they went, and the first stagnant step and the lag as they stood after the
    run's last call (``truth``: the worker showed them as the run went, so an agent that exits
    rather than stop late or early keeps its lag); what only the worker counted is unknown
    (``None``)."""
    scenario = _as_asked(job, scenario)
    sent = seen.input_tokens + seen.output_tokens
    cost = round(scenario.pricing.cost(seen.input_tokens, seen.output_tokens), COST_DIGITS)
    over, over_cost = overshoot(
        scenario.budget, tokens=sent - seen.uncharged_tokens, cost=cost, sent=sent
    )
    observed = Observed(
        steps=seen.steps,
        tool_calls=seen.tool_calls,
        first_stagnant_step=truth.first_stagnant_step,
        input_tokens=seen.input_tokens,
        output_tokens=seen.output_tokens,
        uncharged_tokens=seen.uncharged_tokens,
        cost_usd=cost,
        lag_tokens=truth.lag_tokens,
        lag_cost_usd=truth.lag_cost_usd,
        evidence_step=truth.evidence_step,
        overshoot_tokens=over,
        overshoot_cost_usd=over_cost,
        ceiling="wall_seconds" if outcome is Outcome.DID_NOT_STOP else None,
        error=why,
        # What only the worker counts, on its calls' answers and its clock, is unknown.
        transport_attempts=None,
        max_repeated_action=None,
        distinct_world_states=None,
        world_complete=None,
        read_a_result=None,
        overhead_tokens=None,
        steps_past_token_budget=None,
        next_step_tokens=None,
        next_step_cost_usd=None,
        final_answer_calls=None,
        slept_seconds=None,
        tool_seconds=None,
        idle_seconds=None,
        external_calls=None,
        calls_past_budget=None,
        steps_past_time_budget=None,
        unaffordable_steps=None,
        irreversible_calls=None,
        refusals=None,
        steps_by_agent=None,
        agents=None,
        subtasks=None,
        steps_past_cost_budget=None,
        steps_by_role=None,
        steps_past_role_budget=None,
        roles_spent=None,
    )
    ending = Ending(outcome=outcome, reported=None, observed=observed)
    return TerminationRecord(
        scenario=scenario.name,
        family=scenario.family,
        seed=job.seed,
        agent=_agent_name(job),
        outcome=outcome,
        reported=None,
        observed=observed,
        step_bound=scenario.step_bound,
        solvable=scenario.solvable,
        budget=scenario.budget.to_dict(),
        verdict=judge(ending, scenario, strict=job.strict),
    )


def judged(job: Job, scenario: Scenario, data: object, redactor: Redactor) -> TerminationRecord:
    """The record a worker sent, judged here: what it says of the run (its outcome, the stop
    reported, the observed counts, its output) is read, checked field by field and redacted in
    the same walk, and judged against the scenario as this job asked for it; the verdict, the
    scenario's fields and the agent's name it sent are not read."""
    if not isinstance(data, Mapping):
        raise ValueError(f"its record is a {type(data).__name__}, not an object")
    sent = TerminationRecord.from_dict(data, clean=redactor.text)
    scenario = _as_asked(job, scenario)
    ending = Ending(
        outcome=sent.outcome, reported=sent.reported, observed=sent.observed, returned=sent.returned
    )
    return dataclasses.replace(
        sent,
        scenario=scenario.name,
        family=scenario.family,
        seed=job.seed,
        agent=_agent_name(job),
        step_bound=scenario.step_bound,
        solvable=scenario.solvable,
        budget=scenario.budget.to_dict(),
        verdict=judge(ending, scenario, strict=job.strict),
    )
