"""Scenarios, budgets, ceilings and prices: validated at construction, overridden by name only."""

from __future__ import annotations

import dataclasses
import re

import pytest

from tests import _builders as b
from unsolvable import Budget, Ceilings, Code, Pricing, SubtaskSpec
from unsolvable._errors import BudgetError, ScenarioError


@pytest.mark.parametrize("value", [0, -1, 0.0])
@pytest.mark.parametrize(
    "field",
    [
        "max_steps",
        "max_tokens",
        "max_wall_seconds",
        "max_cost_usd",
        "max_idle_seconds",
        "max_calls",
    ],
)
def test_a_budget_limit_must_be_positive(field: str, value: float) -> None:
    fields = {"max_steps": 1, field: value}
    with pytest.raises(BudgetError, match=rf"Budget\({field}={value!r}\): must be a positive"):
        Budget(**fields)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [2.5, 1e4, True, "9"])
@pytest.mark.parametrize("field", ["max_steps", "max_tokens", "max_calls"])
def test_a_budget_count_must_be_a_whole_number(field: str, value: object) -> None:
    """An agent may hand a count to ``range``; a string would fail deep in the harness."""
    fields = {"max_steps": 1, field: value}
    with pytest.raises(
        BudgetError, match=rf"^Budget\({field}={re.escape(repr(value))}\): must be a "
    ):
        Budget(**fields)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [True, "9", [1]])
@pytest.mark.parametrize("field", ["max_wall_seconds", "max_cost_usd", "max_idle_seconds"])
def test_a_budget_amount_must_be_a_number(field: str, value: object) -> None:
    fields = {"max_steps": 1, field: value}
    message = rf"^Budget\({field}={re.escape(repr(value))}\): must be a positive, finite number"
    with pytest.raises(BudgetError, match=message):
        Budget(**fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("max_steps", 2.5, "a positive whole number"),
        ("max_tool_calls", "400", "a positive whole number"),
        ("max_wall_seconds", "10", "a positive, finite number"),
    ],
)
def test_a_ceiling_of_the_wrong_kind_is_refused(field: str, value: object, said: str) -> None:
    message = rf"^Ceilings\({field}={re.escape(repr(value))}\): must be {said}"
    with pytest.raises(BudgetError, match=message):
        Ceilings(**{field: value})  # type: ignore[arg-type]


def test_a_scenarios_step_bound_must_be_a_whole_number() -> None:
    with pytest.raises(BudgetError, match=r"^Scenario\(step_bound=2.5\): must be a positive whole"):
        dataclasses.replace(b.scenario(), step_bound=2.5)  # type: ignore[arg-type]


def test_budget_limits_other_than_steps_may_be_left_out() -> None:
    budget = Budget(max_steps=1)
    assert budget.to_dict() == {
        "max_steps": 1,
        "max_tokens": None,
        "max_wall_seconds": None,
        "max_cost_usd": None,
        "max_idle_seconds": None,
        "max_calls": None,
    }
    assert Budget(max_steps=1, max_cost_usd=0.01).max_cost_usd == 0.01


@pytest.mark.parametrize("field", ["max_steps", "max_tool_calls", "max_wall_seconds"])
def test_a_ceiling_must_be_positive(field: str) -> None:
    with pytest.raises(BudgetError, match=rf"^Ceilings\({field}=0\): must be a positive"):
        Ceilings(**{field: 0})  # type: ignore[arg-type]


def test_default_ceilings_are_far_above_any_budget() -> None:
    ceilings = Ceilings()
    assert (ceilings.max_steps, ceilings.max_tool_calls, ceilings.max_wall_seconds) == (
        200,
        400,
        10,
    )


def test_pricing_charges_input_and_output_at_their_own_prices() -> None:
    pricing = Pricing()
    assert (pricing.cost(1_000_000, 0), pricing.cost(0, 1_000_000)) == (3.0, 15.0)
    assert Pricing(usd_per_million_input=1, usd_per_million_output=2).cost(500_000, 250_000) == 1


def test_a_scenario_must_expect_a_code() -> None:
    with pytest.raises(ScenarioError, match="'test/constant': expected= names no code"):
        b.scenario(expected=set())


