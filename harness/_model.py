"""Consumes a model request, produces the scripted model's response and its token usage.

The model is a first-class fake, not a mock: one `Model` protocol, and every face (the plain
Python call, later the wire formats) goes through the same step and token accounting.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from unsolvable._json import canonical_json
from unsolvable._scripts import FINAL_ANSWER_CLAIM, Script
from unsolvable._types import JSON, ModelRequest, ModelResponse, ToolSpec

__all__ = [
    "Model",
    "ScriptedModel",
    "Usage",
    "estimate_json_tokens",
    "estimate_message_tokens",
    "estimate_tokens",
    "estimate_tool_tokens",
]

CHARS_PER_TOKEN = 4
"""The usual rule of thumb for English text in BPE tokenizers; only growth matters here."""
TOKENS_PER_MESSAGE = 4
"""Role and separator overhead per chat message, as in OpenAI's published token counting."""


def estimate_tokens(messages: Iterable[JSON]) -> int:
    """Deterministic token estimate of a conversation: grows with it, like real input usage."""
    return sum(map(estimate_message_tokens, messages))


def estimate_message_tokens(message: JSON) -> int:
    """`estimate_tokens` of one message: its canonical JSON, a token per four characters."""
    return estimate_json_tokens(canonical_json(message))


def estimate_json_tokens(text: str) -> int:
    """`estimate_message_tokens` of the message whose canonical JSON is ``text``."""
    return TOKENS_PER_MESSAGE + len(text) // CHARS_PER_TOKEN


def estimate_tool_tokens(spec: ToolSpec) -> int:
    """`estimate_tokens` of the tool's Chat Completions entry: what offering it costs a call."""
    return estimate_message_tokens(spec.to_openai())


@dataclass(frozen=True, kw_only=True)
class Usage:
    """Token usage of one model call."""

    input_tokens: int
    output_tokens: int

    def to_openai(self) -> JSON:
        """The usage in the Chat Completions shape."""
        return {
            "prompt_tokens": self.input_tokens,
            "completion_tokens": self.output_tokens,
            "total_tokens": self.input_tokens + self.output_tokens,
        }


class Model(Protocol):
    """Anything that answers a `ModelRequest`; the harness wraps it with accounting."""

    name: str

    def respond(self, request: ModelRequest) -> ModelResponse: ...


class ScriptedModel:
    """A deterministic, never-ending model driven by a `Script`.

    >>> from unsolvable._scripts import Call, Repeat
    >>> model = ScriptedModel(Repeat(call=Call(name="search")), seed=3)
    """

    __test__ = False

    def __init__(self, script: Script, *, seed: int = 0, name: str | None = None) -> None:
        self.script = script
        self.name = name or f"scripted:{type(script).__name__}"
        self._rng = random.Random(seed)
        self.last_request: ModelRequest | None = None

    def respond(self, request: ModelRequest) -> ModelResponse:
        self.last_request = request
        if not request.tools:
            return ModelResponse(content=FINAL_ANSWER_CLAIM)
        return self.script.reply(request, self._rng)
