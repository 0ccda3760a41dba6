"""Agents that end their runs other than by a stop decision, through the command line: none may
score better on detection lag or premature stops than the stop decision it stands in for."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import unsolvable
from tests.cli import gaming_agents, gaming_supervisors
from tests.cli.test_cli import _unsolvable
from unsolvable import scenarios

GAMING = "tests.cli.gaming_agents"
REPEAT = "constant-return/repeat"


def _scored(
    tmp_path: Path, *agents: str, scenario: str = REPEAT, module: str = GAMING
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Each agent of ``module``: its run of ``scenario`` (seed 0) and its metrics over all its
    runs, by label."""
    out = tmp_path / "records.json"
    labels = [arg for name in agents for arg in ("--agent", f"{name}={module}:{name}")]
    result = _unsolvable("run", *labels, "--scenario", scenario, "--json", str(out))
    assert result.returncode in (0, 1), result.stderr
    data = json.loads(out.read_text())
    records = {r["agent"]: r for r in data["records"]}
    return records, {g["agent"]: g for g in data["metrics"]["agents"]}


GUESSES = (
    "stops_at_once",
    "raises_at_once",
    "skips_the_asked_calls_at_once",
    "repeats_a_call_at_once",
    "offers_no_tools_at_once",
)
"""A guess at step 1 of `REPEAT` (stagnant from step 2), made by a stop and made otherwise."""


def test_a_guess_made_another_way_than_by_stopping_scores_as_the_guess(tmp_path: Path) -> None:
    """Raising instead of stopping, leaving the model's calls unmade, repeating one of them to
    see nothing new, or offering the model no tools so that it can ask for nothing: none turns
    the guess into a detection (lag 0, no premature stop)."""
    records, metrics = _scored(tmp_path, *GUESSES)
    assert records["raises_at_once"]["outcome"] == "crashed"
    scored = {name: (m["premature_stops"], m["lag_steps"]["p95"]) for name, m in metrics.items()}
    assert scored == dict.fromkeys(GUESSES, (1, -1))


def test_a_refusal_of_the_agents_own_making_is_no_evidence(tmp_path: Path) -> None:
    """Under the first-refusal rule the stagnant step was the first refused call whoever asked
    for it: a lookup of an order the agent made up, which no such order answers with a 404,
    turned its guess at step 1 into a stop on the spot, on a seed whose model reads a page of
    background first. Only a call the model asked for, refused, is evidence."""
    out = tmp_path / "records.json"
    agents = ("stops_at_once", "looks_up_what_is_not_there_at_once")
    labels = [arg for name in agents for arg in ("--agent", f"{name}={GAMING}:{name}")]
    scenario = "false-premise/no-such-order"
    result = _unsolvable("run", *labels, "--scenario", scenario, "--seed", "1", "--json", str(out))
    assert result.returncode in (0, 1), result.stderr
    metrics = json.loads(out.read_text())["metrics"]["agents"]
    scored = {m["agent"]: (m["premature_stops"], m["lag_steps"]["p95"]) for m in metrics}
    assert scored == dict.fromkeys(agents, (1, -1))


def test_calls_left_unmade_after_their_answer_is_known_hide_no_lag(tmp_path: Path) -> None:
    """The model asks for the search it already made: its answer is known, so leaving it unmade
    keeps nothing possible, and the late stop lags as one that made it would."""
    records, metrics = _scored(tmp_path, "stops_late_without_looking")
    record = records["stops_late_without_looking"]
    lag = record["observed"]["steps"] - 2  # the search answered nothing new from step 2 on
    scored = metrics["stops_late_without_looking"]
    assert (scored["premature_stops"], scored["lag_steps"]["p95"]) == (0, lag)


@pytest.mark.parametrize(
    ("agent", "scenario"),
    [
        ("offers_no_tools_at_once", "todo-spawn/plain"),
        ("offers_no_tools_then_stops", "constant-return/stuck-after-progress"),
    ],
)
def test_a_step_that_offered_no_tools_is_no_evidence(
    tmp_path: Path, agent: str, scenario: str
) -> None:
    """A model offered no tools can ask for nothing, so its step brings nothing new, and no
    criterion moves: a guess made right after one was scored as a stop on the spot (lag 0), on a
    task stuck by its criteria from the start or one still making progress (stagnant from
    step 5). The step is carried over as one that could still have brought news."""
    _, metrics = _scored(tmp_path, agent, scenario=scenario)
    scored = metrics[agent]
    assert (scored["premature_stops"], scored["lag_steps"]["p95"] < 0) == (1, True)


