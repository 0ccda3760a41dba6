"""The metrics that read *how* a run stopped: blind and premature stops, the steps a control
needs, and the calibrated step cap at its boundaries (the cap at 1, a cap landing on a
stagnant step, controls claimed but not done)."""

from __future__ import annotations

import dataclasses
import functools
import json
from typing import Any

import pytest

import unsolvable
from tests import _wrong_agents as wrong
from tests.reports._records import record
from unsolvable import CHECK_TOOL, Code, Outcome, Session, Stop, TerminationRecord, scenarios
from unsolvable.agents import contract
from unsolvable.agents._loop import assistant, dispatch, opening, tool_calls
from unsolvable.reports._broke import tag
from unsolvable.reports._cells import COLUMNS, cells, step_cap_lines
from unsolvable.reports._counted import is_blind_stop, is_budget_spent, is_premature_stop, lag
from unsolvable.reports._distribution import Distribution
from unsolvable.reports._html import to_html
from unsolvable.reports._markdown import to_markdown
from unsolvable.reports._metrics import measure
from unsolvable.reports._step_cap import calibrated_step_cap


def _observed(base: TerminationRecord, **changes: object) -> TerminationRecord:
    return dataclasses.replace(base, observed=dataclasses.replace(base.observed, **changes))


def test_a_run_that_never_stopped_is_not_blind_whatever_it_read() -> None:
    runaway = record(code=None, outcome=Outcome.DID_NOT_STOP, steps=0)
    assert not is_blind_stop(runaway)
    assert not is_blind_stop(_observed(runaway, tool_calls=0))


def test_no_model_call_is_blind_even_after_tool_calls() -> None:
    assert is_blind_stop(_observed(record(), steps=0, tool_calls=3))


def test_no_tool_result_is_blind_unless_the_model_itself_gave_up() -> None:
    no_tools = _observed(record(steps=2), tool_calls=0)
    assert is_blind_stop(no_tools)
    assert not is_blind_stop(_observed(no_tools, gave_up_at_step=2))
    assert not is_blind_stop(record(steps=2))


def test_a_control_is_never_a_premature_stop_however_early_it_stopped() -> None:
    early = record(solvable=True, steps=1, stagnant=3, code=Code.NO_PROGRESS)
    assert early.observed.detection_lag == -2
    assert not is_premature_stop(early)
    assert is_premature_stop(dataclasses.replace(early, solvable=False))


def test_a_control_claimed_complete_but_not_done_needs_its_whole_bound() -> None:
    records = [
        record(scenario="fam/a", steps=2, stagnant=2),
        record(scenario="ctl/b", solvable=True, steps=3, bound=9, code=Code.COMPLETED),
    ]
    cap = calibrated_step_cap(records)
    assert cap is not None and (cap.cap, cap.lag_steps, cap.false_stops) == (
        9,
        Distribution.of([7]),
        0,
    )


def test_a_control_stopped_early_needs_its_whole_bound_too() -> None:
    records = [
        record(scenario="fam/a", steps=2, stagnant=2),
        record(scenario="ctl/b", solvable=True, steps=3, bound=8, code=Code.NO_PROGRESS),
        record(
            scenario="ctl/c",
            solvable=True,
            steps=4,
            bound=8,
            code=Code.COMPLETED,
            world_complete=True,
        ),
    ]
    cap = calibrated_step_cap(records)
    assert cap is not None and (cap.cap, cap.false_stops) == (4, 1), "allowed the agent's one"


def test_the_smallest_cap_is_one_step_never_zero() -> None:
    records = [
        record(scenario="fam/a", steps=1, stagnant=1),
        record(scenario="ctl/b", solvable=True, steps=1, code=Code.NO_PROGRESS),
    ]
    cap = calibrated_step_cap(records)
    assert cap is not None and cap.cap == 1 and cap.false_stops == 1


def test_a_control_done_in_one_step_calibrates_a_cap_of_one() -> None:
    records = [
        record(scenario="fam/a", steps=3, stagnant=1),
        record(scenario="ctl/b", solvable=True, steps=1, code=Code.COMPLETED, world_complete=True),
    ]
    cap = calibrated_step_cap(records)
    assert cap is not None and (cap.cap, cap.lag_steps, cap.false_stops) == (
        1,
        Distribution.of([0]),
        0,
    )
    assert (cap.premature_stops, cap.lag_p95, cap.agent_lag_p95) == (0, 0, 2)
    (sentence,) = step_cap_lines(measure(records))
    assert "the calibrated step cap (1 step):" in sentence


