"""Real pydantic-ai agents run through `PydanticAIAdapter`: the model is pydantic-ai's own
`FunctionModel`, answered by the session, and ``UsageLimits`` are read honestly."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pytest

pytest.importorskip("pydantic_ai")

from pydantic_ai import Agent, RunContext, TextOutput, UsageLimitExceeded, UsageLimits
from pydantic_ai.agent import WrapperAgent
from pydantic_ai.capabilities import PrepareTools, ProcessEventStream
from pydantic_ai.capabilities.instrumentation import Instrumentation
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.models.instrumented import InstrumentationSettings
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.tools import DeferredToolRequests, ToolDefinition

import unsolvable
from tests.frameworks._glue import reported
from unsolvable import AdapterError, Ceilings, Code, Exit, Outcome, Rule, Session, Stop, scenarios
from unsolvable.adapters.kit import FAKE_MODEL
from unsolvable.adapters.pydantic_ai import PydanticAIAdapter, session_tools
from unsolvable.wire import Wire

INSTRUCTIONS = "Do the task with the tools you have."
BILLING = Agent("test", instructions=INSTRUCTIONS)
FAMILIES = [
    "constant-return/repeat",
    "missing-permission/retry-403",
    "contradictory-criteria/alternate",
]


def test_what_is_no_agent_is_refused_saying_how_to_build_one_without_a_key() -> None:
    """A model name makes pydantic-ai look for its provider's key as the agent is built, so
    "build it with any model" would send a user into that error: the message names the way
    round it."""
    with pytest.raises(AdapterError, match="defer_model_check=True"):
        PydanticAIAdapter("openai:gpt-5-mini")  # type: ignore[arg-type]


def test_an_agent_wrapped_as_pydantic_ai_wraps_one_runs_as_it() -> None:
    """A `WrapperAgent` (pydantic-ai's base for an agent around an agent, as its durable
    agents are) has the agent's own ``override`` and ``run``."""
    record = unsolvable.run(
        PydanticAIAdapter(WrapperAgent(BILLING)), scenarios.get("constant-return/claims-success")
    )
    assert record.exit is Exit.COMPLETE and record.observed.steps == 3


def test_the_agents_own_toolsets_are_replaced_too(offline: list[str]) -> None:
    """An agent shipped with its MCP server runs on the scenario's tools alone: the server is
    neither offered to the model nor reached."""
    shipped = Agent("test", toolsets=[MCPToolset("https://mcp.example.com/mcp")])
    record = unsolvable.run(
        PydanticAIAdapter(shipped), scenarios.get("constant-return/claims-success")
    )
    assert record.exit is Exit.COMPLETE and offline == []


@dataclass
class Customer:
    name: str


def for_the_customer(ctx: RunContext[Customer]) -> str:
    return f"Settle {ctx.deps.name}'s open invoice."


def test_the_agents_deps_are_given_to_its_run() -> None:
    """An agent whose instructions read its dependencies (``RunContext.deps``) runs with the
    ones its user gives, as production passes them to ``run``."""
    agent = Agent("test", deps_type=Customer, instructions=for_the_customer)
    adapter = PydanticAIAdapter(agent, deps=Customer(name="ACME"))
    record = unsolvable.run(adapter, scenarios.get("constant-return/claims-success"))
    assert record.exit is Exit.COMPLETE, record.observed.error


@pytest.mark.parametrize("name", FAMILIES)
def test_the_default_request_limit_is_fifty_model_calls_then_exhausted(name: str) -> None:
    record = unsolvable.run(PydanticAIAdapter(BILLING), scenarios.get(name))
    assert (record.exit, record.code, record.observed.steps) == (
        Exit.EXHAUSTED,
        Code.BUDGET_STEPS,
        50,
    )
    assert "request_limit of 50" in reported(record).reason
    assert reported(record).partial["tool_results"] == 50


