"""Consumes the termination records of a pytest session, produces its summary and JSON.

Under xdist each worker publishes its records as compact JSON on ``config.workeroutput``; the
controller revives them in ``pytest_testnodedown`` and alone prints the summary, so no two
processes ever write the same file.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, MutableMapping
from pathlib import Path
from typing import Any

from harness._record import (
    Observed,
    Outcome,
    Stop,
    TerminationRecord,
    ToolTrace,
    TraceStep,
    Verdict,
)
from harness._report import format_table, summary_line, write_json

__all__ = ["PAYLOAD_KEY", "RunLedger", "revive"]

PAYLOAD_KEY = "unsolvable_records"
"""The key of a worker's records in ``config.workeroutput``."""


def _fields(cls: type, data: Mapping[str, Any]) -> dict[str, Any]:
    """Only the constructor's fields: derived keys such as ``detection_lag`` are dropped."""
    names = {field.name for field in dataclasses.fields(cls)}
    return {key: value for key, value in data.items() if key in names}


def _step(data: Mapping[str, Any]) -> TraceStep:
    fields = _fields(TraceStep, data)
    for key in ("calls", "tools"):
        fields[key] = tuple(ToolTrace(**_fields(ToolTrace, t)) for t in data.get(key, ()))
    return TraceStep(**fields)


def revive(data: Mapping[str, Any]) -> TerminationRecord:
    """The record that `TerminationRecord.to_dict` was made from (the JSON a worker sends)."""
    fields = _fields(TerminationRecord, data)
    observed = _fields(Observed, data["observed"])
    observed["tail"] = tuple(_step(step) for step in observed.get("tail", ()))
    fields["observed"] = Observed(**observed)
    fields["outcome"] = Outcome(data["outcome"])
    if data.get("reported") is not None:
        reported = _fields(Stop, data["reported"])
        fields["reported"] = Stop(**{**reported, "missing": tuple(reported.get("missing", ()))})
    if data.get("verdict") is not None:
        verdict = _fields(Verdict, data["verdict"])
        fields["verdict"] = Verdict(**{**verdict, "failures": tuple(verdict["failures"])})
    return TerminationRecord(**fields)


class RunLedger:
    """Every record of the session, in one place (held in ``config.stash``)."""

    def __init__(self) -> None:
        self.records: list[TerminationRecord] = []
        self.silent_workers: list[str] = []
        """Workers that went down without sending their records."""

    def add(self, record: TerminationRecord) -> None:
        self.records.append(record)

    def publish(self, workeroutput: MutableMapping[str, Any]) -> None:
        """On a worker: its records, as the JSON the controller revives."""
        if self.records:
            data = [record.to_dict(volatile=True) for record in self.records]
            workeroutput[PAYLOAD_KEY] = json.dumps(data, separators=(",", ":"))

    def merge(self, worker: str, workeroutput: Mapping[str, Any] | None, *, crashed: bool) -> None:
        """On the controller: one worker's records; a crashed worker is remembered."""
        if crashed:
            self.silent_workers.append(worker)
        payload = (workeroutput or {}).get(PAYLOAD_KEY)
        if payload:
            self.records.extend(revive(data) for data in json.loads(payload))

    def sorted_records(self) -> list[TerminationRecord]:
        """Agent, then library order, then seed: the same order serial or under xdist."""
        from scenarios import SCENARIOS

        order = {scenario.name: index for index, scenario in enumerate(SCENARIOS)}
        return sorted(
            self.records,
            key=lambda r: (r.agent, order.get(r.scenario, len(order)), r.scenario, r.seed),
        )

    def summary(self, *, json_path: str | None = None) -> list[str]:
        """A table per agent with its totals, then the totals of all agents and any warning."""
        records = self.sorted_records()
        agents = sorted({record.agent for record in records})
        lines: list[str] = []
        for agent in agents:
            mine = [record for record in records if record.agent == agent]
            lines += ["", f"agent {agent}", format_table(mine), summary_line(mine)]
        if len(agents) > 1:
            lines += ["", summary_line(records).replace("unsolvable:", "unsolvable: all agents:")]
        if json_path is not None:
            lines.append(f"unsolvable: wrote {len(records)} records to {json_path}")
        return lines[1:] + self.warnings()

    def warnings(self) -> list[str]:
        if not self.silent_workers:
            return []
        return [
            f"unsolvable: warning: worker(s) {', '.join(self.silent_workers)} went down without "
            "sending their records; this summary and --unsolvable-json are incomplete"
        ]

    def write_json(self, path: Path) -> None:
        """All records in the stable form (`harness._report.to_json`)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        write_json(self.sorted_records(), path)
