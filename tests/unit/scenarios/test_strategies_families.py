"""Generated variants of every family with parameters: the contract stops each within its bound,
naive fails each, the flawed agent of the library variant of its kind is caught on them as on
that variant, and each composite draws every value of its range — at the range's ends on every
seed's structure."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable

import pytest
from hypothesis import Phase, find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

import unsolvable
from tests.unit.scenarios.test_not_vacuous import OTHERS, _agent, _caught
from unsolvable import Ceilings, Code, TerminationRecord, scenarios
from unsolvable.agents import contract, naive
from unsolvable.reports._counted import is_false_completion, is_premature_stop
from unsolvable.scenarios import _multi_agent, _single_agent
from unsolvable.scenarios import strategies as gen
from unsolvable.scenarios.catalog import cost_runaway

Strategy = Callable[[], st.SearchStrategy[unsolvable.Scenario]]
MODE = "|".join(map(re.escape, _single_agent.OSCILLATION_MODES))
# family → its strategy, and each of its parameters' values in order, as patterns of the name
FAMILIES: dict[str, tuple[Strategy, list[list[str]]]] = {
    "fan-out": (
        gen.fan_out_scenarios,
        [
            [f"workers{n}" for n in _multi_agent.FAN_OUT_WORKERS],
            [f"rate-limited-workers{n}" for n in _multi_agent.FAN_OUT_STORM_WORKERS],
        ],
    ),
    "cost-runaway": (
        gen.cost_runaway_scenarios,
        [
            [f"lines{n}-tokens\\d+" for n in _single_agent.COST_RUNAWAY_LINES],
            [f"lines\\d+-tokens{n}" for n in _single_agent.COST_RUNAWAY_TOKENS],
        ],
    ),
    "false-completion": (
        gen.false_completion_scenarios,
        [[f"claim-after{n}" for n in _single_agent.CLAIM_AFTER]],
    ),
    "forced-final-answer": (
        gen.forced_final_answer_scenarios,
        [[f"max-steps{n}" for n in _single_agent.FORCED_FINAL_MAX_STEPS]],
    ),
    "give-up-honoured": (
        gen.give_up_honoured_scenarios,
        [[f"after{n}" for n in _single_agent.GIVE_UP_AFTER]],
    ),
    "tool-timeout": (
        gen.tool_timeout_scenarios,
        [[f"timeout{n}" for n in _single_agent.TOOL_TIMEOUTS]],
    ),
    "reconfirm-as-progress": (
        gen.reconfirm_as_progress_scenarios,
        [
            [f"checks{n}-.+" for n in _single_agent.RECONFIRM_CHECKS],
            [f"checks\\d-{p or 'exact'}" for p in _single_agent.RECONFIRM_PERTURBATIONS],
        ],
    ),
    "todo-spawn": (
        gen.todo_spawn_scenarios,
        [
            [f"progress(\\d-)*{n}(-\\d)*" for n in _single_agent.TODO_PROGRESS],
            [f"progress\\d(-\\d){{{n}}}" for n in range(_single_agent.TODO_PICKS)],
            ["subtasks-spawned"],
        ],
    ),
    "oscillation": (
        gen.oscillation_scenarios,
        [
            [
                f"(({MODE})\\+)*{re.escape(m)}(\\+({MODE}))*(-restyled)?"
                for m in _single_agent.OSCILLATION_MODES
            ],
            [
                f"({MODE})(\\+({MODE})){{{n - 1}}}"
                for n in range(2, len(_single_agent.OSCILLATION_MODES) + 1)
            ],
            [f"({MODE})\\+({MODE})", f"({MODE})\\+({MODE})-restyled"],
        ],
    ),
    "dependency-unavailable": (
        gen.dependency_unavailable_scenarios,
        [[p or "exact" for p in _single_agent.DEPENDENCY_PERTURBATIONS]],
    ),
}
LIBRARY: dict[str, Callable[[unsolvable.Scenario], unsolvable.Scenario]] = {
    "fan-out": lambda scenario: scenarios.get(
        "fan-out/rate-limit-storm" if "rate-limited" in scenario.name else "fan-out/four-workers"
    ),
    "todo-spawn": lambda scenario: scenarios.get(
        "todo-spawn/subtasks-spawned" if "subtasks-spawned" in scenario.name else "todo-spawn/spawn"
    ),
}
"""The library variant of each kind a generated one is measured against, for the families with
more than one kind (the others are measured against their first)."""
MULTI_AGENT = ("fan-out",)
GENERATE_ONLY = settings(max_examples=2_000, database=None, phases=(Phase.generate,))
"""For a search that stops at its first find: nothing to shrink, and nothing replayed."""
SEEDS = (0, 1, 2)
"""A seed of each lead and dialect (`LEADS`, `DIALECTS`: three each), so every structure a seed
gives a run is judged."""


def _named(pattern: str) -> Callable[[unsolvable.Scenario], bool]:
    return lambda scenario: (
        re.fullmatch(f"generated-{pattern}", scenario.name.split("/")[1]) is not None
    )


def _ends(parameters: list[list[str]]) -> list[str]:
    """The first and last value of each of a family's parameters; the others shrink to their
    first, so the last of one parameter meets the first of the others (for a cost runaway, the
    largest budget meets the shortest pages: the slowest to spend)."""
    return sorted({end for values in parameters for end in (values[0], values[-1])})


def _caught_by(words: str, record: TerminationRecord) -> bool:
    return not record.verdict.passed and any(w in record.verdict.summary for w in words.split("|"))


def _sibling(family: str) -> unsolvable.Scenario:
    """The library's first variant of the family that test_not_vacuous catches its flaw on."""
    return next(s for s in OTHERS if s.family == family)


