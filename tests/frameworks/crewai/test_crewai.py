"""Real CrewAI crews run through `CrewAIAdapter`, every model call through CrewAI's native OpenAI
provider on the wire: CrewAI never raises at ``max_iter`` — it forces a tool-less "best final
answer" and returns it as the task's output — so that answer is the claim the verdict checks; its
repeated-call guard is the one stop it makes for lack of progress."""

from __future__ import annotations

import logging
import re
import threading
from typing import Any

import pytest
from crewai import Agent, Crew, CrewOutput, Process, Task
from opentelemetry.sdk.trace import TracerProvider
from pydantic import BaseModel, Field, PrivateAttr

import unsolvable
from tests.frameworks._glue import reported
from tests.frameworks.crewai._crews import clerk, one_task
from tests.frameworks.test_readme_frameworks import _run
from unsolvable import AdapterError, Ceilings, Code, Exit, Outcome, Rule, Session, Stop, scenarios
from unsolvable.adapters.crewai import CrewAIAdapter, CrewAIRun, SessionTool, default_crew


def crew(**agent_options: Any) -> CrewAIAdapter:
    """One agent on one task, with ``agent_options`` on the agent."""

    def build(llm: Any, tools: Any) -> Crew:
        agent = Agent(role="Billing", goal="Settle invoices", backstory="-", llm=llm, tools=tools)
        for name, value in agent_options.items():
            setattr(agent, name, value)
        task = Task(description="{task}", expected_output="done", agent=agent)
        return Crew(agents=[agent], tasks=[task])

    return CrewAIAdapter(build)


def test_at_max_iter_the_forced_final_answer_is_a_claim_and_checked() -> None:
    record = unsolvable.run(CrewAIAdapter(), scenarios.get("constant-return/repeat"))
    assert (record.exit, record.code, record.observed.steps) == (Exit.COMPLETE, Code.COMPLETED, 26)
    assert record.observed.tool_calls == 25, "one tool call in each of the 25 iterations"
    assert record.observed.tail[-1].calls == (), "CrewAI forces its answer with no tools"
    assert record.observed.final_answer_calls == 1
    assert "forced at max_iter=25" in reported(record).reason
    assert record.verdict.broke(Rule.FALSE_COMPLETION)


def test_no_warning_about_the_fake_models_token_count_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """CrewAI estimates the fake model's input tokens on every call and would say so each time,
    in a failed run's output where the agent's own belongs."""
    with caplog.at_level(logging.WARNING):
        unsolvable.run(CrewAIAdapter(max_iter=3), scenarios.get("constant-return/repeat"))
    said = [record.getMessage() for record in caplog.records]
    assert [text for text in said if "approximate input token count" in text] == []


def test_only_the_answering_agents_own_forced_answer_is_reported_as_forced() -> None:
    """Two agents on the one LLM the build is given: the scout's answer is forced at its
    ``max_iter``, the clerk's, the crew's output, is its own."""

    def build(llm: Any, tools: Any) -> Crew:
        scout = Agent(role="Scout", goal="Look", backstory="-", llm=llm, tools=tools, max_iter=1)
        clerk = Agent(role="Clerk", goal="Finish", backstory="-", llm=llm, tools=tools)
        return Crew(
            agents=[scout, clerk],
            tasks=[
                Task(description="{task}", expected_output="a first look", agent=scout),
                Task(description="{task}", expected_output="done", agent=clerk),
            ],
        )

    record = unsolvable.run(CrewAIAdapter(build), scenarios.get("poll-until-ready/pending-3"))
    assert (record.code, record.observed.steps) == (Code.COMPLETED, 7), (
        "the scout's 2, the clerk's 5"
    )
    assert reported(record).reason == "final answer: Done: the task is complete."


def test_max_iter_from_the_budget_fits_the_forced_answer_in() -> None:
    scenario = scenarios.get("constant-return/repeat")
    record = unsolvable.run(CrewAIAdapter(max_iter="budget"), scenario)
    assert record.observed.steps == scenario.budget.max_steps
    assert "forced at max_iter=11" in reported(record).reason


