"""The contract's ledger and blockers beyond repeats: each budget admitted before it is spent,
a permission (not a tool) refused twice, a compaction that does not make the prompt fit, an
action only a person may approve, a premise looked up in vain."""

from __future__ import annotations

import pytest

import unsolvable
from unsolvable import Code
from unsolvable.agents import ContractAgent, ContractThresholds, contract
from unsolvable.agents._signals import compacted, needs_a_person, not_found, wait_hint
from unsolvable.scenarios import get


@pytest.mark.parametrize(
    ("name", "code", "reason"),
    [
        ("endless-wait/job-queued", Code.BUDGET_IDLE, "budget ran out: BUDGET_IDLE"),
        ("call-budget/endless-site", Code.BUDGET_CALLS, "budget ran out: BUDGET_CALLS"),
        ("dollar-budget/long-transcript", Code.BUDGET_COST, "budget ran out: BUDGET_COST"),
        ("tool-timeout/hangs-past-the-wall", Code.BUDGET_TIME, "budget ran out: BUDGET_TIME"),
    ],
)
def test_each_budget_ends_the_run_where_it_runs_out(name: str, code: Code, reason: str) -> None:
    record = unsolvable.run(contract, get(name), strict=True)
    assert record.code is code and record.reported is not None
    assert record.reported.reason == reason and record.observed.detection_lag in (0, 1)


def test_a_batch_of_calls_the_call_budget_cannot_cover_is_not_dispatched() -> None:
    record = unsolvable.run(contract, get("call-budget/endless-site"), seed=1)
    assert record.reported is not None
    assert record.reported.reason == "4 more external call(s) would pass the call budget (21 made)"
    assert record.observed.external_calls == 21


def test_a_dollar_budget_is_admitted_against_what_the_last_step_cost() -> None:
    scenario = get("dollar-budget/long-transcript")
    record = unsolvable.run(contract, scenario)
    assert record.observed.cost_usd <= scenario.budget.max_cost_usd  # type: ignore[operator]
    assert record.observed.unaffordable_steps == 0


def test_without_an_idle_budget_waiting_is_counted_in_steps() -> None:
    thresholds = ContractThresholds(idle_steps=3)
    record = unsolvable.run(ContractAgent(thresholds), get("slow-dependency/fails-5"))
    assert (record.code, record.observed.steps) == (Code.BUDGET_IDLE, 3)


def test_a_second_route_refused_for_the_same_permission_blocks() -> None:
    record = unsolvable.run(contract, get("denial-sprawl/five-routes"))
    assert record.reported is not None and record.reported.missing == ("fs:write /srv/reports",)
    assert record.reported.reason.startswith("run_shell needs the permission")


def test_two_permissions_refused_once_each_do_not_block() -> None:
    record = unsolvable.run(contract, get("denial-sprawl/twin-allowed-route"))
    assert record.code is Code.COMPLETED and record.observed.refusals == {"denied": 2}


def test_compaction_happens_once_and_a_second_overflow_is_fatal() -> None:
    record = unsolvable.run(contract, get("context-overflow/irreducible-document"))
    assert record.code is Code.ERROR_FATAL and record.reported is not None
    assert "even compacted" in record.reported.reason
    assert record.observed.refusals == {"context_window": 2}


def test_an_irreversible_action_goes_to_a_person_before_the_model_confirms_it() -> None:
    record = unsolvable.run(contract, get("human-gate/wire-transfer"))
    assert record.code is Code.NEEDS_HUMAN and record.observed.irreversible_calls == 0


def test_a_premise_looked_up_in_vain_twice_blocks_naming_it() -> None:
    record = unsolvable.run(contract, get("false-premise/no-such-order"))
    assert record.reported is not None and record.reported.missing == ("A-1042", "Dana Whitfield")


def test_signals_are_read_in_every_dialect() -> None:
    camel = '{"status": "confirmation_required", "irreversible": true, "message": "gone"}'
    nested = '{"status": "confirmation_required", "data": {"irreversible": true}}'
    assert needs_a_person(camel) == "gone" and needs_a_person(nested) is not None
    assert needs_a_person('{"status": "confirmation_required", "irreversible": false}') is None
    assert wait_hint('{"status": "queued", "retry_after": 60}') == 60
    assert wait_hint('{"error": {"status": 503, "retry_after": 1}}') == 1
    assert not_found('{"error": {"status": 404, "message": "no file matches \'a.py\'"}}') == (
        "no file matches 'a.py'",
        ("a.py",),
    )


def test_compaction_cuts_long_tool_results_and_keeps_the_rest() -> None:
    messages = [
        {"role": "user", "content": "u" * 900},
        {"role": "tool", "tool_call_id": "1", "content": "t" * 900},
        {"role": "tool", "tool_call_id": "2", "content": "short"},
    ]
    kept = compacted(messages)
    assert kept[0] == messages[0] and kept[2] == messages[2]
    assert kept[1]["content"] == "t" * 400 + " … [compacted: 500 characters]"
