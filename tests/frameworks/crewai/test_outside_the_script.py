"""CrewAI runs that would leave the scripted world: memory and knowledge (a real embedder, and model
calls no scenario scripts), a Flow in place of a crew, tasks that run at once
(``async_execution=True``), and hooks that stop the run. Each is refused before its first call,
or runs as production runs it, or is recorded for what it is."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from crewai import Crew, Task
from crewai.flow.flow import Flow, start
from crewai.hooks import (
    HookAborted,
    LLMCallHookContext,
    register_before_llm_call_hook,
    unregister_before_llm_call_hook,
)
from crewai.knowledge.source.string_knowledge_source import StringKnowledgeSource
from crewai.knowledge.storage.factory import (
    resolve_knowledge_storage,
    set_knowledge_storage_factory,
)

import unsolvable
from tests.frameworks.crewai._crews import clerk, one_task
from unsolvable import Exit, Outcome, scenarios
from unsolvable.adapters.crewai import AgentBindings, CrewAIAdapter

FACTS = "Invoices of ACME are paid on Fridays."


@pytest.fixture(autouse=True)
def _users_ci(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The key a user's CI has, which a real embedder would be billed to, and CrewAI's storage
    in a folder of the test's own, where memory would keep what it embeds."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-unsolvable-not-a-real-key")
    monkeypatch.setenv("CREWAI_STORAGE_DIR", str(tmp_path))


def _crew(
    agent_options: dict[str, Any], crew_options: dict[str, Any], max_iter: int = 2
) -> CrewAIAdapter:
    return CrewAIAdapter(one_task(agent={**agent_options, "max_iter": max_iter}, crew=crew_options))


@pytest.mark.parametrize(
    ("agent_options", "crew_options", "says"),
    [
        ({}, {"memory": True}, "the crew has memory"),
        ({"memory": True}, {}, "agent 'Billing' has memory"),
        ({}, {"knowledge_sources": [StringKnowledgeSource(content=FACTS)]}, "the crew has know"),
        ({"knowledge_sources": [StringKnowledgeSource(content=FACTS)]}, {}, "agent 'Billing' has"),
    ],
    ids=["crew-memory", "agent-memory", "crew-knowledge", "agent-knowledge"],
)
def test_memory_and_knowledge_are_refused_before_any_embedding_or_model_call(
    offline: list[str], agent_options: dict[str, Any], crew_options: dict[str, Any], says: str
) -> None:
    """CrewAI embeds a crew's knowledge as the crew is made, an agent's at kickoff, and memory on
    each save and recall, through OpenAI's embeddings by default; and it asks the agent's model
    to analyse what memory saves and to write knowledge's search query: steps no script makes."""
    record = unsolvable.run(
        _crew(agent_options, crew_options), scenarios.get("constant-return/repeat")
    )
    error = str(record.observed.error)
    assert (record.outcome, record.observed.steps) == (Outcome.CRASHED, 0), error
    assert says in error and "would reach a real provider" in error
    assert offline == [], "no embedder was called, nor anything else beyond the wire"


def test_a_knowledge_storage_factory_the_user_set_is_theirs_again_after_the_run() -> None:
    """The adapter keeps knowledge from being stored while build runs through CrewAI's
    process-wide storage factory, and gives back the one it found."""
    asked: list[str | None] = []
    set_knowledge_storage_factory(lambda embedder, collection: asked.append(collection))
    try:
        unsolvable.run(_crew({}, {}), scenarios.get("constant-return/repeat"))
        resolve_knowledge_storage(None, "crew")  # None: CrewAI's own storage
    finally:
        set_knowledge_storage_factory(None)
    assert asked == ["crew"]


def test_a_flow_is_refused_by_name() -> None:
    class Billing(Flow):  # type: ignore[type-arg]
        @start()
        def settle(self) -> str:
            return "settled"

    record = unsolvable.run(
        CrewAIAdapter(lambda llm, tools: Billing()), scenarios.get("constant-return/repeat")
    )
    error = str(record.observed.error)
    assert (record.outcome, record.observed.steps) == (Outcome.CRASHED, 0)
    assert (
        "build returned a Flow, Billing, not a Crew: a flow makes its crews in its steps" in error
    )
    assert "return Crew(agents=[...], tasks=[Task(description='{task}'" in error


