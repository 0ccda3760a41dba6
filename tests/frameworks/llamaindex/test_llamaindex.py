"""Real LlamaIndex `FunctionAgent`s run through `LlamaIndexAdapter`: ``max_iterations`` raises
(``"force"``, the default) and is read as ``exhausted``; ``"generate"`` forces one more model call
with no tools and returns its answer unflagged, which the record keeps as the agent's claim."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core.agent.workflow import AgentWorkflow, FunctionAgent, ReActAgent
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.tools import BaseTool, FunctionTool
from llama_index.core.workflow import Context, HumanResponseEvent, InputRequiredEvent

import unsolvable
from tests.frameworks._glue import reported
from tests.frameworks._last_first import last_first_session
from unsolvable import AdapterError, Ceilings, Code, Exit, Outcome, Rule, scenarios
from unsolvable.adapters.llamaindex import LlamaIndexAdapter, default_agent

FAMILIES = [
    "constant-return/repeat",
    "missing-permission/retry-403",
    "contradictory-criteria/alternate",
]


@pytest.mark.parametrize("name", FAMILIES)
def test_the_default_twenty_iterations_raise_and_are_read_as_exhausted(name: str) -> None:
    record = unsolvable.run(LlamaIndexAdapter(), scenarios.get(name))
    assert (record.exit, record.code) == (Exit.EXHAUSTED, Code.BUDGET_STEPS)
    assert (record.observed.steps, record.observed.tool_calls) == (20, 19), (
        "the 20th call's tools never run"
    )
    assert reported(record).reason == "LlamaIndex: Max iterations of 20 reached"
    assert reported(record).partial["tool_results"] == 19


def workflow(llm: Any, tools: Any) -> AgentWorkflow:
    agent = FunctionAgent(name="billing", description="Billing.", tools=tools, llm=llm)
    return AgentWorkflow(agents=[agent])


@pytest.mark.parametrize("build", [default_agent, workflow], ids=["function-agent", "workflow"])
def test_generate_forces_a_tool_less_answer_that_is_recorded_as_the_claim_it_is(
    build: Any,
) -> None:
    adapter = LlamaIndexAdapter(build, early_stopping_method="generate")
    record = unsolvable.run(adapter, scenarios.get("constant-return/repeat"))
    assert record.exit is Exit.COMPLETE and record.observed.steps == 21
    assert record.observed.tail[-1].calls == (), "the forced final answer is offered no tools"
    assert "forced at max_iterations" in reported(record).reason
    assert record.verdict.broke(Rule.FALSE_COMPLETION)


def test_a_forced_answer_after_real_work_is_a_claim_the_world_confirms() -> None:
    adapter = LlamaIndexAdapter(max_iterations=17, early_stopping_method="generate")
    record = unsolvable.run(adapter, scenarios.get("long-healthy/16-chapters"))
    assert record.exit is Exit.COMPLETE and record.verdict.passed


@pytest.mark.parametrize(("method", "steps"), [(None, 12), ("generate", 12)])
def test_the_scenario_budget_sets_max_iterations(method: str | None, steps: int) -> None:
    adapter = LlamaIndexAdapter(max_iterations="budget", early_stopping_method=method)  # type: ignore[arg-type]
    record = unsolvable.run(adapter, scenarios.get("constant-return/repeat"))
    assert record.observed.steps == steps == record.budget["max_steps"]


@pytest.mark.parametrize("where", ["agent", "workflow"])
def test_the_budget_leaves_room_for_the_agents_own_forced_answer(where: str) -> None:
    def build(llm: Any, tools: Any) -> Any:
        own = {"early_stopping_method": "generate"}
        agent = FunctionAgent(tools=tools, llm=llm, **(own if where == "agent" else {}))
        return agent if where == "agent" else AgentWorkflow(agents=[agent], **own)

    record = unsolvable.run(
        LlamaIndexAdapter(build, max_iterations="budget"), scenarios.get("constant-return/repeat")
    )
    assert record.observed.steps == record.budget["max_steps"]
    assert "forced at max_iterations" in reported(record).reason


def test_a_smaller_max_iterations_is_passed_to_the_run() -> None:
    record = unsolvable.run(
        LlamaIndexAdapter(max_iterations=4), scenarios.get("constant-return/repeat")
    )
    assert (record.code, record.observed.steps, record.observed.tool_calls) == (
        Code.BUDGET_STEPS,
        4,
        3,
    )


def test_a_tool_that_raises_is_an_error_result_and_the_run_goes_on() -> None:
    record = unsolvable.run(
        LlamaIndexAdapter(max_iterations=4), scenarios.get("missing-permission/retry-raises")
    )
    assert record.code is Code.BUDGET_STEPS and record.observed.refusals == {"denied": 3}
    assert "portal:write" in str(reported(record).partial)


WALL = 20.0
"""A wall ceiling far above what five steps take, however loaded the machine."""
TIMEOUT = 2.0
"""Long enough for the first model call to be made on a loaded machine; the tools it calls then
never answer, so the workflow's timeout is what ends the run."""


