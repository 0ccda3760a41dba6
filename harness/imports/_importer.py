"""Consumes a `Trace` (any format's reader makes one) and what the user said, produces the data of
a scenario file and the lines that say what was removed and what was inferred.

Nothing the recording held leaves the importer unredacted: secret-looking values are replaced
(`unsolvable._redact`), headers were dropped by `strip_headers` before the reader saw the data.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from unsolvable._redact import REDACTED, Redactor
from unsolvable._stop import Code
from unsolvable._types import GIVE_UP_TOOL, JSON
from unsolvable.fake_tools import DENIED, UNAVAILABLE
from unsolvable.imports._cycle import Cycle, Stuck, find_cycle, find_stuck, refusal_of
from unsolvable.imports._sameness import RULE, answer_key, call_key
from unsolvable.imports._scenario_file import SCHEMA
from unsolvable.imports._schema import parse
from unsolvable.imports._trace import ImportFailed, Recorded, Trace, Turn
from unsolvable.scenarios.catalog._common import ABANDONED, budget

__all__ = ["HEADER_KEYS", "Imported", "import_trace", "strip_headers"]

HEADER_KEYS = frozenset(
    {"headers", "request_headers", "response_headers", "http_headers", "authorization",
     "cookie", "set-cookie", "x-api-key", "api_key", "api-key"}
)  # fmt: skip
"""Keys whose values are transport detail or credentials, never the run's content: dropped."""
LOOP_SLACK = 10
"""Steps of N past the first stagnant step of a loop: three to notice a repeat (the contract's
window) and generous room for a slower, still-correct detector (constant-return's bound)."""
REFUSAL_SLACK = 5
"""Past a first refusal: one allowed retry and a couple of steps to wrap up (missing-permission)."""
TWIN_SLACK = 4
"""Past the unblocking call in a twin: a final claim and a verification or two (the controls')."""
REFUSED_RETRIES = {DENIED: 1, UNAVAILABLE: 2}
"""Retries allowed after a refusal, as the built-in families allow them."""


@dataclass(frozen=True, kw_only=True)
class Imported:
    """A scenario file's data, and what the importer did to get it."""

    data: JSON
    removed: tuple[str, ...]
    inferred: tuple[str, ...]
    merged: tuple[str, ...] = ()
    """Each merge of recorded answers it made, by the rule it prints (`RULE`)."""


def strip_headers(value: Any, path: str = "") -> tuple[Any, list[str]]:
    """``value`` without `HEADER_KEYS` anywhere inside, and the paths it removed."""
    removed: list[str] = []
    if isinstance(value, Mapping):
        kept = {}
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            if str(key).lower() in HEADER_KEYS:
                removed.append(where)
                continue
            kept[key], inner = strip_headers(item, where)
            removed.extend(inner)
        return kept, removed
    if isinstance(value, list):
        items = []
        for i, item in enumerate(value):
            cleaned, inner = strip_headers(item, f"{path}[{i}]")
            items.append(cleaned)
            removed.extend(inner)
        return items, removed
    return value, removed


def _redacted(trace: Trace, redactor: Redactor) -> tuple[Trace, int]:
    count = 0

    def clean(value: Any) -> Any:
        nonlocal count
        cleaned = redactor.data(value)
        count += str(cleaned).count(REDACTED) - str(value).count(REDACTED)
        return cleaned

    def call(c: Recorded) -> Recorded:
        return replace(c, arguments=clean(c.arguments), result=clean(c.result))

    turns = tuple(Turn(text=clean(t.text), calls=tuple(map(call, t.calls))) for t in trace.turns)
    task = None if trace.task is None else clean(trace.task)
    tools = tuple(clean(tool) for tool in trace.tools)  # a description may quote a key too
    return replace(trace, turns=turns, task=task, tools=tools), count


def _type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, dict) else "string"


def _tools(trace: Trace) -> tuple[list[JSON], list[str]]:
    """The listed tools, plus any called tool the recording does not list (schema inferred)."""
    tools = [dict(tool) for tool in trace.tools]
    listed = {tool["name"] for tool in tools}
    inferred = []
    for turn in trace.turns:
        for c in turn.calls:
            if c.name in listed:
                continue
            listed.add(c.name)
            inferred.append(c.name)
            properties = {key: {"type": _type(value)} for key, value in c.arguments.items()}
            tools.append(
                {
                    "name": c.name,
                    "description": f"{c.name} (recorded; schema inferred from its calls)",
                    "parameters": {"type": "object", "properties": properties},
                }
            )
    notes = [f"tool schemas of {', '.join(inferred)} from the arguments they were called with"]
    return tools, notes if inferred else []


