"""The fault corpus through pytest: an agent that kills its process, and a session interrupted
half-way, serially and under xdist. No finished record may be lost or overwritten."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

from tests._records_tap import REAP_SECONDS, RecordTap, session
from tests.cli.test_cli import ROOT
from tests.plugin._helpers import QUIET, XDIST_ENVIRONMENT, Run, cases, outcomes
from unsolvable.plugin._options import (
    AGENT_OPTION,
    FAMILY_OPTION,
    HTML_OPTION,
    JSON_OPTION,
    MARKDOWN_OPTION,
)

FAULTS = """
import os, time
from unsolvable import Code, Stop

def exits(session):
    session.call_model([], session.tools)
    os._exit(3)

def exits_at_once(session):
    os._exit(3)

def slow(session):
    session.call_model([], session.tools)
    time.sleep(0.3)
    return Stop(code=Code.NO_PROGRESS, reason="nothing new")
"""

ENDINGS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]
"""Ctrl-C, a CI job cancelled, a terminal closed: each ends a session the same way."""


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


def test_a_lost_runs_failure_points_at_its_error_not_at_a_traceback_it_lacks(
    run: Run, pytester: pytest.Pytester
) -> None:
    """A worker that exits leaves no traceback: the advice must not send the reader to one."""
    pytester.makepyfile(faults=FAULTS)
    result = run(f"{AGENT_OPTION}=faults:exits", "-k", "constant-return/repeat-seed0",
                 "--unsolvable-no-snapshot")  # fmt: skip
    assert outcomes(result) == {"failed": 1}
    result.stdout.fnmatch_lines(
        [
            "E   AssertionError: constant-return/repeat (seed 0) × faults:exits: FAIL: crashed: "
            "the worker process exited with status 3 during the run",
            "      ended:    crashed",
            "      stopped:  step 1 (bound N=12); first stagnant step 2; lag -1 steps, 0 tokens, "
            "$0",
            "      trajectory tail:",
            "        (none of its 1 step(s) recorded: the harness counted them, not what they *",
            "      the run crashed and left no traceback (its error is on the first line): not a "
            "verdict on its stop logic; fix what ended it and run again; see *",
        ],
        consecutive=True,
    )
    result.stdout.no_fnmatch_line("*its traceback is above*")


def _interrupted(
    pytester: pytest.Pytester, out: Path, *args: str, how: signal.Signals = signal.SIGINT
) -> tuple[int | Any, bytes]:
    """A zero-code session of the slow agent, sent ``how`` once two records are written; its
    exit status and output."""
    pytester.makepyfile(faults=FAULTS)
    env = {k: v for k, v in os.environ.items() if k not in XDIST_ENVIRONMENT}
    command = [
        sys.executable, "-m", "pytest", *QUIET[2:], "-p", "no:cacheprovider",
        f"{AGENT_OPTION}=faults:slow", f"{JSON_OPTION}={out}", "--unsolvable-no-snapshot", *args,
    ]  # fmt: skip
    tap = RecordTap(out)
    try:
        with session(command, cwd=pytester.path, env=env) as child:
            tap.wait_for(2, child)
            child.send_signal(how)
            stdout, _ = child.communicate(timeout=REAP_SECONDS)
            return child.returncode, stdout
    finally:
        tap.close()


@pytest.mark.parametrize("how", ENDINGS, ids=lambda how: how.name)
@pytest.mark.parametrize("args", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_an_interrupted_session_keeps_its_records_and_says_so(
    pytester: pytest.Pytester, args: tuple[str, ...], how: signal.Signals
) -> None:
    """Ctrl-C, a CI job cancelled (SIGTERM) and a terminal closed (SIGHUP) alike."""
    out = pytester.path / "records.json"
    status, stdout = _interrupted(pytester, out, *args, how=how)
    assert status == pytest.ExitCode.INTERRUPTED, stdout.decode()[-3000:]
    data = json.loads(out.read_text())
    assert data["interrupted"] is True and len(data["records"]) >= 2


def test_an_interrupted_session_never_replaces_a_larger_file(pytester: pytest.Pytester) -> None:
    out = pytester.path / "records.json"
    out.write_text(" " * 10_000_000)
    _interrupted(pytester, out, "-n", "2")
    assert out.stat().st_size == 10_000_000
    assert json.loads((pytester.path / "records.partial.json").read_text())["interrupted"]


def test_a_session_stopped_early_never_replaces_a_larger_file(
    run: Run, pytester: pytest.Pytester, xdist_args: tuple[str, ...]
) -> None:
    """``-x`` ends the session at its first failure, with one record of many: the reports of a
    whole session stay, and this one's are written beside them, as an interrupted one's are."""
    pytester.makepyfile(faults=FAULTS)
    whole = {name: pytester.path / name for name in ("s.json", "s.md", "s.html")}
    for path in whole.values():
        path.write_text(" " * 1_000_000)
    result = run(
        f"{AGENT_OPTION}=faults:exits", f"{FAMILY_OPTION}=constant-return", "-x",
        f"{JSON_OPTION}={whole['s.json']}", f"{MARKDOWN_OPTION}={whole['s.md']}",
        f"{HTML_OPTION}={whole['s.html']}", "--unsolvable-no-snapshot", *xdist_args,
    )  # fmt: skip
    assert outcomes(result)["failed"] >= 1
    assert {path.name: path.stat().st_size for path in whole.values()} == dict.fromkeys(
        whole, 1_000_000
    )
    records = json.loads((pytester.path / "s.partial.json").read_text())["records"]
    assert 1 <= len(records) < cases("constant-return")
    assert (pytester.path / "s.partial.md").is_file() and (
        pytester.path / "s.partial.html"
    ).is_file()


CRASHER = """
def _lookup(fields):
    return fields["nme"]


