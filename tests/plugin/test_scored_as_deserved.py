"""Agents that end their runs other than by a stop decision, through the plugin: the metrics of
its JSON report count them as the command line does, serially and under xdist."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli import gaming_agents
from tests.plugin._helpers import Run, outcomes
from unsolvable.plugin._options import (
    AGENT_OPTION,
    JSON_OPTION,
    NO_SNAPSHOT_OPTION,
    SCENARIO_OPTION,
)

AGENTS = (
    "stops_at_once",
    "raises_at_once",
    "spins_at_once",
    "claims_a_ceiling",
    "skips_the_asked_calls_at_once",
    "repeats_a_call_at_once",
)
CASES = (f"{SCENARIO_OPTION}=constant-return/repeat", "-k", "seed0", NO_SNAPSHOT_OPTION)


def test_a_crash_or_a_ceiling_scores_no_better_than_the_stop_it_stands_in_for(
    run: Run, pytester: pytest.Pytester, xdist_args: tuple[str, ...]
) -> None:
    pytester.makepyfile(gaming=Path(gaming_agents.__file__).read_text())
    out = pytester.path / "records.json"
    agents = (f"{AGENT_OPTION}={name}=gaming:{name}" for name in AGENTS)
    result = run(*agents, *CASES, f"{JSON_OPTION}={out}", *xdist_args)
    assert outcomes(result) == {"passed": 3, "failed": 3}  # the guesses pass their verdicts
    data = json.loads(out.read_text())
    records = {r["agent"]: r for r in data["records"]}
    metrics = {g["agent"]: g for g in data["metrics"]["agents"]}
    scored = {name: (m["premature_stops"], m["lag_steps"]["p95"]) for name, m in metrics.items()}
    spun = records["spins_at_once"]
    past_the_bound = spun["step_bound"] + 1 - spun["observed"]["first_stagnant_step"]
    assert scored == {
        "stops_at_once": (1, -1),
        "raises_at_once": (1, -1),
        "spins_at_once": (0, past_the_bound),
        "claims_a_ceiling": (1, -1),
        "skips_the_asked_calls_at_once": (1, -1),
        "repeats_a_call_at_once": (1, -1),
    }