def hanging_tools(llm: Any, tools: Any) -> FunctionAgent:
    """A `FunctionAgent` whose tools never answer, under the workflow's own wall limit."""

    async def hang(**arguments: Any) -> str:
        await asyncio.Event().wait()
        return ""

    stuck = [
        FunctionTool.from_defaults(
            async_fn=hang, name=t.metadata.name, fn_schema=t.metadata.fn_schema
        )
        for t in tools
    ]
    return FunctionAgent(tools=stuck, llm=llm, timeout=TIMEOUT)


def test_the_workflows_own_timeout_is_a_time_exhaustion() -> None:
    record = unsolvable.run(
        LlamaIndexAdapter(hanging_tools), scenarios.get("constant-return/repeat")
    )
    assert (record.exit, record.code) == (Exit.EXHAUSTED, Code.BUDGET_TIME)
    assert record.observed.steps == 1
    assert reported(record).reason == f"LlamaIndex: Operation timed out after {TIMEOUT} seconds"


def approved(tool: BaseTool) -> FunctionTool:
    """The tool behind a person's yes, asked as LlamaIndex's human-in-the-loop guide asks."""
    name = tool.metadata.get_name()

    async def ask(ctx: Context, **arguments: Any) -> str:
        answer = await ctx.wait_for_event(
            HumanResponseEvent,
            waiter_id=name,
            waiter_event=InputRequiredEvent(prefix=f"Run {name}? "),
        )
        return str(tool(**arguments).content) if answer.response == "yes" else "denied"

    # LlamaIndex finds the context by its annotation's class, which this module's postponed
    # annotations leave a string.
    ask.__annotations__["ctx"] = Context
    return FunctionTool.from_defaults(async_fn=ask, name=name, fn_schema=tool.metadata.fn_schema)


def asking(llm: Any, tools: Any) -> FunctionAgent:
    return FunctionAgent(tools=[approved(t) for t in tools], llm=llm)


def test_a_tool_that_waits_for_a_person_needs_a_human_at_the_ask() -> None:
    """The workflow waits for a HumanResponseEvent that only its caller can send."""
    record = unsolvable.run(
        LlamaIndexAdapter(asking),
        scenarios.get("constant-return/repeat"),
        ceilings=Ceilings(max_wall_seconds=WALL),
    )
    assert (record.exit, record.code) == (Exit.ABANDONED, Code.NEEDS_HUMAN)
    assert (record.observed.steps, record.observed.tool_calls) == (1, 0)
    stop = reported(record)
    assert stop.reason == (
        "LlamaIndex: the workflow paused for a person at "
        "InputRequiredEvent({'prefix': 'Run search_invoices? '})"
    )
    assert stop.partial["tail"][-1]["tool_calls"] == ["search_invoices"]
    assert record.wall_seconds < WALL / 2


def waiting(llm: Any, tools: Any) -> FunctionAgent:
    """A `FunctionAgent` whose tools wait for an event from the workflow's caller without
    announcing the wait (no ``waiter_event``): nothing on the stream says what it waits for."""

    def silent(tool: BaseTool) -> FunctionTool:
        async def wait(ctx: Context, **arguments: Any) -> str:
            await ctx.wait_for_event(HumanResponseEvent, waiter_id=tool.metadata.get_name())
            return ""

        wait.__annotations__["ctx"] = Context
        return FunctionTool.from_defaults(
            async_fn=wait, name=tool.metadata.get_name(), fn_schema=tool.metadata.fn_schema
        )

    return FunctionAgent(tools=[silent(t) for t in tools], llm=llm)


def test_a_workflow_idle_on_an_unannounced_wait_needs_a_human_at_once() -> None:
    """LlamaIndex reports a workflow with nothing left to run but a wait as idle; only the
    caller could send what it waits for, and the harness has no one to."""
    record = unsolvable.run(
        LlamaIndexAdapter(waiting),
        scenarios.get("constant-return/repeat"),
        ceilings=Ceilings(max_wall_seconds=WALL),
    )
    assert (record.exit, record.code) == (Exit.ABANDONED, Code.NEEDS_HUMAN)
    assert (record.observed.steps, record.observed.tool_calls) == (1, 0)
    assert reported(record).reason == (
        "LlamaIndex: the workflow went idle waiting for an event from outside the run "
        "(ctx.wait_for_event with no waiter_event), which only its caller can send"
    )
    assert record.wall_seconds < WALL / 2


