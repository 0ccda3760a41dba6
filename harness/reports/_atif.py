"""Consumes judged records, produces one Agent Trajectory Interchange Format (ATIF) file per run,
``<agent>/<family>/<variant>-seed<N>.json`` under the ``--trace-dir``.

The shape follows Harbor's published ATIF-v1.7 models (``harbor.models.trajectories``): steps
numbered from 1, tool calls with ids, observations pointing back at them, and final metrics;
whatever ATIF has no field for goes under ``extra``. A record made in this process or carried in
its volatile form holds the whole trajectory (``observed.trajectory``), which ``unsolvable
import`` replays; one read back from a snapshot-form JSON file keeps only its tail, and the file
then holds those last steps and says so in ``notes``. The record has no per-step token counts, so
only the run's totals are given (``final_metrics``).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from unsolvable._numbers import counted
from unsolvable._observed import ToolTrace, TraceStep
from unsolvable._record import TerminationRecord
from unsolvable.reports._counted import counted_lags
from unsolvable.reports._otel import repeats, root_agent, tool_call_id
from unsolvable.reports._stop_reasons import stop_reasons

__all__ = ["SCHEMA_VERSION", "TRAJECTORY_DEPTH", "to_atif", "trace_files"]

SCHEMA_VERSION = "ATIF-v1.7"
AGENT_VERSION = "unknown"
"""ATIF requires the agent's version; the harness is handed a callable and cannot know it."""
_UNSAFE = re.compile(r"[^\w.-]+")
"""Characters a file name on any system may not hold (``unsolvable.agents:contract``)."""
NAME_BYTES = 128
"""Bytes of a label that a folder or file name keeps: file systems hold 255 bytes a name, and a
variant's name is followed by its seed, its repeat and ``.json``."""
DIGEST_DIGITS = 12
"""Hex digits of a label's hash that end a name cut to `NAME_BYTES`, so that two long labels
that begin alike keep two names."""


TRAJECTORY_DEPTH = 3
"""How deep under its folder a run's file lies: ``AGENT/FAMILY/NAME.json`` (`trace_files`)."""


def trace_files(records: Sequence[TerminationRecord], folder: Path) -> Iterator[tuple[Path, str]]:
    """Each run's path under ``folder`` and its ATIF JSON text (stable bytes); a second run at
    the same path gets ``-2`` after its seed: the same case run twice in one session, or two
    labels that are one once made safe for a path (``a:b`` and ``a b``, ``.`` and ``..``),
    each keep a file."""
    seen: Counter[Path] = Counter()
    for record, run in zip(records, repeats(records), strict=True):
        variant = record.scenario.split("/", 1)[-1]
        where = folder / _safe(record.agent) / _safe(record.family)
        stem = f"{_safe(variant)}-seed{record.seed}"
        repeat = seen[where / stem]
        seen[where / stem] += 1
        path = where / (f"{stem}-{repeat + 1}.json" if repeat else f"{stem}.json")
        text = json.dumps(to_atif(record, repeat=run), indent=2, sort_keys=True, allow_nan=False)
        yield path, text + "\n"


def to_atif(record: TerminationRecord, *, repeat: int = 0) -> dict[str, Any]:
    """The trajectory of one run, as plain JSON data; ``repeat`` counts the earlier runs of its
    case (`repeats`), each a session of its own, as each is a trace of its own in ``--otel``."""
    observed = record.observed
    kept = observed.trajectory or observed.tail
    root = root_agent(record)
    session = f"{record.agent}|{record.scenario}|seed{record.seed}"
    session += f"|run{repeat + 1}" if repeat else ""
    steps = [_step(i, step) for i, step in enumerate(_of(kept, root), start=1)]
    trajectory = {
        "schema_version": SCHEMA_VERSION,
        "session_id": session,
        "agent": {"name": record.agent, "version": AGENT_VERSION},
        "steps": steps or [_no_step(record, root)],
        "notes": _notes(record, root),
        "final_metrics": {
            "total_prompt_tokens": observed.input_tokens,
            "total_completion_tokens": observed.output_tokens,
            "total_cost_usd": observed.cost_usd,
            "total_steps": observed.steps,
        },
        "extra": _ending(record),
    }
    others = list(dict.fromkeys(step.agent for step in kept if step.agent != root))
    if others:
        trajectory["subagent_trajectories"] = [
            _subagent(record, session, agent, _of(kept, agent)) for agent in others
        ]
    return trajectory


def _of(steps: Sequence[TraceStep], agent: str) -> list[TraceStep]:
    return [step for step in steps if step.agent == agent]


def _subagent(
    record: TerminationRecord, session: str, agent: str, steps: list[TraceStep]
) -> dict[str, Any]:
    """One sub-agent's own trajectory: its steps, what it spent, the subtasks it worked on.
    Harbor resolves an embedded trajectory by its ``trajectory_id`` and rejects one without it;
    an agent's name is unique in its run, and so is the id."""
    tally = record.observed.tally_of(agent)
    worked = record.observed.worked_by(agent)
    data: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "session_id": f"{session}|{agent}",
        "trajectory_id": f"{session}|{agent}",
        "agent": {"name": agent, "version": AGENT_VERSION},
        "steps": [_step(i, step) for i, step in enumerate(steps, start=1)],
        "extra": {"subtasks": {s.name: s.state.value for s in worked}},
    }
    if tally is not None:
        data["final_metrics"] = {
            "total_prompt_tokens": tally.input_tokens,
            "total_completion_tokens": tally.output_tokens,
            "total_cost_usd": tally.cost_usd,
            "total_steps": tally.steps,
        }
    if tally is not None and tally.steps != len(steps):
        # ATIF asks the notes to say why ``total_steps`` is not the number of steps held.
        data["notes"] = (
            f"the last {len(steps)} of its {tally.steps} steps (the termination record keeps "
            "only the trajectory's tail); extra.step is the step number in the run"
        )
    return data


