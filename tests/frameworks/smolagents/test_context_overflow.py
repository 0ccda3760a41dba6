"""smolagents at its defaults, a request over the context window: the framework raises
the provider's refusal (or the harness's `ContextOverflow`, on its own model seam) and the run
crashes, on the irreducible prompt and on the twin that one compaction would have finished —
none of them compacts."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("smolagents")

from smolagents import ToolCallingAgent  # type: ignore[import-untyped]
from smolagents.monitoring import LogLevel  # type: ignore[import-untyped]

from tests.frameworks._overflow import NAMES, assert_the_first_refusal_crashes
from unsolvable.adapters.smolagents import SmolagentsAdapter


def _quiet(model: Any, tools: Any) -> ToolCallingAgent:
    return ToolCallingAgent(tools=tools, model=model, verbosity_level=LogLevel.OFF)


ADAPTERS = {"tool-calling": SmolagentsAdapter(_quiet)}
RAISED = {"tool-calling": "AgentGenerationError: Error while generating output"}


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_the_first_refusal_crashes_the_run(adapter: str, name: str) -> None:
    assert_the_first_refusal_crashes(ADAPTERS[adapter], name, RAISED[adapter])
