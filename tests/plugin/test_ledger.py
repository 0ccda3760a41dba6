"""The ledger in-process: records survive the worker → controller trip, and merge in one order."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

import unsolvable
from unsolvable import scenarios
from unsolvable._loading import load_agent
from unsolvable.plugin._ledger import PAYLOAD_KEY, RunLedger
from unsolvable.plugin._options import UPDATE_BASELINE_OPTION
from unsolvable.plugin._settings import Settings
from unsolvable.reports._blessed import Baseline


def _record(agent: str, name: str, **kwargs: object) -> unsolvable.TerminationRecord:
    return unsolvable.run(load_agent(agent), scenarios.get(name), **kwargs)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def records() -> list[unsolvable.TerminationRecord]:
    """A pass, a verdict failure, a false completion and a run ended by a harness ceiling."""
    return [
        _record("contract", "missing-permission/retry-403", strict=True),
        _record("naive", "constant-return/repeat", seed=1),
        _record("naive", "constant-return/claims-success"),
        _record("naive", "constant-return/repeat", ceilings=unsolvable.Ceilings(max_steps=5)),
    ]


def test_a_record_from_its_dict_is_the_record(records: list[unsolvable.TerminationRecord]) -> None:
    for record in records:
        data = json.loads(json.dumps(record.to_dict(volatile=True)))
        assert unsolvable.TerminationRecord.from_dict(data) == record
        assert unsolvable.TerminationRecord.from_dict(data).to_json() == record.to_json()


def test_workers_publish_and_the_controller_merges(
    records: list[unsolvable.TerminationRecord],
) -> None:
    workers = [RunLedger(), RunLedger()]
    for index, record in enumerate(records):
        workers[index % 2].add(record)
    outputs: list[dict[str, object]] = [{}, {}]
    for worker, output in zip(workers, outputs, strict=True):
        worker.publish(output)
    controller = RunLedger()
    controller.merge("gw1", outputs[1], crashed=False)
    controller.merge("gw0", outputs[0], crashed=False)
    serial = RunLedger()
    for record in records:
        serial.add(record)
    assert controller.sorted_records() == serial.sorted_records()
    assert controller.summary() == serial.summary()


def test_a_worker_without_records_publishes_nothing() -> None:
    output: dict[str, object] = {}
    RunLedger().publish(output)
    assert PAYLOAD_KEY not in output


def test_a_crashed_worker_makes_the_summary_say_it_is_incomplete(
    records: list[unsolvable.TerminationRecord],
) -> None:
    ledger = RunLedger()
    ledger.add(records[0])
    ledger.merge("gw1", None, crashed=True)
    assert ledger.summary()[-1].startswith("unsolvable: warning: worker(s) gw1 went down")


def test_the_summary_has_a_table_per_agent_and_the_totals(
    records: list[unsolvable.TerminationRecord],
) -> None:
    ledger = RunLedger()
    for record in reversed(records):
        ledger.add(record)
    lines = ledger.summary()
    assert [line for line in lines if line.startswith("agent ")] == [
        "agent contract",
        "agent naive",
    ]
    assert lines[-1] == (
        "unsolvable: all agents: 4 runs, 1 passed, 3 failed (1 did_not_stop, 1 false completion)"
    )


def test_a_baseline_is_rewritten_only_from_a_whole_session(
    records: list[unsolvable.TerminationRecord], tmp_path: Path
) -> None:
    path = tmp_path / "baseline.json"
    options = Settings(reports={"baseline": path, "update_baseline": True}).report_options()
    lost = RunLedger()
    lost.add(records[0])
    lost.merge("gw1", None, crashed=True)
    early = RunLedger()
    early.add(records[0])
    for ledger, whole, why in [
        (lost, True, "worker(s) gw1 sent no records"),
        (early, False, "the session stopped early"),
        (RunLedger(), True, "the session made no termination records"),
    ]:
        assert ledger.report(options, whole=whole)
        assert ledger.notes == [f"unsolvable: warning: {path} not rewritten: {why}"]
    assert not path.exists()
    assert early.report(options, whole=True) and path.is_file()
    assert early.notes[-1] == f"unsolvable: wrote baseline of 3 groups to {path}"


def test_the_gate_fails_the_report_and_says_why(
    records: list[unsolvable.TerminationRecord], tmp_path: Path
) -> None:
    path = tmp_path / "baseline.json"
    ledger = RunLedger()
    ledger.add(records[3])
    ledger.report(
        Settings(reports={"baseline": path, "update_baseline": True}).report_options(), whole=True
    )
    # the same scenario and seed, no longer cut short by a ceiling (seed 1 is other runs)
    ledger.records[:] = [_record("naive", "constant-return/repeat")]
    baseline = Baseline.load(path)  # as the session read it when it started
    path.write_text("{")  # then broken while the session ran: the gate never reads it again
    options = Settings(reports={"baseline": path}).report_options()
    assert not ledger.report(options, baseline=baseline, whole=True)
    assert ledger.notes[-1].endswith(f"accept the new numbers with {UPDATE_BASELINE_OPTION}")


def test_the_summary_shows_an_agents_label_escaped(
    records: list[unsolvable.TerminationRecord],
) -> None:
    """A label is the agent's own text: a terminal escape in it is shown, never obeyed."""
    ledger = RunLedger()
    ledger.add(dataclasses.replace(records[0], agent="ev\x1b[2Jil"))
    assert "agent ev\\x1b[2Jil" in ledger.summary()


def test_records_of_one_case_come_out_in_one_order_whichever_arrived_first() -> None:
    """Two tests of one's own may run the same case with other budgets: under xdist either
    record may reach the controller first, and the reports must not show which did."""
    shorter = _record("naive", "constant-return/repeat", max_steps=20)
    longer = _record("naive", "constant-return/repeat", max_steps=30)
    orders = []
    for arrived in ((shorter, longer), (longer, shorter)):
        ledger = RunLedger()
        for record in arrived:
            ledger.add(record)
        orders.append(ledger.sorted_records())
    assert orders[0] == orders[1]
