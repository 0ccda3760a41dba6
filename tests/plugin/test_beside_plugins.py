"""The plugin beside the pytest plugins users already run: pytest-timeout ending a test. Each run
is a real pytest with the real plugin."""

from __future__ import annotations

import json

import pytest

from tests.plugin._helpers import Run
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
        except ProcessLookupError:
            pass
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