def test_a_set_max_iter_applies_to_every_agent() -> None:
    record = unsolvable.run(
        CrewAIAdapter(max_iter=3), scenarios.get("missing-permission/retry-403")
    )
    assert (record.observed.steps, record.observed.refusals) == (4, {"denied": 3})
    assert reported(record).partial["tool_results"] == 3


def test_a_set_max_iter_applies_to_the_manager_crewai_makes_from_manager_llm() -> None:
    """A hierarchical crew given a ``manager_llm`` has no manager until ``kickoff`` makes one."""

    def build(llm: Any, tools: Any) -> Crew:
        task = Task(description="{task}", expected_output="done")
        return Crew(
            agents=[clerk(llm, tools)],
            tasks=[task],
            process=Process.hierarchical,
            manager_llm=llm,
        )

    record = unsolvable.run(
        CrewAIAdapter(build, max_iter=3), scenarios.get("constant-return/repeat")
    )
    assert (record.exit, record.observed.steps) == (Exit.COMPLETE, 4), "3 calls, 1 forced"
    assert "forced at max_iter=3, 3" in reported(record).reason


def test_the_same_call_failing_the_same_way_five_times_forces_the_final_answer() -> None:
    """CrewAI's repeated-call guard warns the model on the fourth identical call in a row, then
    stops its tools on the fifth and forces a final answer, returned as the task's output."""
    record = unsolvable.run(CrewAIAdapter(), scenarios.get("missing-permission/retry-raises"))
    assert (record.exit, record.code, record.observed.steps) == (
        Exit.COMPLETE,
        Code.COMPLETED,
        6,
    ), "a raising tool is an error text to the model; the run goes on until the guard trips"
    assert record.observed.refusals == {"denied": 5}
    assert reported(record).reason.startswith(
        "final answer: forced by its repeated-call guard ('publish_report' 5 times in a row)"
    )
    warned = next(m["content"] for m in reported(record).partial["tail"] if m["role"] == "tool")
    assert "\n\nYou have called 'publish_report' with the same argumen" in warned, "the 4th"
    assert [f.rule for f in record.verdict.failures] == [
        Rule.FALSE_COMPLETION,
        Rule.RETRIED_REFUSAL,
    ]


def test_the_guard_under_the_raise_policy_is_no_progress() -> None:
    """Under ``tool_failure_policy="raise"`` on the agent, the guard's fifth identical call aborts
    the run (`ToolExecutionFailedError`); the tool's own ``warn`` keeps its failures from doing
    so first."""

    def build(llm: Any, tools: Any) -> Crew:
        warned = [t.model_copy(update={"tool_failure_policy": "warn"}) for t in tools]
        return one_task(agent={"tool_failure_policy": "raise"})(llm, warned)

    record = unsolvable.run(CrewAIAdapter(build), scenarios.get("missing-permission/retry-raises"))
    assert (record.exit, record.code, record.observed.steps) == (
        Exit.ABANDONED,
        Code.NO_PROGRESS,
        5,
    )
    assert "5 times in a row" in reported(record).reason
    assert reported(record).partial == {"tool": "publish_report", "failure": "repeated_call"}


def test_under_the_ignore_policy_the_forced_answer_names_both_possible_causes() -> None:
    """CrewAI's guard records nothing under ``tool_failure_policy="ignore"``, so the reason cannot
    tell it from ``max_iter``, and says so rather than naming one."""
    build = one_task(agent={"tool_failure_policy": "ignore"})
    record = unsolvable.run(CrewAIAdapter(build), scenarios.get("missing-permission/retry-raises"))
    assert (record.code, record.observed.steps) == (Code.COMPLETED, 6)
    assert reported(record).reason.startswith(
        "final answer: forced at max_iter=25 or by its repeated-call guard (unrecorded: "
        "tool_failure_policy='ignore')"
    )


def test_a_raise_policy_ends_the_run_at_the_first_failing_tool() -> None:
    adapter = crew(tool_failure_policy="raise")
    record = unsolvable.run(adapter, scenarios.get("missing-permission/retry-raises"))
    assert (record.code, record.observed.steps) == (Code.ERROR_FATAL, 1)
    assert reported(record).partial["failure"] == "exception"


