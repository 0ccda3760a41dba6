"""Consumes a model request, produces the scripted model's response and its token usage.

The model is a first-class fake, not a mock: one `Model` protocol, and every face (the plain
Python call, later the wire formats) goes through the same step and token accounting.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from json.encoder import encode_basestring_ascii
from types import MappingProxyType
from typing import Protocol

from unsolvable._json import canonical_json
from unsolvable._scripts import FINAL_ANSWER_CLAIM, Script
from unsolvable._types import JSON, ModelRequest, ModelResponse, ToolSpec

__all__ = [
    "Model",
    "ScriptedModel",
    "Usage",
    "estimate_assistant_tokens",
    "estimate_message_tokens",
    "estimate_tokens",
    "estimate_tool_tokens",
    "openai_usage",
    "text_sizes",
]

CHARS_PER_TOKEN = 4
"""The usual rule of thumb for English text in BPE tokenizers; only growth matters here."""
TOKENS_PER_MESSAGE = 4
"""Role and separator overhead per chat message, as in OpenAI's published token counting."""


def estimate_tokens(messages: Iterable[JSON]) -> int:
    """Deterministic token estimate of a conversation: grows with it, like real input usage."""
    return sum(map(estimate_message_tokens, messages))


_ITEM = len(": ") + len(", ")
"""Around each item of an object but its strings: the colon after its key, and a separator (the
one item that has none, the last, is made up for by the braces)."""
_EMPTY = len("{}")


_WORDS = ("role", "content", "name", "tool_call_id", "user", "assistant", "system", "tool")
"""The keys and roles of the messages of strings: spelt by every message of a conversation."""
SIZES: Mapping[str, int] = MappingProxyType(
    {word: len(encode_basestring_ascii(word)) for word in _WORDS}
)
"""The encoded size (``len(json.dumps(text))``) of each of `_WORDS`, looked up rather than
encoded for every message."""


def text_sizes(*texts: str) -> dict[str, int]:
    """`SIZES` and the encoded size of each of ``texts``, measured once: a session measures
    its task so with its set-up, rather than the step that first sends it (each character
    encoded was some forty instructions of a run's first step)."""
    return {**SIZES, **{text: len(encode_basestring_ascii(text)) for text in texts}}


def estimate_message_tokens(message: JSON, sizes: Mapping[str, int] = SIZES) -> int:
    """`estimate_tokens` of one message: the step path counts each message once.
    ``sizes`` are texts whose encoded size is known already (`text_sizes`)."""
    return TOKENS_PER_MESSAGE + _encoded_size(message, sizes) // CHARS_PER_TOKEN


def _encoded_size(message: JSON, sizes: Mapping[str, int] = SIZES) -> int:
    """``len(canonical_json(message))``; for a message of strings only (a user, system or tool
    message) from the lengths of its strings, as `estimate_assistant_tokens` does: ``"key":
    "value"`` plus the separator between items, and ``{}`` around them. The order of the keys
    changes no length."""
    if type(message) is not dict:
        return len(canonical_json(message))
    size, known = _ITEM * len(message), sizes.get
    for key, value in message.items():
        if type(key) is not str or type(value) is not str:
            return len(canonical_json(message))
        size += (known(key) or len(encode_basestring_ascii(key))) + (
            known(value) or len(encode_basestring_ascii(value))
        )
    return size or _EMPTY


_ASSISTANT = len('{"content": , "role": "assistant"}')
_CALLS = len(', "tool_calls": []')
_CALL = len('{"function": {"arguments": , "name": }, "id": , "type": "function"}')
_BETWEEN = len(", ")
_NULL = len("null")


def estimate_assistant_tokens(content: str | None, calls: Sequence[JSON]) -> int:
    """``estimate_tokens([message])`` of the assistant message every step answers with —
    ``{"role": "assistant", "content": content}`` plus ``"tool_calls": calls`` when there are
    any, each call in the `ToolCall.to_openai` shape (the session builds them; their shape is
    not checked again) — from the lengths of its strings, without encoding the message: one
    step encodes each text once."""
    size = _ASSISTANT + (_NULL if content is None else len(encode_basestring_ascii(content)))
    if calls:
        size += _CALLS + _BETWEEN * (len(calls) - 1)
        for call in calls:
            function = call["function"]
            size += (
                _CALL
                + len(encode_basestring_ascii(function["arguments"]))
                + len(encode_basestring_ascii(function["name"]))
                + len(encode_basestring_ascii(call["id"]))
            )
    return TOKENS_PER_MESSAGE + size // CHARS_PER_TOKEN


_TOOL = len('{"function": {"description": , "name": , "parameters": }, "type": "function"}')
TOOL_MEMO = 256
"""Tools whose estimate the process keeps: a suite's runs offer the same few specs."""
_measured: dict[int, tuple[ToolSpec, JSON, int]] = {}
"""By the spec's identity (the spec is held, so no other can take its id): the spec, a copy of
its parameters as they were measured, and its tokens."""


def estimate_tool_tokens(spec: ToolSpec) -> int:
    """``estimate_tokens([spec.to_openai()])`` from the lengths of its name and description and
    the encoding of its parameters alone, without building the entry: a run's first step
    measures every tool offered.

    Kept per spec for the process (`TOOL_MEMO`), since every run's first step measures the
    tools it offers and encoding a schema was a quarter of that step: reused while the spec's
    parameters still equal the copy taken when they were measured, as a script's arguments
    are (`ToolCall.to_openai`); the name and description of a frozen spec cannot change."""
    known = _measured.get(id(spec))
    if known is not None and known[1] == spec.parameters:
        return known[2]
    name, description = spec.name, spec.description
    if type(name) is not str or type(description) is not str:
        return estimate_message_tokens(spec.to_openai())
    parameters = canonical_json(spec.parameters)
    size = (
        _TOOL
        + len(encode_basestring_ascii(name))
        + len(encode_basestring_ascii(description))
        + len(parameters)
    )
    tokens = TOKENS_PER_MESSAGE + size // CHARS_PER_TOKEN
    measured = json.loads(parameters)  # a deep copy, for a schema of JSON values
    if measured == spec.parameters:  # anything else (written with str) is measured every time
        if len(_measured) >= TOOL_MEMO:
            _measured.clear()
        _measured[id(spec)] = (spec, measured, tokens)
    return tokens


@dataclass(frozen=True, kw_only=True)
class Usage:
    """Token usage of one model call."""

    input_tokens: int
    output_tokens: int

    def to_openai(self) -> JSON:
        return openai_usage(self.input_tokens, self.output_tokens)


def openai_usage(input_tokens: int, output_tokens: int) -> JSON:
    """`Usage` in the Chat Completions shape, from the two counts: the step path builds it
    without the object."""
    return {
        "prompt_tokens": input_tokens,
        "completion_tokens": output_tokens,
        "total_tokens": input_tokens + output_tokens,
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
