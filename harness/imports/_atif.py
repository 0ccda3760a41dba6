"""Consumes an ATIF-v1.7 trajectory (Harbor's Agent Trajectory Interchange Format), or a v1.8 one,
which only adds audio parts, produces a `Trace`; anything that does not follow the published
models is an error naming the field.

The checks mirror Harbor's pydantic models (``harbor.models.trajectories``, v1.7): the keys each
object allows, a named agent with a version, at least one step, step ids 1, 2, 3, … in order, each
step's source one of system/user/agent, its message, the fields only an agent's step may have on
agent steps alone, tool calls with an id, a function name and an object of arguments, an
observation that is an object with a list of results, each an object that points at a call of
its own step, embedded sub-agent trajectories each with an id of its own, and ``extra`` objects.
The harness's own extras, which the reader uses, are checked too: a step's ``worlds`` a list,
the ``seed`` of the scenario a trace names a whole number.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from unsolvable._types import JSON
from unsolvable.imports._records import Builtin, builtin_context, lost_run
from unsolvable.imports._shapes import Malformed, NotThisFormat, identifier, kind_of, listed, obj
from unsolvable.imports._trace import Recorded, Trace, Turn

__all__ = ["VERSION", "VERSIONS", "read_atif", "validate"]

VERSION = "ATIF-v1.7"
VERSIONS = (VERSION, "ATIF-v1.8")
"""What the importer reads: the version the trace export writes, and the one Harbor writes by
default, v1.7 with audio parts beside the text and image ones, which a replay leaves (`_content`
keeps the text)."""
ROOT_KEYS = frozenset(
    {"schema_version", "session_id", "trajectory_id", "agent", "steps", "notes", "final_metrics",
     "continued_trajectory_ref", "extra", "subagent_trajectories"}
)  # fmt: skip
STEP_KEYS = frozenset(
    {"step_id", "timestamp", "source", "model_name", "reasoning_effort", "message",
     "reasoning_content", "tool_calls", "observation", "metrics", "is_copied_context",
     "llm_call_count", "extra"}
)  # fmt: skip
AGENT_KEYS = frozenset({"name", "version", "model_name", "tool_definitions", "extra"})
METRICS_KEYS = frozenset(
    {"total_prompt_tokens", "total_completion_tokens", "total_cached_tokens", "total_cost_usd",
     "total_steps", "extra"}
)  # fmt: skip
CALL_KEYS = frozenset({"tool_call_id", "function_name", "arguments", "extra"})
OBSERVATION_KEYS = frozenset({"results"})
RESULT_KEYS = frozenset({"source_call_id", "content", "subagent_trajectory_ref", "extra"})
AGENT_ONLY = ("model_name", "reasoning_effort", "reasoning_content", "tool_calls", "metrics")
"""A step's fields that Harbor allows on an agent's step alone."""
SOURCES = ("system", "user", "agent")


def _fail(where: str, problem: str) -> Malformed:
    return Malformed(f"{where} {problem}")


def validate(data: Any) -> None:
    """Raises `Malformed` naming the first field that breaks the models, and `NotThisFormat`
    for a file that is no trajectory of this version at all, which `read_trace` says as it says
    every format's, with the file and ``--format atif``."""
    if not isinstance(data, Mapping):
        raise NotThisFormat("an ATIF trajectory", "the file holds no JSON object")
    version = data.get("schema_version")
    if version not in VERSIONS:
        raise NotThisFormat(
            f"an {VERSION} trajectory",
            f"its schema_version is {version!r}, and this importer reads {' and '.join(VERSIONS)} "
            f"(Harbor's published models); export the run again as {VERSION}",
        )
    _check(data)


def _known(data: Mapping[str, Any], allowed: frozenset[str], where: str, model: str) -> None:
    """Harbor's models forbid every field they do not name; the first such is named."""
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise _fail(f"{where}{unknown[0]}", f"is not a field of an ATIF {model}")


def _check(data: Mapping[str, Any]) -> None:
    unknown = sorted(set(data) - ROOT_KEYS)
    if unknown:
        raise _fail(
            unknown[0], f"is not a field of an ATIF Trajectory (allowed: {sorted(ROOT_KEYS)})"
        )
    agent = data.get("agent")
    if not isinstance(agent, Mapping) or not isinstance(agent.get("name"), str):
        raise _fail("agent", "must be an object with a name and a version")
    if not isinstance(agent.get("version"), str):
        raise _fail("agent.version", "is required (a string)")
    _known(agent, AGENT_KEYS, "agent.", "Agent")
    _known(obj(data.get("final_metrics"), "final_metrics"), METRICS_KEYS, "final_metrics.",
           "FinalMetrics")  # fmt: skip
    steps = data.get("steps")
    if not isinstance(steps, list) or not steps:
        raise _fail("steps", "must be a list of at least one step")
    for i, step in enumerate(steps):
        _check_step(step, i)
    _check_subagents(listed(data.get("subagent_trajectories"), "subagent_trajectories"))
    _check_extra(obj(data.get("extra"), "extra"))


def _check_subagents(subagents: list[Any]) -> None:
    """Each embedded trajectory is an object with a ``trajectory_id`` none of its siblings has:
    Harbor resolves a sub-agent's trajectory by that id, and rejects a file without it."""
    seen: set[str] = set()
    for i, subagent in enumerate(subagents):
        where = f"subagent_trajectories[{i}]"
        if not isinstance(subagent, Mapping):
            raise _fail(where, "is not an object")
        ident = subagent.get("trajectory_id")
        if not isinstance(ident, str):
            raise _fail(f"{where}.trajectory_id", "is required (a string) in an embedded one")
        if ident in seen:
            raise _fail(f"{where}.trajectory_id", f"is {ident!r}, which an earlier one has")
        seen.add(ident)


