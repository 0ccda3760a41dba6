"""Consumes a scenario's tools and script and a seed, produces them in the seed's dialect: tool
names, field names and nesting of results vary by seed, so a stop logic keyed on one API's
spelling (``search_invoices``, ``results``, a flat body) fails on another.

The protocol the harness and the termination contract speak stays fixed in every dialect: the
tools `PROTOCOL_TOOLS`, and the fields in `PROTOCOL_FIELDS` (an ``error`` body, a job's
``status`` and ``retry_after``, the verifier's ``complete`` and ``failing``, the
``request_id``); so do handoff tools (`HANDOFF_PREFIX`), which a framework names, not an API.
`without_volatile_ids` leaves the ``request_id`` out of what the agent sees: the plain variants,
the graded-hostility baseline that a detector comparing raw results catches.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from unsolvable import (
    PROTOCOL_TOOLS,
    ModelRequest,
    ModelResponse,
    Script,
    Setup,
    ToolResult,
)
from unsolvable.fake_tools import FakeWorld, PermissionDenied, Tool, ToolRouter

__all__ = [
    "DIALECTS",
    "HANDOFF_PREFIX",
    "PROTOCOL_FIELDS",
    "Dialect",
    "dialect",
    "speak",
    "without_volatile_ids",
]

PROTOCOL_FIELDS = frozenset({"error", "status", "retry_after", "complete", "failing", "request_id"})
"""Top-level fields every dialect keeps as they are, where they are."""
HANDOFF_PREFIX = "transfer_to_"
"""How a handoff tool's name begins, ``transfer_to_<agent>``, as the OpenAI Agents SDK and
langgraph-swarm name theirs: every dialect keeps such a tool and its answer as they are."""
VOLATILE_FIELD = "request_id"
NESTED_UNDER = "data"
"""Where a nesting dialect puts a result's payload (as many REST APIs do)."""


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _resource_first(name: str) -> str:
    """``search_invoices`` → ``invoices_search``: the verb after the resource, as many APIs
    name their operations (still a Python identifier, which some frameworks require)."""
    verb, *rest = name.split("_")
    return "_".join([*rest, verb]) if rest else name


def _same(name: str) -> str:
    return name


@dataclass(frozen=True, kw_only=True)
class Dialect:
    """How one seed's API spells its tools and results."""

    name: str
    tool_name: Callable[[str], str] = _same
    field_name: Callable[[str], str] = _same
    nested: bool = False
    """The payload goes under `NESTED_UNDER`; protocol fields stay at the top."""

    def body(self, body: Any) -> Any:
        """A result body in this dialect."""
        if not isinstance(body, dict):
            return body
        kept = {k: v for k, v in body.items() if k in PROTOCOL_FIELDS}
        payload = {
            self.field_name(k): _renamed(v, self.field_name)
            for k, v in body.items()
            if k not in PROTOCOL_FIELDS
        }
        if self.nested and payload:
            return {**kept, NESTED_UNDER: payload}
        return {**kept, **payload}

    def result(self, result: ToolResult) -> ToolResult:
        return dataclasses.replace(
            result, text=self._text(result.text), observation=self._text(result.observation)
        )

    def _text(self, text: str) -> str:
        try:
            body = json.loads(text)
        except json.JSONDecodeError:
            return text
        return json.dumps(self.body(body), sort_keys=True)


def _renamed(value: Any, rename: Callable[[str], str]) -> Any:
    if isinstance(value, dict):
        return {rename(str(k)): _renamed(v, rename) for k, v in value.items()}
    if isinstance(value, list):
        return [_renamed(v, rename) for v in value]
    return value


SNAKE = Dialect(name="snake")
DIALECTS = (
    SNAKE,
    Dialect(name="camel", tool_name=_camel, field_name=_camel),
    Dialect(name="resource-first, nested", tool_name=_resource_first, nested=True),
)
"""By seed: seed 0 is the library's original spelling."""


def dialect(seed: int) -> Dialect:
    return DIALECTS[seed % len(DIALECTS)]


@dataclass(frozen=True, kw_only=True)
class _Spoken:
    """``script`` calling the tools by their names in the dialect."""

    script: Script
    names: Mapping[str, str]

    def reply(self, request: ModelRequest, rng: random.Random) -> ModelResponse:
        response = self.script.reply(request, rng)
        calls = tuple(
            dataclasses.replace(call, name=self.names.get(call.name, call.name))
            for call in response.tool_calls
        )
        return dataclasses.replace(response, tool_calls=calls)


def _answering(tool: Tool, change: Callable[[ToolResult], ToolResult], name: str) -> Tool:
    """``tool`` under ``name``, its answers passed through ``change``; a refusal it raises
    carries the changed text, which is what the agent is answered on every face."""
    handler = tool.handler

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        result = change(handler(world, arguments))
        if isinstance(result.error, PermissionDenied):
            return dataclasses.replace(result, error=result.error.with_body(result.text))
        return result

    spec = dataclasses.replace(tool.spec, name=name)
    return Tool(spec=spec, handler=handle, refuses_every_call=tool.refuses_every_call)


def _tool(tool: Tool, speech: Dialect) -> Tool:
    name = tool.spec.name
    if name.startswith(HANDOFF_PREFIX):
        return tool
    return _answering(
        tool, speech.result, name if name in PROTOCOL_TOOLS else speech.tool_name(name)
    )


def _no_volatile_id(result: ToolResult) -> ToolResult:
    try:
        body = json.loads(result.text)
    except json.JSONDecodeError:
        return result
    if not isinstance(body, dict) or VOLATILE_FIELD not in body:
        return result
    body.pop(VOLATILE_FIELD)
    return dataclasses.replace(result, text=json.dumps(body, sort_keys=True))


def without_volatile_ids(setup: Setup) -> Setup:
    """``setup`` with no ``request_id`` in any result the agent sees (the observation the
    harness judges already has none): exact repeats look exact."""
    router = setup.toolbox
    if not isinstance(router, ToolRouter):
        raise TypeError(f"without_volatile_ids needs a ToolRouter, got {type(router).__name__}")
    tools = [_answering(tool, _no_volatile_id, tool.spec.name) for tool in router.routes.values()]
    return dataclasses.replace(setup, toolbox=ToolRouter(router.world, tools))


def speak(speech: Dialect, tools: Sequence[Tool], script: Script) -> tuple[list[Tool], Script]:
    """The tools and the script in ``speech``: renamed tools answering in its spelling, and a
    script that calls them by their new names."""
    if speech is SNAKE:
        return list(tools), script
    spoken = [_tool(tool, speech) for tool in tools]
    names = {old.spec.name: new.spec.name for old, new in zip(tools, spoken, strict=True)}
    return spoken, _Spoken(script=script, names=names)
