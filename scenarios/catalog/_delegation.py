"""Consumes a multi-agent family's plan — waves of subtasks, a script per worker, tools that answer
per subtask — produces the supervisor's script and the tools its workers share.

The delegation contract is the one `unsolvable.FanOut` follows: the supervisor is ``main`` and
calls ``delegate(subtask=...)``; the agent under test runs each call as a worker of its own
runtime, whose conversation names its subtask, and that worker follows the script of the
subtask it names (`unsolvable.named_subtask`, the rule the harness attributes work by).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from unsolvable import (
    DELEGATE_TOOL,
    JSON,
    Claim,
    ModelRequest,
    ModelResponse,
    Script,
    Setup,
    SubtaskSpec,
    ToolCall,
    ToolResult,
    ToolSpec,
    named_subtask,
)
from unsolvable._scripts import in_its_conversation
from unsolvable.fake_tools import FakeWorld, Tool, check_tool, constant_tool
from unsolvable.scenarios.catalog._common import CHECK, DELEGATE, setup

__all__ = [
    "ROUND",
    "SCOPED_CHECK",
    "Wave",
    "Waves",
    "by_argument",
    "delegate_tool",
    "delegated_setup",
    "refused_first",
]

ROUND = "{round}"
"""Stands, in a cycled wave's subtask names, for the number of the round (from 1)."""
SCOPED_CHECK = ToolSpec(
    name=CHECK.name,
    description=f"{CHECK.description} Pass subtask to check one delegated subtask only.",
    parameters={"type": "object", "properties": {"subtask": {"type": "string"}}},
)
"""The verifier of a family whose work workers do: a worker checks its own subtask with it."""


@dataclass(frozen=True, kw_only=True)
class Wave:
    """What the supervisor dispatches in one step, and what it says beside it."""

    subtasks: Sequence[str]
    text: str
    extra: Mapping[str, JSON] = field(default_factory=dict)
    """More arguments of a subtask's ``delegate`` call, by subtask (``depends_on``, say)."""


@dataclass(frozen=True, kw_only=True)
class Waves:
    """A supervisor that makes the ``before`` calls one a step (its background reading), then
    dispatches ``waves`` one a step, then ``cycle`` round after round for ever (``{round}`` in a
    name is the round's number), or, with no cycle, follows ``then``. Its workers follow
    ``workers[named]``, the script of the subtask their conversation names; ``idle`` when it
    names none."""

    waves: Sequence[Wave]
    workers: Mapping[str, Script]
    before: Sequence[Any] = ()
    """`Call`s the supervisor makes first (the family's background reading)."""
    cycle: Sequence[Wave] = ()
    then: Script = field(default_factory=Claim)
    idle: Script = field(default_factory=Claim)

    def reply(self, request: ModelRequest, rng: random.Random) -> ModelResponse:
        if request.agent != "main":
            named = named_subtask(request.messages, self.workers)
            script = self.idle if named is None else self.workers[named]
            return script.reply(in_its_conversation(request), rng)
        step = (request.agent_step or request.step) - len(self.before)
        if step <= 0:
            call = self.before[step - 1 + len(self.before)]
            return self._single(call, request)
        if step <= len(self.waves):
            return _dispatch(self.waves[step - 1], request, round_=1)
        if not self.cycle:
            return self.then.reply(request, rng)
        rounds, at = divmod(step - len(self.waves) - 1, len(self.cycle))
        return _dispatch(self.cycle[at], request, round_=rounds + 1)

    @staticmethod
    def _single(call: Any, request: ModelRequest) -> ModelResponse:
        text = f"{call.text} (attempt {request.step})"
        arguments = dict(call.arguments)
        made = ToolCall(id=f"call_{request.step}_0", name=call.name, arguments=arguments)
        return ModelResponse(content=text, tool_calls=(made,))


def _dispatch(wave: Wave, request: ModelRequest, *, round_: int) -> ModelResponse:
    calls = []
    for i, subtask in enumerate(wave.subtasks):
        arguments = {"subtask": subtask.replace(ROUND, str(round_)), **wave.extra.get(subtask, {})}
        call_id = f"call_{request.step}_{i}"
        calls.append(ToolCall(id=call_id, name=DELEGATE_TOOL, arguments=arguments))
    return ModelResponse(content=wave.text.replace(ROUND, str(round_)), tool_calls=tuple(calls))


def by_argument(tool: Tool, *, field: str, routes: Mapping[str, Tool]) -> Tool:
    """``tool``, but a call whose ``field`` argument is one of ``routes`` is answered by that
    route's tool instead (one supplier refused, the others served), under ``tool``'s spec."""

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        return routes.get(str(arguments.get(field, "")), tool).handler(world, arguments)

    return Tool(spec=tool.spec, handler=handle)


def refused_first(refusal: Tool, then: Tool, *, times: int) -> Tool:
    """``refusal``'s answer (byte for byte the one that never lifts) ``times`` times, then
    ``then``'s: a dependency that recovers looks dead until it does."""
    calls = [0]

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        calls[0] += 1
        return (refusal if calls[0] <= times else then).handler(world, arguments)

    return Tool(spec=then.spec, handler=handle)


def delegate_tool() -> Tool:
    """The toolbox's ``delegate``: workers are the agent's own; the tool only says so."""
    return constant_tool(DELEGATE, {"error": "delegate runs in the agent's own worker runtime"})


def delegated_setup(
    specs: Sequence[SubtaskSpec],
    tools: Sequence[Tool],
    script: Script,
    *,
    seed: int,
    reading: Sequence[Tool] = (),
    lead: int = 0,
) -> Setup:
    """`setup` for a family whose work workers do: the task is done when every subtask of
    ``specs`` (its task graph) is, as `SCOPED_CHECK` reads it whole or one subtask at a time;
    the tools offered are ``tools``, `delegate_tool`, then the seed's background ``reading``."""
    criteria = [s.failing for s in specs if s.failing]
    world = FakeWorld(failing=lambda w: [c for f in criteria for c in f(w)], seed=seed)
    check = check_tool(SCOPED_CHECK, subtasks={s.name: s.failing for s in specs if s.failing})
    offered = [*tools, delegate_tool(), *reading]
    built = setup(world, offered, script, seed=seed, lead=lead, check=check)
    return dataclasses.replace(built, subtasks=tuple(specs))
