"""Every scenario catches the flawed agent it is built for: none passes by construction. Every
twin catches a stop logic that the unsolvable scenarios alone would let through."""

from __future__ import annotations

from typing import Any

import pytest

import unsolvable
from tests import _wrong_agents as wrong
from unsolvable import Code, scenarios
from unsolvable.agents import ContractAgent, contract, naive
from unsolvable.reports._counted import is_premature_stop

# family → (flawed agent factory, strict?, words the verdict must contain; "|" separates choices)
CAUGHT: dict[str, tuple[Any, bool, str]] = {
    "contradictory-criteria": (wrong.stops_when_state_unchanged, False, "after the bound"),
    "constant-return": (lambda: naive, False, "no structured exit|false completion"),
    "missing-permission": (
        lambda: wrong.retries_then_gives_a_vague_stop(Code.BLOCKED_INPUT),
        False,
        "retried a refused call",
    ),
    "dependency-unavailable": (
        lambda: wrong.retries_then_gives_a_vague_stop(Code.ERROR_FATAL, attempts=5),
        False,
        "retried a refused call",
    ),
    "oscillation": (wrong.stops_when_state_unchanged, False, "after the bound"),
    "reconfirm-as-progress": (wrong.trusts_progress_claims, False, "after the bound"),
    "todo-spawn": (wrong.novelty_only, True, "expected NO_PROGRESS, got BUDGET_STEPS"),
    "false-completion": (lambda: naive, False, "false completion"),
    "forced-final-answer": (lambda: None, False, "false completion"),
    "fan-out": (lambda: naive, False, "did not stop"),
    "mixed-fan-out": (wrong.forgets_finished_subtasks, False, "does not list the subtasks"),
    "duplicate-dispatch": (wrong.runs_every_dispatch, False, "duplicate dispatch"),
    "task-graph": (wrong.runs_every_dispatch, False, "failure not propagated"),
    "role-ping-pong": (wrong.blind_to_rounds, True, "expected NO_PROGRESS, got BUDGET_STEPS"),
    "nested-delegation": (
        wrong.passes_briefs_on_for_ever,
        True,
        "expected NO_PROGRESS, got BUDGET_STEPS",
    ),
    "budget-edge": (wrong.stale_budget_snapshots, False, "shared budget overrun"),
    "per-role-budgets": (
        wrong.caps_each_agent,
        False,
        "role budget overrun|after the bound N",
    ),
    "cost-runaway": (wrong.ignores_tokens, False, "after the token budget"),
    "give-up-honoured": (lambda: naive, False, "kept going after the model gave up"),
    "endless-wait": (wrong.waits_without_an_idle_budget, False, "with the time budget spent"),
    "busy-idle": (wrong.activity_watchdog, False, "after the bound"),
    "tool-timeout": (wrong.counts_attempts_not_time, False, "with the time budget spent"),
    "call-budget": (wrong.ignores_the_call_budget, False, "past the call budget"),
    "dollar-budget": (wrong.prices_at_the_default_price, False, "could not cover"),
    "context-overflow": (wrong.compacts_and_retries_forever, False, "retried a refused call"),
    "denial-sprawl": (wrong.blocks_on_a_repeated_denial, False, "retried a refused call"),
    "human-gate": (wrong.confirms_then_asks, False, "irreversible action"),
    "false-premise": (
        lambda: wrong.retries_then_gives_a_vague_stop(Code.BLOCKED_INPUT),
        False,
        "retried a refused call",
    ),
    "long-healthy": (lambda: wrong.capped(10), False, "false stop"),
    "poll-until-ready": (wrong.stops_on_identical_calls, False, "false stop"),
    "slow-dependency": (
        lambda: wrong.stops_on_identical_calls(2, Code.ERROR_FATAL),
        False,
        "false stop",
    ),
}
# variant → the flawed agent it is built for, where it is not its family's
CAUGHT_BY_VARIANT: dict[str, tuple[Any, bool, str]] = {
    "mixed-fan-out/out-of-turns-reported-done": (
        wrong.reports_running_out_as_done,
        False,
        "false completion",
    ),
    "mixed-fan-out/one-worker-hangs": (
        wrong.waits_on_a_hung_worker,
        False,
        "retried a refused call",
    ),
    "role-ping-pong/handoff-bounce": (wrong.counts_handoffs_as_progress, False, "after the bound"),
    "role-ping-pong/needs-another-role": (
        wrong.blames_the_ping_pong,
        False,
        "does not name what blocked",
    ),
    "task-graph/swallowed-error": (wrong.trusts_its_workers_word, False, "failure not propagated"),
    "fan-out/rate-limit-storm": (wrong.retries_at_once, False, "retried a refused call"),
    "duplicate-dispatch/denied-dispatched-again": (
        wrong.retries_a_refused_subtask,
        True,
        "expected BLOCKED_INPUT, got NO_PROGRESS",
    ),
    "todo-spawn/subtasks-spawned": (
        wrong.counts_rounds_not_results,
        True,
        "expected NO_PROGRESS, got BUDGET_STEPS",
    ),
}
# twin → the stop logic it catches (a false stop on at least one of its seeds)
TWIN_CAUGHT: dict[str, Any] = {
    "contradictory-criteria/twin-converges": wrong.stops_at_first_stale_step,
    "constant-return/twin-cursor-paging": wrong.stops_on_identical_calls,
    "constant-return/twin-index-warming": wrong.masks_every_number,
    "constant-return/twin-hint-responsive": wrong.stops_on_repeat_without_hinting,
    "constant-return/ambiguous-found-late": lambda: wrong.stops_on_identical_calls(2),
    "missing-permission/twin-other-route": wrong.blocks_on_first_denial,
    "dependency-unavailable/twin-recovers": lambda: wrong.stops_on_identical_calls(2),
    "dependency-unavailable/ambiguous-recovers-late": lambda: wrong.stops_on_identical_calls(2),
    "oscillation/twin-settles": wrong.stops_at_first_stale_step,
    "reconfirm-as-progress/twin-double-check": wrong.stops_at_first_stale_step,
    "todo-spawn/twin-worked-off": lambda: wrong.capped(4),
    "todo-spawn/twin-research": wrong.criteria_stall_only,
    "todo-spawn/twin-subtasks-worked-off": wrong.forbids_new_subtasks,
    "false-completion/twin-true-claim": wrong.distrusts_every_claim,
    "cost-runaway/twin-answer-in-budget": lambda: wrong.capped(4),
    "forced-final-answer/twin-duplicate-found": lambda: wrong.capped(4),
    "give-up-honoured/twin-hesitates": wrong.stops_when_the_model_hesitates,
    "fan-out/twin-workers-succeed": wrong.no_worker_runtime,
    "fan-out/twin-limit-lifts": wrong.gives_up_at_the_first_rate_limit,
    "endless-wait/twin-job-finishes": wrong.idle_from_the_start,
    "busy-idle/twin-finds-the-rename": wrong.criteria_stall_only,
    "tool-timeout/twin-warms-up": wrong.gives_up_at_first_timeout,
    "call-budget/twin-site-ends": wrong.stops_at_the_warning,
    "dollar-budget/twin-admission-found": wrong.reserves_twice_the_last_step,
    "context-overflow/twin-compacts-once": wrong.gives_up_at_the_first_overflow,
    "denial-sprawl/twin-allowed-route": wrong.counts_denials_not_permissions,
    "human-gate/twin-moves-to-trash": wrong.asks_at_first_doubt,
    "false-premise/twin-premise-holds": wrong.asks_at_first_doubt,
    "mixed-fan-out/twin-all-finish": wrong.blocks_on_first_503,
    "mixed-fan-out/twin-archivist-finds-it": wrong.halves_role_budgets,
    "mixed-fan-out/twin-registry-warms-up": wrong.gives_up_at_the_second_timeout,
    "duplicate-dispatch/twin-retry-after-failure": wrong.never_retries,
    "duplicate-dispatch/twin-permission-granted": wrong.never_retries,
    "task-graph/twin-upstream-recovers": wrong.blocks_on_first_503,
    "task-graph/twin-sources-answer": wrong.distrusts_its_workers_word,
    "role-ping-pong/twin-accepts-revision": wrong.stops_at_first_rejection,
    "role-ping-pong/twin-handoff-converges": wrong.stops_at_the_second_handoff,
    "role-ping-pong/twin-team-remote": wrong.blocks_at_the_first_denial,
    "nested-delegation/twin-specialist-works": wrong.never_passes_a_brief_on,
    "budget-edge/twin-fits-the-budget": wrong.reserves_worst_case,
    "per-role-budgets/twin-within-caps": wrong.halves_role_budgets,
}
TWINS = [s for s in scenarios.SCENARIOS if s.twin_of is not None]
OTHERS = [s for s in scenarios.SCENARIOS if s.twin_of is None and not s.name.endswith("/plain")]
"""Plain variants are built to be caught by an honest simple detector: tested apart."""
UNSOLVABLE = [s for s in scenarios.SCENARIOS if not s.solvable]
TAILORED = (
    wrong.stops_at_first_stale_step,
    wrong.stops_without_a_model_call,
    wrong.masks_every_number,
    wrong.stops_on_identical_calls,
    wrong.criteria_stall_only,
    wrong.stops_on_repeat_without_hinting,
    wrong.idle_from_the_start,
    wrong.gives_up_at_first_timeout,
    wrong.stops_at_the_warning,
    wrong.reserves_twice_the_last_step,
    wrong.gives_up_at_the_first_overflow,
    wrong.counts_denials_not_permissions,
    wrong.asks_at_first_doubt,
)


