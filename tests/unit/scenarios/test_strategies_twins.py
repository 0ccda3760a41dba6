"""Generated twins: each is its generated sibling until the step it declares, the contract
finishes it and stops the sibling, and it catches the stop logic its library twin catches — so
both directions of a stop are tested on the same generated variant."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import find, given, reject
from hypothesis import strategies as st

import unsolvable
from tests import _wrong_agents as wrong
from tests._twins import MOVES_PER_CALL, shown, unlike_its_sibling
from tests.unit.scenarios.test_not_vacuous import TAILORED, TWIN_CAUGHT
from tests.unit.scenarios.test_strategies_families import GENERATE_ONLY, SEEDS, _named
from unsolvable import Code, Rule, Scenario, Stop, scenarios
from unsolvable.agents import contract
from unsolvable.scenarios import _multi_agent, _single_agent
from unsolvable.scenarios.catalog import (
    constant_return,
    cost_runaway,
    forced_final_answer,
    tool_timeout,
)
from unsolvable.scenarios.catalog._control import SLACK
from unsolvable.scenarios.strategies import TWINNED, sibling_and_twin, twin_scenarios

FAMILIES = (
    "constant-return",
    "missing-permission",
    "fan-out",
    "cost-runaway",
    "false-completion",
    "give-up-honoured",
    "tool-timeout",
    "forced-final-answer",
    "dependency-unavailable",
    "reconfirm-as-progress",
    "oscillation",
    "todo-spawn",
)
"""The families whose generated variants have twins, each tested on its own draws."""
EACH_FAMILY = pytest.mark.parametrize("family", FAMILIES)
WRONG_STOPS = (Rule.FALSE_STOP, Rule.UNREPORTED_FINISH)
"""A stop on a twin the world shows finished is "finished, reported otherwise", not a false
stop: either is a stop where the twin was doable."""


def _library_twin(twin: Scenario, sibling: Scenario) -> str:
    """The name of the library twin of ``twin``'s kind: its variant less its sibling's."""
    variant = twin.name.partition("/")[2].removesuffix(f"-{sibling.name.partition('/')[2]}")
    return f"{twin.family}/{variant}"


@EACH_FAMILY
@given(data=st.data())
def test_a_generated_twin_is_its_sibling_until_the_step_it_declares(
    family: str, data: st.DataObject
) -> None:
    sibling, twin = data.draw(sibling_and_twin((family,)))
    assert twin.twin_of == sibling.name and twin.seeds == sibling.seeds
    (seed,) = twin.seeds
    assert unlike_its_sibling(twin, sibling, seed) is None
    mine, theirs = shown(twin, seed), shown(sibling, seed)
    assert {k: v for k, v in mine.items() if v != theirs[k]} == {}


@pytest.mark.parametrize("family", [f for f in FAMILIES if f not in MOVES_PER_CALL])
@given(data=st.data())
def test_a_generated_twin_answers_a_repeated_call_as_its_sibling_until_it_diverges(
    family: str, data: st.DataObject
) -> None:
    sibling, twin = data.draw(sibling_and_twin((family,)))
    (seed,) = twin.seeds
    assert unlike_its_sibling(twin, sibling, seed, repeats=True) is None


@given(data=st.data())
def test_no_tool_tells_a_generated_constant_return_twin_apart_before_it_diverges(
    data: st.DataObject,
) -> None:
    """Every twin `constant_return.twins` makes for a variant is its sibling as the library's
    are: an explorer that never hints and calls every tool after each step (the search and the
    ledger among them, during the variant's lead and warm-up too) meets the sibling's answers
    until the twin's divergence step, or throughout the sibling's N for the hint-responsive
    twin."""
    sibling, make_twins = data.draw(st.composite(TWINNED[constant_return.FAMILY])())
    (seed,) = sibling.seeds
    for twin in make_twins("-generated"):
        assert unlike_its_sibling(twin, sibling, seed, probes=True) is None, twin.name


@EACH_FAMILY
@given(data=st.data())
def test_a_wrong_divergence_step_is_told_apart(family: str, data: st.DataObject) -> None:
    """The check above can fail: a twin that declares its divergence a step late differs before
    it, and one that declares it a step early does not differ there."""
    sibling, twin = data.draw(sibling_and_twin((family,)))
    (seed,) = twin.seeds
    assert twin.diverges_at is not None
    declared = twin.diverges_at(seed)
    if declared is None:  # the hint-responsive twin: the sibling until the agent hints
        reject()
    late_and_early = (declared + 1, declared - 1) if declared > 1 else (declared + 1,)
    for wrong_step in late_and_early:
        broken = dataclasses.replace(twin, diverges_at=lambda seed, step=wrong_step: step)
        assert unlike_its_sibling(broken, sibling, seed) is not None, wrong_step


@EACH_FAMILY
@given(data=st.data())
def test_the_contract_finishes_every_generated_twin_and_stops_its_sibling(
    family: str, data: st.DataObject
) -> None:
    sibling, twin = data.draw(sibling_and_twin((family,)))
    stuck = unsolvable.run(contract, sibling, strict=True)
    assert stuck.verdict.passed, stuck.verdict.summary
    done = unsolvable.run(contract, twin, strict=True)
    assert done.verdict.passed, done.verdict.summary
    assert done.code is Code.COMPLETED and done.observed.world_complete


EVERY_PICK = range(6)
"""Seeds that make every pick `by_seed` makes, from choices of two or of three."""


@EACH_FAMILY
@given(data=st.data())
def test_a_generated_twins_bound_is_the_steps_its_model_needs_and_slack(
    family: str, data: st.DataObject
) -> None:
    """``needed`` is the most steps the twin's model takes to finish over the seeds, its lead
    aside, a warm-up included; where it finishes on the agent's hint, N covers at least that."""
    twin = data.draw(twin_scenarios((family,)))
    runs = [(seed, unsolvable.run(contract, twin, seed=seed)) for seed in EVERY_PICK]
    assert all(record.code is Code.COMPLETED for _, record in runs)
    needed = max(record.observed.steps - twin.build(seed).lead for seed, record in runs)
    assert twin.diverges_at is not None
    if twin.diverges_at(0) is None:  # the hint-responsive twin: N leaves room for every hint
        assert twin.step_bound >= needed + SLACK
    else:
        assert twin.step_bound == needed + SLACK


def _false_stop(flawed: Any, scenario: Scenario, seed: int) -> bool:
    record = unsolvable.run(flawed(), scenario, seed=seed)
    return any(record.verdict.broke(rule) for rule in WRONG_STOPS)


@EACH_FAMILY
@given(data=st.data())
def test_a_generated_twin_catches_the_stop_logic_its_library_twin_catches(
    family: str, data: st.DataObject
) -> None:
    """On the same seed: the flawed agent the library twin of its kind is built for, and every
    tailored one that library twin catches there."""
    sibling, twin = data.draw(sibling_and_twin((family,)))
    (seed,) = twin.seeds
    library = scenarios.get(_library_twin(twin, sibling))
    built_for = TWIN_CAUGHT[library.name]
    flaws = dict.fromkeys((built_for, *TAILORED))
    caught = [flawed for flawed in flaws if _false_stop(flawed, library, seed)]
    assert built_for in caught
    assert [flawed for flawed in caught if not _false_stop(flawed, twin, seed)] == []


STORM_WORKERS = _multi_agent.FAN_OUT_STORM_WORKERS
TWIN_WORKERS = _multi_agent.FAN_OUT_TWIN_WORKERS
PROGRESS = _single_agent.TODO_PROGRESS
KINDS = [
    *(
        ("fan-out", f"workers{n}", "twin-workers-succeed")
        for n in (TWIN_WORKERS[0], TWIN_WORKERS[-1])
    ),
    *(
        ("fan-out", f"rate-limited-workers{n}", "twin-limit-lifts")
        for n in (STORM_WORKERS[0], STORM_WORKERS[-1])
    ),
    *(
        ("todo-spawn", f"progress{n}", kind)
        for n in (PROGRESS[0], PROGRESS[-1])
        for kind in ("twin-worked-off", "twin-research")
    ),
    ("todo-spawn", "subtasks-spawned", "twin-subtasks-worked-off"),
]
"""Each kind of the families whose strategies draw more than one, at the ends of its range, with
each of its twins (the family, the sibling's variant as a pattern, the twin's kind)."""


def _drawn_pair(family: str, pattern: str, kind: str) -> tuple[Scenario, Scenario]:
    """The pair `sibling_and_twin` draws of ``family`` whose sibling is named by ``pattern`` and
    whose twin is of ``kind``."""

    def is_it(pair: tuple[Scenario, Scenario]) -> bool:
        sibling, twin = pair
        variant = sibling.name.partition("/")[2]
        return _named(pattern)(sibling) and twin.name == f"{family}/{kind}-{variant}"

    return find(sibling_and_twin((family,)), is_it)


@pytest.mark.parametrize(("family", "pattern", "kind"), KINDS, ids=str)
def test_every_kinds_twin_at_its_ends_catches_what_its_library_twin_does_on_every_seed(
    family: str, pattern: str, kind: str
) -> None:
    """Not left to the draws: on every seed the twin is its sibling until the step it declares,
    the contract finishes it and stops its sibling, and every stop logic the library twin of its
    kind false-stops there it false-stops too (the one that twin is built for, on a seed)."""
    sibling, twin = _drawn_pair(family, pattern, kind)
    library = scenarios.get(f"{family}/{kind}")
    flaws, caught = dict.fromkeys((TWIN_CAUGHT[library.name], *TAILORED)), set()
    for seed in SEEDS:
        assert unlike_its_sibling(twin, sibling, seed) is None, seed
        assert unsolvable.run(contract, sibling, seed=seed, strict=True).verdict.passed, seed
        done = unsolvable.run(contract, twin, seed=seed, strict=True)
        assert done.verdict.passed and done.code is Code.COMPLETED, done.verdict
        on_library = {flawed for flawed in flaws if _false_stop(flawed, library, seed)}
        assert {flawed for flawed in on_library if not _false_stop(flawed, twin, seed)} == set()
        caught |= on_library
    assert TWIN_CAUGHT[library.name] in caught


def _stops_at_its_first_step() -> Any:
    """Makes the model's first calls, then stops: lag 0 or less on every generated sibling."""
    return wrong.loop(lambda calls, results, step: Stop(code=Code.NO_PROGRESS, reason="stuck"))


EARLY = (_stops_at_its_first_step, wrong.stops_without_a_model_call)


@EACH_FAMILY
@pytest.mark.parametrize("early", EARLY, ids=lambda agent: agent.__name__)
@given(data=st.data())
def test_an_agent_that_stops_at_once_passes_no_generated_twin(
    family: str, early: Any, data: st.DataObject
) -> None:
    twin = data.draw(twin_scenarios((family,)))
    record = unsolvable.run(early(), twin)
    assert any(record.verdict.broke(rule) for rule in WRONG_STOPS), record.verdict


def test_sibling_and_twin_draws_every_family_with_twins() -> None:
    assert set(TWINNED) == set(FAMILIES)
    for family in FAMILIES:
        find(sibling_and_twin(), lambda pair, f=family: pair[0].family == f, settings=GENERATE_ONLY)


@pytest.mark.parametrize(("lines", "tokens"), _single_agent.COST_RUNAWAY_TWINNED, ids=str)
def test_every_twinned_cost_runaway_budget_lasts_until_the_answer(lines: int, tokens: int) -> None:
    """The budgets drawn with a twin are worked out, not run: each must last its twin on every
    seed's page length and answer page."""
    sibling = cost_runaway.make("budget", lines=lines, max_tokens=tokens)
    (twin,) = cost_runaway.twins(sibling, lines=lines)
    records = [unsolvable.run(contract, twin, seed=seed, strict=True) for seed in EVERY_PICK]
    assert [r.verdict.summary for r in records if not r.verdict.passed] == []


TWINNED_TIMEOUTS = _single_agent.TOOL_TIMEOUTS_TWINNED


@pytest.mark.parametrize(
    ("timeout", "doable"),
    [(TWINNED_TIMEOUTS[0], True), (TWINNED_TIMEOUTS[-1], True), (TWINNED_TIMEOUTS.stop, False)],
)
def test_the_twinned_timeouts_end_where_the_cold_start_spends_the_wall(
    timeout: int, doable: bool
) -> None:
    """The timeouts drawn with a twin are worked out, not run: at both ends the twin is doable,
    and just past them it is not."""
    (twin,) = tool_timeout.twins(tool_timeout.make("wall", timeout=timeout), timeout=timeout)
    records = [unsolvable.run(contract, twin, seed=seed, strict=True) for seed in twin.seeds]
    assert all(r.code is Code.COMPLETED for r in records) is doable


LONG_PAGES = range(0, 1_500, 7)
"""Seeds spread over the drawn range: the pages a seed writes vary in length, and some run long."""


def test_the_largest_forced_final_budget_runs_out_of_steps_before_tokens() -> None:
    """The largest step budget drawn, with or without a twin: its sibling's steps, not its
    tokens, must run out first on every seed, as its expected codes say."""
    max_steps = _single_agent.FORCED_FINAL_MAX_STEPS[-1]
    sibling = forced_final_answer.make("largest", max_steps=max_steps)
    codes = {unsolvable.run(contract, sibling, seed=seed).code for seed in LONG_PAGES}
    assert codes <= sibling.expected, codes
