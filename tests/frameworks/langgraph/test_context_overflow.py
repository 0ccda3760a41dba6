"""LangGraph and LangChain at their defaults, a request over the context window: the
framework raises the harness's `ContextOverflow` from its own model seam and the run crashes, on
the irreducible prompt and on the twin that one compaction would have finished — neither
compacts."""

from __future__ import annotations

import pytest

pytest.importorskip("langgraph")

from langchain.agents import create_agent
from langgraph.prebuilt import create_react_agent

import unsolvable
from unsolvable import Outcome, Rule, scenarios
from unsolvable.adapters.langgraph import LangGraphAdapter

pytestmark = pytest.mark.filterwarnings(
    "ignore::langgraph.warnings.LangGraphDeprecatedSinceV10"  # create_react_agent moved in 1.0
)
ADAPTERS = {
    "create_react_agent": LangGraphAdapter(lambda model, tools: create_react_agent(model, tools)),
    "create_agent": LangGraphAdapter(lambda model, tools: create_agent(model, tools)),
}
RAISED = {"create_react_agent": "ContextOverflow: ", "create_agent": "ContextOverflow: "}


NAMES = ["context-overflow/irreducible-document", "context-overflow/twin-compacts-once"]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_the_first_refusal_crashes_the_run(adapter: str, name: str) -> None:
    record = unsolvable.run(ADAPTERS[adapter], scenarios.get(name))
    assert (record.outcome, record.observed.steps) == (Outcome.CRASHED, 2)
    assert record.observed.refusals == {"context_window": 1}
    assert str(record.observed.error).startswith(RAISED[adapter])
    assert record.verdict.broke(Rule.CRASHED)
