"""Consumes what a CrewAI build made, produces the refusal of what in it would leave the scripted
world before the run: an agent or a planner on a real model, memory and knowledge (a real
embedder, and model calls no scenario scripts), tasks that run at once on one script, and a
build that made neither a crew nor a lone agent.

CrewAI's memory and knowledge are not served with an embedder of the harness's: each also calls
the agent's own model (memory to analyse what it saves, knowledge to write its search query
before each task), calls the scenario's script would answer as steps of the agent, and each keeps
what it embeds on disk, in the user's data folder, from one run to the next.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from crewai import Process
from crewai.flow.flow import Flow
from crewai.knowledge.storage import factory as knowledge_storage

from unsolvable._errors import AdapterError

__all__ = [
    "check_agent",
    "check_crew",
    "executing",
    "knowledge_refused",
    "not_a_crew",
]

CREW = (
    "return Crew(agents=[...], tasks=[Task(description='{task}', ...)]), each agent on the llm "
    "it was given"
)
"""What a build should return, in every refusal of what it returned instead."""
EMBEDDER = "a real embedder (OpenAI's embeddings by default, or the embedder= given)"


def _memory_refusal(owner: str) -> str:
    return (
        f"CrewAIAdapter: {owner} has memory, which CrewAI keeps through {EMBEDDER} and fills by "
        "asking the agent's model to analyse each result: the run would reach a real provider "
        "and make model calls the scenario does not script. Build it without memory "
        "(memory=False, CrewAI's default)"
    )


def _knowledge_refusal(owner: str) -> str:
    return (
        f"CrewAIAdapter: {owner} has knowledge_sources, which CrewAI embeds through {EMBEDDER} "
        "and searches with a query it asks the agent's model to write before each task: the run "
        "would reach a real provider and make model calls the scenario does not script. Build "
        "it without knowledge_sources"
    )


@contextmanager
def knowledge_refused() -> Iterator[None]:
    """While a build makes the crew, CrewAI's knowledge gets no storage, so nothing is embedded:
    a crew's knowledge sources are embedded as the `Crew` is made, before the adapter can look at
    it (CrewAI logs and swallows this refusal, and `check_crew` then names them)."""
    previous = knowledge_storage._factory  # restored: a factory the user set is theirs

    def refuse(embedder: object, collection: str | None) -> Any:
        raise AdapterError(_knowledge_refusal(f"knowledge {collection!r}, made in build,"))

    knowledge_storage.set_knowledge_storage_factory(refuse)
    try:
        yield
    finally:
        knowledge_storage.set_knowledge_storage_factory(previous)


def check_crew(crew: Any, agents: Sequence[Any], *, scripted: type[Any]) -> None:
    """Refuses a crew, before its first call, for what in it would leave the scripted world;
    ``agents`` are its agents and manager, ``scripted`` the LLM class on the fake model."""
    _check_models(agents, scripted)
    _check_planner(crew, scripted)
    _check_memory_and_knowledge([("the crew", crew), *_named(agents)])
    _check_concurrent_tasks(crew)


def check_agent(agent: Any, *, scripted: type[Any]) -> None:
    """Refuses a lone agent (``Agent.kickoff()``), before its first call, for what in it would
    leave the scripted world, as `check_crew` refuses a crew's agents."""
    _check_models([agent], scripted)
    _check_memory_and_knowledge(_named([agent]))


def _named(agents: Sequence[Any]) -> list[tuple[str, Any]]:
    return [(f"agent {agent.role!r}", agent) for agent in agents]


def _check_models(agents: Sequence[Any], scripted: type[Any]) -> None:
    """Refuses an agent (a crew's manager too) on a model other than the fake one: its calls
    would go to a real provider, past the scenario's script."""
    for agent in agents:
        if not isinstance(agent.llm, scripted):
            raise AdapterError(
                f"CrewAIAdapter: agent {agent.role!r} runs on {_model_name(agent.llm)}, not on "
                "the llm build was given, so its calls would go to a real provider: give it "
                "llm=llm (a hierarchical crew, manager_llm=llm; with per_agent=True, "
                "bind.llm(name))"
            )


def _check_planner(crew: Any, scripted: type[Any]) -> None:
    """Refuses a crew that plans on a model other than the fake one."""
    if crew.planning and not isinstance(crew.planning_llm, scripted):
        raise AdapterError(
            f"CrewAIAdapter: Crew(planning=True) plans on {_model_name(crew.planning_llm)}, "
            "not on the llm build was given, so its calls would go to a real provider: pass "
            "planning_llm=llm"
        )


def _model_name(llm: object) -> str:
    """The model an LLM (or CrewAI's default, ``None``) calls, as CrewAI names it."""
    return str(getattr(llm, "model", None) or llm or "CrewAI's default model")


def _check_memory_and_knowledge(owners: Sequence[tuple[str, Any]]) -> None:
    """Refuses a crew or an agent with memory or knowledge, before its first call; ``owners``
    are each, by the name a refusal gives it."""
    for owner, holder in owners:
        if holder.memory:
            raise AdapterError(_memory_refusal(owner))
        if holder.knowledge_sources or holder.knowledge is not None:
            raise AdapterError(_knowledge_refusal(owner))


def executing(crew: Any, task: Any) -> Any:
    """The agent that runs ``task`` for the crew: a hierarchical crew's manager runs every task."""
    if crew.process == Process.hierarchical:
        return crew.manager_agent
    return task.agent if task is not None else None


def _check_concurrent_tasks(crew: Any) -> None:
    """Refuses tasks that CrewAI runs at once (consecutive ``async_execution=True`` tasks, until
    a task that waits for them) on the script of one agent: the scripted model would answer
    their calls as one conversation, in whatever order their threads reach it."""
    running: dict[str, str] = {}
    for task in crew.tasks:
        if not task.async_execution:
            running.clear()
            continue
        llm = getattr(executing(crew, task), "llm", None)
        script = getattr(llm, "agent_name", None) or "main"
        if script in running:
            raise AdapterError(
                f"CrewAIAdapter: tasks {running[script]!r} and {task.description!r} run at once "
                f"(async_execution=True) on the script of one agent, {script!r}: the scripted "
                "model would answer both as one conversation, in whatever order their threads "
                "call it. Pass per_agent=True and give the agent of each task running at once "
                "an llm of its own, bind.llm(name)"
            )
        running[script] = task.description


def not_a_crew(built: object) -> AdapterError:
    """The refusal of a build that returned ``built``, neither a `Crew` nor a lone `Agent`: a
    `Flow` is named, as a user who runs one in production would look for it."""
    if isinstance(built, Flow):
        return AdapterError(
            f"CrewAIAdapter: build returned a Flow, {type(built).__name__}, not a Crew: a flow "
            "makes its crews in its steps as it runs, past the adapter's look at each agent's "
            f"model and limits before the first call; {CREW}, as a step of the flow makes it"
        )
    return AdapterError(
        f"CrewAIAdapter: build returned {built!r:.80}, not a Crew or an Agent; {CREW} (or one "
        "Agent on the llm, run as Agent.kickoff(task))"
    )
