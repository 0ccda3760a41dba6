"""The contract agent's detectors, each at its threshold."""

from __future__ import annotations

import pytest

import unsolvable
from unsolvable import Code
from unsolvable.agents import ContractAgent, ContractThresholds
from unsolvable.agents._fingerprint import action_fingerprint, observation_fingerprint
from unsolvable.scenarios import get


def test_fingerprints_ignore_ids_case_and_spacing() -> None:
    assert action_fingerprint("s", {"q": "Open  Invoice", "request_id": "a"}) == action_fingerprint(
        "s", '{"q": "open invoice", "request_id": "b"}'
    )
    with_id = observation_fingerprint('{"r": [], "trace_id": 1}')
    assert with_id == observation_fingerprint('{"r": []}')


def test_identical_call_stops_at_the_threshold() -> None:
    agent = ContractAgent(ContractThresholds(repeated_action=2, stalled_steps=5))
    record = unsolvable.run(agent, get("constant-return/repeat"))
    assert (record.code, record.observed.steps) == (Code.NO_PROGRESS, 2)
    assert record.reported is not None and "made 2 times" in record.reported.reason


def test_stall_catches_what_action_fingerprints_miss() -> None:
    record = unsolvable.run(ContractAgent(), get("constant-return/perturbed-offset"))
    assert record.reported is not None
    assert record.reported.reason == "no new observation for 2 steps"


def test_budget_ledger_exits_exhausted_with_partials() -> None:
    agent = ContractAgent(
        ContractThresholds(repeated_action=99, stalled_steps=99, criteria_steps=99)
    )
    record = unsolvable.run(agent, get("constant-return/perturbed-offset"), max_steps=4)
    assert (record.code, record.observed.steps) == (Code.BUDGET_STEPS, 4)
    assert record.reported is not None and record.reported.partial["findings"]


def test_unverifiable_claim_needs_a_human() -> None:
    agent = ContractAgent(verifier="no_such_tool")
    record = unsolvable.run(agent, get("constant-return/claims-success"))
    assert record.code is Code.NEEDS_HUMAN


def test_denied_permission_blocks_naming_it() -> None:
    record = unsolvable.run(ContractAgent(), get("missing-permission/retry-raises"))
    assert record.reported is not None and record.reported.missing == ("portal:write",)


@pytest.mark.parametrize(
    ("name", "subtask", "state"),
    [
        ("task-graph/upstream-down", "search the sources", "failed (sources-api)"),
        ("fan-out/rate-limit-storm", "audit supplier S-1", "failed (supplier-registry)"),
        ("mixed-fan-out/one-worker-hangs", "audit supplier S-4", "failed (eu-supplier-registry)"),
    ],
)
def test_the_subtask_table_names_the_dependency_that_blocked_a_worker(
    name: str, subtask: str, state: str
) -> None:
    """Down (503), over its rate limit (429) or timed out (504): the table says which dependency
    the failed subtask waits on, as the stop's reason does."""
    record = unsolvable.run(ContractAgent(), get(name))
    assert record.reported is not None
    assert record.reported.partial["subtasks"][subtask] == state
