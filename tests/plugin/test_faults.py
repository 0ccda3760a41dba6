"""The fault corpus through pytest: an agent that kills its process, and a session interrupted
half-way, serially and under xdist. No finished record may be lost or overwritten."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.plugin._helpers import QUIET, XDIST_ENVIRONMENT, Run, cases, outcomes
from unsolvable.plugin._options import AGENT_OPTION, FAMILY_OPTION, JSON_OPTION

FAULTS = """
import os, time
from unsolvable import Code, Stop

def exits(session):
    session.call_model([], session.tools)
    os._exit(3)

def slow(session):
    session.call_model([], session.tools)
    time.sleep(0.3)
    return Stop(code=Code.NO_PROGRESS, reason="nothing new")
"""


def test_an_agent_that_exits_fails_its_tests_and_the_session_goes_on(
    run: Run, pytester: pytest.Pytester, xdist_args: tuple[str, ...]
) -> None:
    pytester.makepyfile(faults=FAULTS)
    out = pytester.path / "records.json"
    result = run(
        f"{AGENT_OPTION}=faults:exits", f"{FAMILY_OPTION}=constant-return",
        f"{JSON_OPTION}={out}", "--unsolvable-no-snapshot", *xdist_args,
    )  # fmt: skip
    records = json.loads(out.read_text())["records"]
    assert outcomes(result) == {"failed": len(records)} and len(records) == cases("constant-return")
    assert {r["outcome"] for r in records} == {"crashed"}
    assert "exited with status 3" in records[0]["observed"]["error"]


def _interrupted(pytester: pytest.Pytester, out: Path, *args: str) -> subprocess.Popen[bytes]:
    """A zero-code session of the slow agent, sent SIGINT once two records are on disk."""
    pytester.makepyfile(faults=FAULTS)
    env = {k: v for k, v in os.environ.items() if k not in XDIST_ENVIRONMENT}
    command = [
        sys.executable, "-m", "pytest", *QUIET[2:], "-p", "no:cacheprovider",
        f"{AGENT_OPTION}=faults:slow", f"{JSON_OPTION}={out}", "--unsolvable-no-snapshot", *args,
    ]  # fmt: skip
    child = subprocess.Popen(command, cwd=pytester.path, env=env, stdout=subprocess.PIPE)
    stream = Path(str(out) + ".jsonl")
    while not (stream.exists() and stream.read_text().count("\n") >= 2):
        assert child.poll() is None, child.communicate()
        time.sleep(0.05)
    child.send_signal(signal.SIGINT)
    child.communicate(timeout=60)
    return child


@pytest.mark.parametrize("args", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_an_interrupted_session_keeps_its_records_and_says_so(
    pytester: pytest.Pytester, args: tuple[str, ...]
) -> None:
    out = pytester.path / "records.json"
    child = _interrupted(pytester, out, *args)
    assert child.returncode == pytest.ExitCode.INTERRUPTED
    data = json.loads(out.read_text())
    assert data["interrupted"] is True and len(data["records"]) >= 2


def test_an_interrupted_session_never_replaces_a_larger_file(pytester: pytest.Pytester) -> None:
    out = pytester.path / "records.json"
    out.write_text(" " * 10_000_000)
    _interrupted(pytester, out, "-n", "2")
    assert out.stat().st_size == 10_000_000
    assert json.loads((pytester.path / "records.partial.json").read_text())["interrupted"]


KILLS_ITS_WORKER = """
import os, signal
from unsolvable._batch import Job

def test_dies_after_a_run_in_a_worker_process(unsolvable):
    unsolvable.pool().run([Job(agent="contract", scenario="constant-return/repeat", seed=0)])
    os.kill(os.getpid(), signal.SIGKILL)  # what the OOM killer or a CI limit does
"""


def test_a_killed_xdist_worker_is_that_workers_crash_and_the_session_ends(
    pytester: pytest.Pytester,
) -> None:
    """The worker process it forked holds none of its pipes, so the controller sees it go."""
    pytester.makepyfile(test_kills=KILLS_ITS_WORKER)
    result = pytester.runpytest_subprocess(*QUIET, "-n", "1", timeout=120)
    assert outcomes(result) == {"failed": 1}
    result.stdout.fnmatch_lines(["*worker 'gw0' crashed while running*"])