class _Held(SessionTool):
    """A scenario tool whose first call is held until `release` is set: past CrewAI's shortest
    time limit (one second of real time: CrewAI's clock, not the session's)."""

    release: threading.Event = Field(exclude=True)
    _held: bool = PrivateAttr(default=False)

    def _run(self, *args: Any, **kwargs: Any) -> str:
        if not self._held:
            self._held = True
            self.release.wait(60)  # set as the run returns; the bound only keeps a bug from hanging
        return super()._run(*args, **kwargs)


class _ReleasedOnReturn:
    """The adapter, whose held tools are let go once its run is back and the session marked so,
    as the harness marks it the moment ``run`` returns: what CrewAI left running then calls
    after the return, every time, however fast the machine."""

    def __init__(self, adapter: CrewAIAdapter, release: threading.Event) -> None:
        self.adapter, self.release, self.name = adapter, release, adapter.name

    def run(self, session: Session) -> object:
        try:
            return self.adapter.run(session)
        finally:
            session.returned()
            self.release.set()

    def interpret(self, returned: object, error: BaseException | None) -> Stop | None:
        return self.adapter.interpret(returned, error)


def test_max_execution_time_is_the_time_budget_spent_and_leaves_the_agent_running() -> None:
    """CrewAI raises `TimeoutError` at an agent's ``max_execution_time`` without waiting for the
    thread it timed, which goes on: a stop at its own limit, and work left running."""
    release = threading.Event()

    def build(llm: Any, tools: Any) -> Crew:
        fields = ("name", "description", "args_schema", "call")
        held = [_Held(release=release, **{k: getattr(t, k) for k in fields}) for t in tools]
        return one_task(agent={"max_execution_time": 1, "max_iter": 2})(llm, held)

    adapter = _ReleasedOnReturn(CrewAIAdapter(build), release)
    record = unsolvable.run(adapter, scenarios.get("constant-return/repeat"))
    assert (record.exit, record.code, record.observed.steps, record.observed.tool_calls) == (
        Exit.EXHAUSTED,
        Code.BUDGET_TIME,
        1,
        0,
    ), "the held call comes after the return: refused, not counted"
    assert reported(record).reason == (
        "CrewAI: max_execution_time, execution timed out after 1 seconds"
    )
    assert reported(record).partial["tool_results"] == 0
    assert record.observed.late_call == "search_invoices called by main"
    assert [f.rule for f in record.verdict.failures] == [Rule.LEFT_RUNNING]


def test_a_guardrail_failing_past_its_retries_halts_the_run_for_a_person() -> None:
    """CrewAI runs the task again on each failed check, then raises a bare `Exception` when the
    task's ``guardrail_max_retries`` (3) are spent: the crew's own check halted it, not a crash."""

    build = one_task(task={"guardrail": lambda output: (False, "the invoice is still unpaid")})
    record = unsolvable.run(
        CrewAIAdapter(build, max_iter=1), scenarios.get("constant-return/repeat")
    )
    assert (record.exit, record.code, record.observed.steps) == (
        Exit.ABANDONED,
        Code.NEEDS_HUMAN,
        8,
    ), "four runs of the task, each one call and one forced"
    assert reported(record).reason == (
        "CrewAI: Task failed guardrail validation after 3 retries. "
        "Last error: the invoice is still unpaid"
    )
    assert reported(record).partial["tool_results"] == 1


@pytest.mark.parametrize("on", ["agent", "crew"])
def test_max_rpm_waits_for_the_next_minute_on_the_session_clock(on: str) -> None:
    """CrewAI sleeps out the minute when ``max_rpm`` is reached, then goes on: 60 s of real time
    would run into the harness's wall ceiling, where production waits and makes every call."""

    rpm = {"max_rpm": 2}
    build = one_task(
        agent={"max_iter": 4, **(rpm if on == "agent" else {})},
        crew=rpm if on == "crew" else {},
    )
    record = unsolvable.run(CrewAIAdapter(build), scenarios.get("constant-return/repeat"))
    assert (record.exit, record.observed.steps) == (Exit.COMPLETE, 5)
    assert record.observed.slept_seconds == 120.0, (
        "the third and the fifth of five calls wait: CrewAI admits its forced answer through the "
        "limiter too"
    )


