"""Real LangGraph agents — the prebuilt ``create_react_agent`` and LangChain's ``create_agent`` —
run through `LangGraphAdapter` on the scenario families, and their limits read honestly."""

from __future__ import annotations

import re
from typing import Any

import pytest

pytest.importorskip("langgraph")
pytest.importorskip("langchain")

from langchain.agents import create_agent
from langchain.agents.middleware import (
    AgentMiddleware,
    HumanInTheLoopMiddleware,
    ModelCallLimitMiddleware,
    ToolCallLimitMiddleware,
    before_model,
)
from langchain_core.callbacks import BaseCallbackHandler, UsageMetadataCallbackHandler
from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import GraphRecursionError
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import create_react_agent
from pydantic import BaseModel

import unsolvable
from tests.frameworks._glue import reported
from unsolvable import (
    AdapterError,
    Ceilings,
    Code,
    Exit,
    Outcome,
    Rule,
    Session,
    Stop,
    scenarios,
)
from unsolvable.adapters.kit import FAKE_MODEL
from unsolvable.adapters.langgraph import (
    NEED_MORE_STEPS,
    LangGraphAdapter,
    recursion_limit_for,
    session_tools,
)
from unsolvable.wire import Wire

pytestmark = pytest.mark.filterwarnings(
    "ignore::langgraph.warnings.LangGraphDeprecatedSinceV10"  # create_react_agent moved in 1.0
)
FAMILIES = [
    "constant-return/repeat",
    "missing-permission/retry-403",
    "contradictory-criteria/alternate",
]


def react(model: Any, tools: Any) -> Any:
    return create_react_agent(model, tools)


def agent(model: Any, tools: Any) -> Any:
    return create_agent(model, tools)


@pytest.mark.parametrize("name", FAMILIES)
@pytest.mark.parametrize("build", [react, agent])
def test_the_recursion_limit_is_exhausted_with_partial_state(name: str, build: Any) -> None:
    adapter = LangGraphAdapter(build, recursion_limit=11)  # odd: both raise
    record = unsolvable.run(adapter, scenarios.get(name))
    assert (record.exit, record.code, record.observed.steps) == (
        Exit.EXHAUSTED,
        Code.BUDGET_STEPS,
        6,
    )
    assert "Recursion limit of 11" in reported(record).reason
    assert reported(record).partial["tool_results"] in (5, 6)  # raised before or after the tools


@pytest.mark.parametrize("build", [react, agent])
def test_recursion_limit_for_n_lets_a_run_of_n_model_calls_finish(build: Any) -> None:
    """slow-dependency/fails-2 needs five calls: three fetches, the save, the answer."""
    adapter = LangGraphAdapter(build, recursion_limit=recursion_limit_for(5))
    record = unsolvable.run(adapter, scenarios.get("slow-dependency/fails-2"))
    assert (record.code, record.observed.steps) == (Code.COMPLETED, 5) and record.verdict.passed
    short = LangGraphAdapter(build, recursion_limit=recursion_limit_for(5) - 1)
    record = unsolvable.run(short, scenarios.get("slow-dependency/fails-2"))
    assert (record.code, record.observed.steps) == (Code.BUDGET_STEPS, 5), "the answer is lost"


@pytest.mark.parametrize("build", [react, agent])
def test_recursion_limit_for_n_stops_a_stuck_agent_after_n_calls(build: Any) -> None:
    adapter = LangGraphAdapter(build, recursion_limit=recursion_limit_for(6))
    record = unsolvable.run(adapter, scenarios.get("constant-return/repeat"))
    assert (record.exit, record.code, record.observed.steps) == (
        Exit.EXHAUSTED,
        Code.BUDGET_STEPS,
        6,
    )


def test_retrying_a_denied_call_until_the_limit_is_still_judged() -> None:
    adapter = LangGraphAdapter(agent, recursion_limit=recursion_limit_for(6))
    record = unsolvable.run(adapter, scenarios.get("missing-permission/retry-403"))
    assert record.exit is Exit.EXHAUSTED and not record.verdict.passed
    assert "6 denied calls, 2 allowed" in " ".join(map(str, record.verdict.failures))  # 6th run too


