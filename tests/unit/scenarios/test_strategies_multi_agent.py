"""Generated variants of the multi-agent families built from plans: the contract stops each
within its bound, naive fails each, each family's flawed agent is caught on them as on the
library's, each range's ends are judged on every seed's structure, and N moves with the work
the parameters add: it allows as many steps past the first stagnant step as the library's.
A generated duplicate dispatch's twin is its sibling until the step it declares, begins every
subtask as its sibling does, and needs the steps it declares."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from hypothesis import find, given, settings
from hypothesis import strategies as st

import unsolvable
from tests._twins import first_moves, shown, unlike_its_sibling
from tests.unit.scenarios.test_not_vacuous import TWIN_CAUGHT
from tests.unit.scenarios.test_strategies_families import (
    GENERATE_ONLY,
    SEEDS,
    Strategy,
    _draws_every_value,
    _ends,
    _found,
    _judge,
    _named,
    judge_drawn,
)
from unsolvable import Ceilings, Code, Rule, Scenario, scenarios
from unsolvable.agents import contract
from unsolvable.scenarios import _multi_agent
from unsolvable.scenarios import strategies as gen
from unsolvable.scenarios.catalog import mixed_fan_out
from unsolvable.scenarios.catalog._common import lead

Library = Callable[[unsolvable.Scenario], unsolvable.Scenario]
MIXED_LIBRARY = {
    "denied": "one-denied",
    "down": "one-dependency-down",
    "swallowed": "swallowed-error",
    "hangs": "one-worker-hangs",
}
"""The library's mixed fan-out of each blocker: four workers, the fourth blocked."""


def _mixed_library(scenario: unsolvable.Scenario) -> unsolvable.Scenario:
    kind = re.search(r"generated-([a-z]+)-workers", scenario.name)
    assert kind is not None, scenario.name
    return scenarios.get(f"{mixed_fan_out.FAMILY}/{MIXED_LIBRARY[kind[1]]}")


# family → its strategy, each of its parameters' values in order as patterns of the name, and
# the library variant a generated one is measured against
FAMILIES: dict[str, tuple[Strategy, list[list[str]], Library]] = {
    "mixed-fan-out": (
        gen.mixed_fan_out_scenarios,
        [
            [f"{kind}-workers\\d+" for kind in mixed_fan_out.KINDS],
            [f"[a-z]+-workers{n}" for n in _multi_agent.MIXED_FAN_OUT_WORKERS],
        ],
        _mixed_library,
    ),
    "task-graph": (
        gen.task_graph_scenarios,
        [
            [f"chain{n}" for n in _multi_agent.TASK_GRAPH_CHAIN],
            [f"swallowed-chain{n}" for n in _multi_agent.TASK_GRAPH_SWALLOWED_CHAIN],
        ],
        lambda scenario: scenarios.get(
            "task-graph/swallowed-error"
            if "swallowed" in scenario.name
            else "task-graph/upstream-down"
        ),
    ),
    "nested-delegation": (
        gen.nested_delegation_scenarios,
        [[f"suppliers{n}" for n in _multi_agent.NESTED_DELEGATION_SUPPLIERS]],
        lambda scenario: scenarios.get("nested-delegation/passed-on"),
    ),
    "duplicate-dispatch": (
        gen.duplicate_dispatch_scenarios,
        [
            [f"{kind}suppliers{n}" for n in _multi_agent.DUPLICATE_DISPATCH_SUPPLIERS]
            for kind in ("", "denied-")
        ],
        lambda scenario: scenarios.get(
            "duplicate-dispatch/denied-dispatched-again"
            if "denied" in scenario.name
            else "duplicate-dispatch/lost-return"
        ),
    ),
    "role-ping-pong": (
        gen.role_ping_pong_scenarios,
        [[f"criteria{n}" for n in _multi_agent.ROLE_PING_PONG_CRITERIA]],
        lambda scenario: scenarios.get("role-ping-pong/reviewer-never-accepts"),
    ),
}


def _room(scenario: unsolvable.Scenario, seed: int) -> int | None:
    """The steps N allows past the first stagnant step of the contract's run."""
    record = unsolvable.run(contract, scenario, seed=seed, strict=True)
    stagnant = record.observed.first_stagnant_step
    return None if stagnant is None else record.step_bound - stagnant


@pytest.mark.parametrize("family", FAMILIES)
@settings(max_examples=3)
@given(data=st.data())
def test_every_generated_variant_is_judged_right(family: str, data: st.DataObject) -> None:
    strategy, _, library = FAMILIES[family]
    judge_drawn(family, strategy, data, like=library)


