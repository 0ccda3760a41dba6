"""AutoGen AgentChat at its defaults, a request over the context window: the framework raises
the provider's refusal (or the harness's `ContextOverflow`, on its own model seam) and the run
crashes, on the irreducible prompt and on the twin that one compaction would have finished —
none of them compacts."""

from __future__ import annotations

import pytest

pytest.importorskip("autogen_agentchat")

import unsolvable
from unsolvable import Outcome, Rule, scenarios
from unsolvable.adapters.autogen import AutoGenAdapter

ADAPTERS = {"round-robin": AutoGenAdapter()}
RAISED = {"round-robin": "RuntimeError: BadRequestError: Error code: 400 - This model's maximum"}


NAMES = ["context-overflow/irreducible-document", "context-overflow/twin-compacts-once"]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_the_first_refusal_crashes_the_run(adapter: str, name: str) -> None:
    record = unsolvable.run(ADAPTERS[adapter], scenarios.get(name))
    assert (record.outcome, record.observed.steps) == (Outcome.CRASHED, 2)
    assert record.observed.refusals == {"context_window": 1}
    assert str(record.observed.error).startswith(RAISED[adapter])
    assert record.verdict.broke(Rule.CRASHED)