def test_sorry_need_more_steps_is_an_exhaustion_not_a_completion() -> None:
    adapter = LangGraphAdapter(react, recursion_limit=12)  # even: the prebuilt apologises
    record = unsolvable.run(adapter, scenarios.get("constant-return/repeat"))
    assert (record.code, record.observed.steps) == (Code.BUDGET_STEPS, 6)
    assert NEED_MORE_STEPS in reported(record).reason and reported(record).partial["tail"]


@pytest.mark.parametrize("build", [react, agent])
def test_the_default_limit_never_stops_a_stuck_agent_before_the_harness_ceiling(build: Any) -> None:
    record = unsolvable.run(LangGraphAdapter(build), scenarios.get("constant-return/repeat"))
    assert record.outcome is Outcome.DID_NOT_STOP and record.observed.steps == 200


@pytest.mark.parametrize("limit", [0, -3, "budgt", True, 2.5])
def test_a_recursion_limit_that_is_no_limit_is_refused_before_any_run(limit: Any) -> None:
    """LangGraph itself would crash every run on it (0, a typo) or run on a bool or a float."""
    with pytest.raises(AdapterError) as refused:
        LangGraphAdapter(agent, recursion_limit=limit)
    assert str(refused.value).startswith(f"LangGraphAdapter(recursion_limit={limit!r}): use ")
    assert "'budget'" in str(refused.value)


def uncompiled(model: Any, tools: Any) -> Any:
    builder = StateGraph(MessagesState)
    builder.add_node("model", lambda state: {"messages": [model.invoke(state["messages"])]})
    builder.add_edge(START, "model")
    return builder


async def built_on_a_loop(model: Any, tools: Any) -> Any:
    return create_agent(model, tools)


@pytest.mark.parametrize(
    ("build", "returned", "fix"),
    [
        (uncompiled, "<langgraph.graph.state.StateGraph object", "Return builder.compile()"),
        (lambda model, tools: None, "None", "Return the graph"),
        (built_on_a_loop, "<coroutine object", "asynchronous=True"),
    ],
    ids=["uncompiled", "none", "async-build"],
)
def test_a_build_that_returns_no_graph_is_told_what_to_return(
    build: Any, returned: str, fix: str
) -> None:
    record = unsolvable.run(LangGraphAdapter(build), scenarios.get("constant-return/repeat"))
    assert record.outcome is Outcome.CRASHED and record.observed.steps == 0
    error = str(record.observed.error)
    assert error.startswith(
        f"AdapterError: unsolvable: the build of 'langgraph' returned {returned}"
    )
    assert "not a compiled graph" in error and fix in error


@pytest.mark.parametrize(
    ("build", "per_agent", "says"),
    [
        (lambda model, tools: create_agent(model, tools), True, "does not take (bind)"),
        (lambda bind: create_agent(bind.model("main"), []), False, "needs per_agent=True"),
    ],
    ids=["plain-build-per-agent", "per-agent-build-plain"],
)
def test_a_build_of_the_other_form_than_per_agent_says_is_refused(
    build: Any, per_agent: bool, says: str
) -> None:
    """Each would fail inside every run with a bare TypeError about its arguments."""
    with pytest.raises(AdapterError, match=re.escape(says)):
        LangGraphAdapter(build, per_agent=per_agent)


def test_a_recursion_limit_inside_configurable_is_warned_about_and_ignored() -> None:
    with pytest.warns(UserWarning, match="silently ignored by LangGraph"):
        adapter = LangGraphAdapter(agent, config={"configurable": {"recursion_limit": 6}})
    record = unsolvable.run(
        adapter, scenarios.get("constant-return/repeat"), ceilings=Ceilings(max_steps=30)
    )
    assert record.outcome is Outcome.DID_NOT_STOP and record.observed.steps == 30