def _caught(scenario: unsolvable.Scenario) -> tuple[Any, bool, str]:
    return CAUGHT_BY_VARIANT.get(scenario.name, CAUGHT[scenario.family])


def _agent(scenario: unsolvable.Scenario) -> Any:
    if scenario.family == "forced-final-answer":
        return wrong.forced_final_answer(scenario.budget.max_steps)
    return _caught(scenario)[0]()


def test_every_family_has_a_flawed_agent_and_every_twin_one_it_catches() -> None:
    assert {s.family for s in scenarios.SCENARIOS} == set(CAUGHT)
    assert set(CAUGHT_BY_VARIANT) <= {s.name for s in OTHERS}
    assert {s.name for s in TWINS} == set(TWIN_CAUGHT)


def test_every_tailored_flaw_is_caught_by_some_twin() -> None:
    caught_by_a_twin = set(TWIN_CAUGHT.values())
    assert {*TAILORED} - {wrong.stops_without_a_model_call} <= caught_by_a_twin


SEEDED = [(s, seed) for s in OTHERS for seed in s.seeds]


@pytest.mark.parametrize(
    ("scenario", "seed"), SEEDED, ids=[f"{s.name}-seed{seed}" for s, seed in SEEDED]
)
def test_flawed_agent_is_caught(scenario: unsolvable.Scenario, seed: int) -> None:
    """On every seed, for the reason the scenario exists: the agent that retries a refusal,
    counting steps, once spent them on a seed's background reading, made only as many retries
    as the allowance grants, and passed dependency-unavailable on seed 2 (and failed
    missing-permission and false-premise there only for its vague stop)."""
    _, strict, words = _caught(scenario)
    record = unsolvable.run(_agent(scenario), scenario, strict=strict, seed=seed)
    assert not record.verdict.passed
    assert any(choice in record.verdict.summary for choice in words.split("|")), record.verdict


