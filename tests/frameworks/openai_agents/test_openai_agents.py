"""Real OpenAI Agents SDK agents run through `OpenAIAgentsAdapter`: every model call goes over the
wire (the Responses API by default, as the SDK does), and its turn limit is read honestly."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

pytest.importorskip("agents")

from agents import (
    Agent,
    FunctionTool,
    GuardrailFunctionOutput,
    StopAtTools,
    ToolGuardrailFunctionOutput,
    ToolsToFinalOutputResult,
    input_guardrail,
    output_guardrail,
    tool_input_guardrail,
)
from pydantic import BaseModel

import unsolvable
from tests.frameworks._glue import reported
from unsolvable import AdapterError, Ceilings, Code, Exit, Outcome, Rule, scenarios
from unsolvable.adapters.openai_agents import OpenAIAgentsAdapter

WAY_OF_RUNNING = pytest.mark.parametrize("streamed", [False, True], ids=["run", "run_streamed"])

BILLING = Agent(name="billing", instructions="Do the task with the tools you have.")
FAMILIES = [
    "constant-return/repeat",
    "missing-permission/retry-403",
    "contradictory-criteria/alternate",
]


@pytest.mark.parametrize("name", FAMILIES)
def test_the_default_max_turns_is_ten_model_calls_then_exhausted(name: str) -> None:
    record = unsolvable.run(OpenAIAgentsAdapter(BILLING), scenarios.get(name))
    assert (record.exit, record.code) == (Exit.EXHAUSTED, Code.BUDGET_STEPS)
    assert (record.observed.steps, record.observed.transport_attempts) == (10, 10)
    assert "Max turns (10) exceeded" in reported(record).reason
    assert reported(record).partial["tool_results"] == 10


@pytest.mark.parametrize(
    "options",
    [{"api": "chat_completions"}, {"streamed": True}, {"max_turns": 4}],
    ids=["chat-completions", "streamed", "max-turns-4"],
)
def test_every_way_of_running_reads_the_same_limit(options: dict[str, Any]) -> None:
    record = unsolvable.run(
        OpenAIAgentsAdapter(BILLING, **options), scenarios.get("constant-return/repeat")
    )
    assert record.code is Code.BUDGET_STEPS
    assert record.observed.steps == options.get("max_turns", 10)


def test_an_error_handler_result_is_still_an_exhaustion() -> None:
    def handler(data: Any) -> str:
        return "I could not find the invoice, but everything else is done."

    adapter = OpenAIAgentsAdapter(BILLING, error_handlers={"max_turns": handler})
    record = unsolvable.run(adapter, scenarios.get("constant-return/repeat"))
    assert record.exit is Exit.EXHAUSTED and "error handler answered" in reported(record).reason
    assert reported(record).partial["tool_results"] == 10


def test_sdk_retries_are_transport_attempts_not_turns() -> None:
    adapter = OpenAIAgentsAdapter(BILLING, wire={"transient_failures": 2})
    record = unsolvable.run(adapter, scenarios.get("constant-return/repeat"))
    assert (record.observed.steps, record.observed.transport_attempts) == (10, 12)


def test_no_turn_limit_runs_into_the_harness_ceiling() -> None:
    record = unsolvable.run(
        OpenAIAgentsAdapter(BILLING, max_turns=1000),
        scenarios.get("constant-return/repeat"),
        ceilings=Ceilings(max_steps=15),
    )
    assert record.outcome is Outcome.DID_NOT_STOP and record.observed.steps == 15


def test_a_final_output_is_a_completion_claim_that_the_verdict_checks() -> None:
    record = unsolvable.run(
        OpenAIAgentsAdapter(BILLING), scenarios.get("constant-return/claims-success")
    )
    assert record.exit is Exit.COMPLETE and record.observed.steps == 3
    assert record.verdict.broke(Rule.FALSE_COMPLETION)


def test_a_tool_that_raises_is_the_sdks_error_text_and_the_run_goes_on() -> None:
    """As with ``@function_tool``: the model is told "An error occurred while running the tool"
    and the SDK's turn limit ends the run, not the exception."""
    record = unsolvable.run(
        OpenAIAgentsAdapter(BILLING), scenarios.get("missing-permission/retry-raises")
    )
    assert (record.outcome, record.code, record.observed.steps) == (
        Outcome.STOPPED,
        Code.BUDGET_STEPS,
        10,
    )


