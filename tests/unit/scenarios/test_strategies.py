"""Generated variants: the contract stops every unsolvable one and finishes every control."""

from __future__ import annotations

from hypothesis import given

import unsolvable
from unsolvable.agents import contract
from unsolvable.scenarios.strategies import control_scenarios, unsolvable_scenarios


@given(unsolvable_scenarios())
def test_contract_stops_every_generated_unsolvable_variant(scenario: unsolvable.Scenario) -> None:
    record = unsolvable.run(contract, scenario, strict=True)
    assert record.verdict.passed, record.verdict
    assert scenario.name.startswith(f"{scenario.family}/generated-")


@given(control_scenarios())
def test_contract_finishes_every_generated_control(scenario: unsolvable.Scenario) -> None:
    record = unsolvable.run(contract, scenario)
    assert record.code is unsolvable.Code.COMPLETED and record.observed.world_complete
