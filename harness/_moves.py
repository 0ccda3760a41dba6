"""Consumes a `Call` and a model request, produces a move: the reply that makes the call at the
request's step, its thought and its id made of that step, and the request as an agent's own
steps count it (in its own conversation, or from the start of a script's next phase)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from unsolvable._json import sorted_json
from unsolvable._types import JSON, ModelRequest, ModelResponse, ToolCall

__all__ = ["Call", "in_its_conversation", "own_step", "rebased", "say", "single_call"]


@dataclass(frozen=True, kw_only=True)
class Call:
    """A tool call template; ``text`` is the thought the model writes beside it.

    Arguments that are not JSON are refused when it is made, before any run starts, rather than
    by the step that would send them."""

    name: str
    arguments: JSON = field(default_factory=dict)
    text: str = ""

    def __post_init__(self) -> None:
        try:
            sorted_json(self.arguments)
        except (TypeError, ValueError) as error:
            raise ValueError(
                f"Call(name={self.name!r}): arguments must be JSON values (dicts, lists, "
                f"strings, numbers, booleans, None): {error}"
            ) from None


def _tool_call(call: Call, request: ModelRequest, arguments: JSON | None = None) -> ToolCall:
    chosen = call.arguments if arguments is None else arguments
    return ToolCall(id=f"call_{request.step}_0", name=call.name, arguments=dict(chosen))


def say(call: Call, request: ModelRequest) -> str:
    """The thought varies step by step, as real model text does, so text equality is no signal."""
    return f"{call.text} (attempt {request.step})" if call.text else f"Attempt {request.step}."


def own_step(request: ModelRequest) -> int:
    """The caller's own step count (requests built by hand may leave it unset)."""
    return request.agent_step or request.step


def in_its_conversation(request: ModelRequest) -> ModelRequest:
    """A worker's request with its own step counted in its conversation (its replies so far,
    plus one), not over every call its agent name made: a framework that runs one worker agent
    for every subtask (agents-as-tools) gives each run a fresh conversation under one name."""
    replies = sum(1 for message in request.messages if message.get("role") == "assistant")
    return dataclasses.replace(request, agent_step=replies + 1)


def single_call(call: Call, request: ModelRequest, arguments: JSON | None = None) -> ModelResponse:
    """The reply that makes ``call`` alone (with ``arguments`` in place of its own), its thought
    beside it."""
    return ModelResponse(
        content=say(call, request), tool_calls=(_tool_call(call, request, arguments),)
    )


def rebased(request: ModelRequest, steps_done: int) -> ModelRequest:
    """The request as the next phase sees it: its own steps count from the phase's start. The
    run's ``step`` stays real, since tool-call ids are built from it and must never repeat in a
    run — the Agents SDK aborts on a reused id."""
    return dataclasses.replace(request, agent_step=own_step(request) - steps_done)