def test_a_call_made_in_place_of_the_one_asked_is_no_evidence(tmp_path: Path) -> None:
    """A call of the tool the model asked for, with arguments of the agent's choosing, was
    taken for the call asked: an agent that made the call its tool was first made with, whose
    answer it knew, instead of the next one its model asked for, saw nothing new, and its guess
    in a run still making progress scored as a stop on the spot. It scores as the guess made
    after the calls asked."""
    out = tmp_path / "records.json"
    agents = ("stops_at_the_second_step", "repeats_an_earlier_call_instead")
    labels = [arg for name in agents for arg in ("--agent", f"{name}={GAMING}:{name}")]
    scenario = "constant-return/stuck-after-progress"
    result = _unsolvable("run", *labels, "--scenario", scenario, "--all-seeds", "--json", str(out))
    assert result.returncode in (0, 1), result.stderr
    metrics = json.loads(out.read_text())["metrics"]["agents"]
    scored = [(m["premature_stops"], m["lag_steps"]) for m in metrics]
    assert scored[0] == scored[1] and scored[0][0] == 3


def test_a_tool_result_of_the_agents_own_making_reads_nothing(tmp_path: Path) -> None:
    """A stop made before reading anything is blind, and a premature stop whatever its lag: a
    tool result the agent wrote into its conversation, answering no call its model asked for,
    made one look read, and a run that spent its step budget never looking counted lag 0."""
    _, metrics = _scored(tmp_path, "never_looks", "never_looks_but_writes_a_result")
    scored = {name: (m["premature_stops"], m["blind_stops"]) for name, m in metrics.items()}
    assert scored["never_looks_but_writes_a_result"] == scored["never_looks"] == (1, 1)


def test_a_stop_its_spent_budget_chose_lags_from_the_news_it_saw(tmp_path: Path) -> None:
    """A budget stop whose budget could not cover the next step counts its lag from 0: no
    guess. An agent that called its model to the end of its step budget, making none of the
    calls it asked for and answering each with a refusal of its own, read a result, and the
    calls it never made held every step open: lag 0, where following its model to the same
    stop lags from the second step. Nothing it saw was news, so it lags from the first."""
    records, metrics = _scored(tmp_path, "ignores_its_budget", "never_looks_but_answers_its_calls")
    steps = records["ignores_its_budget"]["observed"]["steps"]
    scored = {name: (m["premature_stops"], m["lag_steps"]["p95"]) for name, m in metrics.items()}
    assert scored == {
        "ignores_its_budget": (0, steps - 2),
        "never_looks_but_answers_its_calls": (0, steps - 1),
    }


def test_a_stop_that_had_the_evidence_lags_from_the_news_it_saw(tmp_path: Path) -> None:
    """A call the agent left unmade holds its step open, so that a stop after it is no
    detection; but a stop that had the evidence by then is none the less no guess, and the
    steps it skipped hid its lag: on constant-return/perturbed-offset, whose model asks for a
    new offset every step, skipping the calls of every step but the first and the tenth, and
    stopping there, lagged 0 where making them lags 8."""
    agents = ("stops_late", "stops_late_having_skipped_its_calls")
    _, metrics = _scored(tmp_path, *agents, scenario="constant-return/perturbed-offset")
    scored = {name: (m["premature_stops"], m["lag_steps"]["p95"]) for name, m in metrics.items()}
    assert scored == dict.fromkeys(agents, (0, gaming_agents.LATE_STEP - 2))


def test_a_run_a_ceiling_ended_before_its_bound_lags_past_the_bound(tmp_path: Path) -> None:
    records, metrics = _scored(tmp_path, "spins_at_once")
    record = records["spins_at_once"]
    assert (record["outcome"], record["observed"]["ceiling"]) == ("did_not_stop", "tool_calls")
    past_the_bound = record["step_bound"] + 1 - record["observed"]["first_stagnant_step"]
    lag = metrics["spins_at_once"]["lag_steps"]
    assert (lag["p50"], lag["p95"]) == (past_the_bound, past_the_bound)
    steps_per_bound = metrics["spins_at_once"]["steps_per_bound"]["p95"]
    assert (metrics["spins_at_once"]["over_bound"], steps_per_bound) == (
        1,
        round((record["step_bound"] + 1) / record["step_bound"], 4),
    )


