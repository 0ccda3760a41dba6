"""Real smolagents `ToolCallingAgent`s run through `SmolagentsAdapter`: at ``max_steps`` the
framework asks the model for a final answer with no tools and returns it as the answer — the
adapter records that as ``exhausted``, never ``complete``."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import pytest

pytest.importorskip("smolagents")

from smolagents import CodeAgent, OpenAIModel, ToolCallingAgent  # type: ignore[import-untyped]
from smolagents.agents import RunResult  # type: ignore[import-untyped]
from smolagents.monitoring import LogLevel  # type: ignore[import-untyped]

import unsolvable
from tests.frameworks._glue import reported
from unsolvable import AdapterError, Code, Exit, Outcome, Rule, Session, Stop, scenarios
from unsolvable.adapters.kit import FAKE_MODEL
from unsolvable.adapters.smolagents import SmolagentsAdapter, SmolagentsRun, session_tools
from unsolvable.wire import Wire

SWITCH_SECONDS = 1e-6
"""A thread switch interval short enough that the threads smolagents runs a reply's calls on
overtake each other most runs; at Python's default (5 ms) a fake tool is done before the next
thread starts, and the race shows only now and then."""
FAMILIES = [
    "constant-return/repeat",
    "missing-permission/retry-403",
    "contradictory-criteria/alternate",
]


def quiet(model: Any, tools: Any, **options: Any) -> ToolCallingAgent:
    return ToolCallingAgent(tools=tools, model=model, verbosity_level=LogLevel.OFF, **options)


def on_the_wire(**options: Any) -> Any:
    """A `quiet` agent built with ``options`` on smolagents' own `OpenAIModel` over the wire:
    the agent as production runs it."""

    def agent(session: Session) -> Stop:
        with Wire(session) as wire:
            client = {"http_client": wire.httpx2_client()}
            model = OpenAIModel("gpt-5-mini", api_key="sk-fake", client_kwargs=client)
            result = quiet(model, session_tools(session), **options).run(
                session.task, return_full_result=True
            )
        return Stop(code=Code.BUDGET_STEPS, reason=f"smolagents: {result.state}")

    return agent


@pytest.mark.parametrize("name", FAMILIES)
def test_the_default_twenty_steps_end_in_a_forced_final_answer_read_as_exhausted(name: str) -> None:
    record = unsolvable.run(SmolagentsAdapter(quiet), scenarios.get(name))
    assert (record.exit, record.code) == (Exit.EXHAUSTED, Code.BUDGET_STEPS)
    assert record.observed.steps == 21, "20 steps, then one more model call with no tools"
    assert reported(record).partial["tool_results"] == record.observed.tool_calls == 20
    reason = reported(record).reason
    assert "max_steps=20" in reason and "completed the task" in reason, "it claimed success"
    assert record.observed.tail[-1].calls == (), "the forced final answer calls no tool"


def test_each_request_is_the_one_openai_model_sends_on_the_wire() -> None:
    """The session reads each step's request as smolagents' `OpenAIModel` sends it: the roles
    by their values ("system", never "MessageRole.SYSTEM") and the content as its parts, so a
    run costs the tokens it costs in production."""
    scenario = scenarios.get("constant-return/repeat")
    adapted = unsolvable.run(SmolagentsAdapter(quiet, max_steps=4), scenario).observed
    wired = unsolvable.run(on_the_wire(max_steps=4), scenario).observed
    seen = [(o.steps, o.tool_calls, o.input_tokens, o.output_tokens) for o in (adapted, wired)]
    assert seen[0] == seen[1] and adapted.steps == 5


def coding(model: Any, tools: Any) -> CodeAgent:
    return CodeAgent(tools=tools, model=model, verbosity_level=LogLevel.OFF, name="coder")


def managing_coder(model: Any, tools: Any) -> ToolCallingAgent:
    helper = CodeAgent(
        tools=[], model=model, name="helper", description="Writes code.", verbosity_level=0
    )
    return quiet(model, tools, managed_agents=[helper])


@pytest.mark.parametrize(
    ("build", "said"),
    [
        (lambda model, tools: [quiet(model, tools)], "returned [<smolagents.agents.ToolCalling"),
        (coding, "CodeAgent 'coder' acts by writing Python"),
        (managing_coder, "CodeAgent 'helper' acts by writing Python"),
    ],
    ids=["not-an-agent", "code-agent", "managed-code-agent"],
)
def test_a_build_that_gives_no_tool_calling_agent_is_refused_saying_so(
    build: Any, said: str
) -> None:
    """A `CodeAgent` on the scripted model fails to parse every step and ends at max_steps
    having called no tool, which would pass for a stop of its own: it is refused instead."""
    record = unsolvable.run(SmolagentsAdapter(build), scenarios.get("constant-return/repeat"))
    assert record.outcome is Outcome.CRASHED and record.observed.steps == 0
    assert said in str(record.observed.error) and "ToolCallingAgent(" in str(record.observed.error)


def test_words_are_a_final_answer_here_and_a_parsing_error_on_the_wire() -> None:
    """The adapter's model answers as a model under smolagents' ``tool_choice="required"``
    does: its words become a ``final_answer`` call. The wire reads no ``tool_choice``, so
    `OpenAIModel` gets the words, parses no tool call out of them and goes on."""
    scenario = scenarios.get("constant-return/claims-success")
    adapted = unsolvable.run(SmolagentsAdapter(quiet, max_steps=4), scenario)
    wired = unsolvable.run(on_the_wire(max_steps=4), scenario)
    assert (adapted.exit, adapted.observed.steps) == (Exit.COMPLETE, 3)
    assert reported(wired).reason == "smolagents: max_steps_error" and wired.observed.steps == 5


def test_an_agent_passed_in_place_of_its_builder_is_refused_saying_why() -> None:
    """An agent is callable (a managed agent is called with its task), so it would pass for a
    builder and fail in every run on a `TypeError` about its arguments."""
    model = OpenAIModel("gpt-5-mini", api_key="sk-fake")
    built = ToolCallingAgent(tools=[], model=model, name="billing", description="Bills.")
    with pytest.raises(AdapterError) as refused:
        SmolagentsAdapter(built)
    message = str(refused.value)
    assert "ToolCallingAgent 'billing' is an agent, not a build(model, tools)" in message
    assert "ToolCallingAgent(tools=tools, model=model)" in message


@pytest.mark.parametrize("max_steps", [0, -1, "budgets", True, 2.5])
def test_a_max_steps_that_is_no_step_limit_is_refused_before_any_run(max_steps: Any) -> None:
    """smolagents reads 0 as the agent's own max_steps, and a misspelt "budget" fails in every
    run: each is refused, saying what it takes."""
    with pytest.raises(AdapterError, match="use a positive int, 'budget'"):
        SmolagentsAdapter(quiet, max_steps=max_steps)


def test_a_smaller_max_steps_is_passed_to_the_run() -> None:
    record = unsolvable.run(
        SmolagentsAdapter(quiet, max_steps=4), scenarios.get("constant-return/repeat")
    )
    assert (record.code, record.observed.steps) == (Code.BUDGET_STEPS, 5)
    assert reported(record).partial["tool_results"] >= 4


def test_a_final_answer_is_a_completion_claim_that_the_verdict_checks() -> None:
    record = unsolvable.run(
        SmolagentsAdapter(quiet), scenarios.get("constant-return/claims-success")
    )
    assert record.exit is Exit.COMPLETE and record.observed.steps == 3
    assert record.verdict.broke(Rule.FALSE_COMPLETION)


def test_a_tool_that_raises_is_an_error_step_and_the_run_goes_on() -> None:
    adapter = SmolagentsAdapter(quiet, max_steps=3)
    record = unsolvable.run(adapter, scenarios.get("missing-permission/retry-raises"))
    assert record.code is Code.BUDGET_STEPS and record.observed.refusals == {"denied": 3}
    assert "portal:write" in str(reported(record).partial)


def test_a_planning_step_is_no_forced_final_answer() -> None:
    def planner(model: Any, tools: Any) -> ToolCallingAgent:
        return ToolCallingAgent(
            tools=tools, model=model, verbosity_level=LogLevel.OFF, planning_interval=100
        )

    record = unsolvable.run(
        SmolagentsAdapter(planner), scenarios.get("constant-return/claims-success")
    )
    assert record.observed.tail[0].calls == (), "the plan is a model call offering no tools"
    assert record.exit is Exit.COMPLETE and record.observed.steps == 3, "far from max_steps"


@pytest.mark.parametrize("name", ["constant-return/repeat", "constant-return/claims-success"])
def test_an_agent_that_streams_its_outputs_runs_as_it_does_unstreamed(name: str) -> None:
    def streaming(model: Any, tools: Any) -> ToolCallingAgent:
        return ToolCallingAgent(
            tools=tools, model=model, verbosity_level=LogLevel.OFF, stream_outputs=True
        )

    def seen(build: Any) -> tuple[object, ...]:
        record = unsolvable.run(SmolagentsAdapter(build, max_steps=4), scenarios.get(name))
        observed = record.observed
        return (record.code, observed.steps, observed.tool_calls, observed.input_tokens)

    assert seen(streaming) == seen(quiet)


def test_its_run_report_names_the_fake_model_as_every_framework_names_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """smolagents heads its run report with its model's id, as a production run heads it with
    its provider's model: here the fake model, by the one name every other framework's traces
    and requests give it."""
    adapter = SmolagentsAdapter(lambda model, tools: ToolCallingAgent(tools=tools, model=model))
    record = unsolvable.run(adapter, scenarios.get("constant-return/claims-success"))
    assert record.observed.steps == 3 and f"SessionModel - {FAKE_MODEL}" in capsys.readouterr().out


def test_a_reply_of_parallel_calls_gives_the_same_record_on_every_run() -> None:
    """smolagents runs a reply's tool calls on a thread pool, so which reaches the world first
    is a race; the adapter's tools take their turn in the reply's order, and the record (the
    world's fingerprints, the tools' request ids, the trajectory) is the same on every run."""
    adapter = SmolagentsAdapter(quiet, max_steps=6)
    switch = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_SECONDS)
    try:
        scenario = scenarios.get("fan-out/eight-workers")
        records = {unsolvable.run(adapter, scenario).to_json() for _ in range(8)}
    finally:
        sys.setswitchinterval(switch)
    assert len(records) == 1


def test_the_scenario_budget_fits_the_forced_final_answer_in() -> None:
    adapter = SmolagentsAdapter(quiet, max_steps="budget")
    record = unsolvable.run(adapter, scenarios.get("missing-permission/retry-403"))
    assert (record.code, record.observed.steps) == (Code.BUDGET_STEPS, 6)
    assert record.observed.refusals == {"denied": 5}, "then the tool-less final answer"


def test_the_scenario_budget_fits_the_planning_steps_in() -> None:
    """A planning step is a model call too: with one every three steps, four action steps,
    two plans and the forced final answer would be seven calls on a budget of six."""

    def planner(model: Any, tools: Any) -> ToolCallingAgent:
        return quiet(model, tools, planning_interval=3)

    scenario = scenarios.get("missing-permission/retry-403")
    record = unsolvable.run(SmolagentsAdapter(planner, max_steps="budget"), scenario)
    assert record.code is Code.BUDGET_STEPS
    assert record.observed.steps == scenario.budget.max_steps - 1, "3 steps, 1 plan, 1 answer"


@dataclass
class Verdict:
    code: str
    reason: str


def test_a_final_answer_dataclass_with_a_code_is_that_stop() -> None:
    answer = Verdict(code="NEEDS_HUMAN", reason="ask the owner")
    run = SmolagentsRun(result=RunResult(output=answer, state="success", steps=[]), max_steps=20)
    stop = SmolagentsAdapter(quiet).interpret(run, None)
    assert stop is not None and (stop.code, stop.reason) == (Code.NEEDS_HUMAN, "ask the owner")