@pytest.mark.parametrize(
    ("limits", "code", "steps"),
    [
        (UsageLimits(request_limit=5), Code.BUDGET_STEPS, 5),
        (UsageLimits(tool_calls_limit=3), Code.BUDGET_CALLS, 4),
        (UsageLimits(total_tokens_limit=2_000), Code.BUDGET_COST, 4),
    ],
    ids=["requests", "tool-calls", "tokens"],
)
def test_each_usage_limit_maps_to_its_budget_code(
    limits: UsageLimits, code: Code, steps: int
) -> None:
    record = unsolvable.run(
        PydanticAIAdapter(BILLING, usage_limits=limits), scenarios.get("constant-return/repeat")
    )
    assert (record.code, record.observed.steps) == (code, steps)


def test_a_cost_limit_stops_the_run_at_the_scenarios_prices() -> None:
    """pydantic-ai prices a response by its model's name (genai-prices), and a provider's model
    over the wire is priced; the adapter's `FunctionModel` has a name it cannot price, so its
    responses carry the scenario's prices, and a ``cost_limit`` stops the run as it would."""
    limit = Decimal("0.01")
    adapter = PydanticAIAdapter(BILLING, usage_limits=UsageLimits(cost_limit=limit))
    record = unsolvable.run(adapter, scenarios.get("constant-return/repeat"))
    assert record.code is Code.BUDGET_COST and "cost_limit" in reported(record).reason
    assert record.observed.cost_usd > limit and record.observed.steps < 50


def test_the_budget_limits_cost_the_scenarios_dollars() -> None:
    """``"budget"`` set requests and tokens alone, so on a dollar budget the agent ran on to its
    steps, $6.22 on a $0.40 budget; its ``cost_limit`` stops it once the dollars are spent.
    pydantic-ai tests the cost a run has spent, not what its next request will cost, so the
    request that crosses the budget is made: the verdict says so, and nothing else."""
    adapter = PydanticAIAdapter(BILLING, usage_limits="budget")
    record = unsolvable.run(adapter, scenarios.get("dollar-budget/long-transcript"))
    assert record.code is Code.BUDGET_COST and "cost_limit" in reported(record).reason
    assert record.observed.steps == 10 and record.observed.cost_usd > 0.4
    assert [f.rule for f in record.verdict.failures] == [Rule.UNAFFORDABLE_STEP]


@pytest.mark.parametrize("limits", ["budgets", 50, {"request_limit": 5}, 0])
def test_usage_limits_that_are_no_usage_limits_are_refused_before_any_run(limits: object) -> None:
    """pydantic-ai fails in every run on them, or takes a falsy one for its default."""
    with pytest.raises(AdapterError, match=r"use a pydantic_ai\.UsageLimits, 'budget'"):
        PydanticAIAdapter(BILLING, usage_limits=limits)  # type: ignore[arg-type]


def test_no_request_limit_runs_into_the_harness_ceiling() -> None:
    adapter = PydanticAIAdapter(BILLING, usage_limits=UsageLimits(request_limit=None))
    record = unsolvable.run(
        adapter, scenarios.get("constant-return/repeat"), ceilings=Ceilings(max_steps=40)
    )
    assert record.outcome is Outcome.DID_NOT_STOP and record.observed.steps == 40


def test_an_output_is_a_completion_claim_that_the_verdict_checks() -> None:
    record = unsolvable.run(
        PydanticAIAdapter(BILLING), scenarios.get("constant-return/claims-success")
    )
    assert record.exit is Exit.COMPLETE and record.observed.steps == 3
    assert record.verdict.broke(Rule.FALSE_COMPLETION)


def unverified(text: str) -> dict[str, str]:
    """An agent's own output processing: a claim it cannot verify goes to a human."""
    return {"code": "NEEDS_HUMAN", "reason": f"unverified claim: {text}"}


def test_an_output_with_a_code_is_read_as_the_agents_stop() -> None:
    careful = Agent("test", output_type=TextOutput(unverified))
    record = unsolvable.run(
        PydanticAIAdapter(careful), scenarios.get("constant-return/claims-success")
    )
    assert record.code is Code.NEEDS_HUMAN and record.verdict.passed


