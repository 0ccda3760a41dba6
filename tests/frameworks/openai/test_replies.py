"""What the ``openai`` SDK parses from the fake's replies is what it parses from the API's: a
reply of several tool calls, one of tool calls alone, and a final answer, each read whole and
through the SDK's stream helper into the same typed object, with every field the API always
fills — the usage's details, the message's annotations, the tier that served it — rather than
``None`` where the API never leaves one."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("openai")

import openai
from openai.types.chat import ChatCompletion

from tests import _builders as b
from tests.unit.harness.wire.conftest import start
from unsolvable import Ceilings, ModelRequest, ModelResponse, Session, ToolCall
from unsolvable.wire import Wire

MODEL = "gpt-5-mini"
FAN_OUT = "fan-out/four-workers"
"""Its supervisor's first reply: a text and four ``delegate`` calls."""


def _first(ask: Callable[[openai.OpenAI, list[Any]], Any], *, tools: bool = True) -> Any:
    """``ask(client, tools)``'s answer to a fresh session's first step: the same reply every
    time, whichever way it is asked for."""
    session = start(FAN_OUT)
    with Wire(session) as wire:
        client = wire.openai_client(_strict_response_validation=True)
        return ask(client, session.openai_tools if tools else [])


def _create(client: openai.OpenAI, tools: list[Any]) -> ChatCompletion:
    return client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "audit"}], tools=tools or openai.omit
    )


def _streamed(client: openai.OpenAI, tools: list[Any]) -> ChatCompletion:
    with client.chat.completions.stream(
        model=MODEL,
        messages=[{"role": "user", "content": "audit"}],
        tools=tools or openai.omit,
        stream_options={"include_usage": True},
    ) as events:
        return events.get_final_completion()


def _comparable(completion: ChatCompletion) -> dict[str, Any]:
    """The completion without what only the stream helper adds (``parsed``, each call's
    ``index``) and what only a whole reply has (the API streams no empty annotations)."""
    data = completion.model_dump(exclude_none=True)
    message = data["choices"][0]["message"]
    message.pop("parsed", None)
    message.pop("annotations", None)
    for call in message.get("tool_calls") or ():
        call.pop("index", None)
        call["function"].pop("parsed_arguments", None)
    return data


@pytest.mark.parametrize("tools", [True, False], ids=["four-tool-calls", "final-answer"])
def test_a_completion_has_every_field_the_api_fills_whole_and_streamed(tools: bool) -> None:
    whole = _first(_create, tools=tools)
    streamed = _first(_streamed, tools=tools)
    usage = whole.usage
    assert usage is not None and usage.prompt_tokens_details and usage.completion_tokens_details
    assert usage.prompt_tokens_details.cached_tokens == 0
    assert usage.completion_tokens_details.reasoning_tokens == 0
    assert whole.choices[0].message.annotations == []
    assert whole.service_tier == "default"
    calls = whole.choices[0].message.tool_calls or []
    assert len(calls) == (4 if tools else 0)
    assert whole.choices[0].finish_reason == ("tool_calls" if tools else "stop")
    assert _comparable(streamed) == _comparable(whole)


def test_a_stream_without_include_usage_has_no_usage_chunk() -> None:
    def chunks(client: openai.OpenAI, tools: list[Any]) -> list[Any]:
        stream = client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "audit"}], tools=tools, stream=True
        )
        return list(stream)

    got = _first(chunks)
    assert all(chunk.usage is None and chunk.choices for chunk in got)
    indexes = [c.index for chunk in got for c in chunk.choices[0].delta.tool_calls or () if c.id]
    assert indexes == [0, 1, 2, 3]


class ToolCallsAlone:
    """A model of the user's own that answers with a tool call and no text, as real models
    mostly do."""

    name = "tool-calls-alone"

    def respond(self, request: ModelRequest) -> ModelResponse:
        call = ToolCall(id=f"call_{request.step}_0", name="search", arguments={"q": "x"})
        return ModelResponse(tool_calls=(call,))


def test_a_reply_of_tool_calls_alone_has_no_content_whole_or_streamed() -> None:
    def first(ask: Callable[[openai.OpenAI, list[Any]], ChatCompletion]) -> ChatCompletion:
        scenario = b.scenario(step_bound=50)
        setup = dataclasses.replace(scenario.build(0), model=ToolCallsAlone())
        session = Session(scenario, setup, seed=0, ceilings=Ceilings())
        with Wire(session) as wire:
            return ask(wire.openai_client(_strict_response_validation=True), session.openai_tools)

    whole, streamed = first(_create), first(_streamed)
    assert whole.choices[0].message.content is None
    assert _comparable(streamed) == _comparable(whole)