def _turn(turn: Turn) -> JSON:
    calls = [{"name": c.name, "arguments": c.arguments} for c in turn.calls]
    return {"text": turn.text, "calls": calls}


def _answers(turns: tuple[Turn, ...]) -> tuple[list[JSON], list[str]]:
    """Each call's answers in the order they came, keyed as the replay keys them (`call_key`),
    and the merges made of them (`_without_trailing_repeats`)."""
    answers: dict[str, JSON] = {}
    for turn in turns:
        for c in turn.calls:
            entry = answers.setdefault(
                call_key(c.name, c.arguments),
                {"tool": c.name, "arguments": c.arguments, "results": []},
            )
            result: JSON = {"text": c.result, "refusal": refusal_of(c)}
            if c.world:
                result["world"] = c.world
            entry["results"].append(result)
    merged = []
    for entry in answers.values():
        kept = _without_trailing_repeats(entry["results"])
        if len(kept) < len(entry["results"]):
            merged.append(_merge(entry, len(kept), len(entry["results"])))
        entry["results"] = kept
    return list(answers.values()), merged


def _without_trailing_repeats(results: list[JSON]) -> list[JSON]:
    """The last answer is given again for ever, so answers at the end that are the same as the
    one before them (`answer_key`: request ids aside; the same refusal and world state) are kept
    once: the replay gives what the recording gave, and the file stays as long as what was new."""

    def same(a: JSON, b: JSON) -> bool:
        plain = answer_key(a["text"]) == answer_key(b["text"])
        return plain and a["refusal"] == b["refusal"] and a.get("world") == b.get("world")

    end = len(results)
    while end > 1 and same(results[end - 2], results[end - 1]):
        end -= 1
    return results[:end]


def _merge(entry: JSON, kept: int, recorded: int) -> str:
    """One merge, in words: which answers of which call became which."""
    call = f"{entry['tool']} {call_key('', entry['arguments'])[1:]}"
    answers = f"answer {kept + 1}" if kept + 1 == recorded else f"answers {kept + 1}-{recorded}"
    return f"{call}: {answers} the same as answer {kept}, which the replay repeats for ever"


def _expected(stuck: Stuck, cycle_turns: tuple[Turn, ...]) -> tuple[set[Code], str | None, str]:
    """The codes a correct stop may give, the give-up reason, and why."""
    gave_up = [c for t in cycle_turns for c in t.calls if c.name == GIVE_UP_TOOL]
    if stuck.refusal == DENIED:
        return {Code.BLOCKED_INPUT}, None, "a recorded denial: BLOCKED_INPUT"
    if stuck.refusal is not None:
        codes = {Code.BLOCKED_INPUT, Code.ERROR_FATAL, Code.NO_PROGRESS}
        return codes, None, "a dependency down: any abandoned code but NEEDS_HUMAN"
    if gave_up:
        reason = str(gave_up[0].arguments.get("reason", ""))
        return set(ABANDONED), reason or None, "the model gave up: any abandoned code"
    if all(not t.calls for t in cycle_turns):
        return {Code.NO_PROGRESS, Code.NEEDS_HUMAN}, None, "a success claim the world refutes"
    return {Code.NO_PROGRESS}, None, "a loop: NO_PROGRESS"


def _stuck(trace: Trace, first_stagnant_step: int | None) -> Stuck:
    stuck = find_stuck(trace.turns)
    if first_stagnant_step is not None and first_stagnant_step > len(trace.turns):
        raise ImportFailed(
            f"--first-stagnant-step {first_stagnant_step} is past the recording, which holds "
            f"{len(trace.turns)} model turn(s); name the step where it got stuck, 1 to "
            f"{len(trace.turns)}"
        )
    if first_stagnant_step is not None:
        why = f"given by the user (the importer found step {stuck.first_stagnant_step})"
        return replace(stuck, first_stagnant_step=first_stagnant_step, why=why)
    if stuck.first_stagnant_step > len(trace.turns) and trace.turns[-1].calls:
        raise ImportFailed(
            f"the recorded run brought something new up to its last step "
            f"({len(trace.turns)}): it never got stuck, so there is no loop to replay; pass "
            "--first-stagnant-step N to say where it did get stuck"
        )
    return stuck


