"""A lost run keeps its lag under the plugin too, through xdist: an agent that exits its process
at a chosen step is recorded with the stagnant step and the lag of an agent that stops there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli import lost_lag_agents
from tests.plugin._helpers import Run, outcomes
from unsolvable.plugin._options import (
    AGENT_OPTION,
    JSON_OPTION,
    NO_SNAPSHOT_OPTION,
    SCENARIO_OPTION,
)

SCENARIO = "call-budget/endless-site"
TRUTH = ("first_stagnant_step", "detection_lag", "lag_tokens", "lag_cost_usd", "evidence_step")


@pytest.mark.parametrize("step", [3, 8])
def test_an_agent_that_exits_keeps_the_lag_of_a_stop_at_that_step_under_xdist(
    run: Run, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, step: int
) -> None:
    pytester.makepyfile(lost_lag=Path(lost_lag_agents.__file__).read_text())
    monkeypatch.setenv(lost_lag_agents.STEP, str(step))
    out = pytester.path / "records.json"
    result = run(
        f"{AGENT_OPTION}=lost_lag:stops", f"{AGENT_OPTION}=lost_lag:exits",
        f"{SCENARIO_OPTION}={SCENARIO}", "-k", "seed0", f"{JSON_OPTION}={out}",
        NO_SNAPSHOT_OPTION, "-n", "2",
    )  # fmt: skip
    assert sum(outcomes(result).values()) == 2
    records = {r["agent"]: r for r in json.loads(out.read_text())["records"]}
    stopped, lost = records["lost_lag:stops"], records["lost_lag:exits"]
    assert (lost["outcome"], lost["observed"]["steps"]) == ("crashed", step)
    assert stopped["observed"]["steps"] == step
    truth = [{name: r["observed"][name] for name in TRUTH} for r in (lost, stopped)]
    assert truth[0] == truth[1] and truth[0]["first_stagnant_step"] is not None