def test_a_cap_that_lands_on_the_stagnant_step_is_not_premature() -> None:
    records = [
        record(scenario="fam/a", steps=3, stagnant=3),
        record(scenario="fam/b", steps=5, stagnant=4),
        record(scenario="ctl/c", solvable=True, steps=3, code=Code.COMPLETED, world_complete=True),
    ]
    cap = calibrated_step_cap(records)
    assert cap is not None and cap.cap == 3
    assert cap.premature_stops == 1, "only fam/b, whose stagnant step 4 is past the cap"
    assert cap.lag_steps == Distribution.of([0, -1])


def test_a_group_of_controls_alone_has_no_cap_to_beat() -> None:
    controls = [
        record(scenario="ctl/a", solvable=True, steps=2, code=Code.COMPLETED, world_complete=True)
    ]
    group = measure(controls).agents[0]
    assert group.lag_steps is None and group.step_cap is None


def _exhausted(code: Code = Code.BUDGET_COST, **observed: object) -> TerminationRecord:
    """Step 4 of a 9-step budget of 60 tokens, 44 spent; the next step estimated at 10."""
    base = record(code=code, steps=4, stagnant=9, bound=9)
    budget = {"max_steps": 9, "max_tokens": 60, "max_wall_seconds": None, "max_cost_usd": None}
    spent = {"input_tokens": 40, "output_tokens": 4, "next_step_tokens": 10, **observed}
    return _observed(dataclasses.replace(base, budget=budget), **spent)


def test_a_budget_is_spent_when_it_cannot_cover_the_next_step() -> None:
    assert not is_budget_spent(_exhausted()), "44 + 10 tokens fit in 60"
    assert is_budget_spent(_exhausted(next_step_tokens=17)), "44 + 17 do not"
    assert is_budget_spent(_exhausted(steps=9)), "the step budget ran out"
    assert not is_budget_spent(_exhausted(Code.NO_PROGRESS, steps=9)), "not a budget stop"


def test_a_budget_stop_before_the_step_it_cannot_afford_counts_a_lag_of_at_least_zero() -> None:
    admitted = _exhausted(next_step_tokens=17)
    assert admitted.observed.detection_lag == -5 and lag(admitted) == 0
    assert not is_premature_stop(admitted)
    early = _exhausted()
    assert lag(early) == -5 and is_premature_stop(early)


def test_a_control_has_no_lag_to_count() -> None:
    with pytest.raises(ValueError, match=r"^lag\(\) of fam/a, a solvable control: it has no lag$"):
        lag(record(solvable=True))


def checks_the_claim_then_asks_a_human(session: Session) -> Stop:
    """Follows the model; when it claims success, re-reads the world once and hands the claim
    to a human rather than believe it: the stop of an independent contract agent."""
    messages = opening(session)
    while True:
        reply = session.call_model(messages, session.tools)
        messages.append(assistant(reply))
        if not tool_calls(reply):
            verdict = session.call_tool(CHECK_TOOL, {})
            return Stop(code=Code.NEEDS_HUMAN, reason=f"the claim does not hold: {verdict}")
        messages += [dispatch(session, *call)[0] for call in tool_calls(reply)]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_checking_a_claim_and_asking_a_human_is_no_premature_stop(seed: int) -> None:
    run = unsolvable.run(
        checks_the_claim_then_asks_a_human,
        scenarios.get("false-completion/claim-at-once"),
        seed=seed,
    )
    assert run.verdict.passed and run.observed.detection_lag == 0
    assert not is_premature_stop(run) and not is_blind_stop(run)


def test_a_claim_of_completion_is_no_premature_stop_and_a_crash_before_stagnation_is() -> None:
    """A crash ends the run as early as a stop would: were it no premature stop, raising would
    be a guess whose negative lag the metrics count with no premature stop beside it."""
    crashed = record(steps=1, stagnant=3, code=None, outcome=Outcome.CRASHED)
    claimed = record(steps=1, stagnant=3, code=Code.COMPLETED)
    assert not is_premature_stop(claimed)
    assert is_premature_stop(crashed) and is_premature_stop(record(steps=1, stagnant=3))
    assert not is_premature_stop(record(steps=3, stagnant=3, code=None, outcome=Outcome.CRASHED))
    assert not any(map(is_blind_stop, (crashed, claimed)))


