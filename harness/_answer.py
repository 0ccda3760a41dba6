"""Consumes the scripted model's response, produces a step's answer in the Chat Completions
shape an agent reads: `Answer`, its assistant message and that message's tool calls."""

from __future__ import annotations

from dataclasses import dataclass

from unsolvable._model import Usage
from unsolvable._types import JSON, ModelResponse

__all__ = ["Answer", "assistant_message", "calls_of"]


@dataclass(frozen=True, kw_only=True)
class Answer:
    """The model's answer to one step, as `Session.answer` gives it."""

    message: JSON
    """The assistant message, in the Chat Completions shape; the caller's own."""
    usage: Usage
    """Its input tokens (the conversation and the tools offered) and output tokens (the
    message)."""


def assistant_message(response: ModelResponse) -> JSON:
    """The model's response as the Chat Completions assistant message an agent appends; a
    `TypeError` saying what a scenario's model returned instead of a `ModelResponse`, which
    would otherwise fail on a missing attribute, or pass through, as the agent's own error."""
    if not isinstance(response, ModelResponse):
        raise TypeError(
            f"respond() returned {type(response).__name__} ({response!r}), not a ModelResponse"
        )
    message: JSON = {"role": "assistant", "content": response.content}
    if response.tool_calls:
        message["tool_calls"] = [call.to_openai() for call in response.tool_calls]
    return message


def calls_of(message: JSON) -> list[JSON]:
    """The tool calls of an assistant message, none when it has none."""
    return list(message.get("tool_calls") or ())
