"""The contract's ledger and blockers beyond repeats: each budget admitted before it is spent,
a permission (not a tool) refused twice, a compaction that does not make the prompt fit, an
action only a person may approve, a premise looked up in vain."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import unsolvable
from unsolvable import CHECK_TOOL, DELEGATE_TOOL, Ceilings, Code, Session, Stop
from unsolvable._observed import CONTEXT_WINDOW
from unsolvable.agents import ContractAgent, ContractThresholds, contract
from unsolvable.agents._budget_ledger import BudgetLedger
from unsolvable.agents._contract_run import ContractRun
from unsolvable.agents._signals import compacted, needs_a_person, not_found, wait_hint
from unsolvable.agents._thresholds import Terms
from unsolvable.scenarios import SCENARIOS, get


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


def test_the_next_step_is_estimated_within_the_conversation_that_made_the_last() -> None:
    """The harness's estimate: another agent's small step just before the last is no measure of
    the last one's growth, and an agent's first step carries on no conversation."""
    scenario = get("cost-runaway/plain")
    session = unsolvable.Session(scenario, scenario.build(0), seed=0, ceilings=Ceilings())
    ledger, estimates = BudgetLedger(session), list[int]()
    for agent, tokens in (("main", 100), ("main", 150), ("worker", 10), ("main", 200)):
        ledger.charge({"usage": {"total_tokens": tokens}}, conversation=agent)
        estimates.append(ledger.next_step())
    assert estimates == [100, 200, 10, 250]


def test_the_ledger_estimates_the_next_step_as_the_record_does() -> None:
    """A budget stop is judged on the record's estimate of the next step: the contract, which
    stops on its ledger's, makes the same one on every run of the library — but those with a
    request refused over the context window, whose last step, when refused, spends nothing: the
    record takes that for the next step's spend, and the ledger settles no refused step."""
    differ = []
    for scenario in SCENARIOS:
        for seed in scenario.seeds:
            ledgers: list[BudgetLedger] = []
            record = unsolvable.run(_keeps_its_ledger(ledgers), scenario, seed=seed)
            refused = record.observed.refusals.get(CONTEXT_WINDOW, 0) > 0
            estimate = ledgers[0].next_step()
            if estimate != record.observed.next_step_tokens and not refused:
                differ.append((scenario.name, seed, estimate, record.observed.next_step_tokens))
    assert differ == []


def _keeps_its_ledger(ledgers: list[BudgetLedger]) -> Callable[[Session], Stop]:
    terms = Terms(thresholds=ContractThresholds(), verifier=CHECK_TOOL, delegate=DELEGATE_TOOL)

    def agent(session: Session) -> Stop:
        ledgers.append(BudgetLedger(session))
        return ContractRun(terms, session, ledgers[0], "main").go()

    return agent


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