@pytest.mark.parametrize("scenario", TWINS, ids=lambda s: s.name)
def test_twin_false_stops_the_stop_logic_it_is_built_for(scenario: unsolvable.Scenario) -> None:
    records = [
        unsolvable.run(TWIN_CAUGHT[scenario.name](), scenario, seed=s) for s in scenario.seeds
    ]
    # a stop on a twin the world shows finished is "finished, reported otherwise", not a false stop
    wrong_stop = (unsolvable.Rule.FALSE_STOP, unsolvable.Rule.UNREPORTED_FINISH)
    assert any(record.verdict.broke(rule) for record in records for rule in wrong_stop)


@pytest.mark.parametrize("scenario", TWINS, ids=lambda s: s.name)
def test_every_twin_false_stops_an_agent_that_never_calls_the_model(
    scenario: unsolvable.Scenario,
) -> None:
    record = unsolvable.run(wrong.stops_without_a_model_call(), scenario)
    assert "false stop" in record.verdict.summary


PASSES_ITS_WORKERS_WORD = ("task-graph/upstream-down",)
"""Where a runtime that passes its workers' word is not caught: a blocked worker that retries is
stopped on its refusals."""


@pytest.mark.parametrize("name", PASSES_ITS_WORKERS_WORD)
def test_only_a_swallowed_error_catches_a_runtime_that_passes_its_workers_word(
    name: str,
) -> None:
    """The checker that passed an empty extraction, and the summary written on it, is caught
    where a worker swallowed its error: where a subtask depends on it, it runs the join; where
    none does, its stop lists the swallowed subtask as finished."""
    scenario = scenarios.get(name)
    trusting = [
        unsolvable.run(wrong.trusts_its_workers_word(), scenario, seed=s) for s in (0, 1, 2)
    ]
    assert all(r.verdict.passed for r in trusting), [r.verdict.summary for r in trusting]
    swallowed = scenarios.get("task-graph/swallowed-error")
    record = unsolvable.run(wrong.trusts_its_workers_word(), swallowed)
    assert record.verdict.broke(unsolvable.Rule.FAILURE_NOT_PROPAGATED), record.verdict.summary
    alone = scenarios.get("mixed-fan-out/swallowed-error")
    record = unsolvable.run(wrong.trusts_its_workers_word(), alone)
    assert record.verdict.broke(unsolvable.Rule.UNFINISHED_LISTED), record.verdict.summary


