"""The worker processes against agents that turn on them, through the command line: no agent can
change another run's record, pass a run it failed, or leave a process or a descriptor behind."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests._gone import survivors
from tests.cli.hostile_agents import FLOOD_MIB, KEPT_MIB
from tests.cli.test_cli import ROOT, _unsolvable
from unsolvable._text import REASON_CUT
from unsolvable.adapters.process import OUTPUT_KEPT

HOSTILE = "tests.cli.hostile_agents"
LINES = f"exec:{sys.executable} tests/cli/stop_lines.py"
FAMILY = "constant-return"
RUN_SECONDS = 300.0
"""A guard against a run that hangs before its agent starts, far above what it takes loaded."""


def _run(tmp_path: Path, *agents: str, scenario: str = FAMILY) -> tuple[int, list[Any]]:
    out = tmp_path / "records.json"
    args = [arg for agent in agents for arg in ("--agent", agent)]
    result = _unsolvable("run", *args, "--scenario", scenario, "--json", str(out))
    assert "Traceback" not in result.stdout + result.stderr, result.stderr
    return result.returncode, json.loads(out.read_text())["records"]


def _mine(records: list[Any], agent: str) -> list[Any]:
    return [record for record in records if record["agent"] == agent]


def test_a_forking_agent_changes_no_other_runs_record(tmp_path: Path) -> None:
    _, alone = _run(tmp_path, "contract")
    _, records = _run(tmp_path, f"{HOSTILE}:forks", "contract")
    assert _mine(records, "contract") == alone
    forked = _mine(records, f"{HOSTILE}:forks")
    assert len(forked) == len(alone) and {r["outcome"] for r in forked} == {"stopped"}


def test_a_message_written_into_the_channel_is_that_runs_crash_only(tmp_path: Path) -> None:
    _, alone = _run(tmp_path, "contract")
    status, records = _run(tmp_path, f"{HOSTILE}:writes_the_channel", "contract")
    assert status == 1 and _mine(records, "contract") == alone
    (written, *_) = _mine(records, f"{HOSTILE}:writes_the_channel")
    assert written["outcome"] == "crashed"
    assert "the worker's message about this run could not be read" in written["observed"]["error"]


def test_an_agent_cannot_put_off_its_runs_deadline_by_saying_it_is_loaded_again(
    tmp_path: Path,
) -> None:
    """The message that says a run's agent is loaded starts the run's deadline, past which the
    harness kills the worker; an agent that wrote it again and again, its run's watchdog
    silenced, held its worker for as long as it liked. Said twice, it is the run's crash."""
    status, (record,) = _run(
        tmp_path, f"{HOSTILE}:renews_its_deadline", scenario="constant-return/repeat"
    )
    assert status == 1 and record["outcome"] == "crashed", record["outcome"]
    assert "said again that its agent is loaded" in record["observed"]["error"]


def test_an_agent_cannot_put_off_its_records_deadline_by_saying_its_run_is_over(
    tmp_path: Path,
) -> None:
    """The message that says a run is over gives its record a deadline longer than the run's;
    said by the agent and then by its worker, it is said twice: the run's crash."""
    status, (record,) = _run(
        tmp_path, f"{HOSTILE}:puts_off_its_deadline", scenario="constant-return/repeat"
    )
    assert status == 1 and record["outcome"] == "crashed", record["outcome"]
    assert "said its run was over again" in record["observed"]["error"]


def test_a_judge_replaced_in_the_worker_passes_nothing(tmp_path: Path) -> None:
    _, alone = _run(tmp_path, "naive")
    status, records = _run(tmp_path, f"{HOSTILE}:replaces_the_judge", "naive")
    replaced = _mine(records, f"{HOSTILE}:replaces_the_judge")
    assert status == 1 and _mine(records, "naive") == alone
    assert {(r["outcome"], r["verdict"]["passed"]) for r in replaced} == {("unstructured", False)}


def test_an_agent_that_changes_its_worker_changes_no_other_agents_record(tmp_path: Path) -> None:
    _, alone = _run(tmp_path, "naive", scenario="constant-return/repeat")
    _, records = _run(
        tmp_path, f"{HOSTILE}:makes_the_next_agent_pass", "naive", scenario="constant-return/repeat"
    )
    assert _mine(records, "naive") == alone


def test_a_redactor_switched_off_in_the_worker_lets_no_secret_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "hostile-key-c0ffee"
    monkeypatch.setenv("HOSTILE_API_KEY", key)
    status, records = _run(tmp_path, f"{HOSTILE}:unredacts", "contract")
    assert status == 1 and len(_mine(records, f"{HOSTILE}:unredacts")) > 1
    assert key not in (tmp_path / "records.json").read_text()
    assert all(
        "[redacted]" in r["reported"]["reason"] for r in _mine(records, f"{HOSTILE}:unredacts")
    )


