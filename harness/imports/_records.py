"""Consumes the harness's own records (a ``--json`` file), produces a `Trace` of one run; and,
for any trace the harness wrote, the task and tools of the built-in scenario it names."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from unsolvable._errors import ScenarioError
from unsolvable._observed import TraceStep
from unsolvable._record import TerminationRecord
from unsolvable._types import JSON
from unsolvable.imports._trace import ImportFailed, Recorded, Trace, Turn
from unsolvable.scenarios import get

__all__ = ["Builtin", "builtin_context", "lost_run", "read_records", "turns_of"]


class Builtin(NamedTuple):
    """What a trace takes from the built-in scenario it names."""

    task: str | None = None
    tools: tuple[JSON, ...] = ()
    budget: JSON | None = None
    notes: tuple[str, ...] = ()


def builtin_context(scenario: str, seed: int) -> Builtin:
    """The task, tool schemas and budget of the built-in scenario a trace names, with a note
    saying so; nothing when the name is not a built-in's."""
    try:
        found = get(scenario)
    except ScenarioError:
        return Builtin()
    specs = found.build(seed).toolbox.specs
    tools = tuple(
        {"name": s.name, "description": s.description, "parameters": s.parameters} for s in specs
    )
    note = f"the task, tool schemas and budget from the built-in {scenario}"
    return Builtin(task=found.task, tools=tools, budget=found.budget.to_dict(), notes=(note,))


def _arguments(text: str) -> JSON:
    try:
        value = json.loads(text)
    except ValueError:
        return {"_text": text}
    return value if isinstance(value, dict) else {"_value": value}


def turns_of(steps: Sequence[TraceStep]) -> tuple[Turn, ...]:
    return tuple(
        Turn(
            text=step.said,
            calls=tuple(
                Recorded(
                    name=t.name, arguments=_arguments(t.arguments), result=t.result, world=t.world
                )
                for t in step.tools
            ),
        )
        for step in steps
    )


def lost_run(source: str, run: str, steps: int) -> ImportFailed:
    """Why a lost run (`Observed.worker_lost`) is not imported, and what to import instead."""
    return ImportFailed(
        f"{source!r} holds a lost run ({run}): its worker process was lost, so "
        f"the harness counted its {steps} step(s) but saw none of its model's answers, and every "
        "figure its worker counted is null; there is nothing to replay. Run that agent on that "
        "scenario again until the run finishes, and import its record or trace, or import the "
        "agent's own trace of the run"
    )


def read_records(path: Path, *, index: int | None = None, data: Any = None) -> Trace:
    """Run ``index`` of a records file (the only one when it holds one)."""
    try:
        if not isinstance(data, dict) or not isinstance(data.get("records"), list):
            raise ValueError('it holds no "records" list')
        records = [TerminationRecord.from_dict(r) for r in data["records"]]
    except ValueError as error:
        raise ImportFailed(
            f"{str(path)!r} is not a records file ({error}); pass one written by unsolvable run "
            "--json or pytest --unsolvable-json"
        ) from None
    if index is None and len(records) != 1:
        listing = "; ".join(
            f"{i}: {r.scenario} seed {r.seed} × {r.agent}" for i, r in enumerate(records)
        )
        raise ImportFailed(
            f"{str(path)!r} holds {len(records)} records; pick one with --record N ({listing})"
        )
    if index is not None and not 0 <= index < len(records):
        raise ImportFailed(f"--record {index}: {str(path)!r} holds records 0–{len(records) - 1}")
    record = records[index or 0]
    observed = record.observed
    if observed.worker_lost:
        run = f"record {index or 0}: {record.scenario} seed {record.seed} × {record.agent}"
        raise lost_run(str(path), f"{run}, {observed.error}", observed.steps)
    removed = []
    steps = observed.trajectory
    if not steps:
        steps = observed.tail
        removed.append(
            f"steps 1–{observed.steps - len(steps)}: a snapshot-form record keeps only its last "
            f"{len(steps)} (a file written before records held their whole trajectory)"
        )
    builtin = builtin_context(record.scenario, record.seed)
    return Trace(
        turns=turns_of(steps),
        task=builtin.task,
        tools=builtin.tools,
        step_bound=record.step_bound,
        budget=dict(record.budget),
        removed=tuple(removed),
        inferred=builtin.notes,
    )
