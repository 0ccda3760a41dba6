"""A lost run keeps its lag: an agent that exits its process, or holds the interpreter until its
worker is killed, at a chosen step is recorded with the first stagnant step and the lag a stop at
that step gets, and the metrics count it as they count that stop, so leaving a run instead of
stopping it late or early moves no lag figure and hides no premature stop."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli import next_run_exits
from tests.cli.lost_lag_agents import STEP
from tests.cli.test_cli import ROOT

AGENTS = "tests.cli.lost_lag_agents"
BUDGET = "call-budget/endless-site"
"""Stagnant at step 6 by the call budget, projected before it: a premature stop's lag in tokens
is the spend of the steps it skipped."""
NOVELTY = "constant-return/repeat"
"""Stagnant at step 2: nothing new after the first answer."""
WAIT = "endless-wait/job-queued"
"""Stagnant once its time budget is spent, which a wait on the session clock spends."""
CONTROL = "call-budget/twin-site-ends"
TRUTH = ("first_stagnant_step", "detection_lag", "lag_tokens", "lag_cost_usd", "evidence_step")
"""What a record says of the ground truth and the lag."""


def _records(tmp_path: Path, step: int, *args: str) -> dict[str, Any]:
    """The records and metrics ``unsolvable run`` writes with its agents ending at ``step``."""
    out = tmp_path / "records.json"
    env = {**os.environ, STEP: str(step)}
    command = [sys.executable, "-m", "unsolvable.cli", "run", *args, "--json", str(out)]
    cli = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
    try:
        assert cli.wait(timeout=120) == 1  # the lost runs fail their verdicts
    finally:
        cli.kill()
        cli.wait()
    return json.loads(out.read_text())  # type: ignore[no-any-return]


def _by_agent(data: dict[str, Any], scenario: str) -> dict[str, dict[str, Any]]:
    """Each agent's record of ``scenario``, by the name of the agent's function."""
    runs = [r for r in data["records"] if r["scenario"] == scenario]
    return {r["agent"].rpartition(":")[2]: r for r in runs}


def _truth(record: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(record["observed"][name] for name in TRUTH)


def _group(data: dict[str, Any], agent: str) -> dict[str, Any]:
    return next(g for g in data["metrics"]["agents"] if g["agent"] == f"{AGENTS}:{agent}")


@pytest.mark.parametrize(
    ("scenario", "step", "premature"),
    [(NOVELTY, 1, True), (NOVELTY, 5, False), (BUDGET, 3, True), (BUDGET, 8, False)],
)
def test_an_agent_that_exits_keeps_the_lag_of_a_stop_at_that_step(
    tmp_path: Path, scenario: str, step: int, premature: bool
) -> None:
    data = _records(
        tmp_path, step, "--agent", f"{AGENTS}:stops", "--agent", f"{AGENTS}:exits",
        "--scenario", scenario, "--scenario", CONTROL,
    )  # fmt: skip
    runs = _by_agent(data, scenario)
    stopped, lost = runs["stops"], runs["exits"]
    assert (lost["outcome"], lost["observed"]["steps"]) == ("crashed", step)
    assert (stopped["outcome"], stopped["observed"]["steps"]) == ("stopped", step)
    assert (lost["observed"]["first_stagnant_step"] > step) is premature
    assert _truth(lost) == _truth(stopped)
    exited, stops = _group(data, "exits"), _group(data, "stops")
    assert exited["premature_stops"] == stops["premature_stops"] == int(premature)
    for figure in ("lag_steps", "lag_tokens", "lag_cost_usd"):
        assert exited[figure] == stops[figure] and exited[figure]["count"] == 1
    control = _by_agent(data, CONTROL)["exits"]
    assert control["observed"]["first_stagnant_step"] is None
    assert (exited["false_stops"], exited["controls"]) == (1, 1)


@pytest.mark.parametrize(("scenario", "step"), [(NOVELTY, 1), (BUDGET, 3)])
def test_an_agent_that_exits_before_the_calls_it_asked_for_keeps_the_lag_of_a_stop_there(
    tmp_path: Path, scenario: str, step: int
) -> None:
    """A call asked for and never made counts as progress when the run ends (what it would have
    answered is not known): a run lost before making it counts it so too."""
    data = _records(
        tmp_path, step, "--agent", f"{AGENTS}:stops_asked", "--agent", f"{AGENTS}:exits_asked",
        "--scenario", scenario,
    )  # fmt: skip
    runs = _by_agent(data, scenario)
    stopped, lost = runs["stops_asked"], runs["exits_asked"]
    assert (lost["outcome"], lost["observed"]["steps"]) == ("crashed", step)
    assert _truth(lost) == _truth(stopped)


def test_an_agent_that_exits_after_a_wait_keeps_the_lag_of_a_stop_after_it(tmp_path: Path) -> None:
    """A wait moves the time budget's stagnant step: one lost after it counts it, as a stop."""
    data = _records(
        tmp_path, 3, "--agent", f"{AGENTS}:stops_after_a_wait",
        "--agent", f"{AGENTS}:exits_after_a_wait", "--scenario", WAIT,
    )  # fmt: skip
    runs = _by_agent(data, WAIT)
    stopped, lost = runs["stops_after_a_wait"], runs["exits_after_a_wait"]
    assert (lost["outcome"], lost["observed"]["steps"]) == ("crashed", 3)
    assert _truth(lost) == _truth(stopped)


