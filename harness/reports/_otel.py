"""Consumes judged records, produces OpenTelemetry GenAI spans as OTLP JSON (what a collector's
``otlpjsonfile`` receiver and most tracing back ends read).

One trace per run: an ``invoke_agent`` span, with a ``chat`` span per step and an
``execute_tool`` span per tool call of the run's whole trajectory (``observed.trajectory``; a
record read back from the snapshot form keeps only its tail, and then the tail is what is
spanned). Plain JSON, no SDK: ids and timestamps are derived from the run
(agent, scenario, seed, step), so the same runs give the same bytes, as ``--json`` does.

The run's ``invoke_agent`` span is a CLIENT span for an agent the harness reached across a
process boundary and an INTERNAL one for an agent in its own process, as the conventions ask
(`_run_span_kind`); the record tells them apart by the agent's label alone.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

from unsolvable._observed import TraceStep
from unsolvable._record import TerminationRecord
from unsolvable._remote import REMOTE_PREFIXES
from unsolvable._stop import Outcome
from unsolvable.reports._counted import counted_lags
from unsolvable.reports._stop_reasons import stop_reasons

__all__ = ["finish_reason", "repeats", "root_agent", "to_otlp_json", "tool_call_id"]

EPOCH_NS = 1_767_225_600 * 10**9
"""Every run starts at 2026-01-01T00:00:00Z: back ends drop spans stamped 0, and a fixed start
keeps the file byte-stable."""
STEP_NS = 10**6
"""One synthetic millisecond per step, so spans sort and nest as the steps did."""
SPAN_KIND_INTERNAL, SPAN_KIND_CLIENT = 1, 3
REMOTE_AGENTS = frozenset({"claude-code", "codex", "gemini-cli", "claude-agent-sdk"})
"""The labels of the built-in coding agents, each a CLI the harness starts as a process (the
Claude Agent SDK's too: it drives the Claude Code CLI)."""
STATUS_ERROR = 2
SCOPE = "pytest-unsolvable"
PROVIDER = "unsolvable"
"""``gen_ai.provider.name``, which the conventions require on agent and inference spans: the
harness's scripted fake model answered every step, which no well-known provider value names,
and a custom one is what they allow then."""
TOOL_TYPE = "function"
"""``gen_ai.tool.type``: every tool the harness offers is a function the agent calls."""
OTHER_ERROR = "_OTHER"
"""``error.type`` of an error whose text names no exception type (a lost worker's), the
conventions' own fallback."""
_ERROR_TYPE = re.compile(r"(?P<type>[A-Za-z_][\w.]*): ")
"""The exception type an error's ``Type: message`` text begins with."""


def _run_span_kind(agent: str) -> int:
    """The kind of a run's ``invoke_agent`` span: the conventions' CLIENT span for an agent
    invoked over a process or network boundary, INTERNAL for one in the harness's process. The
    record keeps the agent's label and not its spec, so the label decides: one its spec or
    adapter gave (`REMOTE_PREFIXES`, `REMOTE_AGENTS`) names a remote agent; any other label, an
    ``exec:`` agent renamed ``NAME=SPEC`` too, reads as one in the same process."""
    is_remote = agent.startswith(REMOTE_PREFIXES) or agent in REMOTE_AGENTS
    return SPAN_KIND_CLIENT if is_remote else SPAN_KIND_INTERNAL


def finish_reason(record: TerminationRecord) -> str | None:
    """The proposed finish reason of this run, or ``None`` when no proposed value fits."""
    return stop_reasons(record).otel.value


def to_otlp_json(
    records: Sequence[TerminationRecord], *, volatile: bool = False, interrupted: bool = False
) -> str:
    """An ``ExportTraceServiceRequest`` in OTLP JSON holding one trace per record. ``volatile``
    spreads each run's steps over its measured wall time instead of a millisecond a step. An
    ``interrupted`` session's resource says so (``unsolvable.interrupted``), as the JSON report's
    top does: its traces are the runs that finished, not every run it was given."""
    resource = {"service.name": SCOPE, **({"unsolvable.interrupted": True} if interrupted else {})}
    spans = [
        span
        for record, repeat in zip(records, repeats(records), strict=True)
        for span in _spans(record, repeat, volatile=volatile)
    ]
    request = {
        "resourceSpans": [
            {
                "resource": {"attributes": _attributes(resource)},
                "scopeSpans": [{"scope": {"name": SCOPE}, "spans": spans}],
            }
        ]
    }
    return json.dumps(request, indent=1, sort_keys=True, allow_nan=False) + "\n"


def repeats(records: Sequence[TerminationRecord]) -> list[int]:
    """How many earlier records ran the same agent, scenario and seed: tests of one session may
    run a case twice (other overrides), and each run must keep its own trace and file."""
    seen: Counter[tuple[str, str, int]] = Counter()
    counts = []
    for record in records:
        key = (record.agent, record.scenario, record.seed)
        counts.append(seen[key])
        seen[key] += 1
    return counts


def _spans(record: TerminationRecord, repeat: int, *, volatile: bool) -> Iterator[dict[str, Any]]:
    # The labels as a JSON list, not joined: ``a|b`` on ``c`` and ``a`` on ``b|c`` are two runs.
    key = json.dumps([record.agent, record.scenario, record.seed, *([repeat] if repeat else [])])
    trace_id = _hex(key, 32)
    root_id = _hex(f"{key}|run", 16)
    step_ns = _step_ns(record) if volatile else STEP_NS
    end = EPOCH_NS + step_ns * max(record.observed.steps, 1)
    yield _span(trace_id, root_id, None, _named("invoke_agent", record.agent), EPOCH_NS, end) | {
        "kind": _run_span_kind(record.agent),
        "attributes": _attributes(_run_attributes(record, volatile=volatile)),
        **_status(record),
    }
    parents = {root_agent(record): root_id}
    for agent, span in _agent_spans(record, key, trace_id, root_id, step_ns):
        parents[agent] = span["spanId"]
        yield span
    for step in _spanned(record):
        start = EPOCH_NS + step_ns * (step.step - 1)
        step_id = _hex(f"{key}|step|{step.step}", 16)
        parent = parents.get(step.agent, root_id)
        yield _span(trace_id, step_id, parent, "chat", start, start + step_ns) | {
            "kind": SPAN_KIND_CLIENT,
            "attributes": _attributes(_chat_attributes(step)),
        }
        yield from _tool_spans(key, trace_id, step_id, step, start, step_ns)


def root_agent(record: TerminationRecord) -> str:
    """The system's own top-level agent: ``main`` where the run had one (its tally says so when
    a kept tail holds none of its steps), or the agent of the run's first step."""
    steps = _spanned(record)
    agents = {step.agent for step in steps} | set(record.observed.agents or {})
    return "main" if "main" in agents or not steps else steps[0].agent


def _agent_spans(
    record: TerminationRecord, key: str, trace_id: str, root_id: str, step_ns: int
) -> Iterator[tuple[str, dict[str, Any]]]:
    """One ``invoke_agent`` span for each agent but the top-level one (whose span is the run's),
    over its own steps, with what it spent and the handoff that gave it work: who dispatched
    which subtasks to it. INTERNAL: the system under test invoked it within itself, as far as the
    harness saw, whichever process that system ran in."""
    root, steps = root_agent(record), _spanned(record)
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    for step in steps:
        first.setdefault(step.agent, step.step)
        last[step.agent] = step.step
    for agent in sorted(first, key=first.__getitem__):
        if agent == root:
            continue
        tally = record.observed.tally_of(agent)
        worked = record.observed.worked_by(agent)
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.provider.name": PROVIDER,
            "gen_ai.agent.name": agent,
            "gen_ai.usage.input_tokens": tally.input_tokens if tally else None,
            "gen_ai.usage.output_tokens": tally.output_tokens if tally else None,
            "unsolvable.agent.steps": tally.steps if tally else None,
            "unsolvable.agent.tool_calls": tally.tool_calls if tally else None,
            "unsolvable.handoff.subtasks": [s.name for s in worked] or None,
            "unsolvable.handoff.from": sorted({b for s in worked for b in s.dispatched_by}) or None,
            "unsolvable.handoff.states": [s.state.value for s in worked] or None,
        }
        start = EPOCH_NS + step_ns * (first[agent] - 1)
        span_id = _hex(f"{key}|agent|{agent}", 16)
        name = _named("invoke_agent", agent)
        span = _span(trace_id, span_id, root_id, name, start, EPOCH_NS + step_ns * last[agent])
        yield agent, span | {"kind": SPAN_KIND_INTERNAL, "attributes": _attributes(attributes)}