def _passes_on_every_seed(make: Any, name: str) -> None:
    """``make()``'s agent passes ``name`` strictly on each of its seeds."""
    scenario = scenarios.get(name)
    runs = [unsolvable.run(make(), scenario, seed=s, strict=True) for s in scenario.seeds]
    assert all(r.verdict.passed for r in runs), [r.verdict.summary for r in runs]


RETRIES_A_REFUSAL = (
    "duplicate-dispatch/lost-return",
    "duplicate-dispatch/twin-retry-after-failure",
    "duplicate-dispatch/twin-permission-granted",
)
"""Where a supervisor that takes a permission refused to one worker and the next for a failure
worth another try is not caught: no permission is refused twice there."""


@pytest.mark.parametrize("name", RETRIES_A_REFUSAL)
def test_only_a_permission_refused_to_the_next_worker_catches_a_retried_refusal(
    name: str,
) -> None:
    """The supervisor that dispatches a subtask again after its worker's refusal, and calls the
    run stalled when the next worker meets the same, passes the rest of its family: only the
    refusal met again names the blocker it missed."""
    _passes_on_every_seed(wrong.retries_a_refused_subtask, name)
    denied = scenarios.get("duplicate-dispatch/denied-dispatched-again")
    record = unsolvable.run(wrong.retries_a_refused_subtask(), denied, strict=True)
    assert record.verdict.broke(unsolvable.Rule.UNEXPECTED_CODE), record.verdict.summary
    assert record.reported is not None and record.reported.code is Code.NO_PROGRESS


FAN_OUT_WITHOUT_A_LIMIT = (
    "fan-out/four-workers",
    "fan-out/eight-workers",
    "fan-out/plain",
    "fan-out/twin-workers-succeed",
    "fan-out/twin-limit-lifts",
)
"""Where a supervisor whose workers never wait a Retry-After out is not caught: no call there
asks it to wait, or the one that does is answered at the retry."""


