"""The built-in library: the reference agents separate, and every scenario is fair and stable."""

from __future__ import annotations

import functools
import itertools
import json
import re

import pytest
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.json import JSONSnapshotExtension

import unsolvable
from tests._explorer import Explorer
from tests.frameworks._glue import recording
from unsolvable import Outcome, scenarios
from unsolvable.agents import contract, naive
from unsolvable.reports import explain
from unsolvable.reports._counted import lag
from unsolvable.reports._metrics import measure
from unsolvable.scenarios.catalog import oscillation

ALL = [(s, seed) for s in scenarios.SCENARIOS for seed in s.seeds]
IDS = [f"{s.name}-seed{seed}" for s, seed in ALL]


@functools.cache
def _strict_contract(name: str, seed: int) -> unsolvable.TerminationRecord:
    return unsolvable.run(contract, scenarios.get(name), seed=seed, strict=True)


@pytest.mark.parametrize(("scenario", "seed"), ALL, ids=IDS)
def test_contract_passes_strictly_with_small_lag(scenario: unsolvable.Scenario, seed: int) -> None:
    record = _strict_contract(scenario.name, seed)
    assert record.verdict.passed, explain(record)
    lag = record.observed.detection_lag
    assert lag is None if scenario.solvable else lag is not None and lag <= 3


def test_where_the_contract_stops_is_pinned_exactly(snapshot: SnapshotAssertion) -> None:
    """The bound above is the contract's promise; this is what it does today, step for step, so
    that a change to a scenario or to the reference agent shows up as a reviewed diff
    (``pytest tests/unit/scenarios/test_library.py --snapshot-update`` accepts one)."""
    stops = {}
    for scenario, seed in ALL:
        record = _strict_contract(scenario.name, seed)
        observed = record.observed
        stops[f"{scenario.name} seed {seed}"] = {
            "code": record.code and record.code.value,
            "steps": observed.steps,
            "first_stagnant_step": observed.first_stagnant_step,
            "lag": None if scenario.solvable else lag(record),
        }
    assert stops == snapshot(extension_class=JSONSnapshotExtension)


def test_contract_beats_the_calibrated_step_cap_of_every_family_over_every_seed() -> None:
    """What the scenarios and metrics pages promise, over the runs they promise it on
    (``--all-seeds``): on the first seeds alone a family has one run a scenario, and a cap fitted
    to so few can tie the contract, which then does not beat it."""
    metrics = measure([_strict_contract(scenario.name, seed) for scenario, seed in ALL])
    not_beaten = [
        group.name
        for group in metrics.families
        if group.step_cap is not None and not group.step_cap.beaten
    ]
    assert not_beaten == []


UNSOLVABLE = [s for s in scenarios.SCENARIOS if not s.solvable]
CONTROLS = [s for s in scenarios.SCENARIOS if s.solvable]


@pytest.mark.parametrize("scenario", UNSOLVABLE, ids=lambda s: s.name)
def test_naive_is_caught_on_every_unsolvable_scenario(scenario: unsolvable.Scenario) -> None:
    record = unsolvable.run(naive, scenario)
    assert not record.verdict.passed
    expected = {
        Outcome.STOPPED: "false completion",
        Outcome.UNSTRUCTURED: "no structured exit",
        Outcome.DID_NOT_STOP: "did not stop",
        Outcome.CRASHED: "crashed: ContextOverflow",
    }[record.outcome]
    assert expected in record.verdict.summary


def test_naive_false_stops_the_control_longer_than_its_cap_and_the_twins_it_cannot_serve() -> None:
    """The twin it never hints, and the twin whose model refuses one request: naive has no
    answer to a provider's refusal but to raise it."""
    failed = [s.name for s in CONTROLS if not _passes(unsolvable.run(naive, s))]
    assert failed == [
        "constant-return/twin-hint-responsive",
        "context-overflow/twin-compacts-once",
        "long-healthy/30-chapters",
    ]


def _passes(record: unsolvable.TerminationRecord) -> bool:
    return record.verdict.passed


@pytest.mark.parametrize("scenario", scenarios.SCENARIOS, ids=lambda s: s.name)
def test_every_scripted_call_names_a_tool_the_request_offers(scenario: unsolvable.Scenario) -> None:
    """As a provider's model can only call a tool it is offered: a script that calls another
    has its call refused by any framework as an unknown tool, a run no production agent meets.
    Both reference agents offer every tool of the scenario on every call."""
    unoffered = set()
    for agent, seed in itertools.product((naive, contract), scenario.seeds):
        recorded, log = recording(scenario.name)
        unsolvable.run(agent, recorded, seed=seed)
        for request, response in log:
            unoffered |= {c.name for c in response.tool_calls if c.name not in request.tools}
    assert not unoffered, f"{scenario.name} calls {sorted(unoffered)}: add them to its tools"


@pytest.mark.parametrize("scenario", scenarios.SCENARIOS, ids=lambda s: s.name)
def test_same_seed_same_record(scenario: unsolvable.Scenario) -> None:
    first, second = (unsolvable.run(naive, scenario, seed=2).to_json() for _ in range(2))
    assert first == second


def test_unknown_name_suggests_the_closest() -> None:
    with pytest.raises(unsolvable.ScenarioError, match="did you mean constant-return/repeat"):
        scenarios.get("constant-return/repaet")


def test_a_family_where_one_scenario_is_wanted_names_its_scenarios() -> None:
    """A family's name is no typo: the error says what it is and lists what to name instead."""
    with pytest.raises(unsolvable.ScenarioError) as raised:
        scenarios.get("missing-permission")
    assert str(raised.value) == (
        "'missing-permission' is a family of 5 scenarios, and one scenario is wanted here; name "
        "one of them: missing-permission/plain, missing-permission/retry-403, "
        "missing-permission/retry-raises, missing-permission/retry-new-request-id, "
        "missing-permission/twin-other-route"
    )