def test_a_final_answer_is_a_completion_claim_that_the_verdict_checks() -> None:
    record = unsolvable.run(LlamaIndexAdapter(), scenarios.get("constant-return/claims-success"))
    assert record.exit is Exit.COMPLETE and record.observed.steps == 3
    assert record.verdict.broke(Rule.FALSE_COMPLETION)


def test_a_solvable_control_completes() -> None:
    builder = lambda llm, tools: FunctionAgent(tools=tools, llm=llm, streaming=False)  # noqa: E731
    record = unsolvable.run(LlamaIndexAdapter(builder), scenarios.get("long-healthy/16-chapters"))
    assert record.exit is Exit.COMPLETE and record.verdict.passed


def test_the_registered_name_runs_a_function_agent_at_its_defaults() -> None:
    record = unsolvable.run("llamaindex", scenarios.get("constant-return/repeat"))
    assert (record.agent, record.code, record.observed.steps) == (
        "llamaindex",
        Code.BUDGET_STEPS,
        20,
    )


@pytest.mark.parametrize(
    "options",
    [
        {"build": "FunctionAgent"},
        {"early_stopping_method": "stop"},
        {"max_iterations": 0},
        {"max_iterations": "budgets"},
    ],
    ids=["not-callable", "unknown-early-stopping", "no-iterations", "misspelt-budget"],
)
def test_bad_options_are_refused_before_any_run(options: dict[str, object]) -> None:
    with pytest.raises(AdapterError, match="LlamaIndexAdapter"):
        LlamaIndexAdapter(**options)  # type: ignore[arg-type]


def react(llm: Any, tools: Any) -> AgentWorkflow:
    return AgentWorkflow(agents=[ReActAgent(tools=tools, llm=llm)])


@pytest.mark.parametrize(
    ("build", "said"),
    [
        (lambda llm, tools: [FunctionAgent(tools=tools, llm=llm)], "returned [FunctionAgent"),
        (lambda llm, tools: ReActAgent(tools=tools, llm=llm), "ReActAgent"),
        (react, "ReActAgent"),
    ],
    ids=["not-a-workflow", "text-parsing-agent", "text-parsing-agent-in-a-workflow"],
)
def test_a_build_that_gives_no_function_calling_workflow_is_refused_saying_so(
    build: Any, said: str
) -> None:
    record = unsolvable.run(LlamaIndexAdapter(build), scenarios.get("constant-return/repeat"))
    assert record.outcome is Outcome.CRASHED and record.observed.steps == 0
    assert said in str(record.observed.error) and "FunctionAgent(" in str(record.observed.error)


def test_a_run_tries_to_reach_no_host(offline: list[str]) -> None:
    """No telemetry, no tokenizer download (LlamaIndex ships its tiktoken and NLTK files)."""
    unsolvable.run(LlamaIndexAdapter(max_iterations=3), scenarios.get("constant-return/repeat"))
    assert offline == []


def test_an_agent_passed_in_place_of_its_builder_is_refused_saying_why() -> None:
    built = FunctionAgent(name="billing", tools=[], llm=MockFunctionCallingLLM())
    with pytest.raises(AdapterError) as refused:
        LlamaIndexAdapter(built)  # type: ignore[arg-type]
    message = str(refused.value)
    assert "FunctionAgent 'billing' holds an LLM of its own" in message
    assert "FunctionAgent(tools=tools, llm=llm)" in message and len(message) < 400


def test_a_run_ends_at_the_step_ceiling_not_at_the_wall_ceiling() -> None:
    """A step the ceiling stops dies inside the workflow's runtime, which then waits on it."""
    ceilings = Ceilings(max_steps=5, max_wall_seconds=WALL)
    record = unsolvable.run(
        LlamaIndexAdapter(), scenarios.get("constant-return/repeat"), ceilings=ceilings
    )
    assert (record.outcome, record.observed.ceiling, record.observed.steps) == (
        Outcome.DID_NOT_STOP,
        "steps",
        5,
    )
    assert record.wall_seconds < WALL / 2


def test_a_run_is_the_same_whatever_order_the_tool_calls_of_a_reply_leave_in(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The supervisor delegates four subtasks in each reply, and the workflow runs the four
    calls of the scenario's ``delegate`` at once: however a loaded machine schedules them, they
    reach the world in the reply's order."""
    scenario, ceilings = scenarios.get("fan-out/plain"), Ceilings(max_steps=3)
    plain = unsolvable.run(LlamaIndexAdapter(), scenario, ceilings=ceilings)
    last_first_session(monkeypatch, "call_tool")
    last_first = unsolvable.run(LlamaIndexAdapter(), scenario, ceilings=ceilings)
    assert last_first.to_json() == plain.to_json()