@pytest.mark.parametrize("step", [3, 8])
def test_an_agent_killed_at_the_wall_ceiling_keeps_the_truth_of_a_stop_at_that_step(
    tmp_path: Path, step: int
) -> None:
    data = _records(
        tmp_path, step, "--agent", f"{AGENTS}:stops", "--agent", f"{AGENTS}:hangs",
        "--scenario", BUDGET, "--ceiling-seconds", "0.5",
    )  # fmt: skip
    runs = _by_agent(data, BUDGET)
    stopped, killed = runs["stops"], runs["hangs"]
    assert (killed["outcome"], killed["observed"]["steps"]) == ("did_not_stop", step)
    assert "its worker was killed" in killed["observed"]["error"]
    assert stopped["outcome"] == "stopped" and _truth(killed) == _truth(stopped)
    # a run that did not stop counts one step past its bound, wherever it was killed
    hung, stagnant = _group(data, "hangs"), stopped["observed"]["first_stagnant_step"]
    assert hung["lag_steps"]["max"] == stopped["step_bound"] + 1 - stagnant


def test_an_agent_killed_at_the_wall_ceiling_lags_from_the_news_it_saw(tmp_path: Path) -> None:
    """A run the wall ceiling ended made no stop: the steps it made offering no tool, which
    keep a stop after them from reading as a detection, kept its stagnant step at its last step
    and its lag at that of a stop one past the bound, wherever it stagnated."""
    data = _records(
        tmp_path, 5, "--agent", f"{AGENTS}:hangs", "--agent", f"{AGENTS}:hangs_offering_no_tools",
        "--scenario", NOVELTY, "--ceiling-seconds", "0.5",
    )  # fmt: skip
    runs = _by_agent(data, NOVELTY)
    assert {run["outcome"] for run in runs.values()} == {"did_not_stop"}
    assert {run["observed"]["first_stagnant_step"] for run in runs.values()} == {2}
    lags = {agent: _group(data, agent)["lag_steps"] for agent in runs}
    assert lags["hangs_offering_no_tools"] == lags["hangs"]


def test_a_run_finished_before_its_worker_died_in_the_next_keeps_its_record(
    tmp_path: Path,
) -> None:
    """Its worker sent its record and died in the next run while the harness handled another
    worker's record: the record is read, not replaced by a crash with none of its steps (an
    agent that exits at the start of a run would otherwise drop the run before from every lag
    figure)."""
    command = [sys.executable, "-m", "tests.cli.next_run_exits", str(tmp_path)]
    env = {**os.environ, next_run_exits.FOLDER: str(tmp_path)}
    harness = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    try:
        out, _ = harness.communicate(timeout=120)
    finally:
        harness.kill()
        harness.wait()
    assert harness.returncode == 0
    _, finished, lost = map(json.loads, out.splitlines())
    assert (finished["seed"], finished["outcome"], finished["steps"]) == (0, "stopped", 1)
    assert (lost["seed"], lost["outcome"]) == (1, "crashed")