def deferring(kind: Any) -> Agent[None, str | DeferredToolRequests]:
    """An agent whose tools wait on someone outside the run: each call for approval
    (``requires_approval``) or for a result made elsewhere (an external tool)."""

    def deferred(ctx: RunContext[None], tools: list[ToolDefinition]) -> list[ToolDefinition]:
        return [dataclasses.replace(tool, kind=kind) for tool in tools]

    return Agent(
        "test",
        instructions=INSTRUCTIONS,
        output_type=[str, DeferredToolRequests],
        capabilities=[PrepareTools(deferred)],
    )


@pytest.mark.parametrize(
    ("kind", "waits"), [("unapproved", "approval of"), ("external", "the result of")]
)
def test_a_run_paused_for_deferred_tool_calls_needs_a_human_and_claims_nothing(
    kind: str, waits: str
) -> None:
    """pydantic-ai returns the pending calls as the run's output, which is no answer."""
    record = unsolvable.run(
        PydanticAIAdapter(deferring(kind)), scenarios.get("constant-return/repeat")
    )
    assert (record.exit, record.code) == (Exit.ABANDONED, Code.NEEDS_HUMAN)
    assert (record.observed.steps, record.observed.tool_calls) == (1, 0)
    stop = reported(record)
    assert stop.reason == f"pydantic-ai: the run paused for {waits} search_invoices"
    assert stop.partial["tail"][-1]["tool_calls"] == ["search_invoices"]


def test_a_tool_that_raises_crashes_the_run() -> None:
    record = unsolvable.run(
        PydanticAIAdapter(BILLING), scenarios.get("missing-permission/retry-raises")
    )
    assert record.outcome is Outcome.CRASHED and "portal:write" in str(record.observed.error)


def test_its_traces_name_the_fake_model_as_every_framework_names_it() -> None:
    """pydantic-ai's own OpenTelemetry spans name the model each request went to, as a
    production run's name its provider's model: under the harness, the fake model, by the one
    name every other framework's traces and requests give it."""
    sdk = pytest.importorskip("opentelemetry.sdk.trace")
    exporting = pytest.importorskip("opentelemetry.sdk.trace.export")
    in_memory = pytest.importorskip("opentelemetry.sdk.trace.export.in_memory_span_exporter")
    exporter = in_memory.InMemorySpanExporter()
    tracer_provider = sdk.TracerProvider()
    tracer_provider.add_span_processor(exporting.SimpleSpanProcessor(exporter))
    traced = Instrumentation(settings=InstrumentationSettings(tracer_provider=tracer_provider))
    agent = Agent("test", instructions=INSTRUCTIONS, capabilities=[traced])
    record = unsolvable.run(
        PydanticAIAdapter(agent), scenarios.get("constant-return/claims-success")
    )
    models = [
        (span.attributes or {}).get(key)
        for span in exporter.get_finished_spans()
        if span.name.startswith("chat ")
        for key in ("gen_ai.request.model", "gen_ai.response.model")
    ]
    assert record.observed.steps == 3 and models == [FAKE_MODEL] * 6


def test_a_reply_of_parallel_calls_gives_the_same_record_on_every_run() -> None:
    """pydantic-ai runs a reply's tool calls at once, so which reaches the world first is a
    race; the adapter's tools take their turn in the reply's order, and the record (the
    world's fingerprints, the tools' request ids, the trajectory) is the same on every run."""
    adapter = PydanticAIAdapter(BILLING, usage_limits=UsageLimits(request_limit=6))
    scenario = scenarios.get("fan-out/eight-workers")
    records = {unsolvable.run(adapter, scenario).to_json() for _ in range(3)}
    assert len(records) == 1


def test_an_agent_that_handles_its_event_stream_runs_as_it_does_unstreamed() -> None:
    """An event stream handler makes pydantic-ai stream every request; the adapter's model
    streams each reply whole, with the usage the session reports, so a token limit stops the
    run where it stops the same agent unstreamed."""
    events: list[str] = []

    async def handler(ctx: RunContext[None], stream: Any) -> None:
        async for event in stream:
            events.append(type(event).__name__)

    streaming = Agent("test", instructions=INSTRUCTIONS, capabilities=[ProcessEventStream(handler)])

    def seen(agent: Agent[None, str]) -> tuple[object, ...]:
        adapter = PydanticAIAdapter(agent, usage_limits=UsageLimits(total_tokens_limit=2_000))
        record = unsolvable.run(adapter, scenarios.get("constant-return/repeat"))
        return (record.code, record.observed.steps, record.observed.input_tokens)

    assert seen(streaming) == seen(BILLING) and "PartStartEvent" in events