def test_an_agent_cannot_mark_a_ceiling_to_stop_a_control_without_a_false_stop(
    tmp_path: Path,
) -> None:
    """A run the harness's ceiling ended is no false stop: an agent that could mark one itself
    would stop every control as early as it liked, its false-stop rate 0."""
    records, metrics = _scored(
        tmp_path,
        "stops_at_once",
        "claims_a_ceiling",
        scenario="constant-return/ambiguous-found-late",
    )
    assert records["claims_a_ceiling"]["outcome"] != "did_not_stop"
    rates = {name: (m["false_stops"], m["false_stop_rate"]) for name, m in metrics.items()}
    assert rates["claims_a_ceiling"] == rates["stops_at_once"] == (1, 1.0)


def test_a_prompt_sent_once_is_credited_once_so_a_budget_still_binds(tmp_path: Path) -> None:
    """An agent's own prompt is not charged to the task's budget: were the first call's prompt
    credited on every later call, one long prompt sent once would make the run's tokens free."""
    records, _ = _scored(
        tmp_path, "ignores_its_budget", "pads_its_first_prompt", scenario="cost-runaway/plain"
    )
    charged = {
        name: record["observed"]["input_tokens"]
        + record["observed"]["output_tokens"]
        - record["observed"]["uncharged_tokens"]
        for name, record in records.items()
    }
    assert charged["pads_its_first_prompt"] == charged["ignores_its_budget"]
    failed = {name: _rules(record) for name, record in records.items()}
    assert "past_budget" in failed["pads_its_first_prompt"] == failed["ignores_its_budget"]


def test_a_prompt_is_its_agents_own_only_once_that_agent_sends_it_again(tmp_path: Path) -> None:
    """Each agent's prompt is credited, not only the first agent's: were a new agent's first
    prompt credited whole, an agent that made each call under a new name, its conversation in
    its prompt, would run uncharged."""
    records, _ = _scored(tmp_path, "renames_itself_every_call", scenario="cost-runaway/plain")
    assert "past_budget" in _rules(records["renames_itself_every_call"])


def _rules(record: dict[str, Any]) -> set[str]:
    return {failure["rule"] for failure in record["verdict"]["failures"]}


@pytest.mark.parametrize("agent", ["asks_everything_twice", "looks_everywhere_too"])
def test_looking_harder_buys_no_pass_on_an_ambiguous_twin(tmp_path: Path, agent: str) -> None:
    """An ambiguous twin is its sibling until its divergence step, so no stop logic passes it on
    every seed with no lag on the sibling. Where its search found the invoice at its k-th call,
    not at the k-th step, an agent that asked every call twice saw the invoice a step early, and
    where its ledger listed the invoice from the start, one that read every tool too saw it
    there: each passed the twin on every seed and stopped the sibling at its first stagnant
    step."""
    out = tmp_path / "records.json"
    agent = f"{GAMING}:{agent}"
    result = _unsolvable(
        "run", "--agent", agent, "--all-seeds", "--json", str(out),
        "--scenario", REPEAT, "--scenario", "constant-return/ambiguous-found-late",
    )  # fmt: skip
    assert result.returncode in (0, 1), result.stderr
    (scored,) = json.loads(out.read_text())["metrics"]["agents"]
    assert (scored["premature_stops"], scored["lag_steps"]["p95"]) == (0, 0)
    assert scored["false_stops"] > 0


def test_a_refused_call_put_off_is_dated_when_it_was_first_asked(tmp_path: Path) -> None:
    """A refused call the model asked for is the first stagnant step of a blocked task. It was
    dated at the step it was made: an agent that answered its model's call with a result of its
    own for four steps, then made it, the same call, and stopped on its refusal, lagged 0, where
    making it at once and stopping at the same step lags 4; so did one that asked each step
    afresh under a new name. The refusal is dated at the first step the same call was asked for
    and not made there."""
    agents = (
        "makes_the_refused_call_then_waits",
        "puts_off_the_refused_call",
        "puts_off_the_refused_call_under_new_names",
    )
    _, metrics = _scored(tmp_path, *agents, scenario="missing-permission/plain")
    scored = {name: (m["premature_stops"], m["lag_steps"]["p95"]) for name, m in metrics.items()}
    assert scored == dict.fromkeys(agents, (0, gaming_agents.PUT_OFF_STEP - 1))