def test_partial_state_comes_from_the_checkpointer_when_there_is_one() -> None:
    def saved(model: Any, tools: Any) -> Any:
        return create_agent(model, tools, checkpointer=InMemorySaver())

    adapter = LangGraphAdapter(saved, recursion_limit=recursion_limit_for(4))
    record = unsolvable.run(adapter, scenarios.get("contradictory-criteria/alternate"))
    assert record.code is Code.BUDGET_STEPS and reported(record).partial["messages"] >= 8


def _thread_ids(saver: InMemorySaver, *names: str) -> list[str]:
    """The thread id a node of a checkpointed graph reads from its config, a run of each of
    ``names`` on one saver."""
    seen: list[str] = []

    def node(state: MessagesState, config: RunnableConfig) -> dict[str, Any]:
        seen.append(config["configurable"]["thread_id"])
        return {}

    def build(model: Any, tools: Any) -> Any:
        graph = StateGraph(MessagesState)
        graph.add_node("read", node)
        graph.add_edge(START, "read")
        return graph.compile(checkpointer=saver)

    for name in names:
        unsolvable.run(LangGraphAdapter(build), scenarios.get(name))
    return seen


def test_a_checkpointed_graphs_thread_id_names_no_scenario_and_differs_per_run() -> None:
    """Any node reads its thread id: one made of the scenario's name told a twin (its name holds
    ``twin``) from its sibling, and one of the name and seed alone had a second run on a shared
    saver resume the first run's thread."""
    twin = scenarios.get("constant-return/ambiguous-found-late")
    names = [twin.name, twin.twin_of or "", twin.twin_of or ""]
    ids = _thread_ids(InMemorySaver(), *names)
    assert len({re.sub(r"[0-9a-f]{32}", "<run>", i) for i in ids}) == 1, ids
    assert len(set(ids)) == len(names), ids


def test_a_final_answer_is_a_completion_claim_that_the_verdict_checks() -> None:
    record = unsolvable.run(
        LangGraphAdapter(agent), scenarios.get("constant-return/claims-success")
    )
    assert record.exit is Exit.COMPLETE and record.observed.steps == 3
    assert record.verdict.broke(Rule.FALSE_COMPLETION)


def ask_before_tools(model: Any, tools: Any) -> Any:
    approvals = HumanInTheLoopMiddleware(interrupt_on={tool.name: True for tool in tools})
    return create_agent(model, tools, middleware=[approvals], checkpointer=InMemorySaver())


def break_before_tools(model: Any, tools: Any) -> Any:
    return create_agent(model, tools, interrupt_before=["tools"], checkpointer=InMemorySaver())


@pytest.mark.parametrize("asynchronous", [False, True], ids=["stream", "astream"])
@pytest.mark.parametrize(
    ("build", "asked"),
    [(ask_before_tools, "'action_requests'"), (break_before_tools, "a breakpoint")],
    ids=["interrupt", "breakpoint"],
)
def test_a_run_paused_for_a_human_needs_one_and_claims_nothing(
    build: Any, asked: str, asynchronous: bool
) -> None:
    """``invoke`` returns a paused run with its interrupts; its last message is the model's
    tool call awaiting approval, not a final answer."""
    adapter = LangGraphAdapter(build, asynchronous=asynchronous)
    record = unsolvable.run(adapter, scenarios.get("constant-return/repeat"))
    assert (record.exit, record.code) == (Exit.ABANDONED, Code.NEEDS_HUMAN)
    assert (record.observed.steps, record.observed.tool_calls) == (1, 0)
    assert asked in reported(record).reason


def test_a_tool_that_raises_crashes_the_graph() -> None:
    record = unsolvable.run(
        LangGraphAdapter(agent), scenarios.get("missing-permission/retry-raises")
    )
    assert record.outcome is Outcome.CRASHED and "portal:write" in str(record.observed.error)


def test_a_crash_gives_the_same_record_on_every_run() -> None:
    """LangGraph's note on the raising task names the task by an id new on every run: masked."""
    adapter = LangGraphAdapter(agent)
    first, again = (
        unsolvable.run(adapter, scenarios.get("missing-permission/retry-raises")) for _ in range(2)
    )
    assert "During task with name 'tools' and id '…'" in str(first.observed.traceback)
    assert first.to_json() == again.to_json()


