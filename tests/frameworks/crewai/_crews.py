"""The crews CrewAI's tests build: a clerk, and one clerk on one task, each with the options a
test sets on its agent, its task or its crew."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from crewai import Agent, Crew, Task

NO_OPTIONS: Mapping[str, Any] = {}


def clerk(llm: Any, tools: Any, role: str = "Billing", **options: Any) -> Agent:
    """An agent at CrewAI's defaults but for ``options``, on the llm and tools it is given."""
    return Agent(role=role, goal="Settle", backstory="-", llm=llm, tools=tools, **options)


def one_task(
    *,
    agent: Mapping[str, Any] = NO_OPTIONS,
    task: Mapping[str, Any] = NO_OPTIONS,
    crew: Mapping[str, Any] = NO_OPTIONS,
) -> Callable[[Any, Any], Crew]:
    """A build of one `clerk` on one task, ``agent``, ``task`` and ``crew`` the options of each."""

    def build(llm: Any, tools: Any) -> Crew:
        member = clerk(llm, tools, **agent)
        work = Task(description="{task}", expected_output="done", agent=member, **task)
        return Crew(agents=[member], tasks=[work], **crew)

    return build