def _notes(record: TerminationRecord, root: str) -> str:
    """What the file holds of the run's steps: all, none (a run that made none), or the tail a
    snapshot-form record keeps; in a multi-agent run, how many are the top-level agent's
    (``steps``) and where the others are, since each agent's steps are in its own trajectory."""
    observed = record.observed
    kept = observed.trajectory or observed.tail
    mine = len(_of(kept, root))
    split = (
        ""
        if mine == len(kept)
        else f", {mine} of them {root}'s here, the other agents' in subagent_trajectories"
    )
    if observed.worker_lost:
        return (
            f"none of its {counted(observed.steps, 'step')}: its worker process was lost, and the "
            "harness counted its steps without seeing what they said (extra.worker_lost)"
        )
    if not observed.steps:
        # Whole or tail, a record of no step holds all there was: none, and no tail was cut.
        return "no steps: the run made no model call; the one step here is the harness's, saying so"
    if observed.trajectory:
        return (
            f"all {counted(len(kept), 'step')}{split}; extra.step is the step number in the run, "
            "extra.worlds the world's fingerprint after each tool call"
        )
    return (
        f"the last {len(kept)} of {observed.steps} steps{split} (the termination record keeps "
        "only the trajectory's tail); step ids count from the first one kept, extra.step is the "
        "step number in the run"
    )


def _step(index: int, step: TraceStep) -> dict[str, Any]:
    extra: dict[str, Any] = {
        "step": step.step,
        "requested_tools": [call.name for call in step.calls],
    }
    if any(tool.world for tool in step.tools):
        extra["worlds"] = [tool.world for tool in step.tools]
    data: dict[str, Any] = {
        "step_id": index,
        "source": "agent",
        "message": step.said,
        "extra": extra,
    }
    if step.tools:
        data["tool_calls"] = [_call(step, i, tool) for i, tool in enumerate(step.tools)]
        data["observation"] = {
            "results": [
                {"source_call_id": tool_call_id(step, i), "content": tool.result}
                for i, tool in enumerate(step.tools)
            ]
        }
    return data


def _call(step: TraceStep, index: int, tool: ToolTrace) -> dict[str, Any]:
    return {
        "tool_call_id": tool_call_id(step, index),
        "function_name": tool.name,
        "arguments": _arguments(tool.arguments),
    }


def _arguments(text: str) -> dict[str, Any]:
    """ATIF wants an object; the record keeps canonical JSON, cut for reading when long."""
    try:
        value = json.loads(text)
    except ValueError:
        return {"_text": text}
    return value if isinstance(value, dict) else {"_value": value}


def _no_step(record: TerminationRecord, root: str) -> dict[str, Any]:
    """ATIF needs one step at least; a run that never called the model gets a system step, and
    so does a lost run, whose steps the harness counted without seeing what they said, and a
    tail that holds only other agents' steps."""
    observed = record.observed
    if observed.worker_lost:
        said = f"none of its {observed.steps} step(s) recorded: its worker process was lost"
    elif observed.trajectory or observed.tail:
        held = len(observed.trajectory or observed.tail)
        said = (
            f"none of the {held} steps the record holds is {root}'s: they are other agents', "
            "in subagent_trajectories"
        )
    else:
        said = "no model call"
    return {"step_id": 1, "source": "system", "message": f"{said} ({record.outcome})"}


def _ending(record: TerminationRecord) -> dict[str, Any]:
    """How the run ended and its verdict: what ATIF has no field for."""
    observed = record.observed
    said = stop_reasons(record)
    ending = {
        "scenario": record.scenario,
        "seed": record.seed,
        "outcome": record.outcome.value,
        "exit": record.exit.value if record.exit else None,
        "code": record.code.value if record.code else None,
        "reason": record.reported.reason if record.reported else None,
        "finish_reason": said.otel.value,
        "acp_stop_reason": said.acp.value,
        "a2a_task_state": said.a2a.value,
        "first_stagnant_step": observed.first_stagnant_step,
        "detection_lag": _lag(record),
        "step_bound": record.step_bound,
        "worker_lost": True if observed.worker_lost else None,
        "verdict": {
            "passed": record.verdict.passed,
            "failures": list(map(str, record.verdict.failures)),
        },
    }
    # Harbor writes its models without ``None`` fields; an unset value is left out here too.
    return {key: value for key, value in ending.items() if value is not None}


def _lag(record: TerminationRecord) -> dict[str, Any] | None:
    """The run's lag as the reports count it (`counted_lags`); a control, or a run lost before
    its first step, has no stagnant step and no lag."""
    lags = counted_lags(record)
    return None if lags.steps is None else lags._asdict()


def _safe(name: str) -> str:
    """``name`` as one part of a path under the trace folder: each run of characters a file name
    may not hold (a path separator among them) becomes ``_``, and so does a name that is no
    folder of its own ("", ".", ".."): the labels come from a records file, and no label may
    lead a trajectory out of ``--trace-dir``. A name longer than `NAME_BYTES` is cut, and ends
    with its label's hash."""
    safe = _UNSAFE.sub("_", name)
    if not safe.strip("."):
        return "_"
    if len(safe.encode("utf-8")) <= NAME_BYTES:
        return safe
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:DIGEST_DIGITS]
    kept = safe.encode("utf-8")[: NAME_BYTES - DIGEST_DIGITS - 1].decode("utf-8", "ignore")
    return f"{kept}-{digest}"
