"""Real AutoGen AgentChat teams and agents run through `AutoGenAdapter`, every model call through
autogen-ext's OpenAI client on the wire: AgentChat never raises at a limit, so its
``TaskResult.stop_reason`` and last message are what the record reads."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("autogen_agentchat")

from autogen_agentchat.agents import AssistantAgent, UserProxyAgent
from autogen_agentchat.base import TerminationCondition
from autogen_agentchat.conditions import (
    HandoffTermination,
    MaxMessageTermination,
    TextMessageTermination,
    TimeoutTermination,
    TokenUsageTermination,
)
from autogen_agentchat.messages import HandoffMessage, TextMessage
from autogen_agentchat.teams import RoundRobinGroupChat, Swarm
from autogen_core.models import RequestUsage
from autogen_ext.models.replay import ReplayChatCompletionClient

import unsolvable
from tests.frameworks._glue import reported
from tests.frameworks.autogen._apart import records_of_the_command, run_apart
from unsolvable import (
    AdapterError,
    Ceilings,
    Code,
    Exit,
    ModelRequest,
    ModelResponse,
    Outcome,
    Rule,
    ToolCall,
    scenarios,
)
from unsolvable.adapters.autogen import AgentBindings, AutoGenAdapter, AutoGenRun


def team(condition: TerminationCondition | None = None, **options: Any) -> AutoGenAdapter:
    def build(client: Any, tools: Any) -> RoundRobinGroupChat:
        assistant = AssistantAgent("assistant", model_client=client, tools=tools)
        return RoundRobinGroupChat([assistant], termination_condition=condition, **options)

    return AutoGenAdapter(build)


def agent(**options: Any) -> AutoGenAdapter:
    return AutoGenAdapter(lambda c, t: AssistantAgent("a", model_client=c, tools=t, **options))


def test_a_team_with_no_condition_runs_into_the_harness_ceiling() -> None:
    record = unsolvable.run(
        AutoGenAdapter(), scenarios.get("constant-return/repeat"), ceilings=Ceilings(max_steps=8)
    )
    assert record.outcome is Outcome.DID_NOT_STOP and record.observed.steps == 8


@pytest.mark.parametrize(
    "name",
    ["constant-return/repeat", "missing-permission/retry-403", "constant-return/claims-success"],
)
def test_max_messages_is_an_exhaustion_whatever_the_agent_said(name: str) -> None:
    record = unsolvable.run(team(MaxMessageTermination(6)), scenarios.get(name))
    assert (record.exit, record.code, record.observed.steps) == (
        Exit.EXHAUSTED,
        Code.BUDGET_STEPS,
        5,
    ), "the task and five answers make six messages"
    assert "Maximum number of messages 6 reached" in reported(record).reason


def test_a_teams_max_turns_is_an_exhaustion() -> None:
    record = unsolvable.run(team(max_turns=4), scenarios.get("constant-return/repeat"))
    assert (record.code, record.observed.steps) == (Code.BUDGET_STEPS, 4)
    assert reported(record).partial["tool_results"] == 4


def test_a_token_limit_is_a_cost_exhaustion() -> None:
    condition = TokenUsageTermination(max_total_token=3000) | MaxMessageTermination(30)
    record = unsolvable.run(team(condition), scenarios.get("constant-return/repeat"))
    assert record.code is Code.BUDGET_COST and "Token usage limit" in reported(record).reason


def test_a_condition_on_what_the_agent_said_is_its_claim_and_checked() -> None:
    condition = TextMessageTermination("assistant") | MaxMessageTermination(30)
    record = unsolvable.run(team(condition), scenarios.get("constant-return/claims-success"))
    assert record.exit is Exit.COMPLETE and record.observed.steps == 3
    assert record.verdict.broke(Rule.FALSE_COMPLETION)


def test_a_lone_agent_hands_back_its_tool_results_after_one_iteration() -> None:
    record = unsolvable.run(agent(), scenarios.get("constant-return/repeat"))
    assert (record.exit, record.code, record.observed.steps) == (
        Exit.EXHAUSTED,
        Code.BUDGET_STEPS,
        1,
    )
    assert "max_tool_iterations" in reported(record).reason


def test_reflection_is_a_forced_tool_less_answer_recorded_as_the_claim_it_is() -> None:
    record = unsolvable.run(
        agent(reflect_on_tool_use=True), scenarios.get("constant-return/repeat")
    )
    assert record.exit is Exit.COMPLETE and record.observed.steps == 2
    assert record.observed.tail[-1].calls == (), "AutoGen reflects with no tools offered"
    assert record.verdict.broke(Rule.FALSE_COMPLETION)


def test_a_tool_that_raises_is_an_error_result_and_the_run_goes_on() -> None:
    record = unsolvable.run(
        agent(max_tool_iterations=5), scenarios.get("missing-permission/retry-raises")
    )
    assert record.code is Code.BUDGET_STEPS and record.observed.refusals == {"denied": 5}
    assert "portal:write" in str(reported(record).partial)


def test_sdk_retries_are_transport_attempts_not_steps() -> None:
    adapter = AutoGenAdapter(agent().build, wire={"transient_failures": 2})
    record = unsolvable.run(adapter, scenarios.get("constant-return/repeat"))
    assert (record.observed.steps, record.observed.transport_attempts) == (1, 3)


def test_per_agent_each_participant_is_the_agent_its_client_names() -> None:
    def build(bind: AgentBindings) -> RoundRobinGroupChat:
        lead = AssistantAgent("lead", model_client=bind.model("main"), tools=bind.tools("main"))
        critic = AssistantAgent("critic", model_client=bind.model("critic"))
        return RoundRobinGroupChat([lead, critic], termination_condition=MaxMessageTermination(5))

    adapter = AutoGenAdapter(build, per_agent=True)
    record = unsolvable.run(adapter, scenarios.get("constant-return/repeat"))
    assert dict(record.observed.steps_by_agent) == {"main": 2, "critic": 2}
    assert record.code is Code.BUDGET_STEPS


def test_the_registered_name_is_the_default_team() -> None:
    record = unsolvable.run(
        "autogen", scenarios.get("constant-return/repeat"), ceilings=Ceilings(max_steps=5)
    )
    assert (record.agent, record.outcome) == ("autogen", Outcome.DID_NOT_STOP)


def test_a_tool_call_ceiling_leaves_no_task_exception_unretrieved() -> None:
    """Reached in a tool, the ceiling ends the run as AgentChat's own cancellation does, not as
    a `CeilingHit` in the task `AssistantAgent` runs its tool calls in, left for asyncio to
    print as it is collected."""
    record, said = run_apart("autogen", "constant-return/repeat", max_tool_calls=3)
    assert "Task exception was never retrieved" not in said and "CeilingHit" not in said
    assert (record["outcome"], record["observed"]["ceiling"]) == ("did_not_stop", "tool_calls")
    assert (record["observed"]["steps"], record["observed"]["tool_calls"]) == (4, 3)


def test_a_failed_run_s_output_is_the_same_bytes_on_every_run(tmp_path: Path) -> None:
    """AutoGen's runtime logs a handler's error under the name it gave the agent, which holds
    the team's id, new on every run; a failed run's record keeps that output, so the same
    scenario, seed and agent would give another record every time."""
    first, again = (
        records_of_the_command("autogen", "budget-edge/plain", 0, tmp_path / f"{n}.json")
        for n in ("first", "again")
    )
    output = json.loads(first)["records"][0]["output"]
    assert "Error processing publish message for assistant_…/…" in output
    assert first == again


STREAMING = AutoGenAdapter(
    lambda c, t: RoundRobinGroupChat(
        [AssistantAgent("a", model_client=c, tools=t, model_client_stream=True)]
    )
)
"""One assistant whose model calls stream (``create_stream``), by name for a process of its own."""


def test_a_step_ceiling_in_a_streamed_model_call_is_agentchats_own_cancellation() -> None:
    record, said = run_apart(f"{__name__}:STREAMING", "constant-return/repeat", max_steps=4)
    assert "CeilingHit" not in said
    assert "CancelledError: unsolvable: harness ceiling steps reached" in said, "AgentChat's log"
    observed = record["observed"]
    assert (record["outcome"], observed["ceiling"], observed["steps"]) == (
        "did_not_stop",
        "steps",
        4,
    )


def _stop_of(condition: TerminationCondition, last: Any) -> Any:
    stop = asyncio.run(condition([last]))
    assert stop is not None
    return AutoGenAdapter().interpret(AutoGenRun(result=_result(stop.content, last)), None)


def _result(stop_reason: str, last: Any) -> Any:
    from autogen_agentchat.base import TaskResult

    return TaskResult(messages=[last], stop_reason=stop_reason)


def test_a_handoff_to_the_user_needs_a_human_and_names_whom() -> None:
    last = HandoffMessage(source="assistant", target="user", content="over to you")
    stop = _stop_of(HandoffTermination("user"), last)
    assert (stop.code, stop.missing) == (Code.NEEDS_HUMAN, ("user",))


def test_a_timeout_is_a_time_exhaustion() -> None:
    condition = TimeoutTermination(0.0)
    usage = RequestUsage(prompt_tokens=1, completion_tokens=1)
    stop = _stop_of(condition, TextMessage(source="assistant", content="…", models_usage=usage))
    assert stop.code is Code.BUDGET_TIME


def test_a_builder_that_is_not_callable_is_refused() -> None:
    with pytest.raises(AdapterError, match="AutoGenAdapter"):
        AutoGenAdapter("RoundRobinGroupChat")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("build", "per_agent", "said"),
    [
        (
            lambda bind: AssistantAgent("a", model_client=bind.model("main")),
            False,
            "per_agent=True",
        ),
        (lambda c, t: AssistantAgent("a", model_client=c, tools=t), True, "per_agent=False"),
    ],
    ids=["bind-builder-without-per-agent", "client-builder-with-per-agent"],
)
def test_a_builder_of_the_other_form_is_refused_naming_the_flag(
    build: Any, per_agent: bool, said: str
) -> None:
    with pytest.raises(AdapterError, match=f"AutoGenAdapter.*{said}"):
        AutoGenAdapter(build, per_agent=per_agent)


@pytest.mark.parametrize(
    "build",
    [lambda c, t: c, lambda c, t: [AssistantAgent("a", model_client=c, tools=t)]],
    ids=["a-model-client", "a-list"],
)
def test_a_build_that_returns_no_team_or_agent_is_refused_saying_so(build: Any) -> None:
    record = unsolvable.run(AutoGenAdapter(build), scenarios.get("constant-return/repeat"))
    assert record.outcome is Outcome.CRASHED and record.observed.steps == 0
    assert "not a team or an agent" in str(record.observed.error)


def test_a_run_tries_to_reach_no_host(offline: list[str]) -> None:
    """AgentChat's tracing goes to the global OpenTelemetry provider (none here), not a host."""
    unsolvable.run(team(max_turns=3), scenarios.get("constant-return/repeat"))
    assert offline == []