def test_a_line_naming_a_secret_that_garbles_a_record_is_quoted_redacted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "hostile-key-c0ffee"
    monkeypatch.setenv("HOSTILE_API_KEY", key)
    _, records = _run(tmp_path, f"{HOSTILE}:writes_its_key_to_the_channel")
    assert key not in (tmp_path / "records.json").read_text()
    assert all(
        "not a message of the worker's" in r["observed"]["error"]
        and "[redacted]" in r["observed"]["error"]
        for r in records
    )


def test_an_agents_chdir_and_path_do_not_reach_the_next_agent(tmp_path: Path) -> None:
    agent = "exec:sh tests/cli/stops.sh"
    _, records = _run(tmp_path, f"{HOSTILE}:moves_away", agent)
    assert {r["outcome"] for r in _mine(records, agent)} == {"stopped"}


def test_a_variable_an_agent_adds_to_the_environment_is_gone_in_its_next_run(
    tmp_path: Path,
) -> None:
    _, records = _run(tmp_path, f"{HOSTILE}:adds_to_the_environment")
    assert {r["reported"]["reason"] for r in records} == {"as it was"}


def test_an_agent_that_closes_its_standard_streams_crashes_none_of_its_next_runs(
    tmp_path: Path,
) -> None:
    """Descriptors 1 and 2 closed by one run were taken by the next run's capture file, which
    the agent then closed in turn: every other run was recorded crashed (``Bad file
    descriptor``), though it stopped. Each run starts with the three open on ``/dev/null``."""
    _, records = _run(tmp_path, f"{HOSTILE}:closes_its_standard_streams")
    assert len(records) > 1 and {r["outcome"] for r in records} == {"stopped"}, records


def test_an_agent_that_puts_back_the_wake_signals_default_did_not_stop(tmp_path: Path) -> None:
    """The signal that wakes a sleeping agent at the wall ceiling killed a worker whose agent
    had put back its default action: the run was recorded crashed, not did_not_stop."""
    out = tmp_path / "records.json"
    agent = f"{HOSTILE}:sleeps_under_the_wake_signals_default"
    result = _unsolvable(
        "run", "--agent", agent, "--scenario", "constant-return/repeat",
        "--ceiling-seconds", "0.5", "--json", str(out),
    )  # fmt: skip
    (record,) = json.loads(out.read_text())["records"]
    assert result.returncode == 1 and record["outcome"] == "did_not_stop", record["observed"]


def test_an_agent_may_start_processes_with_multiprocessing(tmp_path: Path) -> None:
    """A worker was a daemonic process, which `multiprocessing` forbids to have children: an
    agent that used a pool was recorded crashed, though it runs in-process and in production."""
    _, (record,) = _run(
        tmp_path, f"{HOSTILE}:computes_in_a_pool", scenario="constant-return/repeat"
    )
    assert record["outcome"] == "stopped", record["observed"]["error"]
    assert record["reported"]["partial"] == [1, 4, 9]


def test_an_agents_forkserver_ended_with_its_run_is_started_again_for_its_next(
    tmp_path: Path,
) -> None:
    """The forkserver an agent's pool started was ended with its run, and `multiprocessing`,
    which expects to be the one to end it, raised ``ChildProcessError`` at the agent's next
    pool: every run of it after the first in a worker was recorded crashed."""
    _, records = _run(tmp_path, f"{HOSTILE}:computes_in_a_forkserver_pool")
    assert len(records) > 1
    assert {r["outcome"] for r in records} == {"stopped"}, [r["observed"]["error"] for r in records]


def test_a_run_its_worker_never_began_is_made_on_another(tmp_path: Path) -> None:
    """A worker that an agent broke after its record was sent (its job channel closed) ended
    before it began the next job, already sent to it: that job, which never ran, was recorded
    crashed ("the worker process exited with status 0 during the run")."""
    _, records = _run(tmp_path, f"{HOSTILE}:closes_its_workers_job_channel")
    assert len(records) > 1
    assert {r["outcome"] for r in records} == {"stopped"}, [r["observed"]["error"] for r in records]


def test_what_an_agent_returns_never_takes_the_worker_down(tmp_path: Path) -> None:
    _, records = _run(
        tmp_path,
        f"{HOSTILE}:returns_the_unprintable",
        f"{HOSTILE}:stops_with_a_deep_partial",
        f"{LINES} null",
        scenario="constant-return/repeat",
    )
    unprintable, deep, null = records
    assert unprintable["returned"] == "<_Unprintable object; its repr raised RuntimeError>"
    assert deep["reported"]["partial"] == "(a list nested more than 64 levels; not kept)"
    assert null["outcome"] == "stopped" and null["reported"]["reason"] == ""
    assert null["reported"]["missing"] == []