def _spanned(record: TerminationRecord) -> tuple[TraceStep, ...]:
    """Every step the record holds: its whole trajectory, or only the tail where that is all."""
    return record.observed.trajectory or record.observed.tail


def _tool_spans(
    key: str, trace_id: str, parent: str, step: TraceStep, start: int, step_ns: int
) -> Iterator[dict[str, Any]]:
    """The tool calls the agent made after this step, sharing the second half of its slot."""
    slot = step_ns // (2 * max(len(step.tools), 1))
    for index, tool in enumerate(step.tools):
        begin = start + step_ns // 2 + index * slot
        attributes = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": tool.name,
            "gen_ai.tool.type": TOOL_TYPE,
            "gen_ai.tool.call.id": tool_call_id(step, index),
            "gen_ai.tool.call.arguments": tool.arguments,
            "gen_ai.tool.call.result": tool.result,
        }
        span_id = _hex(f"{key}|step|{step.step}|tool|{index}", 16)
        name = _named("execute_tool", tool.name)
        yield _span(trace_id, span_id, parent, name, begin, begin + slot) | {
            "kind": SPAN_KIND_INTERNAL,
            "attributes": _attributes(attributes),
        }


def tool_call_id(step: TraceStep, index: int) -> str:
    """The same id in the OTLP spans and the ATIF trajectory of a run."""
    return f"call_{step.step}_{index + 1}"