class _HandsOffToTheUser:
    """The scenario's model, except that at its second call it hands off to the user through
    AutoGen's own handoff tool."""

    def __init__(self, model: Any) -> None:
        self.model, self.name = model, model.name

    def respond(self, request: ModelRequest) -> ModelResponse:
        if request.step == 2:
            handoff = ToolCall(id="call-handoff", name="transfer_to_user", arguments={})
            return ModelResponse(tool_calls=(handoff,))
        return self.model.respond(request)


def test_a_lone_agents_handoff_to_the_user_needs_a_human_and_names_whom() -> None:
    scenario = scenarios.get("constant-return/repeat")

    def build(seed: int) -> Any:
        setup = scenario.build(seed)
        return dataclasses.replace(setup, model=_HandsOffToTheUser(setup.model))

    adapter = agent(handoffs=["user"], max_tool_iterations=5)
    record = unsolvable.run(adapter, dataclasses.replace(scenario, build=build))
    assert (record.exit, record.code, record.observed.steps) == (
        Exit.ABANDONED,
        Code.NEEDS_HUMAN,
        2,
    )
    assert reported(record).missing == ("user",)


def test_a_swarms_handoff_to_the_user_needs_a_human_and_names_whom() -> None:
    scenario = scenarios.get("constant-return/repeat")

    def build(seed: int) -> Any:
        setup = scenario.build(seed)
        return dataclasses.replace(setup, model=_HandsOffToTheUser(setup.model))

    def swarm(client: Any, tools: Any) -> Swarm:
        billing = AssistantAgent("billing", model_client=client, tools=tools, handoffs=["user"])
        return Swarm([billing], termination_condition=HandoffTermination(target="user"))

    record = unsolvable.run(AutoGenAdapter(swarm), dataclasses.replace(scenario, build=build))
    assert (record.exit, record.code, record.observed.steps) == (
        Exit.ABANDONED,
        Code.NEEDS_HUMAN,
        2,
    )
    stop = reported(record)
    assert (stop.reason, stop.missing) == (
        "AutoGen: Handoff to user from billing detected.",
        ("user",),
    )