MIXED_WORKERS = _multi_agent.MIXED_FAN_OUT_WORKERS
ENDS = {family: _ends(parameters) for family, (_, parameters, _) in FAMILIES.items()} | {
    "mixed-fan-out": [
        f"{kind}-workers{n}"
        for kind in mixed_fan_out.KINDS
        for n in (MIXED_WORKERS[0], MIXED_WORKERS[-1])
    ]
}
"""The variants judged at the ends of each family's range: a mixed fan-out's every kind at both
ends of its workers (the ends of its parameters alone would judge the first kind only at the
upper end, and only the first and last kinds at all)."""


@pytest.mark.parametrize(("family", "pattern"), [(f, p) for f in ENDS for p in ENDS[f]], ids=str)
def test_the_ends_of_every_range_are_judged_right_on_every_seed(family: str, pattern: str) -> None:
    """N is derived, not copied: where the parameters add work before the run is stuck, N grows
    by just that, so it allows as many steps past the first stagnant step as the library's
    variant does."""
    strategy, _, library = FAMILIES[family]
    scenario = _found(strategy, pattern)
    assert scenario.budget.max_steps < Ceilings().max_steps, "a run must meet its own budget"
    for seed in SEEDS:
        _judge(scenario, seed, like=library(scenario))
        assert _room(scenario, seed) == _room(library(scenario), seed), seed


@pytest.mark.parametrize("family", FAMILIES)
def test_every_composite_draws_every_value_of_its_range(family: str) -> None:
    _draws_every_value(*FAMILIES[family][:2])


@pytest.mark.parametrize("family", FAMILIES)
def test_the_unions_draw_every_family(family: str) -> None:
    for union in (gen.multi_agent_scenarios, gen.unsolvable_scenarios):
        find(union(), lambda s, family=family: s.family == family, settings=GENERATE_ONLY)


Pair = tuple[Scenario, Scenario]
LIBRARY_TWINS = {
    "": "duplicate-dispatch/twin-retry-after-failure",
    "denied-": "duplicate-dispatch/twin-permission-granted",
}
"""The library's twin of each kind of duplicate dispatch, by the prefix of its suppliers."""
TWIN_SUPPLIERS = _multi_agent.DUPLICATE_DISPATCH_TWIN_SUPPLIERS


def _is_its_sibling_until_it_declares(pair: Pair, seed: int) -> None:
    """What the agent is shown and what the supervisor does agree until the declared step, and
    every worker's first move on a subtask is its sibling's worker's."""
    sibling, twin = pair
    assert twin.twin_of == sibling.name and twin.seeds == sibling.seeds
    assert unlike_its_sibling(twin, sibling, seed) is None
    mine, theirs = shown(twin, seed), shown(sibling, seed)
    assert {k: v for k, v in mine.items() if v != theirs[k]} == {}
    moves, its_moves = (first_moves(unsolvable.run(contract, s, seed=seed)) for s in pair[::-1])
    assert moves.keys() & its_moves.keys()
    assert {n: moves[n] for n in its_moves.keys() & moves.keys()} == {
        n: its_moves[n] for n in its_moves.keys() & moves.keys()
    }


@settings(max_examples=5)
@given(gen.duplicate_dispatch_and_twin())
def test_a_generated_twin_is_its_sibling_until_the_step_it_declares(pair: Pair) -> None:
    _is_its_sibling_until_it_declares(pair, pair[1].seeds[0])


def _twin_room(twin: Scenario) -> int:
    """What the twin's N leaves over the most steps the contract takes to finish it, its lead
    aside, over the seeds."""
    records = {seed: unsolvable.run(contract, twin, seed=seed, strict=True) for seed in SEEDS}
    for record in records.values():
        assert record.verdict.passed and record.code is Code.COMPLETED, record.verdict
    return twin.step_bound - max(r.observed.steps - lead(seed) for seed, r in records.items())


@pytest.mark.parametrize(
    ("kind", "suppliers"),
    [
        (kind, suppliers)
        for kind in LIBRARY_TWINS
        for suppliers in (TWIN_SUPPLIERS[0], TWIN_SUPPLIERS[-1])
    ],
)
def test_the_twins_at_the_ends_of_the_range_are_done_as_declared_on_every_seed(
    kind: str, suppliers: int
) -> None:
    """The contract finishes the twin, its N (the work ``needed`` declares, and slack) leaving
    it the room the library's twin of its kind does, and the stop logic that twin catches
    false-stops it on a seed."""
    pattern = f"{kind}suppliers{suppliers}"
    pair = find(gen.duplicate_dispatch_and_twin(), lambda pair: _named(pattern)(pair[0]))
    twin, library = pair[1], LIBRARY_TWINS[kind]
    for seed in SEEDS:
        _is_its_sibling_until_it_declares(pair, seed)
    assert _twin_room(twin) == _twin_room(scenarios.get(library))
    flawed = [unsolvable.run(TWIN_CAUGHT[library](), twin, seed=seed) for seed in SEEDS]
    assert any(r.verdict.broke(Rule.FALSE_STOP) for r in flawed), [r.verdict for r in flawed]
