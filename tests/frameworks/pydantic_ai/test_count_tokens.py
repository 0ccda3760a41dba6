"""pydantic-ai's provider models on the wire, under ``UsageLimits(input_tokens_limit=...,
count_tokens_before_request=True)``: the framework counts each request through its provider's
counting call before sending it, and on a conversation that outgrows the limit it stops before
the request that would pass it — that request is never a step, and the run is not crashed."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable

import pytest

pytest.importorskip("pydantic_ai")

from pydantic_ai import Agent, Tool, UsageLimitExceeded, UsageLimits
from pydantic_ai.models import Model

import unsolvable
from tests.frameworks._user_tools import user_tools
from unsolvable import Ceilings, Code, Outcome, Session, Stop, TerminationRecord, scenarios
from unsolvable.wire import Wire


def _anthropic(wire: Wire) -> Model:
    from pydantic_ai.models.anthropic import AnthropicModel
    from pydantic_ai.providers.anthropic import AnthropicProvider

    provider = AnthropicProvider(anthropic_client=wire.async_anthropic_client())
    return AnthropicModel("claude-sonnet-5", provider=provider)


def _google(wire: Wire) -> Model:
    from pydantic_ai.models.google import GoogleModel
    from pydantic_ai.providers.google import GoogleProvider

    return GoogleModel(
        "gemini-3.5-flash-lite", provider=GoogleProvider(client=wire.gemini_client())
    )


def _openai_responses(wire: Wire) -> Model:
    from pydantic_ai.models.openai import OpenAIResponsesModel
    from pydantic_ai.providers.openai import OpenAIProvider

    provider = OpenAIProvider(openai_client=wire.async_openai_client())
    return OpenAIResponsesModel("gpt-6.1-terra", provider=provider)


MODELS: dict[str, Callable[[Wire], Model]] = {
    "anthropic": _anthropic,
    "openai-responses": _openai_responses,
}
"""The providers whose count pydantic-ai sends with everything the request it counts sends."""
LIMIT = 2_500
"""Input tokens the run may send, every request's together: the stuck scenario's conversation
passes it after a few steps, on each provider's count."""
GOOGLE_LIMIT = 2_700
"""The same for the Gemini API's model: its count of the fifth request's contents alone, with
the four requests before, is 2,655, under it, and that request as sent, with the system
instruction and the function declarations, brings them to 2,985, past it."""
COUNTED = re.compile(r"input_tokens=(\d+)")
"""Where pydantic-ai's refusal names the input tokens the next request would have made."""


def _agent(
    model_for: Callable[[Wire], Model], kinds: list[str], limit: int
) -> Callable[[Session], Stop]:
    """A pydantic-ai agent on ``model_for``'s provider over the wire, sending at most ``limit``
    input tokens; ``kinds`` gets the kind of each request the wire saw."""

    def agent(session: Session) -> Stop:
        limits = UsageLimits(input_tokens_limit=limit, count_tokens_before_request=True)
        wire = Wire(session)
        try:
            with wire:
                built = Agent(
                    model_for(wire),
                    instructions="Do the task with the tools you have.",
                    tools=[Tool(f) for f in user_tools(session)],
                )
                try:
                    asyncio.run(built.run(session.task, usage_limits=limits))
                except UsageLimitExceeded as exceeded:
                    return Stop(code=Code.BUDGET_COST, reason=str(exceeded))
        finally:
            kinds.extend(attempt.kind for attempt in wire.attempts)
        return Stop(code=Code.COMPLETED, reason="the run ended under its limit")

    return agent


def _run(
    model_for: Callable[[Wire], Model], limit: int = LIMIT
) -> tuple[TerminationRecord, Stop, list[str]]:
    """The stuck scenario's run of the counting agent on ``model_for``'s provider: not crashed,
    stopped by its limit; its record, its stop and the kinds of its requests."""
    kinds: list[str] = []
    # The provider's SDK is imported inside the run: seconds on a loaded machine, which the
    # default 10 s wall ceiling would count against a run that needs one.
    record = unsolvable.run(
        _agent(model_for, kinds, limit),
        scenarios.get("constant-return/repeat"),
        ceilings=Ceilings(max_wall_seconds=60),
    )
    assert record.outcome is Outcome.STOPPED, record.observed.error
    assert record.reported is not None and record.reported.code is Code.BUDGET_COST
    assert record.observed.steps >= 2, "the limit must let a few requests through"
    return record, record.reported, kinds


@pytest.mark.parametrize("provider", sorted(MODELS))
def test_a_counting_agent_stops_before_the_request_over_its_limit(provider: str) -> None:
    record, stop, kinds = _run(MODELS[provider])
    assert kinds == ["count", "model"] * record.observed.steps + ["count"]
    found = COUNTED.search(stop.reason)
    assert found is not None and stop.reason.startswith("The next request would exceed"), stop
    # What the run had sent, plus the request counted last, passes the limit; what it had sent
    # (every step's input tokens, as the record counts them) does not.
    assert record.observed.input_tokens <= LIMIT < int(found.group(1))


def test_a_gemini_count_is_short_of_what_google_genai_does_not_send_it() -> None:
    """google-genai refuses to send a system instruction or tools to the Gemini API's count, so
    `GoogleModel` counts the contents alone: the wire answers that request's tokens, which fall
    short of the request sent next, and pydantic-ai catches the limit only once a response
    reports it — the request over the limit was a step, as against the API itself."""
    record, stop, kinds = _run(_google, GOOGLE_LIMIT)
    assert kinds == ["count", "model"] * record.observed.steps
    assert stop.reason.startswith(f"Exceeded the input_tokens_limit of {GOOGLE_LIMIT}"), stop
    assert record.observed.input_tokens > GOOGLE_LIMIT