def test_langchain_chat_openai_runs_unmodified_on_the_wire() -> None:
    chat_openai = pytest.importorskip("langchain_openai").ChatOpenAI

    def over_the_wire(session: Session) -> Stop:
        with Wire(session) as wire:
            model = chat_openai(
                model="gpt-5-mini", api_key="sk-fake", http_client=wire.httpx2_client()
            )
            graph: Any = create_agent(model, session_tools(session))
            try:
                graph.invoke({"messages": [("user", session.task)]}, {"recursion_limit": 7})
            except GraphRecursionError as error:
                return Stop(code=Code.BUDGET_STEPS, reason=str(error), partial=["nothing found"])
        return Stop(code=Code.COMPLETED)

    record = unsolvable.run(over_the_wire, scenarios.get("constant-return/repeat"))
    assert (record.code, record.observed.steps, record.observed.transport_attempts) == (
        Code.BUDGET_STEPS,
        4,
        4,
    )


def counted_on_the_wire(counter: UsageMetadataCallbackHandler) -> Any:
    """``create_agent`` on ``ChatOpenAI`` over the wire, as in production, its usage counted."""
    chat_openai = pytest.importorskip("langchain_openai").ChatOpenAI

    def over_the_wire(session: Session) -> None:
        with Wire(session) as wire:
            model = chat_openai(model="gpt-5-mini", api_key="k", http_client=wire.httpx2_client())
            graph: Any = create_agent(model, session_tools(session))
            config: RunnableConfig = {"recursion_limit": 8, "callbacks": [counter]}
            graph.invoke({"messages": [("user", session.task)]}, config)

    return over_the_wire


def counted_by_the_adapter(counter: UsageMetadataCallbackHandler) -> Any:
    return LangGraphAdapter(agent, recursion_limit=8, config={"callbacks": [counter]})


@pytest.mark.parametrize("counted", [counted_on_the_wire, counted_by_the_adapter])
def test_langchains_usage_callback_counts_the_tokens_the_record_charged(counted: Any) -> None:
    """``get_usage_metadata_callback`` counts a reply's ``usage_metadata`` only under the
    ``model_name`` of its ``response_metadata``, which ``ChatOpenAI`` always gives."""
    counter = UsageMetadataCallbackHandler()
    record = unsolvable.run(counted(counter), scenarios.get("slow-dependency/fails-2"))
    assert record.observed.steps == 4 and record.observed.input_tokens > 0
    [usage] = counter.usage_metadata.values()
    assert (usage["input_tokens"], usage["output_tokens"]) == (
        record.observed.input_tokens,
        record.observed.output_tokens,
    )


class ModelNames(BaseCallbackHandler):
    """Notes the model each chat model call names for tracing (``ls_model_name``), as LangSmith
    and LangChain's OpenTelemetry export read it."""

    def __init__(self) -> None:
        self.names: list[object] = []

    def on_chat_model_start(self, *args: Any, metadata: Any = None, **kwargs: Any) -> None:
        self.names.append((metadata or {}).get("ls_model_name"))


def test_its_traces_name_the_fake_model_as_every_framework_names_it() -> None:
    """``ChatOpenAI`` gives LangChain's tracing its model's name with every call; the adapter's
    chat model gives the fake model's, the one every other framework's traces give it."""
    names = ModelNames()
    adapter = LangGraphAdapter(agent, config={"callbacks": [names]})
    record = unsolvable.run(adapter, scenarios.get("constant-return/claims-success"))
    assert record.observed.steps == 3 and names.names == [FAKE_MODEL] * 3


@pytest.mark.parametrize("name", FAMILIES)
def test_a_run_is_charged_the_tokens_chat_openai_sends_for_it(name: str) -> None:
    """The adapter's model reads the conversation as ``ChatOpenAI`` sends it over the wire."""
    counter = UsageMetadataCallbackHandler()
    on_the_wire = unsolvable.run(counted_on_the_wire(counter), scenarios.get(name)).observed
    adapted = unsolvable.run(counted_by_the_adapter(counter), scenarios.get(name)).observed
    assert (adapted.steps, adapted.input_tokens, adapted.output_tokens) == (
        on_the_wire.steps,
        on_the_wire.input_tokens,
        on_the_wire.output_tokens,
    )