def test_a_lookup_put_off_and_made_under_another_spelling_is_dated_when_first_asked(
    tmp_path: Path,
) -> None:
    """false-premise/no-such-order's model looks the order and its customer up under a new
    spelling every step, and every lookup answers 404. Only the same call put off was dated
    back: an agent that answered its model's lookups with results of its own for four steps,
    then made the fifth, another spelling, and stopped on its 404, lagged 0, where making the
    first and waiting lags 4. A lookup of what does not exist is refused whatever its spelling,
    so any of them put off dates the refusal read later."""
    agents = ("makes_the_refused_call_then_waits", "puts_off_the_refused_call")
    _, metrics = _scored(tmp_path, *agents, scenario="false-premise/no-such-order")
    scored = {name: (m["premature_stops"], m["lag_steps"]["p95"]) for name, m in metrics.items()}
    assert scored == dict.fromkeys(agents, (0, gaming_agents.PUT_OFF_STEP - 1))


BUDGETS_NOT_GIVEN = "cost-runaway/plain"
"""A task given budgets of steps and dollars, and none of calls, of idle time or of time."""


@pytest.mark.parametrize(
    "agent", ["stops_late_out_of_calls", "stops_late_out_of_idle_time", "stops_late_out_of_time"]
)
def test_a_budget_the_task_was_not_given_cannot_run_out(tmp_path: Path, agent: str) -> None:
    """A stop for a call, idle-time or time budget is taken at its word, since whether it ran
    out hangs on the calls the model asked for last or on the clock's real part; but a task
    given no such budget has none to run out. A late stop said to be for one passed as an
    honest exhaustion, while the same stop for the steps it had left fails as a false exit."""
    records, _ = _scored(tmp_path, "stops_late", agent, scenario=BUDGETS_NOT_GIVEN)
    assert _rules(records["stops_late"]) == set()
    assert _rules(records[agent]) == {"unspent_budget"}
    (failure,) = records[agent]["verdict"]["failures"]
    assert "no budget of" in failure["message"]


def _broken_in_process(*agents: str, scenario: str = REPEAT) -> dict[str, set[str]]:
    """The rules each agent's run of ``scenario`` (seed 0) broke, as `unsolvable.run` judges it
    in the caller's process: the pytest plugin's face, where no worker sends the record on to be
    judged again from its plain form."""
    return {
        name: {failure.rule.value for failure in record.verdict.failures}
        for name in agents
        for record in [unsolvable.run(getattr(gaming_agents, name), scenarios.get(scenario))]
    }


def test_a_stop_changed_after_it_was_made_is_judged_by_its_fields() -> None:
    """A stop whose code was set to ``COMPLETED`` under the exit ``abandoned`` was judged an
    honest stop, and then `unsolvable.run` raised making its record (the command line blamed a
    garbled channel): it is checked as a new stop is, and the run crashed."""
    agent = gaming_agents.claims_completion_as_abandoned
    record = unsolvable.run(agent, scenarios.get(REPEAT))
    assert record.outcome is unsolvable.Outcome.CRASHED
    assert "COMPLETED belongs to exit 'complete'" in (record.observed.error or "")


@pytest.mark.parametrize(
    ("scenario", "rule"),
    [
        ("missing-permission/plain", "missing_not_named"),
        ("give-up-honoured/plain", "give_up_reason_lost"),
    ],
)
def test_a_reason_that_says_it_names_everything_names_what_it_says(
    scenario: str, rule: str
) -> None:
    """The verdict asks whether a reason holds what is missing, or the model's reason for
    giving up: a text that answered yes to every such question passed both while the record
    wrote a reason that named neither."""
    broken = _broken_in_process(
        "blocks_without_naming", "blocks_saying_it_names_all", scenario=scenario
    )
    assert rule in broken["blocks_saying_it_names_all"] == broken["blocks_without_naming"]


def test_an_empty_partial_that_equals_nothing_is_no_partial() -> None:
    """An exhausted stop must hand back what it achieved: an empty mapping that said it equalled
    no empty value passed, while the record wrote it as ``{}``."""
    broken = _broken_in_process("exhausts_with_nothing", "exhausts_with_nothing_unequal")
    unequal, empty = broken["exhausts_with_nothing_unequal"], broken["exhausts_with_nothing"]
    assert "no_partial" in unequal == empty


def test_a_call_that_reaches_no_tool_is_no_news(tmp_path: Path) -> None:
    """A call to a tool that is not there, or with arguments that are no JSON, reaches no tool,
    and its error says the agent's own call back: made anew at every step, it was news at
    every step, and a stop at the tenth step of a run stuck from the second lagged 0. It lags
    as the same stop without the calls."""
    agents = ("stops_late", "stops_late_calling_no_tool", "stops_late_with_unreadable_arguments")
    records, metrics = _scored(tmp_path, *agents)
    assert records["stops_late"]["observed"]["detection_lag"] == gaming_agents.LATE_STEP - 2
    scored = {name: (m["premature_stops"], m["lag_steps"]["p95"]) for name, m in metrics.items()}
    assert scored == dict.fromkeys(agents, (0, gaming_agents.LATE_STEP - 2))