def _premise_false_completion(scenario: unsolvable.Scenario, seed: int) -> None:
    record = unsolvable.run(naive, scenario, seed=seed)
    assert is_false_completion(record) and record.observed.steps <= record.step_bound, record


def _premise_give_up(scenario: unsolvable.Scenario, seed: int) -> None:
    record = unsolvable.run(naive, scenario, seed=seed)
    gave_up = record.observed.gave_up_at_step
    assert gave_up is not None and gave_up <= record.step_bound, record.verdict


def _premise_cost_runaway(scenario: unsolvable.Scenario, seed: int) -> None:
    record = unsolvable.run(contract, scenario, seed=seed, strict=True)
    assert record.code is Code.BUDGET_COST, record.verdict
    assert record.observed.steps <= cost_runaway.STEP_CAP // 2, record.observed.steps


PREMISES: dict[str, Callable[[unsolvable.Scenario, int], None]] = {
    "false-completion": _premise_false_completion,
    "give-up-honoured": _premise_give_up,
    "cost-runaway": _premise_cost_runaway,
}
"""What a family is about, inside N: the model's false claim or its give_up comes before the
bound; the token budget, not the step cap, ends a cost runaway, long before the cap."""


def _judge(
    scenario: unsolvable.Scenario, seed: int, *, like: unsolvable.Scenario | None = None
) -> None:
    """The contract passes ``scenario``, naive fails it, and a flaw caught on the library
    variant it is ``like`` (its family's first by default) is caught on it too: the one built
    for that variant where it has its own (`CAUGHT_BY_VARIANT`), else its family's."""
    record = unsolvable.run(contract, scenario, seed=seed, strict=True)
    assert record.verdict.passed, record.verdict
    assert not is_premature_stop(record), record.verdict
    assert record.step_bound < Ceilings().max_steps, "N must stay under the harness's ceiling"
    assert not unsolvable.run(naive, scenario, seed=seed).verdict.passed
    flaw = like or scenario
    _, strict, words = _caught(flaw)
    sibling = like or _sibling(scenario.family)
    if _caught_by(words, unsolvable.run(_agent(sibling), sibling, seed=seed, strict=strict)):
        flawed = unsolvable.run(_agent(flaw), scenario, seed=seed, strict=strict)
        assert _caught_by(words, flawed), flawed.verdict
    PREMISES.get(scenario.family, lambda scenario, seed: None)(scenario, seed)


def _found(strategy: Strategy, pattern: str) -> unsolvable.Scenario:
    """The variant with ``pattern`` in its name, its other parameters (and its seed) shrunk to
    their first."""
    found = settings(max_examples=2_000, database=None)
    return find(strategy(), _named(pattern), settings=found)


def judge_drawn(
    family: str,
    strategy: Strategy,
    data: st.DataObject,
    like: Callable[[unsolvable.Scenario], unsolvable.Scenario] | None = None,
) -> None:
    """A variant ``strategy`` draws, named as a generated variant of ``family``, judged on its
    seed, ``like`` the library variant ``like`` gives for it, if given."""
    scenario = data.draw(strategy())
    assert scenario.family == family and scenario.name.startswith(f"{family}/generated-")
    _judge(scenario, scenario.seeds[0], like=None if like is None else like(scenario))


@pytest.mark.parametrize("family", FAMILIES)
@settings(max_examples=3)
@given(data=st.data())
def test_every_generated_variant_is_judged_right(family: str, data: st.DataObject) -> None:
    judge_drawn(family, FAMILIES[family][0], data, like=LIBRARY.get(family))


@pytest.mark.parametrize(
    ("family", "pattern"), [(f, p) for f in FAMILIES for p in _ends(FAMILIES[f][1])], ids=str
)
def test_the_ends_of_every_range_are_judged_right_on_every_seed(family: str, pattern: str) -> None:
    scenario = _found(FAMILIES[family][0], pattern)
    like = LIBRARY[family](scenario) if family in LIBRARY else None
    for seed in SEEDS:
        _judge(scenario, seed, like=like)


def _draws_every_value(strategy: Strategy, parameters: list[list[str]]) -> None:
    for values in parameters:
        unseen = set(values)

        def drew_every_value(scenario: unsolvable.Scenario, unseen: set[str] = unseen) -> bool:
            unseen.difference_update({value for value in unseen if _named(value)(scenario)})
            return not unseen

        with contextlib.suppress(NoSuchExample):  # the assertion below says which it never drew
            find(strategy(), drew_every_value, settings=GENERATE_ONLY)
        assert not unseen, f"never drawn: {sorted(unseen)}"


@pytest.mark.parametrize("family", FAMILIES)
def test_every_composite_draws_every_value_of_its_range(family: str) -> None:
    _draws_every_value(*FAMILIES[family])


def test_the_unions_draw_every_family() -> None:
    for family in FAMILIES:
        find(
            gen.unsolvable_scenarios(),
            lambda s, family=family: s.family == family,
            settings=GENERATE_ONLY,
        )
    for family in MULTI_AGENT:
        find(gen.multi_agent_scenarios(), lambda s, family=family: s.family == family)
