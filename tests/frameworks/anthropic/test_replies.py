"""What the ``anthropic`` SDK parses from the fake's messages is what it parses from the API's:
a message of several ``tool_use`` blocks, and a final answer, each read whole and through
``messages.stream(...).get_final_message()`` into the same `Message`, with the usage the API
always fills — its cache counts broken down by lifetime, the tier that served it — rather than
``None`` where the API never leaves one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("anthropic")

import anthropic
from anthropic.types import Message

from tests.unit.harness.wire.conftest import start
from unsolvable.wire import Wire

MODEL = "claude-sonnet-5"
FAN_OUT = "fan-out/four-workers"
"""Its supervisor's first reply: a text and four ``delegate`` calls."""
ASK = [{"role": "user", "content": "audit"}]


def _first(ask: Callable[[anthropic.Anthropic, list[Any]], Message], *, tools: bool) -> Message:
    """``ask(client, tools)``'s answer to a fresh session's first step: the same reply every
    time, whichever way it is asked for."""
    session = start(FAN_OUT)
    offered = [
        {"name": t["function"]["name"], "input_schema": t["function"]["parameters"]}
        for t in session.openai_tools
    ]
    with Wire(session) as wire:
        return ask(
            wire.anthropic_client(_strict_response_validation=True), offered if tools else []
        )


def _create(client: anthropic.Anthropic, tools: list[Any]) -> Message:
    return client.messages.create(
        model=MODEL,
        max_tokens=4096,
        messages=ASK,  # type: ignore[arg-type]
        tools=tools or anthropic.omit,
    )


def _streamed(client: anthropic.Anthropic, tools: list[Any]) -> Message:
    with client.messages.stream(
        model=MODEL,
        max_tokens=4096,
        messages=ASK,  # type: ignore[arg-type]
        tools=tools or anthropic.omit,
    ) as events:
        return events.get_final_message()


@pytest.mark.parametrize("tools", [True, False], ids=["four-tool-uses", "final-answer"])
def test_a_message_has_the_usage_the_api_fills_whole_and_streamed(tools: bool) -> None:
    whole = _first(_create, tools=tools)
    streamed = _first(_streamed, tools=tools)
    assert whole.usage.cache_creation is not None
    assert whole.usage.cache_creation.ephemeral_5m_input_tokens == 0
    assert (whole.usage.cache_read_input_tokens, whole.usage.service_tier) == (0, "standard")
    uses = [block for block in whole.content if block.type == "tool_use"]
    assert len(uses) == (4 if tools else 0)
    assert whole.stop_reason == ("tool_use" if tools else "end_turn")
    assert streamed.model_dump() == whole.model_dump()