@input_guardrail(run_in_parallel=False)  # before the model call, so none is made
def off_limits(context: Any, agent: Any, task: Any) -> GuardrailFunctionOutput:
    return GuardrailFunctionOutput(output_info="billing is off limits", tripwire_triggered=True)


@output_guardrail
def unverified(context: Any, agent: Any, output: Any) -> GuardrailFunctionOutput:
    return GuardrailFunctionOutput(output_info="an unverified claim", tripwire_triggered=True)


@tool_input_guardrail
def no_searching(data: Any) -> ToolGuardrailFunctionOutput:
    return ToolGuardrailFunctionOutput.raise_exception(output_info="no searching")


def guarded_tools(tools: list[FunctionTool]) -> Agent[Any]:
    guarded = [dataclasses.replace(tool, tool_input_guardrails=[no_searching]) for tool in tools]
    return BILLING.clone(tools=guarded)


@WAY_OF_RUNNING
@pytest.mark.parametrize(
    ("agent", "name", "steps", "found"),
    [
        (BILLING.clone(input_guardrails=[off_limits]), "off_limits", 0, "billing is off limits"),
        (BILLING.clone(output_guardrails=[unverified]), "unverified", 5, "an unverified claim"),
        (guarded_tools, "no_searching", 1, "no searching"),
    ],
    ids=["input", "output", "tool-input"],
)
def test_a_guardrail_tripwire_is_the_agents_stop_for_a_human_not_a_crash(
    agent: Any, name: str, steps: int, found: str, streamed: bool
) -> None:
    """The SDK raises a tripwire when the agent's own guardrail halts the run on purpose."""
    adapter = OpenAIAgentsAdapter(agent, streamed=streamed)
    record = unsolvable.run(adapter, scenarios.get("slow-dependency/fails-2"))
    assert (record.exit, record.code, record.observed.steps) == (
        Exit.ABANDONED,
        Code.NEEDS_HUMAN,
        steps,
    )
    assert reported(record).reason == f"Agents SDK: guardrail {name!r} tripped: {found}"


def awaiting_approval(tools: list[FunctionTool]) -> Agent[Any]:
    return BILLING.clone(tools=[dataclasses.replace(tool, needs_approval=True) for tool in tools])


@WAY_OF_RUNNING
def test_a_run_paused_for_approval_needs_a_human_and_claims_nothing(streamed: bool) -> None:
    """The SDK returns a run whose tool calls await approval with no final output."""
    adapter = OpenAIAgentsAdapter(awaiting_approval, streamed=streamed)
    record = unsolvable.run(adapter, scenarios.get("constant-return/repeat"))
    assert (record.exit, record.code) == (Exit.ABANDONED, Code.NEEDS_HUMAN)
    assert (record.observed.steps, record.observed.tool_calls) == (1, 0)
    stop = reported(record)
    assert stop.reason == "Agents SDK: the run paused for approval of search_invoices"
    assert stop.partial["tail"][-1]["tool_calls"] == ["search_invoices"]


@pytest.mark.parametrize("limit", [0, -3, "budgt", True, 2.5])
def test_a_max_turns_that_is_no_limit_is_refused_before_any_run(limit: Any) -> None:
    """The SDK reads 0 as a limit already exceeded: each run would be 'exhausted' at step 0."""
    with pytest.raises(AdapterError) as refused:
        OpenAIAgentsAdapter(BILLING, max_turns=limit)
    assert str(refused.value).startswith(f"OpenAIAgentsAdapter(max_turns={limit!r}): use ")
    assert "'budget'" in str(refused.value)


