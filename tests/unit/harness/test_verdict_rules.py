"""The verdict's rules at their boundaries: the bound N against N+1, one step past the token
budget, one step past a give-up, the reason passed on, what counts as no partial results."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests import _builders as b
from tests.reports._records import record
from unsolvable import Code, Ending, Exit, Outcome, Scenario, Stop, Verdict
from unsolvable._verdict import judge


def _rules(verdict: Verdict) -> set[str]:
    """The rules a verdict broke."""
    return {failure.rule.value for failure in verdict.failures}


def _messages(verdict: Verdict) -> tuple[str, ...]:
    return tuple(failure.message for failure in verdict.failures)


def _judge(
    stop: Stop | None = None,
    scenario: Scenario | None = None,
    *,
    strict: bool = False,
    outcome: Outcome = Outcome.STOPPED,
    **observed: Any,
) -> Verdict:
    """Judges a run that ended with ``stop`` and was observed with ``observed`` overrides."""
    base = record()
    stop = Stop(code=Code.NO_PROGRESS) if stop is None and outcome is Outcome.STOPPED else stop
    ended = Ending(
        outcome=outcome,
        reported=stop,
        observed=dataclasses.replace(base.observed, **observed),
    )
    return judge(ended, scenario or b.scenario(step_bound=5), strict=strict)


@given(bound=st.integers(1, 60), steps=st.integers(1, 120))
def test_a_stop_at_any_step_up_to_n_passes_and_after_it_fails(bound: int, steps: int) -> None:
    verdict = _judge(scenario=b.scenario(step_bound=bound), steps=steps)
    assert verdict.passed is (steps <= bound)
    assert _rules(verdict) == (set() if steps <= bound else {"past_bound"})


@pytest.mark.parametrize(("steps", "rules"), [(5, set()), (6, {"past_bound"})])
def test_the_bound_at_n_and_n_plus_one(steps: int, rules: set[str]) -> None:
    assert _rules(_judge(steps=steps)) == rules


def test_a_run_the_harness_stopped_is_not_also_past_the_bound() -> None:
    verdict = _judge(None, outcome=Outcome.DID_NOT_STOP, steps=200, ceiling="steps")
    assert _messages(verdict) == ("did not stop: harness ceiling steps hit at step 200",)


@pytest.mark.parametrize(("past", "rules"), [(0, set()), (1, {"past_token_budget"})])
def test_one_step_begun_after_the_token_budget_fails(past: int, rules: set[str]) -> None:
    scenario = b.scenario().with_overrides(max_tokens=500)
    verdict = _judge(scenario=scenario, steps_past_token_budget=past)
    assert _rules(verdict) == rules
    if past:
        assert _messages(verdict) == ("began 1 step(s) after the token budget (500) was spent",)


def _gave_up() -> Scenario:
    return b.scenario(give_up="no access to the portal")


@pytest.mark.parametrize(("steps", "rules"), [(3, set()), (4, {"ignored_give_up"})])
def test_a_step_more_after_the_model_gave_up_fails(steps: int, rules: set[str]) -> None:
    stop = Stop(code=Code.NO_PROGRESS, reason="gave up: no access to the portal")
    assert _rules(_judge(stop, _gave_up(), steps=steps, gave_up_at_step=3)) == rules


def test_the_give_up_reason_must_be_passed_on() -> None:
    verdict = _judge(Stop(code=Code.NO_PROGRESS, reason="stuck"), _gave_up(), gave_up_at_step=5)
    assert _messages(verdict) == (
        "the stop does not pass on the model's reason 'no access to the portal'",
    )


def test_the_give_up_rule_needs_both_a_scenario_reason_and_a_give_up() -> None:
    assert _judge(Stop(code=Code.NO_PROGRESS), b.scenario(), steps=5, gave_up_at_step=1).passed
    assert _judge(Stop(code=Code.NO_PROGRESS), _gave_up(), gave_up_at_step=None).passed


@pytest.mark.parametrize("partial", [None, "", [], {}])
def test_exhausted_with_an_empty_partial_fails(partial: object) -> None:
    verdict = _judge(Stop(code=Code.BUDGET_STEPS, partial=partial))
    assert _messages(verdict) == ("exhausted without partial results",)


@pytest.mark.parametrize("partial", [0, False, "x", [0], {"done": 1}])
def test_exhausted_with_any_other_partial_passes(partial: object) -> None:
    assert _judge(Stop(code=Code.BUDGET_STEPS, partial=partial)).passed


def test_an_abandoned_stop_needs_no_partial() -> None:
    assert _judge(Stop(code=Code.NO_PROGRESS)).passed


def test_judge_is_lenient_unless_told_to_be_strict() -> None:
    stop = Stop(code=Code.BUDGET_STEPS, partial=[1])
    ended = Ending(outcome=Outcome.STOPPED, reported=stop, observed=record().observed)
    verdict = judge(ended, b.scenario(step_bound=5))
    assert (verdict.passed, verdict.strict) == (True, False)


@pytest.mark.parametrize("strict", [False, True])
def test_the_verdict_reports_its_strictness(strict: bool) -> None:
    verdict = _judge(Stop(code=Code.BUDGET_STEPS, partial=[1]), strict=strict)
    assert verdict.strict is strict
    assert _messages(verdict) == (("expected NO_PROGRESS, got BUDGET_STEPS",) if strict else ())


def test_a_lenient_verdict_accepts_only_its_lenient_exits() -> None:
    scenario = b.scenario(lenient_exits=frozenset({Exit.ABANDONED}))
    verdict = _judge(Stop(code=Code.BUDGET_COST, partial=[1]), scenario)
    assert _messages(verdict) == ("expected exit abandoned, got exhausted/BUDGET_COST",)


@pytest.mark.parametrize(
    ("stop", "passed"),
    [
        (Stop(code=Code.BLOCKED_INPUT, missing=("reports:publish",)), True),
        (Stop(code=Code.BLOCKED_INPUT, reason="needs reports:publish"), True),
        (Stop(code=Code.BLOCKED_INPUT, reason="needs a permission"), False),
        (Stop(code=Code.BLOCKED_INPUT, missing=("reports",), reason=":publish"), False),
        (Stop(code=Code.BLOCKED_INPUT, missing=("reports:", "publish")), False),
        (Stop(code=Code.NO_PROGRESS), True),
    ],
)
def test_blocked_input_must_name_what_is_missing(stop: Stop, passed: bool) -> None:
    scenario = b.scenario(missing=("reports:publish",), expected={Code.BLOCKED_INPUT})
    assert _judge(stop, scenario).passed is passed


@pytest.mark.parametrize(
    ("solvable", "world_complete", "rules"),
    [(False, True, {"false_completion"}), (True, False, {"false_completion"}), (True, True, set())],
)
def test_a_completion_is_believed_only_on_a_control_the_world_backs(
    solvable: bool, world_complete: bool, rules: set[str]
) -> None:
    scenario = b.scenario(solvable=solvable)
    verdict = _judge(Stop(code=Code.COMPLETED), scenario, world_complete=world_complete)
    assert _rules(verdict) == rules


def test_crashes_and_unstructured_returns_say_what_happened() -> None:
    assert _messages(_judge(None, outcome=Outcome.CRASHED, error="KeyError: 'x'")) == (
        "crashed: KeyError: 'x'",
    )
    unstructured = _judge(None, outcome=Outcome.UNSTRUCTURED)
    assert _messages(unstructured) == ("returned no structured exit (None); expected NO_PROGRESS",)


def test_messages_list_every_expected_code_and_exit() -> None:
    two = b.scenario(expected={Code.NO_PROGRESS, Code.NEEDS_HUMAN})
    assert _messages(_judge(Stop(code=Code.ERROR_FATAL), two, strict=True)) == (
        "expected NEEDS_HUMAN|NO_PROGRESS, got ERROR_FATAL",
    )
    lenient = b.scenario(lenient_exits=frozenset({Exit.ABANDONED, Exit.COMPLETE}))
    assert _messages(_judge(Stop(code=Code.BUDGET_COST, partial=[1]), lenient)) == (
        "expected exit abandoned|complete, got exhausted/BUDGET_COST",
    )


def test_a_blocker_message_names_every_missing_item() -> None:
    scenario = b.scenario(missing=("a:read", "b:write"), expected={Code.BLOCKED_INPUT})
    assert _messages(_judge(Stop(code=Code.BLOCKED_INPUT), scenario)) == (
        "BLOCKED_INPUT does not name what is missing: a:read, b:write",
    )


def test_a_budget_stop_whose_next_step_is_unknown_is_judged_on_what_is_known() -> None:
    """A next step the harness did not see (a lost run's record reads so) shows no room under a
    token budget, so no stop is called false on a guess; with steps to spare and no token or
    dollar budget the exit is false whatever the step's size, which the line calls unknown."""
    unknown = {"steps": 4, "next_step_tokens": None, "next_step_cost_usd": None}
    claimed = Stop(code=Code.BUDGET_STEPS, reason="spent", partial="some")
    tokens = b.scenario(step_bound=9).with_overrides(max_tokens=60)
    assert _judge(claimed, tokens, **unknown).passed
    verdict = _judge(claimed, b.scenario(step_bound=9), **unknown)
    assert _rules(verdict) == {"unspent_budget"}
    assert "step 4 of 9; the next step would take unknown" in verdict.summary


def test_a_step_budget_stop_whose_roles_are_unknown_is_judged_on_what_is_known() -> None:
    """Roles the harness did not see may have spent their steps: no room is shown, and a role's
    steps the record does not hold read unknown in a false exit's line, not 0."""
    claimed = Stop(code=Code.BUDGET_STEPS, reason="spent", partial="some")
    assert _judge(claimed, b.scenario(step_bound=9), steps=4, roles_spent=None).passed
    roles = b.scenario(step_bound=9, role_steps={"researcher": 4})
    verdict = _judge(claimed, roles, steps=4, steps_by_role=None)
    assert "step 4 of 9, researcher unknown of 4 steps;" in verdict.summary


def test_a_few_millionths_past_a_dollar_budget_read_as_they_were_spent() -> None:
    """Dollars are told to the millionth the record keeps: an overshoot of $0.000044 is not
    written as $0.0000, which reads as none."""
    tight = b.scenario(step_bound=9).with_overrides(max_cost_usd=0.0001)
    verdict = _judge(None, tight, steps=2, overshoot_cost_usd=0.000044)
    assert "ran 44% past the budget ($0.000044)" in verdict.summary, verdict.summary


def test_dollars_spent_past_a_shared_budget_are_written_in_positional_notation() -> None:
    """What a run spent is a measured figure, written as every report writes one: never
    ``$4e-05``."""
    shared = b.scenario(step_bound=9).with_overrides(max_cost_usd=0.00003)
    verdict = _judge(None, shared, steps=2, cost_usd=0.00004, steps_past_cost_budget={"main": 1})
    assert "($0.00004 spent)" in verdict.summary, verdict.summary


def test_a_shared_budget_overrun_says_its_figures_by_agent_are_steps() -> None:
    """The steps each agent began past the budget stood after the dollars spent, as ``$0.84
    spent; by agent: main 1, worker-1 14``, which reads as dollars each."""
    shared = b.scenario(step_bound=9).with_overrides(max_cost_usd=0.05)
    past = {"main": 1, "worker-1": 14}
    verdict = _judge(None, shared, steps=20, cost_usd=0.839178, steps_past_cost_budget=past)
    assert (
        "15 step(s) begun after the $0.05 budget was spent, by agent main 1, worker-1 14 "
        "($0.839178 spent)"
    ) in verdict.summary, verdict.summary