def test_a_streaming_crew_runs_as_its_chunks_are_read() -> None:
    """``kickoff`` of a crew made with ``stream=True`` returns a `CrewStreamingOutput` at once;
    the crew runs as production reads its chunks, and its ``result`` is the crew's output."""

    scenario = scenarios.get("constant-return/repeat")
    streamed = unsolvable.run(CrewAIAdapter(one_task(crew={"stream": True}), max_iter=3), scenario)
    assert (streamed.exit, streamed.observed.steps) == (Exit.COMPLETE, 4)
    assert "forced at max_iter=3" in reported(streamed).reason


def test_a_task_that_asks_a_person_for_feedback_is_a_run_paused_for_a_person() -> None:
    """With ``human_input=True`` CrewAI shows the task's answer and reads a person's feedback from
    the console: production waits there, where the harness has no person to answer."""

    record = unsolvable.run(
        CrewAIAdapter(one_task(task={"human_input": True}), max_iter=2),
        scenarios.get("constant-return/repeat"),
    )
    assert (record.exit, record.code, record.observed.steps) == (
        Exit.ABANDONED,
        Code.NEEDS_HUMAN,
        3,
    ), "two calls, the forced answer, then the ask: no retry of the task"
    assert reported(record).reason.startswith("CrewAI: human_input=True asks a person")
    assert reported(record).partial["tool_results"] == 2


def test_a_raise_policy_ends_the_run_at_a_tools_spent_usage_count_as_a_call_budget() -> None:
    """A tool's ``max_usage_count`` is a budget of calls: spent under the ``raise`` policy, the
    run ends with it, as a call budget's does, not as a tool's fatal error."""

    def build(llm: Any, tools: Any) -> Crew:
        for tool in tools:
            tool.max_usage_count = 2
        return one_task(agent={"tool_failure_policy": "raise"})(llm, tools)

    record = unsolvable.run(CrewAIAdapter(build), scenarios.get("constant-return/repeat"))
    assert (record.exit, record.code, record.observed.steps, record.observed.tool_calls) == (
        Exit.EXHAUSTED,
        Code.BUDGET_CALLS,
        3,
        2,
    )
    assert reported(record).partial == {"tool": "search_invoices", "failure": "usage_limit"}


def test_sdk_retries_are_transport_attempts_not_steps() -> None:
    adapter = CrewAIAdapter(max_iter=1, wire={"transient_failures": 2})
    record = unsolvable.run(adapter, scenarios.get("constant-return/repeat"))
    assert (record.observed.steps, record.observed.transport_attempts) == (2, 4)


def test_a_structured_output_with_a_code_is_that_stop() -> None:
    output = CrewOutput(raw="", json_dict={"code": "NEEDS_HUMAN", "reason": "ask the owner"})
    run = CrewAIRun(output=output)
    stop = CrewAIAdapter().interpret(run, None)
    assert stop is not None and (stop.code, stop.reason) == (Code.NEEDS_HUMAN, "ask the owner")


class _Ending(BaseModel):
    code: str
    reason: str


def test_an_answer_that_does_not_fit_the_structured_output_costs_crewai_s_conversion_calls() -> (
    None
):
    """CrewAI converts a text answer into a task's ``output_pydantic`` with the agent's model, up
    to three tries: each a model call, so each a step of the agent."""
    build = one_task(agent={"max_iter": 2}, task={"output_pydantic": _Ending})
    record = unsolvable.run(CrewAIAdapter(build), scenarios.get("constant-return/repeat"))
    assert (record.code, record.observed.steps) == (Code.COMPLETED, 6), "2, 1 forced, 3 tries"
    assert [len(s.calls) for s in record.observed.trajectory] == [1, 1, 0, 0, 0, 0]