@pytest.mark.parametrize("per_agent", [False, True], ids=["build", "per-agent"])
def test_a_build_that_returns_no_agent_is_told_what_to_return(per_agent: bool) -> None:
    adapter = OpenAIAgentsAdapter(lambda tools_or_bind: None, per_agent=per_agent)
    record = unsolvable.run(adapter, scenarios.get("constant-return/repeat"))
    assert record.outcome is Outcome.CRASHED and record.observed.steps == 0
    error = str(record.observed.error)
    assert error.startswith("AdapterError: unsolvable: the agent's build returned None, not an")
    assert "Return the Agent" in error


def test_the_agent_class_in_place_of_an_agent_is_refused_before_any_run() -> None:
    """A class is callable, and would be called as build(tools): Agent([...]) then fails on
    its name, saying nothing of the adapter."""
    with pytest.raises(AdapterError, match=r"OpenAIAgentsAdapter\(agent=<class 'agents"):
        OpenAIAgentsAdapter(Agent)


class GaveUp(BaseModel):
    code: str
    reason: str


def stop_at_give_up(context: Any, results: list[Any]) -> ToolsToFinalOutputResult:
    if not any(result.tool.name == "give_up" for result in results):
        return ToolsToFinalOutputResult(is_final_output=False)
    gave_up = GaveUp(code="NEEDS_HUMAN", reason="no account in this billing system")
    return ToolsToFinalOutputResult(is_final_output=True, final_output=gave_up)


@pytest.mark.parametrize(
    ("agent", "code"),
    [
        (BILLING.clone(tool_use_behavior=StopAtTools(stop_at_tool_names=["give_up"])), "COMPLETED"),
        (BILLING.clone(tool_use_behavior=stop_at_give_up, output_type=GaveUp), "NEEDS_HUMAN"),
    ],
    ids=["its-text", "a-structured-output"],
)
def test_a_run_stopped_at_a_tool_is_read_from_its_final_output(
    agent: Agent[Any], code: str
) -> None:
    record = unsolvable.run(OpenAIAgentsAdapter(agent), scenarios.get("give-up-honoured/at-once"))
    assert (record.code, record.observed.steps) == (Code(code), 1)


def test_the_scenario_budget_can_set_max_turns() -> None:
    adapter = OpenAIAgentsAdapter(BILLING, max_turns="budget")
    record = unsolvable.run(adapter, scenarios.get("contradictory-criteria/alternate"))
    assert (record.code, record.observed.steps) == (Code.BUDGET_STEPS, 12)
    assert record.verdict.passed


def bind_build(bind: Any) -> Agent:
    return Agent(name="billing", model=bind.model("main"), tools=bind.tools("main"))


def tools_build(tools: Any) -> Agent:
    return Agent(name="billing", tools=[*tools])


@pytest.mark.parametrize(
    ("build", "per_agent", "says"),
    [
        (bind_build, False, "Pass per_agent=True for build(bind)"),
        (tools_build, True, "or drop per_agent for build(tools)"),
    ],
    ids=["bind-build-without-per-agent", "tools-build-with-per-agent"],
)
def test_a_build_of_the_other_form_is_told_which_form_it_was_handed(
    build: Any, per_agent: bool, says: str
) -> None:
    """Both forms take one argument, so only what the build does with it tells them apart."""
    adapter = OpenAIAgentsAdapter(build, per_agent=per_agent)
    record = unsolvable.run(adapter, scenarios.get("constant-return/repeat"))
    assert record.outcome is Outcome.CRASHED and record.observed.steps == 0
    assert str(record.observed.error).startswith("AdapterError: OpenAIAgentsAdapter")
    assert says in str(record.observed.error)