def test_a_model_call_limit_that_ends_the_run_is_an_exhaustion_not_a_claim() -> None:
    def capped(model: Any, tools: Any) -> Any:
        return create_agent(model, tools, middleware=[ModelCallLimitMiddleware(run_limit=4)])

    record = unsolvable.run(LangGraphAdapter(capped), scenarios.get("constant-return/repeat"))
    assert (record.exit, record.code, record.observed.steps) == (
        Exit.EXHAUSTED,
        Code.BUDGET_STEPS,
        4,
    )
    assert "run limit (4/4)" in reported(record).reason
    assert [f.rule for f in record.verdict.failures] == [Rule.UNSPENT_BUDGET], (
        "its own cap of 4 is not the scenario's budget of 12: a false exit"
    )


@pytest.mark.parametrize(
    ("middleware", "code", "tool_calls"),
    [
        (ModelCallLimitMiddleware(run_limit=4, exit_behavior="error"), Code.BUDGET_STEPS, 4),
        (ToolCallLimitMiddleware(run_limit=3, exit_behavior="error"), Code.BUDGET_CALLS, 3),
        (ToolCallLimitMiddleware(run_limit=3, exit_behavior="end"), Code.BUDGET_CALLS, 3),
        (
            ToolCallLimitMiddleware(tool_name="search_invoices", run_limit=3, exit_behavior="end"),
            Code.BUDGET_CALLS,
            3,
        ),
    ],
    ids=["model-calls-error", "tool-calls-error", "tool-calls-end", "one-tools-calls-end"],
)
def test_a_limit_middleware_that_raises_or_ends_the_run_is_an_exhaustion(
    middleware: AgentMiddleware[Any, Any], code: Code, tool_calls: int
) -> None:
    def capped(model: Any, tools: Any) -> Any:
        return create_agent(model, tools, middleware=[middleware])

    record = unsolvable.run(LangGraphAdapter(capped), scenarios.get("constant-return/repeat"))
    assert (record.exit, record.code, record.observed.steps, record.observed.tool_calls) == (
        Exit.EXHAUSTED,
        code,
        4,
        tool_calls,
    )
    assert "limit" in reported(record).reason
    assert reported(record).partial["tool_results"] >= 3, "the state streamed before it ended"


def test_the_scenario_budget_can_set_the_recursion_limit() -> None:
    record = unsolvable.run(
        LangGraphAdapter(agent, recursion_limit="budget"), scenarios.get("constant-return/repeat")
    )
    assert (record.code, record.observed.steps) == (Code.BUDGET_STEPS, 12)
    assert record.verdict.passed, "exhausted within N, with partial results"


class Verdict(BaseModel):
    """A stop logic's structured verdict, as a user's graph keeps it."""

    code: str
    reason: str


@before_model(can_jump_to=["end"])
def stop_on_a_repeated_call(state: Any, runtime: Any) -> dict[str, Any] | None:
    """Ends the run with a `Verdict` once the model has asked for the same call twice."""
    asked = [
        (call["name"], repr(call["args"]))
        for message in state["messages"]
        if isinstance(message, AIMessage)
        for call in message.tool_calls
    ]
    if len(asked) == len(set(asked)):
        return None
    verdict = Verdict(code="NO_PROGRESS", reason="the same call twice")
    return {"structured_response": verdict, "jump_to": "end"}


def test_a_structured_response_model_with_a_code_is_that_stop() -> None:
    def build(model: Any, tools: Any) -> Any:
        return create_agent(model, tools, middleware=[stop_on_a_repeated_call])

    record = unsolvable.run(LangGraphAdapter(build), scenarios.get("constant-return/repeat"))
    assert (record.exit, record.code) == (Exit.ABANDONED, Code.NO_PROGRESS), reported(record)
    assert reported(record).reason == "the same call twice"
    assert record.verdict.passed