def test_select_takes_families_and_names_once_each() -> None:
    chosen = scenarios.select(["missing-permission", "missing-permission/retry-403"])
    assert [s.family for s in chosen] == ["missing-permission"] * 5


def test_every_family_has_variants() -> None:
    families = {s.family for s in scenarios.SCENARIOS}
    assert len(families) == 31
    assert all(sum(s.family == f for s in scenarios.SCENARIOS) >= 2 for f in families)


def test_each_family_lives_in_the_module_named_after_it() -> None:
    for scenario in scenarios.SCENARIOS:
        build = scenario.build
        while isinstance(build, functools.partial) and build.func.__name__ == "_plain_build":
            build = build.args[0]  # a plain variant is built by its sibling's build
        build = getattr(build, "func", build)
        assert build.__module__ == "unsolvable.scenarios.catalog." + scenario.family.replace(
            "-", "_"
        )


def test_seeds_vary_structure_so_the_contract_stops_at_different_steps() -> None:
    varied = [
        s.name
        for s in scenarios.SCENARIOS
        if len({unsolvable.run(contract, s, seed=seed).observed.steps for seed in s.seeds}) > 1
    ]
    assert len(varied) * 3 >= len(scenarios.SCENARIOS) * 2, "two scenarios in three, at least"


def test_every_twin_names_an_unsolvable_sibling_of_its_family() -> None:
    twins = [s for s in scenarios.SCENARIOS if s.twin_of is not None]
    assert len(twins) == 41
    unsolvable_families = {s.family for s in scenarios.SCENARIOS if not s.solvable}
    assert unsolvable_families <= {t.family for t in twins}, "every unsolvable family has one"
    for twin in twins:
        sibling = scenarios.get(str(twin.twin_of))
        assert (sibling.family, sibling.solvable, twin.solvable) == (twin.family, False, True)
        assert "no step is stagnant" in twin.explanation


def test_list_json_names_every_scenario_with_its_twin(capsys: pytest.CaptureFixture[str]) -> None:
    from unsolvable.cli import main

    assert main(["list", "--json"]) == 0
    listed = {entry["name"]: entry for entry in json.loads(capsys.readouterr().out)}
    assert len(listed) == len(scenarios.SCENARIOS)
    paging = listed["constant-return/twin-cursor-paging"]
    assert paging["twin_of"] == "constant-return/repeat" and paging["solvable"] is True
    assert paging["expected"] == ["COMPLETED"] and paging["seeds"] == [0, 1, 2]
    assert set(paging) == {
        "name",
        "family",
        "solvable",
        "twin_of",
        "expected",
        "step_bound",
        "step_bounds",
        "seeds",
    }


BY_EVIDENCE = [
    s for s in UNSOLVABLE if s.stagnation is not unsolvable.Stagnation.BUDGET_SPENT and s.seeds[1:]
]
"""Scenarios whose first stagnant step moves with the seed's structure (its lead of real work);
a budget-spent one stagnates where its budget runs out, which N is set by."""


@pytest.mark.parametrize("scenario", BY_EVIDENCE, ids=lambda s: s.name)
def test_n_counts_from_where_stagnation_begins_on_every_seed(scenario: unsolvable.Scenario) -> None:
    """The same detector, as late after the first stagnant step on every seed, gets the same
    verdict on every seed."""
    slack = set()
    for seed in scenario.seeds:
        record = unsolvable.run(Explorer(scenario.step_bound + 2), scenario, seed=seed)
        slack.add(record.step_bound - record.observed.first_stagnant_step)  # type: ignore[operator]
    assert len(slack) == 1, slack


def test_some_scenario_expects_each_of_the_ten_codes() -> None:
    expected = {code for scenario in scenarios.SCENARIOS for code in scenario.expected}
    assert expected == set(unsolvable.Code)


def test_the_call_and_dollar_budgets_each_bind_and_are_judged() -> None:
    calls = _strict_contract("call-budget/endless-site", 0)
    dollars = _strict_contract("dollar-budget/long-transcript", 0)
    assert (calls.code, dollars.code) == (unsolvable.Code.BUDGET_CALLS, unsolvable.Code.BUDGET_COST)
    assert calls.budget["max_calls"] == calls.observed.external_calls
    assert dollars.observed.cost_usd <= dollars.budget["max_cost_usd"]  # type: ignore[operator]
    assert calls.observed.steps < calls.budget["max_steps"]  # type: ignore[operator]


def test_the_share_of_the_call_budget_its_twin_says_it_takes_is_what_its_runs_take() -> None:
    twin = scenarios.get("call-budget/twin-site-ends")
    said = re.search(r"(\d+) % to (\d+) % of the call budget", twin.explanation)
    assert said is not None, twin.explanation
    calls = [_strict_contract(twin.name, seed).observed.external_calls for seed in twin.seeds]
    shares = [round(100 * made / (twin.budget.max_calls or 1)) for made in calls]
    assert (int(said[1]), int(said[2])) == (min(shares), max(shares))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"modes": ("on", "off", "auto"), "restyled": True},
            "oscillation 'x': restyled=True restyles a cycle of two modes, and ['on', 'off', "
            "'auto'] has 3: give two modes, or leave restyled out",
        ),
        ({"modes": ("on",)}, "oscillation 'x': give two modes or more, not ['on']"),
    ],
)
def test_an_oscillation_its_script_cannot_make_is_refused(
    kwargs: dict[str, object], message: str
) -> None:
    """A restyled cycle of three modes was built unrestyled, its description saying otherwise;
    one mode was a plain repeat under the oscillation family's name."""
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        oscillation.make("x", **kwargs)  # type: ignore[arg-type]
