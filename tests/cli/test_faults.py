"""The fault corpus through the command line: agents that kill, hang or flood their process, and
sessions cut short. None of them may take the harness down or lose a finished record."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tests._gone import survivors
from tests._records_tap import REAP_SECONDS, RecordTap, session
from tests.cli.test_cli import ROOT, _unsolvable
from unsolvable._descendants import descendants
from unsolvable._unseen import WORKER_COUNTED

FAULTY = "tests.cli.faulty_agents"
REPEAT = "constant-return/repeat"
FORMS = {
    "--json": "records.json",
    "--markdown": "report.md",
    "--html": "report.html",
    "--otel": "spans.json",
    "--trace-dir": "traces",
}
"""Every form `unsolvable run` writes, and the name of each in a test's folder."""
ENDINGS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]
"""Ctrl-C, a CI job cancelled, a terminal closed: each ends a session the same way."""


def _records(path: Path) -> list[dict[str, object]]:
    return json.loads(path.read_text())["records"]  # type: ignore[no-any-return]


def test_an_agent_that_exits_is_recorded_crashed_and_the_others_finish(tmp_path: Path) -> None:
    out = tmp_path / "records.json"
    result = _unsolvable(
        "run", "--agent", f"{FAULTY}:exits", "--agent", "contract",
        "--scenario", "constant-return", "--json", str(out),
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    records = _records(out)
    crashed = [r for r in records if r["agent"] == f"{FAULTY}:exits"]
    contract = [r for r in records if r["agent"] == "contract"]
    assert {r["outcome"] for r in crashed} == {"crashed"} and len(crashed) == len(contract)
    assert all(r["verdict"]["passed"] for r in contract)  # type: ignore[index]
    assert "exited with status 3" in crashed[0]["observed"]["error"]  # type: ignore[index]
    # the harness saw a lost run's counts and its truth as it stood, not its answers: its one
    # model call, and the lag of a stop there
    assert {r["observed"]["steps"] for r in crashed} == {1}  # type: ignore[index]
    unsolvable = [r for r in crashed if not r["solvable"]]
    assert all(r["observed"]["detection_lag"] is not None for r in unsolvable)  # type: ignore[index]
    groups = json.loads(out.read_text())["metrics"]["agents"]
    lost = next(g for g in groups if g["agent"] == f"{FAULTY}:exits")
    assert lost["lag_steps"]["count"] == len(unsolvable)


def test_a_segfault_is_named_by_its_signal() -> None:
    result = _unsolvable("run", "--agent", f"{FAULTY}:segfaults", "--scenario", REPEAT)
    assert result.returncode == 1
    assert "crashed: the worker process was killed by SIGSEGV" in result.stdout


@pytest.mark.skipif(not hasattr(signal, "SIGRTMIN"), reason="needs real-time signals (Linux)")
def test_an_exec_agent_that_ends_its_worker_by_a_real_time_signal_is_recorded_crashed(
    tmp_path: Path,
) -> None:
    """The agent's process is the worker's child, and may signal it: a real-time signal, which
    Python's `signal.Signals` does not name, raised ``ValueError`` in the harness, which ended
    with no record written."""
    out = tmp_path / "records.json"
    code = f"import os; os.kill(os.getppid(), {signal.SIGRTMIN + 6})"
    agent = f"exec:{shlex.quote(sys.executable)} -c {shlex.quote(code)}"
    result = _unsolvable("run", "--agent", agent, "--scenario", REPEAT, "--json", str(out))
    assert result.returncode == 1, result.stderr
    (record,) = _records(out)
    assert record["outcome"] == "crashed"
    error = record["observed"]["error"]
    assert error == "the worker process was killed by SIGRTMIN+6 during the run", error


def test_a_killed_worker_says_memory_may_have_run_out(tmp_path: Path) -> None:
    """A worker killed with no word is what an agent that ate the machine's memory leaves: the
    record says so, as the likeliest cause in a CI job."""
    out = tmp_path / "records.json"
    _unsolvable("run", "--agent", f"{FAULTY}:is_killed", "--scenario", REPEAT, "--json", str(out))
    (record,) = _records(out)
    assert record["outcome"] == "crashed"
    error = record["observed"]["error"]
    assert error.startswith("the worker process was killed by SIGKILL during the run"), error
    assert "memory" in error


def test_an_agent_holding_the_interpreter_is_killed_at_its_ceiling(tmp_path: Path) -> None:
    out = tmp_path / "records.json"
    result = _unsolvable(
        "run", "--agent", f"{FAULTY}:holds_the_interpreter", "--scenario", REPEAT,
        "--ceiling-seconds", "0.5", "--json", str(out),
    )  # fmt: skip
    assert result.returncode == 1
    assert "did not stop: harness ceiling wall_seconds" in result.stdout
    (record,) = _records(out)
    # nothing in its process could report the run: the counts are those the harness admitted
    observed: dict[str, Any] = record["observed"]  # type: ignore[assignment]
    assert observed["steps"] == 1 and observed["input_tokens"] > 0 and observed["cost_usd"] > 0


def test_an_agent_that_never_unwinds_is_abandoned_with_its_trajectory(tmp_path: Path) -> None:
    out = tmp_path / "records.json"
    _unsolvable(  # the ceiling leaves its one model call room on a loaded machine
        "run", "--agent", f"{FAULTY}:never_unwinds", "--scenario", REPEAT,
        "--ceiling-seconds", "5", "--json", str(out),
    )  # fmt: skip
    (record,) = _records(out)
    observed: dict[str, Any] = record["observed"]  # type: ignore[assignment]
    assert (record["outcome"], observed["ceiling"], observed["steps"]) == (
        "did_not_stop",
        "wall_seconds",
        1,
    )
    # the record the worker sent as it gave up, not the one the harness makes up for a worker
    # it killed, which has the same outcome and counts but no error-free trajectory
    assert observed["error"] is None, observed["error"]
    assert [step["step"] for step in observed["trajectory"]] == [1]


def test_an_agent_abandoned_at_its_ceiling_leaves_no_process_behind(tmp_path: Path) -> None:
    """The worker sends the record so far and exits; what the run started goes with it, as at
    the end of any job."""
    pid_file = tmp_path / "pid"
    command = [
        sys.executable, "-m", "unsolvable.cli", "run", "--agent",
        f"{FAULTY}:never_unwinds_leaving_a_process", "--scenario", REPEAT,
        "--ceiling-seconds", "5",
    ]  # fmt: skip
    environ = {**os.environ, "FAULTY_PID_FILE": str(pid_file)}
    result = subprocess.run(
        command, cwd=ROOT, env=environ, capture_output=True, timeout=120, check=False
    )
    started = [int(pid_file.read_text())] if pid_file.exists() else []
    left = survivors(started)  # before any assert: a process left is killed however it fails
    assert b"did not stop" in result.stdout, result.stderr
    assert started and left == [], f"the agent's process {started} outlived the run"


def test_an_agent_that_leaves_no_free_descriptor_keeps_its_stop_and_spoils_no_other_run(
    tmp_path: Path,
) -> None:
    """The worker needs no new descriptor to send a finished record, and one that the run left
    none to open is replaced: the next run, of the same agent, starts with none of them."""
    out = tmp_path / "records.json"
    result = _unsolvable(
        "run", "--agent", f"{FAULTY}:leaks_every_descriptor", "--scenario", REPEAT,
        "--seed", "0", "--seed", "1", "--json", str(out),
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    records = _records(out)
    assert [r["seed"] for r in records] == [0, 1]
    for record in records:
        observed: dict[str, Any] = record["observed"]  # type: ignore[assignment]
        reported: dict[str, Any] = record["reported"]  # type: ignore[assignment]
        assert (record["outcome"], reported["code"], reported["reason"], observed["error"]) == (
            "stopped",
            "NO_PROGRESS",
            "nothing new",
            None,
        )


def test_the_agents_own_output_stays_out_of_the_table_and_in_the_record(tmp_path: Path) -> None:
    out = tmp_path / "records.json"
    result = _unsolvable(
        "run", "--agent", f"{FAULTY}:chatty", "--scenario", REPEAT, "--json", str(out)
    )
    assert "thinking about" not in result.stdout
    (record,) = _records(out)
    assert record["output"] == "thinking about the invoices...\n"


def _interrupted(out: Path, how: signal.Signals) -> tuple[int | Any, bytes, bytes, list[int]]:
    """A session of the slow agent, sent ``how`` once two of its records are written; its exit
    status, its output, and the processes below it as the signal was sent (its spans are
    written beside its records)."""
    command = [
        sys.executable, "-m", "unsolvable.cli", "run", "--agent", f"{FAULTY}:slow",
        "--all-seeds", "--json", str(out), "--otel", str(out.with_name("spans.json")),
        "--no-progress", "-n", "2",
    ]  # fmt: skip
    tap = RecordTap(out)
    try:
        with session(command, cwd=ROOT) as child:
            tap.wait_for(2, child)
            below = descendants(child.pid)
            child.send_signal(how)
            stdout, stderr = child.communicate(timeout=REAP_SECONDS)
            return child.returncode, stdout, stderr, below
    finally:
        tap.close()


@pytest.mark.parametrize("how", ENDINGS, ids=lambda how: how.name)
def test_an_interrupt_keeps_every_finished_record_and_says_so(
    tmp_path: Path, how: signal.Signals
) -> None:
    """Ctrl-C, a CI job cancelled (SIGTERM) and a closed terminal (SIGHUP) alike."""
    out = tmp_path / "records.json"
    status, stdout, stderr, workers = _interrupted(out, how)
    assert survivors(workers) == [], "a worker outlived the session"
    assert status == 130, stderr
    assert b"Traceback" not in stderr and b"Interrupted" in stdout
    data = json.loads(out.read_text())
    assert data["interrupted"] is True and len(data["records"]) >= 2
    assert not Path(str(out) + ".jsonl").exists()
    spans = json.loads((tmp_path / "spans.json").read_text())
    (resource,) = [spans["resource"] for spans in spans["resourceSpans"]]
    assert {"key": "unsolvable.interrupted", "value": {"boolValue": True}} in resource["attributes"]


def test_an_interrupted_session_never_replaces_a_larger_file(tmp_path: Path) -> None:
    out = tmp_path / "records.json"
    out.write_text(" " * 10_000_000)
    status, *_ = _interrupted(out, signal.SIGTERM)
    assert status == 130
    assert out.stat().st_size == 10_000_000
    assert json.loads((tmp_path / "records.partial.json").read_text())["interrupted"] is True


TAKE_TERMINAL = (
    "import fcntl, os, sys, termios; fcntl.ioctl(0, termios.TIOCSCTTY, 0); "
    "os.execv(sys.argv[1], sys.argv[1:])"
)
"""Makes the terminal on stdin the controlling terminal of the session it starts (the child of
``start_new_session``), then runs the command given: as a shell in a terminal window does."""


def test_a_terminal_closed_mid_run_still_gets_every_finished_record_written(
    tmp_path: Path,
) -> None:
    """The terminal itself hangs up: SIGHUP, then every write to it fails (EIO), which must cost
    no report and leave no process."""
    out = tmp_path / "records.json"
    terminal, its_end = os.openpty()
    command = [
        sys.executable, "-c", TAKE_TERMINAL, sys.executable, "-m", "unsolvable.cli", "run",
        "--agent", f"{FAULTY}:slow", "--all-seeds", "--json", str(out), "--no-progress",
        "-n", "2",
    ]  # fmt: skip
    tap = RecordTap(out)
    try:
        child = subprocess.Popen(
            command, cwd=ROOT, stdin=its_end, stdout=its_end, stderr=its_end, start_new_session=True
        )
        os.close(its_end)
        try:
            tap.wait_for(2, child)  # type: ignore[arg-type]
            workers = descendants(child.pid)
            os.close(terminal)  # the window closed
            child.wait(timeout=REAP_SECONDS)
        finally:
            if child.poll() is None:
                os.killpg(child.pid, signal.SIGKILL)
                child.wait()
    finally:
        tap.close()
    assert survivors(workers) == [], "a worker outlived the session"
    data = json.loads(out.read_text())
    assert data["interrupted"] is True and len(data["records"]) >= 2


def test_a_report_on_a_terminal_that_hung_up_writes_every_file_and_ends_quietly(
    tmp_path: Path,
) -> None:
    """``unsolvable report`` writes its files before its first print, as ``unsolvable run``
    does: on a terminal that is gone every print fails (EIO), which must cost no file, and
    ends it as a closed pipe does (status 1, nothing said)."""
    records, forms = tmp_path / "records.json", ("--markdown", "--html", "--otel")
    _unsolvable("run", "--agent", "contract", "--scenario", REPEAT, "--json", str(records))
    shown = _unsolvable("report", str(records), *_written(tmp_path / "shown", forms))
    assert shown.returncode == 0, shown.stderr
    terminal, its_end = os.openpty()
    os.close(terminal)  # the window closed: every write to its end fails with EIO
    try:
        gone = subprocess.run(
            [sys.executable, "-m", "unsolvable.cli", "report", str(records),
             *_written(tmp_path / "gone", forms)],
            cwd=ROOT, stdin=subprocess.DEVNULL, stdout=its_end, stderr=subprocess.PIPE,
            timeout=120, check=False,
        )  # fmt: skip
    finally:
        os.close(its_end)
    assert (gone.returncode, gone.stderr) == (1, b"")
    for form in forms:
        name = FORMS[form]
        assert (tmp_path / "gone" / name).read_bytes() == (tmp_path / "shown" / name).read_bytes()


def _written(folder: Path, forms: Sequence[str]) -> list[str]:
    """The flags that write each of ``forms`` into ``folder``, under `FORMS`' names."""
    folder.mkdir()
    return [word for form in forms for word in (form, str(folder / FORMS[form]))]


@pytest.mark.parametrize("how", ENDINGS, ids=lambda how: how.name)
def test_an_interrupt_while_the_reports_are_written_keeps_the_old_file_and_the_records(
    tmp_path: Path, how: signal.Signals
) -> None:
    """Every run is over, and the signal comes as the first report's temporary file is made:
    no such file is left, the file there stays as it was, and the streamed records are kept,
    as the message says."""
    out = tmp_path / "records.json"
    out.write_text("old")
    environ = {**os.environ, "SIGNALLING_AT_WRITE": how.name}
    command = [
        sys.executable, "-m", "unsolvable.cli", "run", "--agent",
        "tests.cli.signalling_agents:stops", "--scenario", REPEAT, "--json", str(out),
    ]  # fmt: skip
    with session(command, cwd=ROOT, env=environ) as child:
        _, stderr = child.communicate(timeout=REAP_SECONDS)
    assert child.returncode == 130, stderr
    stream = tmp_path / "records.json.jsonl"
    assert stderr.decode().splitlines() == [
        f"unsolvable: interrupted ({how.name}) while writing the reports; the 1 record "
        f"streamed to {stream} is kept (unsolvable report reads that file)"
    ]
    assert sorted(path.name for path in tmp_path.iterdir()) == [out.name, stream.name]
    assert out.read_text() == "old" and len(stream.read_text().splitlines()) == 1


def test_a_lost_run_reads_unknown_in_every_form_written(tmp_path: Path) -> None:
    """A worker that exits takes what it counted with it: the JSON says null for each of those
    figures, and every other form is written from that record without a made-up figure."""
    forms = {flag: tmp_path / name for flag, name in FORMS.items()}
    result = _unsolvable(
        "run", "--agent", f"{FAULTY}:exits", "--scenario", "per-role-budgets/role-cap-spent",
        "--explain", *(arg for flag, path in forms.items() for arg in (flag, str(path))),
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    (record,) = _records(forms["--json"])
    observed: dict[str, Any] = record["observed"]  # type: ignore[assignment]
    assert {name: observed[name] for name in WORKER_COUNTED} == dict.fromkeys(WORKER_COUNTED)
    assert "crashed: the worker process exited with status 3" in result.stdout
    assert all(path.exists() for path in forms.values())


def test_a_lost_runs_explanation_says_its_steps_went_unseen_not_that_there_were_none() -> None:
    """The harness admitted the lost run's model call and saw none of its answer: the tail is
    empty, and "(no steps)" beside "step 1" would say the agent made no call at all."""
    result = _unsolvable("run", "--agent", f"{FAULTY}:exits", "--scenario", REPEAT, "--explain")
    assert result.returncode == 1, result.stderr
    assert "  stopped:  step 1 (bound N=12)" in result.stdout
    assert "(no steps)" not in result.stdout
    assert "    (none of its 1 step(s) recorded: the harness counted them, not what they said)" in (
        result.stdout
    )
