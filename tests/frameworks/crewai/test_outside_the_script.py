"""CrewAI runs that would leave the scripted world: memory and knowledge (a real embedder, and model
calls no scenario scripts). Each is refused before its first call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from crewai import Agent, Crew, Task
from crewai.knowledge.source.string_knowledge_source import StringKnowledgeSource

import unsolvable
from unsolvable import Outcome, scenarios
from unsolvable.adapters.crewai import CrewAIAdapter

FACTS = "Invoices of ACME are paid on Fridays."


@pytest.fixture(autouse=True)
def _users_ci(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The key a user's CI has, which a real embedder would be billed to, and CrewAI's storage
    in a folder of the test's own, where memory would keep what it embeds."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-unsolvable-not-a-real-key")
    monkeypatch.setenv("CREWAI_STORAGE_DIR", str(tmp_path))


def _clerk(llm: Any, tools: Any, role: str = "Billing", **options: Any) -> Agent:
    return Agent(role=role, goal="Settle", backstory="-", llm=llm, tools=tools, **options)


def _crew(
    agent_options: dict[str, Any], crew_options: dict[str, Any], max_iter: int = 2
) -> CrewAIAdapter:
    def build(llm: Any, tools: Any) -> Crew:
        clerk = _clerk(llm, tools, max_iter=max_iter, **agent_options)
        task = Task(description="{task}", expected_output="done", agent=clerk)
        return Crew(agents=[clerk], tasks=[task], **crew_options)

    return CrewAIAdapter(build)


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
