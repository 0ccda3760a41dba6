"""The ground truth of stagnation: each rule (novelty, criteria, budget_spent) at its boundary,
and no rule quietly falling back to another."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness import Stagnation, ToolResult
from harness._probes import StagnationProbe
from tests import _builders as b


class _PlainWorld:
    """A world whose state a test sets by hand; it has no criteria."""

    def __init__(self) -> None:
        self.state, self.failing = "s0", "all"

    def fingerprint(self) -> str:
        return self.state

    def is_complete(self) -> bool:
        return False


class _World(_PlainWorld):
    """A `CriteriaWorld` whose failing criteria a test sets by hand."""

    def criteria(self) -> str:
        return self.failing


def _probe(
    rule: Stagnation = Stagnation.NOVELTY, world: object = None, **budget: int
) -> StagnationProbe:
    scenario = b.scenario(stagnation=rule)
    if budget:
        scenario = scenario.with_overrides(**budget)
    return StagnationProbe(scenario, world or _World())  # type: ignore[arg-type]


def _tool(probe: StagnationProbe, step: int, *, name: str = "t", seen: str = "same") -> None:
    world = probe.world
    probe.on_tool(step, name, ToolResult(text=seen, observation=seen), world.fingerprint())


def test_novelty_is_the_step_after_the_last_new_observation() -> None:
    probe = _probe()
    for step in (1, 2, 3):
        _tool(probe, step)
    assert probe.first_stagnant_step() == 2


def test_novelty_counts_a_new_world_state_with_the_same_observation() -> None:
    world = _World()
    probe = _probe(world=world)
    _tool(probe, 1)
    world.state = "s1"
    _tool(probe, 3)
    _tool(probe, 4)
    assert probe.first_stagnant_step() == 4


def test_novelty_keys_observations_by_tool_name() -> None:
    probe = _probe()
    _tool(probe, 1, name="a")
    _tool(probe, 2, name="b")
    _tool(probe, 3, name="a")
    assert probe.first_stagnant_step() == 3


def test_a_run_with_no_tool_call_is_stagnant_from_step_one() -> None:
    assert _probe().first_stagnant_step() == 1


def test_criteria_is_the_step_after_the_last_criteria_move() -> None:
    world = _World()
    probe = _probe(Stagnation.CRITERIA, world)
    _tool(probe, 1, seen="one")
    world.failing = "some"
    _tool(probe, 2, seen="two")
    world.state = "s9"
    _tool(probe, 3, seen="three")
    assert probe.first_stagnant_step() == 3, "new states and observations move no criterion"


def test_criteria_on_a_world_without_criteria_never_moves() -> None:
    world = _PlainWorld()
    probe = _probe(Stagnation.CRITERIA, world)
    world.state = "s1"
    _tool(probe, 1, seen="new")
    assert probe.first_stagnant_step() == 1


def _spent(tokens: list[int], **budget: int) -> StagnationProbe:
    probe = _probe(Stagnation.BUDGET_SPENT, **budget)
    for step, total in enumerate(tokens, 1):
        probe.on_step(total)
        _tool(probe, step, seen=f"new {step}")
    return probe


def test_budget_spent_is_the_first_step_begun_at_or_over_the_token_budget() -> None:
    probe = _spent([0, 50, 100, 150], max_steps=9, max_tokens=100)
    assert (probe.first_stagnant_step(), probe.steps_past_token_budget()) == (3, 2)
    assert _spent([0, 99, 101], max_steps=9, max_tokens=100).first_stagnant_step() == 3


def test_budget_spent_without_a_token_budget_is_the_step_after_the_step_budget() -> None:
    probe = _spent([0, 500, 900], max_steps=2)
    assert (probe.first_stagnant_step(), probe.steps_past_token_budget()) == (3, 0)


def test_budget_spent_is_the_step_budget_when_tokens_run_out_later() -> None:
    probe = _spent([0, 10, 20, 30, 40], max_steps=3, max_tokens=40)
    assert probe.first_stagnant_step() == 4


@given(limit=st.integers(1, 1000), spends=st.lists(st.integers(0, 300), min_size=1, max_size=30))
def test_steps_past_the_token_budget_are_those_begun_with_it_spent(
    limit: int, spends: list[int]
) -> None:
    totals = [sum(spends[:i]) for i in range(len(spends))]
    probe = _spent(totals, max_steps=100, max_tokens=limit)
    assert probe.steps_past_token_budget() == len([t for t in totals if t >= limit])
    over = [i for i, t in enumerate(totals, 1) if t >= limit]
    assert probe.first_stagnant_step() == (over[0] if over else 101)


@pytest.mark.parametrize("rule", [Stagnation.CRITERIA, Stagnation.BUDGET_SPENT])
def test_rules_other_than_novelty_ignore_novelty(rule: Stagnation) -> None:
    world = _World()
    probe = _probe(rule, world, max_steps=5)
    for step in (1, 2):
        world.state = f"s{step}"
        _tool(probe, step, seen=f"new {step}")
    assert probe.first_stagnant_step() == {Stagnation.CRITERIA: 1, Stagnation.BUDGET_SPENT: 6}[rule]