def test_the_registered_name_is_the_default_crew() -> None:
    record = unsolvable.run(
        "crewai", scenarios.get("constant-return/repeat"), ceilings=Ceilings(max_steps=5)
    )
    assert (record.agent, record.outcome, record.observed.steps) == (
        "crewai",
        Outcome.DID_NOT_STOP,
        5,
    )


def test_a_build_that_is_not_a_crew_is_refused() -> None:
    with pytest.raises(AdapterError, match="CrewAIAdapter"):
        CrewAIAdapter("Crew")  # type: ignore[arg-type]
    with pytest.raises(AdapterError, match="max_iter"):
        CrewAIAdapter(max_iter=0)
    record = unsolvable.run(
        CrewAIAdapter(lambda llm, tools: "crew"), scenarios.get("constant-return/repeat")
    )  # type: ignore[arg-type,return-value]
    assert record.outcome is Outcome.CRASHED and "not a Crew" in str(record.observed.error)


@pytest.mark.parametrize(
    ("build", "per_agent", "says"),
    [
        (default_crew, True, "does not take (bind)"),
        (lambda bind: default_crew(bind.llm("main"), []), False, "needs per_agent=True"),
    ],
    ids=["plain-build-per-agent", "per-agent-build-plain"],
)
def test_a_build_of_the_other_form_than_per_agent_says_is_refused(
    build: Any, per_agent: bool, says: str
) -> None:
    """Each would fail inside every run with a bare TypeError about its arguments."""
    with pytest.raises(AdapterError, match=re.escape(says)):
        CrewAIAdapter(build, per_agent=per_agent)


@pytest.mark.parametrize(
    ("crew_options", "agent_llm", "says"),
    [
        ({}, "gpt-4o-mini", "agent 'Billing' runs on gpt-4o-mini, not on the llm build was given"),
        ({"planning": True}, None, "Crew(planning=True) plans on CrewAI's default model, not"),
    ],
    ids=["agent", "planning"],
)
def test_a_crew_that_would_call_a_real_model_is_refused(
    monkeypatch: pytest.MonkeyPatch,
    offline: list[str],
    crew_options: dict[str, Any],
    agent_llm: str | None,
    says: str,
) -> None:
    """With the key production has, its calls would go to the real provider, past the scenario's
    script: the adapter refuses the crew before any call and says what to change."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-unsolvable-not-a-real-key")

    def build(llm: Any, tools: Any) -> Crew:
        return one_task(crew=crew_options)(agent_llm or llm, tools)

    record = unsolvable.run(CrewAIAdapter(build), scenarios.get("constant-return/repeat"))
    assert (record.outcome, record.observed.steps) == (Outcome.CRASHED, 0)
    assert says in str(record.observed.error)
    assert offline == []


def test_the_same_run_gives_the_same_record() -> None:
    scenario = scenarios.get("missing-permission/retry-403")
    first, second = (unsolvable.run(CrewAIAdapter(max_iter=4), scenario) for _ in range(2))
    assert first.to_json() == second.to_json()


def test_a_run_tries_to_reach_no_host(offline: list[str]) -> None:
    """Telemetry and tracing are off and tokens are counted locally: nothing goes to a host."""
    unsolvable.run(CrewAIAdapter(max_iter=2), scenarios.get("constant-return/repeat"))
    assert offline == []


def test_the_users_own_opentelemetry_tracing_still_records(offline: list[str]) -> None:
    """The adapter switches CrewAI's telemetry off by CrewAI's own switches, not by the
    OpenTelemetry SDK's (``OTEL_SDK_DISABLED``), which would leave every tracer provider of the
    process recording nothing: the user's own tracing of its agents, as in production, included."""
    unsolvable.run(CrewAIAdapter(max_iter=2), scenarios.get("constant-return/repeat"))
    span = TracerProvider().get_tracer(__name__).start_span("the user's own")
    assert span.is_recording() and offline == []


def test_the_readme_example_is_a_forced_claim_at_ten_steps() -> None:
    record = _run("from crewai import Agent, Crew, Task")["record"]
    assert (record.exit, record.observed.steps) == (Exit.COMPLETE, 10)
    assert record.verdict.broke(Rule.FALSE_COMPLETION)
