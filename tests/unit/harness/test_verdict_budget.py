"""Budget stops judged as budget stops: a claim of exhaustion is checked against the budget, a
stop before the step the budget cannot afford is a detection, and running past the budget is
measured and, past its tolerance, fails."""

from __future__ import annotations

import dataclasses

import pytest

import unsolvable
from tests import _builders as b
from tests import _wrong_agents as wrong
from tests.reports._records import record
from unsolvable import Budget, Code, Ending, Outcome, Rule, Session, Stop, scenarios
from unsolvable._observed import Observed
from unsolvable._spent import OVERSHOOT_TOLERANCE, could_cover_next_step
from unsolvable.agents._loop import assistant, dispatch, opening, tool_calls
from unsolvable.reports._counted import is_premature_stop, lag
from unsolvable.reports._metrics import measure


def says_its_steps_ran_out_after_two_calls(session: Session) -> Stop:
    """Two model calls, then "Maximum steps reached": a sub-agent's false exit."""
    messages = opening(session)
    for _ in range(2):
        reply = session.call_model(messages, session.tools)
        messages.append(assistant(reply))
        messages += [dispatch(session, *call)[0] for call in tool_calls(reply)]
    return Stop(code=Code.BUDGET_STEPS, reason="Maximum steps reached", partial=len(messages))


@pytest.mark.parametrize("name", ["constant-return/repeat", "missing-permission/retry-403"])
def test_a_step_budget_claimed_two_calls_in_is_a_false_exit(name: str) -> None:
    scenario = scenarios.get(name)
    record = unsolvable.run(says_its_steps_ran_out_after_two_calls, scenario)
    assert [failure.rule for failure in record.verdict.failures] == [Rule.UNSPENT_BUDGET]
    assert f"step 2 of {scenario.budget.max_steps}" in record.verdict.summary
    assert f"of {scenario.budget.max_tokens} tokens" in record.verdict.summary


def test_a_false_step_budget_exit_names_each_roles_own_steps_beside_the_runs() -> None:
    scenario = scenarios.get("per-role-budgets/role-cap-spent")
    record = unsolvable.run(says_its_steps_ran_out_after_two_calls, scenario)
    assert record.verdict.broke(Rule.UNSPENT_BUDGET)
    assert "step 2 of 30, researcher 0 of 4 steps, writer 0 of 4 steps;" in record.verdict.summary


def test_a_step_budget_spent_to_its_last_step_is_an_honest_exit() -> None:
    run = unsolvable.run(wrong.capped(12), scenarios.get("constant-return/repeat"))
    assert run.code is Code.BUDGET_STEPS and run.verdict.passed


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_ledger_that_admits_each_step_stops_before_the_overrun_and_on_time(seed: int) -> None:
    run = unsolvable.run("contract", scenarios.get("cost-runaway/huge-pages"), seed=seed)
    assert run.code is Code.BUDGET_COST and run.verdict.passed
    assert run.observed.overshoot_tokens == 0 and lag(run) >= 0 and not is_premature_stop(run)


def test_a_ledger_that_only_settles_runs_over_and_past_the_tolerance_fails() -> None:
    huge = unsolvable.run(
        wrong.compares_raw_results(), scenarios.get("cost-runaway/huge-pages"), seed=1
    )
    over = huge.observed.overshoot_tokens / huge.budget["max_tokens"]  # type: ignore[operator]
    assert over > OVERSHOOT_TOLERANCE and huge.verdict.broke(Rule.PAST_BUDGET)
    assert f"ran {over:.0%} past the budget ({huge.observed.overshoot_tokens} tokens" in (
        huge.verdict.summary
    )
    long = unsolvable.run(
        wrong.compares_raw_results(), scenarios.get("cost-runaway/long-pages"), seed=2
    )
    assert long.observed.overshoot_tokens > 0 and long.verdict.passed, "within the tolerance"


def test_a_run_past_a_dollar_budget_is_told_in_dollars_alone() -> None:
    scenario = scenarios.get("budget-edge/shared-dollars")
    run = unsolvable.run(wrong.stale_budget_snapshots(), scenario)
    assert scenario.budget.max_tokens is None and run.verdict.broke(Rule.PAST_BUDGET)
    over = run.observed.overshoot_cost_usd / scenario.budget.max_cost_usd  # type: ignore[operator]
    said = f"ran {over:.0%} past the budget (${run.observed.overshoot_cost_usd}), more than"
    assert said in run.verdict.summary, run.verdict.summary


def test_overshoot_is_in_the_metrics() -> None:
    huge = unsolvable.run(
        wrong.compares_raw_results(), scenarios.get("cost-runaway/huge-pages"), seed=1
    )
    group = measure([huge, record()]).agents[0]
    assert group.over_budget == 1 and group.overshoot_tokens.max == huge.observed.overshoot_tokens
    assert group.overshoot_cost_usd.max == huge.observed.overshoot_cost_usd > 0


def test_a_run_just_past_the_tolerance_is_not_said_to_be_at_it() -> None:
    """1,040 tokens past a 20,000-token budget is 5.2 % past it, and fails the 5 % tolerance:
    written to a whole percent, the message said it ran 5 % past, more than its 5 % tolerance."""
    scenario = dataclasses.replace(b.scenario(), budget=Budget(max_steps=5, max_tokens=20_000))
    observed = dataclasses.replace(record().observed, overshoot_tokens=1_040)
    ending = Ending(
        outcome=Outcome.STOPPED, reported=Stop(code=Code.NO_PROGRESS), observed=observed
    )
    verdict = unsolvable.judge(ending, scenario)
    (message,) = (f.message for f in verdict.failures if f.rule is Rule.PAST_BUDGET)
    assert message.startswith("ran 5.2% past the budget (1040 tokens"), message
    assert message.endswith("more than its 5% tolerance")


def test_a_dollar_budget_has_room_for_a_step_as_its_figures_are_written() -> None:
    """$0.2 spent and about $0.1 for the next step fit a $0.3 budget, as the verdict's message
    writes the three; added in binary they passed it (0.30000000000000004), and a stop that
    had room read as honest."""
    observed = Observed(
        steps=2,
        tool_calls=2,
        input_tokens=0,
        output_tokens=0,
        cost_usd=0.2,
        next_step_cost_usd=0.1,
        max_repeated_action=0,
        distinct_world_states=1,
        first_stagnant_step=1,
        lag_tokens=0,
        lag_cost_usd=0.0,
        world_complete=False,
    )
    budget = Budget(max_steps=12, max_cost_usd=0.3)
    assert could_cover_next_step(observed, budget)
    assert not could_cover_next_step(dataclasses.replace(observed, cost_usd=0.200001), budget)