def _async_then_sync(llm: Any, tools: Any) -> Crew:
    scout = clerk(llm, tools, role="Scout", max_iter=2)
    billing = clerk(llm, tools, max_iter=3)
    return Crew(
        agents=[scout, billing],
        tasks=[
            Task(description="{task}", expected_output="a look", agent=scout, async_execution=True),
            Task(description="{task}", expected_output="done", agent=billing),
        ],
    )


def test_an_async_task_that_the_next_task_waits_for_runs_as_in_production() -> None:
    """CrewAI runs an ``async_execution=True`` task in a thread of its own and waits for it
    before the next task that is not asynchronous: one agent at a time on the script."""
    record = unsolvable.run(
        CrewAIAdapter(_async_then_sync), scenarios.get("constant-return/repeat")
    )
    assert (record.exit, record.observed.steps, record.observed.tool_calls) == (
        Exit.COMPLETE,
        7,
        5,
    ), "the scout's 2 calls and its forced answer, then the clerk's 3 and its own"


def _two_at_once(bound: list[tuple[Any, Any]]) -> Crew:
    """Agents A and B on asynchronous tasks, which run at once, then C's, which waits for them;
    each agent on the (llm, tools) of ``bound`` in that order."""
    agents = [
        clerk(llm, tools, role=role, max_iter=3)
        for (llm, tools), role in zip(bound, ("A", "B", "C"), strict=True)
    ]
    tasks = [
        Task(
            description=f"{{task}} ({agent.role})",
            expected_output="done",
            agent=agent,
            async_execution=agent.role != "C",
        )
        for agent in agents
    ]
    return Crew(agents=agents, tasks=tasks)


def test_tasks_running_at_once_on_one_script_are_refused() -> None:
    """Two asynchronous tasks in a row run at once: on the one LLM the build is given, the
    scripted model would answer both agents as one conversation, in their threads' order (the
    record of the same run differed from one run to the next)."""
    adapter = CrewAIAdapter(lambda llm, tools: _two_at_once([(llm, tools)] * 3))
    record = unsolvable.run(adapter, scenarios.get("poll-until-ready/pending-3"))
    error = str(record.observed.error)
    assert (record.outcome, record.observed.steps) == (Outcome.CRASHED, 0)
    assert "run at once (async_execution=True) on the script of one agent, 'main'" in error
    assert "Pass per_agent=True" in error


def test_tasks_running_at_once_each_on_its_own_script_run() -> None:
    def build(bind: AgentBindings) -> Crew:
        names = ("worker-1", "worker-2", "main")
        return _two_at_once([(bind.llm(name), bind.tools(name)) for name in names])

    record = unsolvable.run(
        CrewAIAdapter(build, per_agent=True), scenarios.get("constant-return/repeat")
    )
    assert (record.exit, record.observed.steps) == (Exit.COMPLETE, 12), (
        "3 calls and a forced one for each agent"
    )


@pytest.fixture
def hooked() -> Iterator[list[Any]]:
    """Registers the test's ``before_llm_call`` hooks, CrewAI's global ones, until it ends."""
    hooks: list[Any] = []
    try:
        yield hooks
    finally:
        for hook in hooks:
            unregister_before_llm_call_hook(hook)


def _after_two_calls(context: LLMCallHookContext) -> None:
    if context.iterations >= 2:
        raise HookAborted("two calls is this crew's budget", source=_after_two_calls)


def _false_after_two_calls(context: LLMCallHookContext) -> bool | None:
    return False if context.iterations >= 2 else None


@pytest.mark.parametrize(
    ("hook", "steps", "says"),
    [
        (_after_two_calls, 2, "hook _after_two_calls stopped the run: two calls is this crew's"),
        (_false_after_two_calls, 6, "a before_llm_call hook returned False and blocked a model"),
    ],
    ids=["hook-aborted", "returns-false"],
)
def test_a_hook_that_stops_the_run_is_named_in_the_crash(
    hooked: list[Any], hook: Any, steps: int, says: str
) -> None:
    """A hook's stop is deliberate, but gives no code (a budget, no progress, a person?): it is
    recorded as crashed, saying a hook stopped the run. On ``False`` CrewAI runs the task again,
    ``max_retry_limit`` (2) times, as it does on any error of the task; `HookAborted` it does
    not."""
    register_before_llm_call_hook(hook)
    hooked.append(hook)
    record = unsolvable.run(_crew({}, {}, max_iter=5), scenarios.get("constant-return/repeat"))
    error = str(record.observed.error)
    assert (record.outcome, record.observed.steps) == (Outcome.CRASHED, steps), error
    assert error.startswith(f"HookStopped: {says}")
    assert "deliberate stop: recorded as crashed" in error
