"""Consumes a scenario file's ``tools``, ``script`` and ``answers`` fields, produces the recorded
run they describe: the tools the agent was offered, the model's turns (a prefix and a cycle) and
what each tool answered, every call checked against the tools offered."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from unsolvable._types import JSON
from unsolvable.fake_tools import REFUSALS
from unsolvable.imports._fields import FieldReader
from unsolvable.imports._scenario_file import Answer, FileCall, FileTurn, Result

__all__ = ["answers_of", "script_of", "tools_of"]

_SCRIPT_FIX = 'write {"prefix": [turns...], "cycle": [turns...]}, each turn {"text", "calls"}'
_CALL_KEYS = ("name", "arguments")
_TOOL_FIX = 'give each tool as {"name": "...", "description": "...", "parameters": {...}}'


def script_of(
    r: FieldReader, data: Mapping[str, Any], tools: Sequence[JSON]
) -> tuple[tuple[FileTurn, ...], tuple[FileTurn, ...]]:
    given = r.get(data, "script", dict, "script", _SCRIPT_FIX)
    script = r.table(given, "script", _SCRIPT_FIX, ("prefix", "cycle"))
    prefix = _turns(r, script, "prefix", default=[])
    cycle = _turns(r, script, "cycle")
    if not cycle:
        raise r.fail(
            "script.cycle",
            "is empty",
            "give at least one turn: the loop the replayed model goes round forever",
        )
    _check_calls(r, tools, [*prefix, *cycle])
    return tuple(prefix), tuple(cycle)


def tools_of(r: FieldReader, data: Mapping[str, Any]) -> list[JSON]:
    tools = []
    for i, item in enumerate(r.items(data, "tools", "tools", _TOOL_FIX)):
        where = f"tools[{i}]"
        tool = r.table(item, where, _TOOL_FIX, ("name", "description", "parameters"))
        parameters = r.get(
            tool,
            "parameters",
            dict,
            f"{where}.parameters",
            "give a JSON schema",
            default={"type": "object", "properties": {}},
        )
        name = r.get(tool, "name", str, f"{where}.name", _TOOL_FIX)
        if not name:  # an agent cannot call a tool with no name, nor an MCP client list it
            raise r.fail(f"{where}.name", "is empty", _TOOL_FIX)
        tools.append(
            {
                "name": name,
                "description": r.get(
                    tool, "description", str, f"{where}.description", _TOOL_FIX, default=""
                ),
                "parameters": parameters,
            }
        )
    if not tools:
        raise r.fail("tools", "is empty", "list the tools the recorded agent was offered")
    names = [tool["name"] for tool in tools]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise r.fail("tools", f"names {twice} twice", "give each tool once")
    return tools


def _turns(
    r: FieldReader, script: Mapping[str, Any], key: str, default: Any = ...
) -> list[FileTurn]:
    turns = []
    for i, item in enumerate(r.items(script, key, f"script.{key}", _SCRIPT_FIX, default)):
        where = f"script.{key}[{i}]"
        turn = r.table(item, where, _SCRIPT_FIX, ("text", "calls"))
        calls = []
        for j, call in enumerate(r.items(turn, "calls", f"{where}.calls", _SCRIPT_FIX, [])):
            at = f"{where}.calls[{j}]"
            call = r.table(call, at, 'write {"name": "...", "arguments": {...}}', _CALL_KEYS)
            calls.append(
                FileCall(
                    name=r.get(call, "name", str, f"{at}.name", "name the tool"),
                    arguments=dict(
                        r.get(
                            call,
                            "arguments",
                            dict,
                            f"{at}.arguments",
                            "give the arguments as an object",
                            default={},
                        )
                    ),
                )
            )
        text = r.get(turn, "text", str, f"{where}.text", "give the model's text", default="")
        turns.append(FileTurn(text=text, calls=tuple(calls)))
    return turns


def _check_calls(r: FieldReader, tools: Sequence[JSON], turns: Sequence[FileTurn]) -> None:
    """A turn calling a tool the agent is not offered could never be answered as recorded."""
    names = {tool["name"] for tool in tools}
    for turn in turns:
        for call in turn.calls:
            if call.name not in names:
                raise r.fail(
                    "script",
                    f"calls {call.name!r}, which is not in tools",
                    f"add it to tools or remove the call (tools: {sorted(names)})",
                )


def answers_of(
    r: FieldReader, data: Mapping[str, Any], tools: Sequence[JSON]
) -> tuple[Answer, ...]:
    """The recorded answers, each of a tool offered: no call could reach one of any other, and
    a misspelt tool would leave the real one's calls answered as unrecorded."""
    fix = 'give each as {"tool": "...", "arguments": {...}, "results": [{"text": "..."}]}'
    answers = []
    for i, item in enumerate(r.items(data, "answers", "answers", fix, [])):
        where = f"answers[{i}]"
        entry = r.table(item, where, fix, ("tool", "arguments", "results"))
        results = []
        for j, result in enumerate(r.items(entry, "results", f"{where}.results", fix)):
            at = f"{where}.results[{j}]"
            result = r.table(result, at, fix, ("text", "refusal", "world"))
            results.append(
                Result(
                    text=r.get(result, "text", str, f"{at}.text", fix),
                    refusal=_refusal(r, result, at),
                    world=r.get(result, "world", str, f"{at}.world", "give a string", default=""),
                )
            )
        if not results:
            raise r.fail(f"{where}.results", "is empty", "give the answer at least once")
        tool = r.get(entry, "tool", str, f"{where}.tool", fix)
        names = sorted(str(offered["name"]) for offered in tools)
        if tool not in names:
            raise r.fail(
                f"{where}.tool", f"is {tool!r}, which is not in tools", f"use one of {names}"
            )
        answers.append(
            Answer(
                tool=tool,
                arguments=dict(r.get(entry, "arguments", dict, f"{where}.arguments", fix, {})),
                results=tuple(results),
            )
        )
    return tuple(answers)


def _refusal(r: FieldReader, result: Mapping[str, Any], at: str) -> str | None:
    """A refusal kind the harness knows: the verdict counts refusals by kind, so a misspelt one
    would be a kind of its own that no rule expects."""
    fix = f"use one of {REFUSALS}, or null for an answer that was not refused"
    kind = r.get(result, "refusal", (str, type(None)), f"{at}.refusal", fix, default=None)
    if kind is not None and kind not in REFUSALS:
        raise r.fail(f"{at}.refusal", f"is {kind!r}, not a refusal kind the harness knows", fix)
    return kind  # type: ignore[no-any-return]
