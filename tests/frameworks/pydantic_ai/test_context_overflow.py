"""pydantic-ai at its defaults, a request over the context window: the framework raises
the provider's refusal (or the harness's `ContextOverflow`, on its own model seam) and the run
crashes, on the irreducible prompt and on the twin that one compaction would have finished —
none of them compacts."""

from __future__ import annotations

import pytest

pytest.importorskip("pydantic_ai")

from pydantic_ai import Agent

from tests.frameworks._overflow import NAMES, assert_the_first_refusal_crashes
from unsolvable.adapters.pydantic_ai import PydanticAIAdapter

ADAPTERS = {"function-model": PydanticAIAdapter(Agent("test", instructions="Do the task."))}
RAISED = {"function-model": "ContextOverflow: "}


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_the_first_refusal_crashes_the_run(adapter: str, name: str) -> None:
    assert_the_first_refusal_crashes(ADAPTERS[adapter], name, RAISED[adapter])