def test_a_run_that_did_not_stop_lags_at_least_as_a_stop_past_its_bound() -> None:
    """A ceiling that found a run early (wall time, tool calls) cut it short: the step it found
    it at is no stop, and counted as one it scored a hang as a detection, or a guess."""
    cut = record(steps=1, stagnant=3, bound=10, code=None, outcome=Outcome.DID_NOT_STOP)
    assert (lag(cut), is_premature_stop(cut)) == (8, False)
    late = record(steps=200, stagnant=3, bound=10, code=None, outcome=Outcome.DID_NOT_STOP)
    assert lag(late) == 197
    group = measure([cut]).agents[0]
    assert (group.over_bound, group.steps_per_bound.p95, group.steps.p95) == (1, 1.1, 1)
    done = record(
        scenario="ctl/b", solvable=True, steps=4, code=Code.COMPLETED, world_complete=True
    )
    cap = calibrated_step_cap([cut, done])
    assert cap is not None and (cap.cap, cap.lag_steps.p95, cap.agent_lag_p95) == (4, 1, 8)


def test_a_framework_s_error_results_read_by_the_model_are_no_blind_stop() -> None:
    """Tool calls rejected before any tool ran, their errors sent to the model: no tool call
    reached the harness, but the agent read what came back."""
    rejected = _observed(record(steps=2, stagnant=1), tool_calls=0, read_a_result=True)
    assert not is_blind_stop(rejected)
    assert is_blind_stop(_observed(rejected, read_a_result=False))


def test_evidence_within_a_step_is_no_premature_stop() -> None:
    within = _observed(record(steps=1, stagnant=2), evidence_step=1)
    assert lag(within) == 0 and not is_premature_stop(within)


def finishes_then_says_so(session: Session) -> str:
    """Follows the model to the end of the task and returns its last words: no structured exit."""
    messages = opening(session)
    while True:
        reply = session.call_model(messages, session.tools)
        messages.append(assistant(reply))
        if not tool_calls(reply):
            return str(reply.get("content"))
        messages += [dispatch(session, *call)[0] for call in tool_calls(reply)]


def finishes_then_raises(session: Session) -> str:
    raise RuntimeError(f"could not format the answer {finishes_then_says_so(session)!r}")


def test_a_control_finished_in_the_world_is_no_false_stop_in_any_report() -> None:
    """Text or a crash at the end of a finished task is a finish reported otherwise, as a
    structured stop there is: the task was not stopped too early."""
    twin = scenarios.get("constant-return/twin-cursor-paging")
    records = [unsolvable.run(a, twin) for a in (finishes_then_says_so, finishes_then_raises)]
    assert all(r.observed.world_complete and not r.verdict.passed for r in records)
    metrics = measure(records)
    counted = [(group.false_stops, group.unreported_finishes) for group in metrics.agents]
    assert counted == [(0, 1), (0, 1)]
    assert [(g["false_stops"], g["unreported_finishes"]) for g in metrics.to_dict()["agents"]] == (
        counted
    )
    assert [cells(g)[COLUMNS.index("false stops")] for g in metrics.agents] == ["0/1 (0.0%)"] * 2
    rows = len(list(metrics))  # each agent over all its runs, per family and per scenario
    assert to_markdown(records, metrics).count("| 0/1 (0.0%) | 1 |") == rows
    assert to_html(records, metrics).count("<td>0/1 (0.0%)</td><td>1</td>") == rows
    assert [tag(r) for r in records] == ["", "crashed"], "neither is tagged a false stop"


@functools.cache
def _on_the_library(agent: Any) -> tuple[TerminationRecord, ...]:
    return tuple(
        unsolvable.run(agent, scenario, seed=seed)
        for scenario in scenarios.SCENARIOS
        for seed in scenario.seeds
    )


def test_a_fixed_cap_that_fails_every_run_beats_the_calibrated_cap_in_no_family() -> None:
    metrics = measure(_on_the_library(wrong.capped(6)))
    caps = [group.step_cap for group in metrics.families if group.step_cap is not None]
    assert caps and not any(cap.beaten for cap in caps)
    assert all(cap.shortfalls[0].endswith("runs failed their verdicts") for cap in caps)


def test_the_contract_beats_the_calibrated_cap_in_every_family_and_every_report_says_so() -> None:
    records = _on_the_library(contract)
    metrics = measure(records)
    families = [group for group in metrics.families if group.step_cap is not None]
    assert families and all(group.step_cap.beaten for group in families)  # type: ignore[union-attr]
    assert json.loads(json.dumps(metrics.to_dict()))["families"][0]["step_cap"]["beaten"] is True
    markdown, html = to_markdown(records, metrics), to_html(records, metrics)
    assert markdown.count(", beaten |") == html.count(", beaten<") == len(families) + 1, "and all"


def test_a_budget_stop_whose_next_step_is_unknown_is_counted_spent() -> None:
    """A next step the harness did not see shows no room: the stop is not called unspent on a
    guess, as the verdict does not call it false."""
    assert is_budget_spent(_exhausted(next_step_tokens=None, next_step_cost_usd=None))