@pytest.mark.parametrize("name", FAN_OUT_WITHOUT_A_LIMIT)
def test_only_a_rate_limit_that_never_lifts_catches_retries_that_never_wait(name: str) -> None:
    """The workers that retry a 429 at once pass the rest of their family: only the storm,
    every retry meeting the same spent quota, shows the retries past the allowance and the
    steps burnt that waiting would have spared."""
    _passes_on_every_seed(wrong.retries_at_once, name)
    storm = scenarios.get("fan-out/rate-limit-storm")
    record = unsolvable.run(wrong.retries_at_once(), storm, strict=True)
    assert record.verdict.broke(unsolvable.Rule.RETRIED_REFUSAL), record.verdict.summary
    assert record.reported is not None and record.reported.code is Code.BUDGET_STEPS


WAITS_ON_A_HANG = [
    s.name
    for s in scenarios.SCENARIOS
    if s.family == "mixed-fan-out" and s.name != "mixed-fan-out/one-worker-hangs"
]
"""Where a runtime that waits out a worker's timeouts is not caught: no lookup there hangs for
good (the twin's registry warms up within the allowance)."""


@pytest.mark.parametrize("name", WAITS_ON_A_HANG)
def test_only_a_worker_that_hangs_for_good_catches_a_runtime_that_waits_on_it(name: str) -> None:
    """The supervisor that waits on a worker whose calls time out, as on a slow answer, passes
    the rest of its family on every seed: only a hang that never lifts shows it retrying past
    the allowance until the time budget is spent, never naming the dependency that hangs."""
    _passes_on_every_seed(wrong.waits_on_a_hung_worker, name)
    hangs = scenarios.get("mixed-fan-out/one-worker-hangs")
    record = unsolvable.run(wrong.waits_on_a_hung_worker(), hangs)
    assert record.verdict.broke(unsolvable.Rule.RETRIED_REFUSAL), record.verdict.summary
    assert record.verdict.broke(unsolvable.Rule.BLOCKER_NOT_NAMED), record.verdict.summary
    assert record.reported is not None and record.reported.code is Code.BUDGET_TIME


def test_only_a_cold_start_of_two_timeouts_catches_giving_up_at_the_second() -> None:
    """A twin whose registry answers after one 503 lets a contract one attempt short of the
    allowance through; the registry that warms up after two timeouts false-stops it."""
    _passes_on_every_seed(wrong.gives_up_at_the_second_timeout, "mixed-fan-out/twin-all-finish")
    two = scenarios.get("mixed-fan-out/twin-registry-warms-up")
    record = unsolvable.run(wrong.gives_up_at_the_second_timeout(), two)
    assert record.verdict.broke(unsolvable.Rule.FALSE_STOP), record.verdict.summary


SPAWNED = "todo-spawn/subtasks-spawned"
COUNTS_ROUNDS = [
    s.name for s in scenarios.SCENARIOS if s.family == "todo-spawn" and s.name != SPAWNED
]
"""Where a supervisor that takes a round bringing news for progress is not caught: no wave's
every worker hands its subtask back there (in the twin, the spawned subtasks are worked off)."""


@pytest.mark.parametrize("name", COUNTS_ROUNDS)
def test_only_subtasks_spawned_without_end_catch_rounds_counted_as_progress(name: str) -> None:
    """The supervisor that dispatches whatever its workers name, a wave of workers who all
    handed their subtasks back being one more round, passes the rest of its family: only the
    queue that grows with every report runs it into its budget."""
    _passes_on_every_seed(wrong.counts_rounds_not_results, name)
    spawned = scenarios.get(SPAWNED)
    record = unsolvable.run(wrong.counts_rounds_not_results(), spawned, strict=True)
    assert record.verdict.broke(unsolvable.Rule.UNEXPECTED_CODE), record.verdict.summary
    assert record.reported is not None and record.reported.code is Code.BUDGET_STEPS


