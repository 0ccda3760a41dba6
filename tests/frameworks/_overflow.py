"""What the context-overflow tests of frameworks that never compact share: the two scenarios, and
what such a framework's run records on each."""

from __future__ import annotations

import unsolvable
from unsolvable import Outcome, Rule, scenarios
from unsolvable.adapters import Adapter

__all__ = ["NAMES", "assert_the_first_refusal_crashes"]

NAMES = ["context-overflow/irreducible-document", "context-overflow/twin-compacts-once"]
"""The irreducible prompt, and the twin that one compaction would have finished."""


def assert_the_first_refusal_crashes(adapter: Adapter, name: str, raised: str) -> None:
    """The framework raises the first refusal (its error text begins with ``raised``) and the run
    crashes at step 2, refused once."""
    record = unsolvable.run(adapter, scenarios.get(name))
    assert (record.outcome, record.observed.steps) == (Outcome.CRASHED, 2)
    assert record.observed.refusals == {"context_window": 1}
    assert str(record.observed.error).startswith(raised)
    assert record.verdict.broke(Rule.CRASHED)
