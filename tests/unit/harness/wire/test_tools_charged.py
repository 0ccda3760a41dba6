"""The tools a step offers are charged as the agent sent them: a definition at its own size, on
the plain face and through every wire format, and a tool named alone at its scenario spec's."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

from tests.unit.harness.wire.conftest import start
from unsolvable import JSON, Session, ToolSpec
from unsolvable._model import estimate_tokens
from unsolvable.wire import ANTHROPIC_BASE_URL, GEMINI_BASE_URL, OPENAI_BASE_URL, Wire

LONG = "Searches the archive. " * 230
"""A 5,060-character description, where the scenario's spec has one line."""
USER = {"role": "user", "content": "go"}


def _chat(specs: list[ToolSpec]) -> tuple[str, JSON, list[JSON], Callable[[JSON], int]]:
    tools = [spec.to_openai() for spec in specs]
    body = {"model": "m", "messages": [USER], "tools": tools}
    return f"{OPENAI_BASE_URL}/chat/completions", body, tools, lambda r: r["usage"]["prompt_tokens"]


def _anthropic(specs: list[ToolSpec]) -> tuple[str, JSON, list[JSON], Callable[[JSON], int]]:
    tools = [
        {"name": s.name, "description": s.description, "input_schema": s.parameters} for s in specs
    ]
    body = {"model": "m", "max_tokens": 100, "messages": [USER], "tools": tools}
    return f"{ANTHROPIC_BASE_URL}/v1/messages", body, tools, lambda r: r["usage"]["input_tokens"]


def _responses(specs: list[ToolSpec]) -> tuple[str, JSON, list[JSON], Callable[[JSON], int]]:
    tools = [
        {
            "type": "function",
            "name": s.name,
            "description": s.description,
            "parameters": s.parameters,
        }
        for s in specs
    ]
    body = {"model": "m", "input": "go", "tools": tools}
    return f"{OPENAI_BASE_URL}/responses", body, tools, lambda r: r["usage"]["input_tokens"]


def _gemini(specs: list[ToolSpec]) -> tuple[str, JSON, list[JSON], Callable[[JSON], int]]:
    tools = [
        {"name": s.name, "description": s.description, "parametersJsonSchema": s.parameters}
        for s in specs
    ]
    body = {
        "contents": [{"role": "user", "parts": [{"text": "go"}]}],
        "tools": [{"functionDeclarations": tools}],
    }
    url = f"{GEMINI_BASE_URL}/v1beta/models/gemini-2.5-flash:generateContent"
    return url, body, tools, lambda r: r["usageMetadata"]["promptTokenCount"]


FORMATS = {"chat": _chat, "anthropic": _anthropic, "responses": _responses, "gemini": _gemini}


def _charged(session: Session, fmt: str, specs: list[ToolSpec]) -> tuple[int, list[JSON]]:
    """The input tokens the wire reports for a request offering ``specs`` in ``fmt``'s shape,
    and the tool definitions that request sent."""
    url, body, tools, usage = FORMATS[fmt](specs)
    with Wire(session) as wire:
        reply = wire.httpx2_client().post(url, json=body)
    assert reply.status_code == 200, reply.text
    return usage(reply.json()), tools


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_long_definition_sent_on_the_wire_is_charged_at_its_own_size(fmt: str) -> None:
    """Every tool sent with a 5,000-character description was charged as the scenario's spec of
    it, a few dozen tokens: the step's input tokens moved by nothing."""
    specs = start().tools
    long = [dataclasses.replace(spec, description=LONG) for spec in specs]
    spec_charged, spec_sent = _charged(start(), fmt, specs)
    long_charged, long_sent = _charged(start(), fmt, long)
    assert long_charged - spec_charged == estimate_tokens(long_sent) - estimate_tokens(spec_sent)
    assert long_charged - spec_charged >= len(specs) * len(LONG) // 5


def _prompt_tokens(tools: list[Any]) -> int:
    return start().call_model([USER], tools)["usage"]["prompt_tokens"]


def test_the_plain_face_charges_a_definition_as_sent_and_a_name_as_its_spec() -> None:
    """A `ToolSpec` or a Chat Completions tool is charged as it reads; a tool named alone, by
    its name or ``{"name": ...}``, is charged as the scenario's spec of it, and a tool the
    scenario does not have is charged nothing, as before."""
    (spec, *_) = start().tools
    long = dataclasses.replace(spec, description=LONG)
    conversation = estimate_tokens([USER])
    assert [
        _prompt_tokens([spec.name]),
        _prompt_tokens([{"name": spec.name}]),
        _prompt_tokens([spec]),
        _prompt_tokens([long]),
        _prompt_tokens([long.to_openai()]),
        _prompt_tokens(["no-such-tool"]),
    ] == [
        conversation + estimate_tokens([spec.to_openai()]),
        conversation + estimate_tokens([spec.to_openai()]),
        conversation + estimate_tokens([spec.to_openai()]),
        conversation + estimate_tokens([long.to_openai()]),
        conversation + estimate_tokens([long.to_openai()]),
        conversation,
    ]


@pytest.mark.parametrize("flag", [1, 1.0, True])
def test_a_definition_is_counted_from_its_json_never_taken_for_an_equal_one(flag: object) -> None:
    """``1``, ``1.0`` and ``True`` are equal in Python and three texts in JSON: a definition sent
    again with one in place of another is charged what its own text counts, step after step."""
    session = start()
    (spec, *_) = session.tools
    first, then = spec.to_openai(), spec.to_openai()
    first["function"]["strict"] = 1
    then["function"]["strict"] = flag
    charged = [
        session.call_model([USER], [tool])["usage"]["prompt_tokens"] for tool in (first, then)
    ]
    assert charged == [estimate_tokens([USER, tool]) for tool in (first, then)]
