"""The plugin beside the pytest plugins users already run: pytest-timeout ending a test,
pytest-rerunfailures running one again, pytest-repeat repeating it. Each run is a real pytest
with the real plugin."""

from __future__ import annotations

import json

import pytest

from tests.plugin._helpers import Run, cases, outcomes, snapshot_files
from unsolvable.plugin._options import (
    AGENT_OPTION,
    CEILING_SECONDS_OPTION,
    JSON_OPTION,
    NO_SNAPSHOT_OPTION,
    SCENARIO_OPTION,
)

HANGS_ON_SEED_1 = """
import os
import pathlib
import threading

from unsolvable import agents

HUNG = pathlib.Path("hung.pid")


def agent(session):
    if session.seed == 1:
        HUNG.write_text(str(os.getpid()))
        threading.Event().wait()  # never set: an agent that never stops, and never calls
    if session.seed == 2:
        try:
            os.kill(int(HUNG.read_text()), 0)
        except (FileNotFoundError, ProcessLookupError):
            pass  # ended, or ended before its agent began on a slow machine
        else:
            raise RuntimeError("the hung run's worker process is still there")
    return agents.contract(session)
"""
"""Seed 1 never ends; seed 2, run after it, fails if the process seed 1 hung in is left."""

TIMES_OUT_SEED_1 = """
import pytest


def pytest_collection_modifyitems(items):
    for item in items:
        if "seed1" in item.name:
            item.add_marker(pytest.mark.timeout(1, method="signal"))
"""
"""pytest-timeout on the hanging case alone, so that no other case depends on the machine's
speed; the harness's wall ceiling (`CEILING_SECONDS`) is far above it."""

CEILING_SECONDS = "20"


def test_a_case_pytest_timeout_ends_leaves_the_next_its_own_worker_and_record(
    run: Run, pytester: pytest.Pytester
) -> None:
    """Its alarm raises in the main thread as the plugin waits for the worker: a worker left on
    the hanging job would take the next case's job and answer it with the hanging run's record."""
    pytester.makepyfile(hangs=HANGS_ON_SEED_1)
    pytester.makeconftest(TIMES_OUT_SEED_1)
    out = pytester.path / "records.json"
    result = run(
        f"{AGENT_OPTION}=hangs:agent", f"{SCENARIO_OPTION}=constant-return/repeat",
        NO_SNAPSHOT_OPTION, f"{CEILING_SECONDS_OPTION}={CEILING_SECONDS}",
        f"{JSON_OPTION}={out}", "-p", "timeout", "-rA",
    )  # fmt: skip
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*Timeout (>1.0s) from pytest-timeout*", "FAILED *repeat-seed1*"])
    records = json.loads(out.read_text())["records"]
    assert [(r["seed"], r["outcome"]) for r in records] == [(0, "stopped"), (2, "stopped")]


FLAKY = """
import pathlib


def test_flaky(unsolvable):
    unsolvable.run("constant-return/repeat", agent="pkg:contract")
    tried = pathlib.Path("tried")
    if not tried.exists():
        tried.touch()
        raise AssertionError("the first attempt fails")
"""


def test_a_test_pytest_rerunfailures_runs_again_counts_once(
    run: Run, pytester: pytest.Pytester, xdist_args: tuple[str, ...]
) -> None:
    """The runs and snapshot failures of an attempt that is run again are the next attempt's
    to count: the summary and the reports agree with pytest's outcomes, not twice them."""
    pytester.makepyfile(test_flaky=FLAKY)
    out = pytester.path / "records.json"
    result = run(
        f"{AGENT_OPTION}=pkg:contract", f"{SCENARIO_OPTION}=constant-return/repeat",
        f"{JSON_OPTION}={out}", "-p", "rerunfailures", "--reruns", "1", *xdist_args,
    )  # fmt: skip
    repeat = cases("constant-return/repeat")
    assert outcomes(result) == {"passed": 1, "failed": repeat, "rerun": repeat + 1}
    assert len(json.loads(out.read_text())["records"]) == 1 + repeat
    result.stdout.fnmatch_lines(
        [f"unsolvable: {repeat} verdict(s) passed but their snapshots are not recorded yet; *"]
    )


def test_a_session_pytest_repeat_repeats_meets_the_suites_snapshots(
    run: Run, pytester: pytest.Pytester
) -> None:
    """``--count 2`` gives every test id a suffix (``…-seed0-1-2``): the suite's snapshots are
    named by the case, so both repetitions meet the one blessed snapshot, and none is added."""
    args = (f"{AGENT_OPTION}=pkg:contract", f"{SCENARIO_OPTION}=constant-return/repeat")
    run(*args, "--snapshot-update").assert_outcomes(passed=cases("constant-return/repeat"))
    blessed = snapshot_files(pytester.path)
    repeated = run(*args, "-p", "repeat", "--count", "2")
    repeated.assert_outcomes(passed=2 * cases("constant-return/repeat"))
    assert snapshot_files(pytester.path) == blessed


OWN_TEST_TIMES_OUT = """
import threading

import pytest

import unsolvable
from unsolvable import scenarios


def hangs(session):
    threading.Event().wait()  # never set: an agent that never stops, and never calls


@pytest.mark.timeout(1, method="signal")
def test_hangs():
    unsolvable.run(hangs, scenarios.get("constant-return/repeat"))


def test_next():
    assert unsolvable.run("contract", scenarios.get("constant-return/repeat")).verdict.passed
"""
"""pytest-timeout's alarm in a user's own test: it lands in the agent, on the test's thread."""


def test_pytest_timeout_ends_a_users_own_test_whose_agent_hangs(
    run: Run, pytester: pytest.Pytester
) -> None:
    """The alarm's failure is the test's, not the agent's crash that the test would go on past:
    the test fails with pytest-timeout's message, and the next runs."""
    pytester.makepyfile(test_own=OWN_TEST_TIMES_OUT)
    result = run("-p", "timeout", NO_SNAPSHOT_OPTION, "-rA")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*Timeout (>1.0s) from pytest-timeout*", "FAILED *test_hangs*"])
