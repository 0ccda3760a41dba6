"""Seeds vary tool names, field names and nesting of results; the protocol stays fixed, and the
plain dialect drops volatile ids."""

from __future__ import annotations

import re

import pytest

import unsolvable
from unsolvable import CHECK_TOOL, DELEGATE_TOOL, GIVE_UP_TOOL, ToolResult, scenarios
from unsolvable.scenarios.catalog._dialect import DIALECTS, dialect

IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
"""Some frameworks bind tools as Python callables: every dialect's names must be identifiers."""
BODY = {"request_id": "req-1", "status": "pending", "open_items": 3, "index": {"percent_done": 5}}


def _tool_names(name: str, seed: int) -> set[str]:
    return {spec.name for spec in scenarios.get(name).build(seed).toolbox.specs}


@pytest.mark.parametrize("scenario", scenarios.SCENARIOS, ids=lambda s: s.name)
def test_each_seed_spells_the_tools_its_own_way_and_keeps_the_protocol(
    scenario: scenarios.Scenario,
) -> None:
    names = [_tool_names(scenario.name, seed) for seed in (0, 1, 2)]
    protocol = {CHECK_TOOL, GIVE_UP_TOOL, DELEGATE_TOOL}
    own = [n - protocol for n in names]
    assert own[0] and len({frozenset(n) for n in own}) == 3, names
    assert all(IDENTIFIER.match(name) for n in names for name in n)
    assert CHECK_TOOL in names[0] & names[1] & names[2]


def test_field_names_and_nesting_vary_while_protocol_fields_stay_on_top() -> None:
    snake, camel, nested = (d.body(BODY) for d in DIALECTS)
    assert snake == BODY
    assert camel == {
        "request_id": "req-1",
        "status": "pending",
        "openItems": 3,
        "index": {"percentDone": 5},
    }
    assert nested == {
        "request_id": "req-1",
        "status": "pending",
        "data": {"open_items": 3, "index": {"percent_done": 5}},
    }


def test_a_plain_variant_shows_no_volatile_id_and_the_harness_judges_the_same() -> None:
    plain, sibling = scenarios.get("constant-return/plain"), scenarios.get("constant-return/repeat")
    shown = [_first_search(s) for s in (plain, sibling)]
    assert "request_id" not in shown[0] and "request_id" in shown[1]
    assert dialect(4) is DIALECTS[1]


def _first_search(scenario: scenarios.Scenario) -> str:
    setup = scenario.build(0)
    return setup.toolbox.call("search_invoices", {"customer": "ACME-0"}).text


def test_a_result_that_is_not_json_is_left_as_it_is() -> None:
    result = DIALECTS[1].result(ToolResult(text="plain text", observation="plain text"))
    assert result.text == "plain text"


@pytest.mark.parametrize("scenario", scenarios.SCENARIOS, ids=lambda s: s.name)
def test_the_task_names_each_tool_as_the_seed_offers_it(scenario: scenarios.Scenario) -> None:
    seed_zero = _tool_names(scenario.name, 0)
    named = {name for name in seed_zero if re.search(rf"\b{name}\b", scenario.task)}
    for seed in scenario.seeds:
        setup = scenario.build(seed)
        task = unsolvable.Session(scenario, setup, seed=seed, ceilings=unsolvable.Ceilings()).task
        offered = {spec.name for spec in setup.toolbox.specs}
        assert {setup.tool_names.get(name, name) for name in named} <= offered
        assert all(re.search(rf"\b{setup.tool_names.get(n, n)}\b", task) for n in named), task


def test_a_renaming_seed_rewrites_the_task_and_seed_zero_keeps_it() -> None:
    scenario = scenarios.get("constant-return/repeat")
    assert "search_invoices" in scenario.task
    worded = [scenario.build(seed).worded(scenario.task) for seed in (0, 1, 2)]
    assert worded[0] == scenario.task
    assert "searchInvoices" in worded[1] and "search_invoices" not in worded[1]
    assert "invoices_search" in worded[2]