def test_only_a_control_may_expect_completion() -> None:
    message = "Scenario 'test/constant' is unsolvable but expects COMPLETED; pass solvable=True"
    with pytest.raises(ScenarioError, match=rf"^{re.escape(message)} for a control$"):
        b.scenario(expected={Code.COMPLETED})
    assert b.scenario(solvable=True).expected == {Code.COMPLETED}


@pytest.mark.parametrize("seeds", [(), (0, -1), (2**63,)])
def test_a_scenario_seeds_its_runs_with_whole_numbers_from_0(seeds: tuple[int, ...]) -> None:
    """A negative seed replays its positive's random draws under another name."""
    with pytest.raises(ScenarioError, match=re.escape(f"seeds={seeds!r}: each seed is a whole")):
        dataclasses.replace(b.scenario(), seeds=seeds)


def test_the_step_bound_must_be_positive() -> None:
    with pytest.raises(BudgetError, match=r"^Scenario\(step_bound=0\): must be a positive"):
        dataclasses.replace(b.scenario(), step_bound=0)


@pytest.mark.parametrize("steps", [0, -3, 2.5, True])
def test_a_roles_budget_must_be_a_whole_number_of_steps_at_least_one(steps: object) -> None:
    message = f"Scenario 'test/constant': role_steps['researcher']={steps!r}: a role's own budget"
    with pytest.raises(BudgetError, match=rf"^{re.escape(message)} is a whole number of steps"):
        b.scenario(role_steps={"researcher": steps})
    assert b.scenario(role_steps={"researcher": 1}).role_steps == {"researcher": 1}


@pytest.mark.parametrize(
    ("graph", "said"),
    [
        ({"a": (), "a ": (), "b": ("a",)}, None),
        ({"search": (), "answer": ("serach",)}, "'answer' depends on ['serach'], which the task"),
        ({"a": ("c",), "b": ("a",), "c": ("b",)}, "go round: a → c → b → a; the subtasks"),
        ({"a": (), "b": ("a",), "a2": ()}, None),
    ],
)
def test_a_task_graph_that_names_an_unknown_dependency_or_goes_round_is_refused(
    graph: dict[str, tuple[str, ...]], said: str | None
) -> None:
    specs = tuple(SubtaskSpec(name=name, depends_on=after) for name, after in graph.items())
    setup = b.scenario().build(0)
    if said is None:
        assert dataclasses.replace(setup, subtasks=specs).subtasks == specs
        return
    with pytest.raises(ScenarioError, match=re.escape(said)):
        dataclasses.replace(setup, subtasks=specs)


def test_a_task_graph_that_declares_a_subtask_twice_is_refused() -> None:
    specs = (SubtaskSpec(name="a"), SubtaskSpec(name="a", depends_on=("b",)), SubtaskSpec(name="b"))
    with pytest.raises(ScenarioError, match=r"declares \['a'\] more than once"):
        dataclasses.replace(b.scenario().build(0), subtasks=specs)


def test_the_summary_is_the_first_sentence() -> None:
    def summary(explanation: str) -> str:
        return dataclasses.replace(b.scenario(), explanation=explanation).summary

    assert summary("It loops. Then it loops more.") == "It loops."
    assert summary("One sentence.") == summary("One sentence") == "One sentence."


def test_overrides_go_to_the_budget_or_the_bound_by_name() -> None:
    scenario = b.scenario(step_bound=5).with_overrides(max_steps=9, max_tokens=70, step_bound=7)
    assert (scenario.step_bound, scenario.budget.max_steps, scenario.budget.max_tokens) == (
        7,
        9,
        70,
    )
    assert b.scenario().with_overrides(step_bound=3).budget == b.scenario().budget


def test_an_unknown_override_names_the_known_ones() -> None:
    known = (
        "['max_calls', 'max_cost_usd', 'max_idle_seconds', 'max_steps', 'max_tokens', "
        "'max_wall_seconds', 'step_bound']"
    )
    with pytest.raises(ScenarioError, match=re.escape(f"['steps']; use one of {known}")):
        b.scenario().with_overrides(steps=3)
