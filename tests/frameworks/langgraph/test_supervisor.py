"""A LangGraph supervisor whose workers are sub-graphs, each worker holding a ChatOpenAI client of
its own on the wire (``wire.httpx2_client(agent=...)``): the record counts every worker's steps
apart, and the fan-out verdicts hold — a ledger shared by all agents keeps the run within its
bound, caps per agent multiply past it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("langgraph")
pytest.importorskip("langchain")
pytest.importorskip("langchain_openai")

from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware, ModelCallLimitMiddleware, hook_config
from langchain_core.messages import AIMessage
from langchain_core.tools import BaseTool, tool
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

import unsolvable
from unsolvable import Ceilings, Code, Rule, Session, Stop, scenarios
from unsolvable.adapters.langgraph import AgentBindings, LangGraphAdapter, session_tools
from unsolvable.wire import Wire

SUPERVISOR_CALLS = 3
"""The supervisor's own cap (``ModelCallLimitMiddleware``), as a production system would set."""
WORKER_CALLS = 5
"""Each worker's own cap, per delegated subtask."""
SPENT = "The run's budget is spent."
ROOMY = Ceilings(max_wall_seconds=60.0)
"""Timing is not under test: a loaded machine must not turn a count into a wall-clock ceiling."""


class SharedLedger(AgentMiddleware):
    """One budget of model calls for the supervisor and all its workers, checked before each
    call: the only thing that bounds a fan-out, where per-agent caps multiply."""

    def __init__(self, calls: int) -> None:
        super().__init__()
        self.left = calls

    @hook_config(can_jump_to=["end"])
    def before_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        if self.left == 0:
            return {"jump_to": "end", "messages": [AIMessage(content=SPENT)]}
        self.left -= 1
        return None


def supervisor(
    model: Callable[[str], Any], tools: Callable[[str], list[BaseTool]], shared: list[Any]
) -> Any:
    """The system as it ships: a supervisor that hands each subtask to a worker sub-graph of its
    own (``worker-1`` for the first subtask seen, ...), every agent on its own model client."""
    workers: dict[str, Any] = {}

    def worker(subtask: str) -> Any:
        if subtask not in workers:
            name = f"worker-{len(workers) + 1}"
            cap = ModelCallLimitMiddleware(run_limit=WORKER_CALLS, exit_behavior="end")
            caps = [cap, *shared]  # the ledger last: a call the cap refuses reserves nothing
            lookups = [t for t in tools(name) if t.name == "lookup_supplier"]
            workers[subtask] = create_agent(model(name), lookups, middleware=caps, name=name)
        return workers[subtask]

    @tool
    def delegate(subtask: str) -> str:
        """Hand a subtask to a worker agent, which runs it and reports back."""
        state = worker(subtask).invoke({"messages": [("user", subtask)]})
        return str(state["messages"][-1].content)

    cap = ModelCallLimitMiddleware(run_limit=SUPERVISOR_CALLS, exit_behavior="end")
    caps = [cap, *shared]
    return create_agent(model("main"), [delegate], middleware=caps, name="supervisor")


def run_supervised(session: Session, *, shared_ledger: bool) -> Stop:
    """A harness agent: the supervisor on the wire, each agent's ChatOpenAI bound to its name."""
    ledger = SharedLedger(session.budget.max_steps)
    with Wire(session) as wire:

        def model(name: str) -> Any:
            client = wire.httpx2_client(agent=name)
            return ChatOpenAI(model="gpt-5-mini", api_key=SecretStr("sk-fake"), http_client=client)

        def tools(name: str) -> list[BaseTool]:
            return session_tools(session, agent=name)

        graph = supervisor(model, tools, [ledger] if shared_ledger else [])
        # One delegated worker at a time: LangGraph runs a step's tool calls on a thread pool,
        # and one thread keeps the order of the workers' steps, so the record, the same.
        state = graph.invoke({"messages": [("user", session.task)]}, {"max_concurrency": 1})
    reports = [m.content for m in state["messages"] if m.type == "tool"]
    last = str(state["messages"][-1].content)
    return Stop(code=Code.BUDGET_STEPS, reason=last, partial=reports[-4:])


def with_shared_ledger(session: Session) -> Stop:
    return run_supervised(session, shared_ledger=True)


def with_caps_only(session: Session) -> Stop:
    return run_supervised(session, shared_ledger=False)


@pytest.mark.parametrize("name", ["fan-out/four-workers", "fan-out/eight-workers"])
def test_a_shared_ledger_holds_the_supervisor_and_its_workers_within_the_bound(
    name: str,
) -> None:
    scenario = scenarios.get(name)
    record = unsolvable.run(with_shared_ledger, scenario, strict=True, ceilings=ROOMY)
    assert record.verdict.passed, record.verdict.summary
    assert record.observed.steps == scenario.budget.max_steps == scenario.step_bound
    assert record.reported is not None and SPENT in record.reported.reason


def test_each_worker_client_makes_its_own_steps_in_the_record() -> None:
    record = unsolvable.run(
        with_shared_ledger, scenarios.get("fan-out/four-workers"), ceilings=ROOMY
    )
    workers = {f"worker-{i}": WORKER_CALLS for i in range(1, 5)}
    assert record.observed.steps_by_agent == {"main": 1, **workers}
    assert record.observed.tool_calls == 4 * WORKER_CALLS


def test_the_supervised_run_gives_the_same_record_byte_for_byte() -> None:
    scenario = scenarios.get("fan-out/four-workers")
    first, second = (unsolvable.run(with_shared_ledger, scenario, ceilings=ROOMY) for _ in range(2))
    assert first.to_json() == second.to_json()


def test_caps_per_agent_multiply_past_the_bound() -> None:
    record = unsolvable.run(with_caps_only, scenarios.get("fan-out/four-workers"), ceilings=ROOMY)
    per_worker = SUPERVISOR_CALLS * WORKER_CALLS
    assert record.observed.steps_by_agent == {
        "main": SUPERVISOR_CALLS,
        **{f"worker-{i}": per_worker for i in range(1, 5)},
    }
    assert record.verdict.broke(Rule.PAST_BOUND), "3 + 3 × 4 × 5 = 63 steps, N = 21"


def test_the_adapter_gives_each_agent_of_the_graph_its_own_model_and_tools() -> None:
    def build(bind: AgentBindings) -> Any:
        return supervisor(bind.model, bind.tools, [])

    adapter = LangGraphAdapter(build, per_agent=True, config={"max_concurrency": 1})
    record = unsolvable.run(adapter, scenarios.get("fan-out/four-workers"), ceilings=ROOMY)
    per_worker = SUPERVISOR_CALLS * WORKER_CALLS
    assert record.observed.steps_by_agent == {
        "main": SUPERVISOR_CALLS,
        **{f"worker-{i}": per_worker for i in range(1, 5)},
    }
    assert record.code is Code.BUDGET_STEPS and record.reported is not None
    assert "run limit (3/3)" in record.reported.reason, "the supervisor's cap, read as exhausted"
    assert record.verdict.broke(Rule.PAST_BOUND)