def test_the_scenario_budget_can_set_the_usage_limits() -> None:
    adapter = PydanticAIAdapter(BILLING, usage_limits="budget")
    record = unsolvable.run(adapter, scenarios.get("constant-return/repeat"))
    assert (record.code, record.observed.steps) == (Code.BUDGET_STEPS, 12)
    assert record.verdict.passed


def streamed(session: Session) -> Stop:
    """The billing agent on `OpenAIChatModel` over the wire, driven by ``run_stream``."""

    async def output(agent: Agent[None, str]) -> str:
        async with agent.run_stream(session.task) as result:
            return await result.get_output()

    with Wire(session) as wire:
        provider = OpenAIProvider(openai_client=wire.async_openai_client())
        agent = Agent(OpenAIChatModel("gpt-4.1", provider=provider), tools=session_tools(session))
        return Stop(code=Code.COMPLETED, reason=asyncio.run(output(agent)))


def test_run_stream_takes_the_first_words_for_the_output_where_run_goes_on() -> None:
    """What the docs tell a user whose agent runs with ``run_stream``, which the adapter does
    not drive: its first output matching the output type is final, and the scripted model
    writes words beside its first tool call."""
    record = unsolvable.run(streamed, scenarios.get("constant-return/repeat"))
    assert (record.exit, record.observed.steps) == (Exit.COMPLETE, 1)
    assert reported(record).reason.startswith("Searching")


PADDING = " Read this description whole before calling." * 100
"""What a user's ``prepare_tools`` adds to each tool's description: pydantic-ai sends it."""


async def _lengthened(ctx: RunContext[Any], tools: list[ToolDefinition]) -> list[ToolDefinition]:
    return [dataclasses.replace(t, description=(t.description or "") + PADDING) for t in tools]


def _capabilities(lengthened: bool) -> list[Any]:
    return [PrepareTools(_lengthened)] if lengthened else []


def _on_the_wire(lengthened: bool) -> Callable[[Session], Stop]:
    """The same agent on `OpenAIChatModel` over the wire, which is charged what it sends."""

    def agent(session: Session) -> Stop:
        with Wire(session) as wire:
            provider = OpenAIProvider(openai_client=wire.async_openai_client())
            built = Agent(
                OpenAIChatModel("gpt-4.1", provider=provider),
                instructions=INSTRUCTIONS,
                tools=session_tools(session),
                capabilities=_capabilities(lengthened),
            )
            with pytest.raises(UsageLimitExceeded):
                asyncio.run(built.run(session.task, usage_limits=UsageLimits(request_limit=4)))
        return Stop(code=Code.BUDGET_STEPS, reason="request limit")

    return agent


def _charged(lengthened: bool) -> tuple[int, int]:
    """The input tokens of four steps of the agent through the adapter and on the wire."""
    scenario = scenarios.get("constant-return/repeat")
    built = Agent("test", instructions=INSTRUCTIONS, capabilities=_capabilities(lengthened))
    adapter = PydanticAIAdapter(built, usage_limits=UsageLimits(request_limit=4))
    through, wire = (unsolvable.run(run, scenario) for run in (adapter, _on_the_wire(lengthened)))
    return through.observed.input_tokens, wire.observed.input_tokens


def test_a_tool_definition_its_agent_rewrites_is_charged_as_on_the_wire() -> None:
    """A step is charged the tools as pydantic-ai sends them, so the descriptions a
    ``prepare_tools`` lengthens cost the adapter's run what they cost the same agent's on the
    wire: four steps offering four tools each, 1,100 tokens a tool more."""
    plain, lengthened = _charged(False), _charged(True)
    more = [longer - short for short, longer in zip(plain, lengthened, strict=True)]
    assert more == [4 * 4 * len(PADDING) // 4] * 2