def agent(session):
    session.call_model([], session.tools)
    return _lookup({"name": "invoice"})
"""


def test_a_crash_shows_the_agents_traceback_in_the_failure_and_the_html_report(
    run: Run, pytester: pytest.Pytester
) -> None:
    pytester.makepyfile(crasher=CRASHER)
    result = run(f"{AGENT_OPTION}=crasher:agent", "-k", "constant-return/repeat-seed0",
                 "--unsolvable-no-snapshot", "--unsolvable-html=report.html")  # fmt: skip
    assert outcomes(result) == {"failed": 1}
    result.stdout.fnmatch_lines(
        [
            "      the agent raised (its own frames; the harness's are left out):",
            "        Traceback (most recent call last):",
            '          File "crasher.py", line 7, in agent',
            '            return _lookup({"name": "invoice"})',
            '          File "crasher.py", line 2, in _lookup',
            '            return fields["nme"]',
            "        KeyError: 'nme'",
            "      the agent raised an exception (its traceback is above): a bug in the agent, "
            "not a verdict on its stop logic*",
        ],
        consecutive=True,
    )
    html = (pytester.path / "report.html").read_text()
    assert "File &quot;crasher.py&quot;, line 2, in _lookup" in html


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


INTERRUPTS_ITS_WORKER = """
import pytest

pytestmark = pytest.mark.unsolvable(agent="contract")


def test_runs(unsolvable):
    unsolvable.run("constant-return/repeat")


def test_runs_then_is_interrupted(unsolvable):
    unsolvable.run("constant-return/repeat", seed=1)
    raise KeyboardInterrupt  # Ctrl-C, as the test an xdist worker runs sees it
"""


def test_a_worker_interrupted_after_its_runs_sends_each_record_once(
    run: Run, pytester: pytest.Pytester
) -> None:
    """xdist reports such a worker down twice, finished and then interrupted, with one output."""
    pytester.makepyfile(test_interrupts=INTERRUPTS_ITS_WORKER)
    out = pytester.path / "records.json"
    result = run("-n", "1", f"{JSON_OPTION}={out}")
    records = json.loads(out.read_text())["records"]
    assert [(r["scenario"], r["seed"]) for r in records] == [
        ("constant-return/repeat", 0),
        ("constant-return/repeat", 1),
    ]
    assert "went down" not in result.stdout.str()


@pytest.mark.parametrize("how", ENDINGS, ids=lambda how: how.name)
def test_an_interrupt_while_the_reports_are_written_keeps_the_old_file_and_the_records(
    pytester: pytest.Pytester, how: signal.Signals
) -> None:
    """Every test is over, and the signal comes as the first report's temporary file is made
    (the agent's module, which the session imports, sends it then): the session ends as
    ``unsolvable run`` does, its status pytest's interrupted one, no temporary file left, the
    file there as it was, and a line saying which records the stream keeps."""
    out = pytester.path / "records.json"
    out.write_text("old")
    env = {k: v for k, v in os.environ.items() if k not in XDIST_ENVIRONMENT}
    env |= {"SIGNALLING_AT_WRITE": how.name, "PYTHONPATH": str(ROOT)}
    command = [
        sys.executable, "-m", "pytest", *QUIET[2:], "-p", "no:cacheprovider",
        f"{AGENT_OPTION}=tests.cli.signalling_agents:stops", "-k", "constant-return/repeat-seed0",
        f"{JSON_OPTION}={out}", "--unsolvable-no-snapshot",
    ]  # fmt: skip
    with session(command, cwd=pytester.path, env=env) as child:
        stdout, stderr = child.communicate(timeout=REAP_SECONDS)
    said = (stdout + stderr).decode()
    assert child.returncode == pytest.ExitCode.INTERRUPTED, said[-3000:]
    stream = pytester.path / "records.json.jsonl"
    assert "Traceback" not in said and "KeyboardInterrupt" not in said, said[-3000:]
    assert (
        f"unsolvable: interrupted ({how.name}) while writing the reports; the 1 record streamed "
        f"to {stream} is kept (unsolvable report reads that file)"
    ) in said.splitlines()
    assert not list(pytester.path.glob(".*.tmp")), "a temporary file was left"
    assert out.read_text() == "old" and len(stream.read_text().splitlines()) == 1