def test_a_run_that_did_not_stop_lags_from_the_news_it_saw(tmp_path: Path) -> None:
    """A step offering no tool, or whose asked calls the agent passed over, counts as one that
    could still bring news, so that a stop after it is no detection; but a run a ceiling ended
    made no stop, and carried so to its last step, a runaway read lag 0. Each runaway of
    constant-return/perturbed-offset, whose model asks for a new offset every step, lags as the
    one that made its model's calls."""
    agents = ("runs_away", "runs_away_offering_no_tools", "runs_away_making_no_calls")
    records, metrics = _scored(tmp_path, *agents, scenario="constant-return/perturbed-offset")
    assert {record["outcome"] for record in records.values()} == {"did_not_stop"}
    lag = records["runs_away"]["observed"]["steps"] - 2  # nothing new from step 2 on
    scored = {name: (m["premature_stops"], m["lag_steps"]["p95"]) for name, m in metrics.items()}
    assert scored == dict.fromkeys(agents, (0, lag))


EARLY = "stops_a_step_early_on_budget"
ASIDES = ("asks_another_agent_before_its_budget_stop", "asks_itself_afresh_before_its_budget_stop")
"""An early budget stop, made after a one-message step of another conversation: another agent's,
or a fresh one of the agent's own."""


@pytest.mark.parametrize("agent", ASIDES)
def test_a_small_step_of_another_conversation_makes_no_budget_stop_honest(agent: str) -> None:
    """A budget stop is honest when the budget could not cover the next step, estimated from the
    last step and its growth. Measured over the step before in the run, whatever conversation
    made it, a one-message step just before the last made the last seem to grow by nearly all
    it cost: a stop one or two steps early then read as honest (46 runs of the library each).
    Growth is measured within the conversation that made the last step."""
    broken = _broken_in_process(EARLY, agent, scenario="cost-runaway/plain")
    assert "unspent_budget" in broken[agent] & broken[EARLY]


@pytest.mark.parametrize("agent", ASIDES)
def test_a_small_step_of_another_conversation_hides_no_premature_stop(
    tmp_path: Path, agent: str
) -> None:
    """The same early stop is premature on a task whose budget is its stagnant step, whichever
    step came before its last."""
    _, metrics = _scored(tmp_path, EARLY, agent, scenario="cost-runaway/plain")
    assert metrics[agent]["premature_stops"] == metrics[EARLY]["premature_stops"] == 1


@pytest.mark.xfail(
    strict=True,
    reason="a conversation that jumps from a one-message step to the whole of another's still "
    "grows by nearly all its last step cost: growth measured from any step before can be made "
    "of one jump",
)
def test_a_jump_from_a_small_step_of_its_own_makes_no_budget_stop_honest() -> None:
    """The same early stop, its last step made under a name whose step before sent the
    conversation's opening message alone: that conversation did carry on its step before, so
    the estimate grows the last step by all it added at once (45 runs of the library escape)."""
    agent = "jumps_under_another_name_before_its_budget_stop"
    broken = _broken_in_process(EARLY, agent, scenario="cost-runaway/plain")
    assert "unspent_budget" in broken[agent] & broken[EARLY]


def test_work_done_aside_is_credited_when_it_was_done(tmp_path: Path) -> None:
    """Under a refusal, a subtask that finished later moves the first stagnant step after it:
    its worker's work was progress. Its success was dated at the first call a worker naming it
    made once its criteria held, not when they came to hold: an audit filed by a call made under
    another name, then checked by its worker after six steps that moved nothing, moved the
    stagnant step past them, and the late stop lagged 0. Both runs lag from the last filing."""
    agents = ("files_then_waits", "files_aside_then_credits_late")
    module = gaming_supervisors.__name__
    records, _ = _scored(tmp_path, *agents, scenario=gaming_supervisors.MIXED, module=module)
    filed = records["files_then_waits"]["observed"]["first_stagnant_step"]
    scored = {
        name: (
            record["verdict"]["passed"],
            record["observed"]["first_stagnant_step"],
            record["observed"]["detection_lag"],
        )
        for name, record in records.items()
    }
    assert scored == {
        name: (True, filed, records[name]["observed"]["steps"] - filed) for name in agents
    }
    assert scored["files_aside_then_credits_late"][2] > gaming_supervisors.WAITS