def _run_attributes(record: TerminationRecord, *, volatile: bool) -> dict[str, Any]:
    observed = record.observed
    said = stop_reasons(record)
    reason = said.otel.value
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.provider.name": PROVIDER,
        "gen_ai.agent.name": record.agent,
        "error.type": _error_type(record),
        "gen_ai.usage.input_tokens": observed.input_tokens,
        "gen_ai.usage.output_tokens": observed.output_tokens,
        "unsolvable.scenario": record.scenario,
        "unsolvable.family": record.family,
        "unsolvable.seed": record.seed,
        "unsolvable.outcome": record.outcome.value,
        "unsolvable.exit": record.exit.value if record.exit else None,
        "unsolvable.code": record.code.value if record.code else None,
        "unsolvable.stopped_step": observed.steps,
        "unsolvable.step_bound": record.step_bound,
        "unsolvable.first_stagnant_step": observed.first_stagnant_step,
        **_lag_attributes(record),
        "unsolvable.cost_usd": observed.cost_usd,
        "unsolvable.verdict.passed": record.verdict.passed,
        "unsolvable.spanned_steps": len(_spanned(record)),
        "unsolvable.synthetic_time": not volatile,
        "gen_ai.agent.finish_reason": reason,
        "unsolvable.acp.stop_reason": said.acp.value,
        "unsolvable.a2a.task_state": said.a2a.value,
    }
    if reason is None:
        ended = record.code.value if record.code else record.outcome.value
        attributes["unsolvable.finish_reason_note"] = (
            f"{ended}: no proposed gen_ai.agent.finish_reason value fits"
        )
    return attributes


def _lag_attributes(record: TerminationRecord) -> dict[str, Any]:
    """The run's lag as the reports count it (`counted_lags`): a stop the evidence or the
    budget chose is at 0 at least here too, never a premature stop; none without a lag."""
    lags = counted_lags(record)
    return {
        "unsolvable.lag.steps": lags.steps,
        "unsolvable.lag.tokens": lags.tokens,
        "unsolvable.lag.cost_usd": lags.cost_usd,
    }


def _chat_attributes(step: TraceStep) -> dict[str, Any]:
    return {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": PROVIDER,
        "gen_ai.agent.name": step.agent,
        "unsolvable.step": step.step,
        "unsolvable.said": step.said,
        "unsolvable.requested_tools": [call.name for call in step.calls],
    }


def _status(record: TerminationRecord) -> dict[str, Any]:
    if record.outcome is not Outcome.CRASHED:
        return {}
    return {"status": {"code": STATUS_ERROR, "message": record.observed.error or "crashed"}}


def _error_type(record: TerminationRecord) -> str | None:
    """The type of the exception a crashed run raised (`_status`), which the conventions require
    beside an error status: a low-cardinality name, where the status message has the text."""
    if record.outcome is not Outcome.CRASHED:
        return None
    named = _ERROR_TYPE.match(record.observed.error or "")
    return named["type"] if named else OTHER_ERROR


def _named(operation: str, subject: str) -> str:
    """A span's name, ``{operation} {subject}``, or the operation alone when the agent or tool has
    no name, as the conventions name a span whose subject is not available."""
    return f"{operation} {subject}" if subject else operation


def _step_ns(record: TerminationRecord) -> int:
    """The measured wall time per step (``--volatile``), at least a nanosecond."""
    return max(int(record.wall_seconds * 10**9) // max(record.observed.steps, 1), 1)


def _span(
    trace_id: str, span_id: str, parent: str | None, name: str, start: int, end: int
) -> dict[str, Any]:
    span = {
        "traceId": trace_id,
        "spanId": span_id,
        "name": name,
        # OTLP JSON writes 64-bit integers as strings.
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(end),
    }
    return span if parent is None else span | {"parentSpanId": parent}


def _hex(key: str, digits: int) -> str:
    """A stable id: OTLP JSON writes trace and span ids in hex, not base64."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:digits]


def _attributes(values: dict[str, Any]) -> list[dict[str, Any]]:
    """OTLP ``KeyValue``s; ``None`` values are left out, as an unset attribute is."""
    return [{"key": k, "value": _value(v)} for k, v in values.items() if v is not None]


def _value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, list):
        return {"arrayValue": {"values": [_value(item) for item in value]}}
    return {"stringValue": str(value)}