WALL = 20.0
"""A wall ceiling far above what one step takes, however loaded the machine."""


@pytest.mark.parametrize("console", [None, input], ids=["default", "input"])
def test_a_user_proxy_that_reads_the_console_needs_a_human_at_the_ask(console: Any) -> None:
    """AgentChat's UserProxyAgent waits on the console for a person the harness does not have."""

    def build(client: Any, tools: Any) -> RoundRobinGroupChat:
        assistant = AssistantAgent("assistant", model_client=client, tools=tools)
        person = UserProxyAgent("customer", input_func=console)
        return RoundRobinGroupChat([assistant, person], max_turns=6)

    record = unsolvable.run(
        AutoGenAdapter(build),
        scenarios.get("constant-return/repeat"),
        ceilings=Ceilings(max_wall_seconds=WALL),
    )
    assert (record.exit, record.code) == (Exit.ABANDONED, Code.NEEDS_HUMAN)
    assert (record.observed.steps, record.observed.tool_calls) == (1, 1)
    stop = reported(record)
    assert stop.reason == "AutoGen: UserProxyAgent 'customer' asked a person: Enter your response:"
    assert stop.partial["tail"][-1]["role"] == "tool"
    assert record.wall_seconds < WALL / 2


def test_an_agent_passed_in_place_of_its_builder_is_refused_saying_why() -> None:
    built = AssistantAgent("billing", model_client=ReplayChatCompletionClient(["done"]))
    with pytest.raises(AdapterError) as refused:
        AutoGenAdapter(built)  # type: ignore[arg-type]
    message = str(refused.value)
    assert "AssistantAgent 'billing' holds a model client of its own" in message
    assert "build(bind)" in message and len(message) < 400