def _check_extra(extra: Mapping[str, Any]) -> None:
    """The harness's own fields, read when the trace names one of its scenarios."""
    seed = extra.get("seed", 0)
    if isinstance(extra.get("scenario"), str) and (
        not isinstance(seed, int) or isinstance(seed, bool)
    ):
        raise _fail("extra.seed", f"is {kind_of(seed)}; the seed of the run is a whole number")


def _check_step(step: Any, i: int) -> None:
    where = f"steps[{i}]"
    if not isinstance(step, Mapping):
        raise _fail(where, "is not an object")
    unknown = sorted(set(step) - STEP_KEYS)
    if unknown:
        raise _fail(f"{where}.{unknown[0]}", "is not a field of an ATIF Step")
    if step.get("step_id") != i + 1:
        raise _fail(f"{where}.step_id", f"is {step.get('step_id')!r}; step ids run 1, 2, 3, …")
    if step.get("source") not in SOURCES:
        raise _fail(f"{where}.source", f"is {step.get('source')!r}; use one of {SOURCES}")
    if "message" not in step:
        raise _fail(f"{where}.message", "is required (a string, or a list of content parts)")
    only = [key for key in AGENT_ONLY if step.get(key) is not None]
    if only and step["source"] != "agent":
        raise _fail(
            f"{where}.{only[0]}", f"is an agent's; this step's source is {step['source']!r}"
        )
    _check_observation(step, where, _call_ids(step, where))
    listed(obj(step.get("extra"), f"{where}.extra").get("worlds"), f"{where}.extra.worlds")


def _call_ids(step: Mapping[str, Any], where: str) -> set[str]:
    """The ids of the step's tool calls, each checked as a `ToolCall`."""
    ids = set()
    for j, call in enumerate(listed(step.get("tool_calls"), f"{where}.tool_calls")):
        at = f"{where}.tool_calls[{j}]"
        if not isinstance(call, Mapping) or not isinstance(call.get("tool_call_id"), str):
            raise _fail(at, "needs a tool_call_id (a string)")
        if not isinstance(call.get("function_name"), str):
            raise _fail(f"{at}.function_name", "is required (a string)")
        if not isinstance(call.get("arguments"), Mapping):
            raise _fail(f"{at}.arguments", "must be an object")
        _known(call, CALL_KEYS, f"{at}.", "ToolCall")
        ids.add(call["tool_call_id"])
    return ids


def _check_observation(step: Mapping[str, Any], where: str, ids: set[str]) -> None:
    """The step's observation, whose results each point at one of its tool calls (``ids``)."""
    observation = obj(step.get("observation"), f"{where}.observation")
    _known(observation, OBSERVATION_KEYS, f"{where}.observation.", "Observation")
    for j, result in enumerate(listed(observation.get("results"), f"{where}.observation.results")):
        at = f"{where}.observation.results[{j}]"
        if not isinstance(result, Mapping):
            raise _fail(at, "is not an object")
        _known(result, RESULT_KEYS, f"{at}.", "ObservationResult")
        source = identifier(result.get("source_call_id"), f"{at}.source_call_id")
        if source is not None and source not in ids:
            raise _fail(
                f"{at}.source_call_id", f"is {source!r}, which no tool call of this step has"
            )


def _content(value: Any) -> str:
    """A result's content: a string, or (v1.6+) parts of which the text ones are kept."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(str(p.get("text", "")) for p in value if isinstance(p, Mapping))
    return "" if value is None else json.dumps(value, sort_keys=True)


def _turn(step: Mapping[str, Any]) -> Turn:
    results = {
        r.get("source_call_id"): _content(r.get("content"))
        for r in (step.get("observation") or {}).get("results") or ()
    }
    worlds = (step.get("extra") or {}).get("worlds") or []
    calls = tuple(
        Recorded(
            name=call["function_name"],
            arguments=dict(call["arguments"]),
            result=results.get(call["tool_call_id"], ""),
            world=str(worlds[j]) if j < len(worlds) else "",
        )
        for j, call in enumerate(step.get("tool_calls") or ())
    )
    message = step.get("message")
    return Turn(text=message if isinstance(message, str) else _content(message), calls=calls)


def read_atif(path: Path, data: Any) -> Trace:
    """The agent steps as turns; the first user step as the task."""
    validate(data)
    steps = data["steps"]
    users = [s for s in steps if s["source"] == "user"]
    task = _content(users[0].get("message")) if users else None
    extra: JSON = dict(data.get("extra") or {})
    if extra.get("worker_lost") is True:  # the harness's own trace of a lost run
        steps = (data.get("final_metrics") or {}).get("total_steps")
        run = f"{extra.get('scenario')} seed {extra.get('seed')} × {data['agent']['name']}"
        raise lost_run(str(path), run, steps if isinstance(steps, int) else 0)
    removed = []
    if data.get("subagent_trajectories"):
        removed.append(
            f"{len(data['subagent_trajectories'])} sub-agent trajectories (a replay "
            "has one agent; their calls are not in the script)"
        )
    system = sum(s["source"] == "system" for s in steps)
    if system:
        removed.append(f"{system} system step(s)")
    builtin = (
        builtin_context(extra["scenario"], int(extra.get("seed", 0)))
        if isinstance(extra.get("scenario"), str)
        else Builtin()
    )
    bound = extra.get("step_bound")
    return Trace(
        turns=tuple(_turn(s) for s in steps if s["source"] == "agent"),
        task=task or builtin.task,
        tools=builtin.tools,
        step_bound=bound if isinstance(bound, int) else None,
        budget=builtin.budget,
        removed=tuple(removed),
        inferred=builtin.notes,
    )