def test_a_stop_line_longer_than_the_kept_output_is_read_whole(tmp_path: Path) -> None:
    """The line of 50,000 characters is read whole, though the record keeps a reason cut at
    `REASON_CUT`, more than the output the process adapter keeps."""
    _, (record,) = _run(tmp_path, f"{LINES} long", scenario="constant-return/repeat")
    assert REASON_CUT > OUTPUT_KEPT
    assert record["outcome"] == "stopped"
    assert record["reported"]["reason"] == "x" * (REASON_CUT - 1) + "…"


@pytest.mark.skipif(sys.platform != "linux", reason="holes are punched with Linux's fallocate")
def test_a_flood_of_output_takes_no_more_disk_than_its_end(tmp_path: Path) -> None:
    """The capture file of an agent that writes hundreds of MB keeps its size, but the disk
    holds only its end; the record keeps the end, as of any run."""
    _, (record,) = _run(tmp_path, f"{HOSTILE}:floods_its_output", scenario="constant-return/repeat")
    assert record["outcome"] == "stopped", "the agent waits for its file to shrink on disk"
    assert record["reported"]["partial"] == {
        "size": FLOOD_MIB << 20,
        "on_disk": record["reported"]["partial"]["on_disk"],
    }
    assert record["reported"]["partial"]["on_disk"] <= KEPT_MIB << 20
    assert record["output"].endswith("x" * 1023 + "\nthe end\n")


def test_no_process_an_agent_started_outlives_its_run(tmp_path: Path) -> None:
    _, (plain, orphaned) = _run(
        tmp_path,
        f"{HOSTILE}:leaves_a_process",
        f"{LINES} orphan",
        scenario="constant-return/repeat",
    )
    assert survivors([plain["reported"]["partial"]["pid"], orphaned["reported"]["partial"]]) == []


def test_a_killed_run_leaves_no_process(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    os.mkfifo(pids)  # the agent's write is the event: read the moment it is made
    command = [
        sys.executable, "-m", "unsolvable.cli", "run", "--agent", f"{HOSTILE}:waits_with_a_process",
        "--scenario", "constant-return/repeat", "--ceiling-seconds", "600",
    ]  # fmt: skip
    # Held open for reading and writing, the pipe never blocks the agent's open nor reads as
    # ended before the agent writes.
    tap = os.open(pids, os.O_RDWR)
    run = subprocess.Popen(
        command, cwd=ROOT, env={**os.environ, "HOSTILE_PIDS": str(pids)}, stdout=subprocess.DEVNULL
    )
    ended = os.pidfd_open(run.pid)
    try:
        readable, _, _ = select.select([tap, ended], [], [], RUN_SECONDS)
        assert readable == [tap], "the run ended, or never started its agent, before it wrote"
        written = os.read(tap, 4096).decode()
        run.send_signal(signal.SIGKILL)
    finally:
        run.kill()
        run.wait()
        os.close(ended)
        os.close(tap)
    pids = [int(pid) for pid in written.split()]
    assert survivors(pids) == [] and len(pids) == 2, pids


def test_a_pipe_from_the_run_ends_when_the_run_ends() -> None:
    """``unsolvable run | tee``: a process the agent forked holds nothing of the harness's."""
    command = [
        sys.executable, "-m", "unsolvable.cli", "run", "--agent",
        f"{HOSTILE}:leaves_a_fork_on_stdout", "--scenario", "constant-return/repeat",
    ]  # fmt: skip
    with subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as run:  # its exit closes the pipes and reaps the run, which the finally killed
        try:
            stdout, _ = run.communicate(timeout=120)
        finally:
            run.kill()
    assert b"abandoned/NO_PROGRESS" in stdout


def test_an_agent_that_reads_the_console_is_told_no_person_answers_in_every_run(
    tmp_path: Path,
) -> None:
    """A worker's standard input is empty in every run, as a CI job's is, even after an agent
    closed it; reading it ends with the EOFError a script meets there, saying why."""
    _, records = _run(tmp_path, f"{HOSTILE}:asks_the_console")
    assert len(records) > 1 and {r["outcome"] for r in records} == {"crashed"}
    for record in records:
        error = record["observed"]["error"]
        assert error.startswith("EOFError: the agent read its standard input"), error
        assert "NEEDS_HUMAN" in error


@pytest.mark.skipif(not Path("/proc/self/oom_score_adj").exists(), reason="Linux's OOM killer")
def test_the_kernel_ends_a_run_before_the_harness_when_memory_runs_out(tmp_path: Path) -> None:
    """An agent that eats the machine's memory is ended by the kernel, and its run recorded
    crashed, rather than the harness that holds every finished record: its worker, and what the
    agent starts, are the first the kernel ends; the harness keeps its own standing."""
    _, (record,) = _run(
        tmp_path, f"{HOSTILE}:reads_who_goes_first_out_of_memory", scenario="constant-return/repeat"
    )
    harness = Path("/proc/self/oom_score_adj").read_text().strip()  # the harness inherits ours
    assert record["reported"]["partial"] == {"agent": "1000", "child": "1000", "harness": harness}