def import_trace(
    trace: Trace,
    *,
    name: str,
    source: str,
    format: str,
    unrecorded: str = "unknown",
    unblock: tuple[str, str] | None = None,
    first_stagnant_step: int | None = None,
    task: str | None = None,
) -> Imported:
    """The scenario file of ``trace``: ``unblock`` is ``(tool, answer)`` for a solvable twin."""
    if not trace.turns:
        raise ImportFailed(f"{source!r} holds no model turn; nothing to replay")
    trace, secrets = _redacted(trace, Redactor())
    task = task or trace.task
    if not task:
        raise ImportFailed(f"{source!r} holds no task (no first user message); pass --task TEXT")
    stuck = _stuck(trace, first_stagnant_step)
    cycle: Cycle = find_cycle(trace.turns, stuck.first_stagnant_step)
    loop = trace.turns[cycle.start : cycle.start + cycle.period]
    expected, give_up, why_codes = _expected(stuck, loop)
    slack = REFUSAL_SLACK if stuck.by_refusal else LOOP_SLACK
    step_bound = trace.step_bound or stuck.first_stagnant_step + slack
    tools, tool_notes = _tools(trace)
    answers, merged = _answers(trace.turns)
    data: JSON = {
        "schema": SCHEMA,
        "name": name,
        "task": task,
        "tools": tools,
        "script": {
            "prefix": [_turn(t) for t in trace.turns[: cycle.start]],
            "cycle": [_turn(t) for t in loop],
        },
        "answers": answers,
        "unrecorded": {"answer": unrecorded},
        "ground_truth": {
            "stagnation": "first_refusal" if stuck.by_refusal else "novelty",
            "first_stagnant_step": stuck.first_stagnant_step,
            "why": stuck.why,
        },
        "expected": sorted(expected),
        "step_bound": step_bound,
        "budget": trace.budget or budget(step_bound).to_dict(),
        "missing": list(stuck.missing),
        "refused_retries": REFUSED_RETRIES.get(stuck.refusal or ""),
        "give_up": give_up,
        "seeds": [0],
    }
    data["budget"] = {k: v for k, v in data["budget"].items() if v is not None}
    inferred = [
        *trace.inferred,
        f"sameness: {RULE}",
        f"the cycle: {cycle.how}",
        f"the first stagnant step: {stuck.first_stagnant_step} ({stuck.why})",
        f"the expected codes: {', '.join(sorted(expected))} ({why_codes})",
        f"the step bound N: {step_bound}"
        + ("" if trace.step_bound else f" (first stagnant step + {slack})"),
        *tool_notes,
    ]
    if stuck.missing:
        inferred.append(f"what a BLOCKED_INPUT stop must name: {', '.join(stuck.missing)}")
    if unblock is not None:
        data["twin"] = _twin(trace, unblock)
        inferred.append(
            f"a solvable twin, {data['name'].split('/')[0]}/twin-{data['name'].split('/')[1]}: "
            f"{unblock[0]} answers the given result (N = {data['twin']['step_bound']})"
        )
    removed = [*trace.removed]
    if secrets:
        removed.append(f"{secrets} secret-looking value(s), replaced by {REDACTED}")
    data["provenance"] = {
        "format": format,
        "source": source,
        "removed": removed,
        "inferred": inferred,
        "merged": merged,
    }
    parse(data, source=f"the import of {source}")  # what is written must load
    return Imported(
        data=data, removed=tuple(removed), inferred=tuple(inferred), merged=tuple(merged)
    )


def _twin(trace: Trace, unblock: tuple[str, str]) -> JSON:
    tool, result = unblock
    steps = [i for i, t in enumerate(trace.turns, 1) if any(c.name == tool for c in t.calls)]
    if not steps:
        called = sorted({c.name for t in trace.turns for c in t.calls})
        raise ImportFailed(
            f"--unblock-with names {tool!r}, which the recorded run never called; name one of "
            f"{called}"
        )
    return {"tool": tool, "result": result, "step_bound": steps[0] + 1 + TWIN_SLACK}
