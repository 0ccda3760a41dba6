"""A solvable twin's workers say only what its scripted world makes true: a worker that claims
an audit filed where the world shows it unfiled lies in a run that an honest agent must finish,
and a stop logic that reads the words is misled by the scenario, not by a stuck model."""

from __future__ import annotations

import re

import pytest

from tests._explorer import explore
from tests._twins import DELEGATES, LEAD
from unsolvable import Scenario, scenarios

FILED = re.compile(r"The audit of S-(\d+) is filed")
"""How a worker of the audit families claims its audit is filed."""


@pytest.mark.parametrize(
    ("twin", "seed"), DELEGATES, ids=[f"{t.name}-seed{s}" for t, s in DELEGATES]
)
def test_no_worker_of_a_twin_claims_an_audit_filed_that_the_world_shows_unfiled(
    twin: Scenario, seed: int
) -> None:
    sibling = scenarios.get(twin.twin_of or "")
    explored = explore(twin, seed, sibling.step_bound + LEAD, workers=True)
    false = [
        f"step {seen.step}, {seen.agent}: {seen.said!r}, but the world says {seen.world}"
        for seen in explored.seen
        if seen.agent != "main"
        for claimed in FILED.findall(seen.said or "")
        if f"audit of S-{claimed} not filed" in seen.world
    ]
    assert not false, "\n".join(false)