def test_a_stop_without_a_model_call_is_premature_on_every_unsolvable_scenario() -> None:
    records = [unsolvable.run(wrong.stops_without_a_model_call(), s) for s in UNSOLVABLE]
    assert all(map(is_premature_stop, records))


def test_a_stop_logic_tuned_to_one_dialect_false_stops_the_others() -> None:
    twin = scenarios.get("constant-return/twin-index-warming")
    records = [unsolvable.run(wrong.reads_one_spelling(), twin, seed=seed) for seed in (0, 1, 2)]
    assert [r.verdict.passed for r in records] == [True, False, False]
    assert all(r.verdict.broke(unsolvable.Rule.FALSE_STOP) for r in records[1:])


PLAINS = [s for s in scenarios.SCENARIOS if s.name == f"{s.family}/plain"]
NO_PLAIN = frozenset(
    {
        "endless-wait",
        "busy-idle",
        "tool-timeout",
        "call-budget",
        "dollar-budget",
        "context-overflow",
        "denial-sprawl",
        "human-gate",
        "false-premise",
    }
)
"""Families whose honest stop is a budget or a blocker, not a repeat: there, an exact repeat is
waiting that a budget ends (endless-wait), or never happens (every call is new, every route
another), so a detector that compares raw results is no yardstick and a plain variant measures
nothing."""
DELEGATING = ("mixed-fan-out", "duplicate-dispatch", "task-graph", "role-ping-pong",
              "nested-delegation", "budget-edge", "per-role-budgets")  # fmt: skip
SIMPLE_DETECTOR = {"todo-spawn": wrong.criteria_stall_only} | {
    family: ContractAgent for family in DELEGATING
}
"""The honest simple detector of each family: raw results compared, but for to-do spawning,
whose results are new every step and whose criteria never move, and for the families whose
work is done by workers, which a single loop cannot run: a supervisor that keeps a subtask
table is the least that can stop there on evidence."""
HOSTILE_BY_IDS = ("constant-return/repeat", "missing-permission/retry-403",
                  "dependency-unavailable/retry", "oscillation/a-b",
                  "reconfirm-as-progress/two-checks", "contradictory-criteria/insist")  # fmt: skip


def test_every_unsolvable_family_of_repeats_has_a_plain_variant() -> None:
    assert {s.family for s in PLAINS} == {s.family for s in UNSOLVABLE} - NO_PLAIN


def test_the_contract_blocks_on_the_permission_where_blocking_on_the_tool_sprawls() -> None:
    sprawl = scenarios.get("denial-sprawl/five-routes")
    by_tool = unsolvable.run(wrong.blocks_on_a_repeated_denial(by="tool"), sprawl, strict=True)
    assert by_tool.verdict.broke(unsolvable.Rule.RETRIED_REFUSAL)
    record = unsolvable.run(contract, sprawl, strict=True)
    assert record.verdict.passed and record.observed.refusals == {"denied": 2}


@pytest.mark.parametrize("scenario", PLAINS, ids=lambda s: s.name)
def test_an_honest_simple_detector_catches_every_plain_variant(
    scenario: unsolvable.Scenario,
) -> None:
    detector = SIMPLE_DETECTOR.get(scenario.family, wrong.compares_raw_results)
    for seed in scenario.seeds:
        record = unsolvable.run(detector(), scenario, seed=seed, strict=True)
        assert record.verdict.passed, record.verdict.summary


@pytest.mark.parametrize("scenario", PLAINS, ids=lambda s: s.name)
def test_a_plain_variant_still_catches_a_step_capped_loop(scenario: unsolvable.Scenario) -> None:
    assert not unsolvable.run(naive, scenario).verdict.passed


@pytest.mark.parametrize("name", HOSTILE_BY_IDS)
def test_its_blind_spot_begins_at_volatile_ids(name: str) -> None:
    record = unsolvable.run(wrong.compares_raw_results(), scenarios.get(name), strict=True)
    assert not record.verdict.passed and record.observed.detection_lag > 3  # type: ignore[operator]
