"""Batches of runs: records in job order whatever the number of worker processes, the same
records `unsolvable.run` makes, and a dead worker recorded as the crash of the run it was in,
with a fresh worker for the rest."""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import unsolvable
from tests.cli.faulty_agents import slow
from unsolvable import Ceilings, Outcome, TerminationRecord, _batch, scenarios
from unsolvable._batch import Job, WorkerPool, run_jobs
from unsolvable._unseen import WORKER_COUNTED
from unsolvable.reports._cells import distribution, premature
from unsolvable.reports._counted import lag
from unsolvable.reports._distribution import Distribution
from unsolvable.reports._metrics import measure

NATIVE_THREAD = """
import _thread, threading
from unsolvable import scenarios
from unsolvable._batch import WorkerPool

print(WorkerPool(scenarios.get).context.get_start_method())
held, started = threading.Lock(), threading.Event()
held.acquire()
_thread.start_new_thread(lambda: (started.set(), held.acquire()), ())
started.wait()
print(WorkerPool(scenarios.get).context.get_start_method())
"""
"""Start methods a pool chooses alone, then beside a thread `threading` never sees (a native
library's, such as OpenBLAS's or gRPC's), which ends with the process."""
REPEAT = "constant-return/repeat"
CONTROL = "constant-return/twin-cursor-paging"
JOBS = [
    Job(agent=agent, scenario=scenario.name, seed=seed)
    for scenario in scenarios.select(["missing-permission"])
    for seed in (0, 1)
    for agent in ("naive", "contract")
]


def test_records_come_back_in_job_order_whatever_the_workers() -> None:
    seen: list[str] = []
    one = run_jobs(JOBS, lookup=scenarios.get, on_record=lambda r: seen.append(r.agent))
    two = run_jobs(JOBS, lookup=scenarios.get, workers=2)
    assert [(r.scenario, r.seed, r.agent) for r in one.records] == [
        (job.scenario, job.seed, job.agent) for job in JOBS
    ]
    assert [r.to_json() for r in two.records] == [r.to_json() for r in one.records]
    assert sorted(seen) == sorted(job.agent for job in JOBS) and not one.interrupted


def test_a_pool_starts_no_more_workers_than_it_has_runs() -> None:
    """``unsolvable run -n 100000`` on two runs forks two processes, not a hundred thousand."""
    pool = WorkerPool(scenarios.get, size=100_000)
    try:
        batch = pool.run(JOBS[:2])
        assert len(pool.workers) == len(batch.records) == 2
    finally:
        pool.close()


def test_one_worker_runs_one_agents_jobs_each_its_first_first() -> None:
    """A worker takes the jobs of the agent it started with, in their order, and only then is
    replaced for the next agent's: no agent's run is made in an interpreter another changed."""
    seen: list[tuple[str, str, int]] = []
    run_jobs(JOBS, lookup=scenarios.get, on_record=lambda r: seen.append(_made(r)))
    agents = dict.fromkeys(job.agent for job in JOBS)
    assert seen == [_made(job) for agent in agents for job in JOBS if job.agent == agent]


def _made(run: Job | TerminationRecord) -> tuple[str, str, int]:
    return run.agent, run.scenario, run.seed


def test_a_worker_judges_each_seed_as_a_run_in_process_does() -> None:
    """N counts from the end of each seed's lead (12, 13, 14 on `constant-return/repeat`), with
    or without a step bound given."""
    scenario = scenarios.get("constant-return/repeat")
    asked = [
        (agent, seed, overrides)
        for agent in ("naive", "contract")
        for seed in scenario.seeds
        for overrides in ((), (("step_bound", 3),))
    ]
    jobs = [Job(agent=a, scenario=scenario.name, seed=s, overrides=o) for a, s, o in asked]
    batch = run_jobs(jobs, lookup=scenarios.get)
    alone = [unsolvable.run(a, scenario, seed=s, **dict(o)) for a, s, o in asked]
    assert [r.step_bound for r in alone] == [12, 3, 13, 4, 14, 5] * 2
    assert [r.to_json() for r in batch.records] == [r.to_json() for r in alone]


def test_a_worker_that_dies_is_the_crash_of_its_run_only() -> None:
    dies = Job(agent="tests.reports._agents:exits", scenario="constant-return/repeat", seed=0)
    lives = Job(agent="contract", scenario="constant-return/repeat", seed=0)
    batch = run_jobs([dies, lives, dies, lives], lookup=scenarios.get)
    assert [r.outcome for r in batch.records] == [
        Outcome.CRASHED,
        Outcome.STOPPED,
        Outcome.CRASHED,
        Outcome.STOPPED,
    ]
    assert batch.records[0].observed.error == (
        "the worker process exited with status 3 during the run"
    )


SLOW_IMPORT = "tests.reports._slow_import"


@pytest.fixture
def slow_import(monkeypatch: pytest.MonkeyPatch) -> str:
    """The slow agent's spec, its module not imported here: the harness imports an agent to
    name its records, and a worker forked from a process that has it would not wait for it."""
    monkeypatch.delitem(sys.modules, SLOW_IMPORT, raising=False)
    return f"{SLOW_IMPORT}:agent"


def test_the_wall_ceiling_starts_after_the_agent_is_imported(slow_import: str) -> None:
    job = Job(
        agent=slow_import,
        scenario="constant-return/repeat",
        seed=0,
        ceilings=Ceilings(max_wall_seconds=2.0),  # _slow_import.WALL_SECONDS: importing it waits
    )
    (record,) = run_jobs([job], lookup=scenarios.get).records
    assert record.outcome is Outcome.STOPPED and record.observed.steps == 3


def test_an_abandoned_run_whose_record_outlasts_the_kill_margin_keeps_its_record() -> None:
    """The worker gives up on the agent at the wall ceiling and its grace, then builds the record
    so far, which for a run of tens of thousands of steps takes longer than the kill margin: the
    harness, told the run is over, waits for it rather than kill the worker and make up a record
    that says the agent held the interpreter."""
    job = Job(
        agent="tests.cli.faulty_agents:calls_to_the_wall_then_never_unwinds",
        scenario=REPEAT,
        seed=0,
        ceilings=Ceilings(max_steps=10**7, max_tool_calls=10**7, max_wall_seconds=5.0),
    )
    (record,) = run_jobs([job], lookup=scenarios.get).records
    observed = record.observed
    assert (record.outcome, observed.ceiling, observed.error) == (
        Outcome.DID_NOT_STOP,
        "wall_seconds",
        None,
    )
    assert len(observed.trajectory) == observed.steps > 1000


@pytest.mark.parametrize(
    ("agent", "outcome", "said"),
    [
        ("stops_and_its_record_never_comes", Outcome.CRASHED, "stopped"),
        ("runs_into_a_ceiling_and_its_record_never_comes", Outcome.DID_NOT_STOP, "did_not_stop"),
    ],
)
def test_a_run_whose_record_never_comes_is_recorded_as_it_ended(
    agent: str, outcome: Outcome, said: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker that said its run was over and then sent no record within the allowance is
    killed; the run is not said to be one whose agent held the interpreter past the ceiling: an
    agent that failed to stop keeps that outcome, any other run is a crash, its record lost."""
    monkeypatch.setattr(_batch, "RECORD_SECONDS", 1.0)
    job = Job(
        agent=f"tests.cli.faulty_agents:{agent}", scenario=REPEAT, seed=0,
        ceilings=Ceilings(max_steps=3),
    )  # fmt: skip
    (record,) = run_jobs([job], lookup=scenarios.get).records
    assert (record.outcome, record.observed.error) == (
        outcome,
        f"the run was over ({said}), but its record was not sent within 1 s (the agent's "
        "threads, left running, may hold the interpreter); its worker was killed",
    )


def test_an_agent_never_loaded_is_a_crash_of_its_run_not_a_run_past_its_ceiling(
    slow_import: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker whose agent's import hangs is killed once the allowance for loading is spent."""
    monkeypatch.setattr(_batch, "LOAD_SECONDS", 1.0)
    job = Job(agent=slow_import, scenario="constant-return/repeat", seed=0)
    (record,) = run_jobs([job], lookup=scenarios.get).records
    assert (record.outcome, record.observed.steps) == (Outcome.CRASHED, 0)
    assert record.observed.error == (
        "the agent was not loaded within 1 s (an import that hangs); its worker was killed"
    )


def test_a_run_lost_before_its_first_step_has_no_lag_and_no_lag_figure_counts_it() -> None:
    """The harness observed none of a run whose worker died before its first step: no stagnant
    step, so no lag; a lag of -1 made up from a stagnant step of 1 would pull every lag figure
    below zero. It ended before any step, so before its first stagnant step: a premature stop,
    as a run that raised there is, counted in no lag figure."""
    dies = Job(agent="tests.reports._agents:exits", scenario="constant-return/repeat", seed=0)
    (lost,) = run_jobs([dies], lookup=scenarios.get).records
    observed = lost.observed
    assert (observed.first_stagnant_step, observed.detection_lag) == (None, None)
    assert (observed.lag_tokens, observed.lag_cost_usd) == (None, None)
    stopped, control = (
        dataclasses.replace(unsolvable.run("contract", scenarios.get(name)), agent=lost.agent)
        for name in ("constant-return/repeat", "constant-return/twin-cursor-paging")
    )
    group = measure([lost, stopped, control]).agents[0]
    assert group.lag_steps == Distribution.of([lag(stopped)])
    assert group.lag_tokens is not None and group.lag_tokens.count == 1
    assert group.lag_cost_usd is not None and group.lag_cost_usd.count == 1
    assert group.step_cap is not None and group.step_cap.lag_steps.count == 1
    alone = measure([lost]).agents[0]
    assert (distribution(alone.lag_steps), premature(alone)) == ("-", "1")


def test_a_lost_run_reads_unknown_for_what_the_harness_did_not_see() -> None:
    """Its counts the harness admitted stay; what only the worker counted reads null, not a
    made-up 0, 1 or false, and reads back as it was written."""
    dies = Job(agent="tests.cli.faulty_agents:exits", scenario="constant-return/repeat", seed=0)
    ends = dataclasses.replace(dies, agent="naive")
    lost, finished = run_jobs([dies, ends], lookup=scenarios.get).records
    observed = lost.to_dict()["observed"]
    unknown = {name for name, value in observed.items() if value is None}
    known = {name for name, value in finished.to_dict()["observed"].items() if value is not None}
    # The stagnant step and the lag stood in memory the harness shares, as the counts did.
    assert unknown & known == set(WORKER_COUNTED)
    assert observed["steps"] == 1 and observed["input_tokens"] > 0
    assert TerminationRecord.from_dict(lost.to_dict()) == lost


def test_a_lost_run_past_its_budget_says_how_far_as_a_finished_one_does() -> None:
    """How far past the token budget a run went follows from the tokens the harness admitted:
    a lost run's overshoot is the one a run of the same call that finished has, not 0."""
    tight = (("max_tokens", 10),)
    dies = Job(agent="tests.cli.faulty_agents:exits", scenario=REPEAT, seed=0, overrides=tight)
    (lost,) = run_jobs([dies], lookup=scenarios.get).records
    finished = unsolvable.run(slow, scenarios.get(REPEAT), seed=0, max_tokens=10).observed
    assert finished.overshoot_tokens > 0
    assert (lost.observed.overshoot_tokens, lost.observed.overshoot_cost_usd) == (
        finished.overshoot_tokens,
        finished.overshoot_cost_usd,
    )


def test_a_lost_control_is_a_false_stop_not_known_to_be_finished() -> None:
    """The harness never read a lost control's world: it is not counted finished-but-unreported,
    which would need the world complete, and the metrics count it as they count a crash."""
    dies = Job(agent="tests.cli.faulty_agents:exits", scenario=CONTROL, seed=0)
    (lost,) = run_jobs([dies], lookup=scenarios.get).records
    group = measure([lost]).agents[0]
    assert (group.controls, group.false_stops, group.unreported_finishes) == (1, 1, 0)


@pytest.mark.skipif(sys.platform != "linux", reason="the harness forks workers on Linux alone")
def test_a_pool_forks_no_worker_beside_a_thread_threading_never_sees() -> None:
    """A worker forked beside another thread can deadlock on a lock that thread held, and Python
    3.12 and later warn of it (an error where warnings are); a native library's threads are not
    in `threading`'s count, only in the kernel's."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(NATIVE_THREAD)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["fork", "forkserver"]


OLD_PYTHON = sys.version_info < (3, 14)
"""Before 3.14, ``fork`` is Linux's default start method; from it on, ``forkserver``."""
BESIDE_A_THREAD = """
import threading
from unsolvable import scenarios
from unsolvable._batch import Job, run_jobs

if __name__ == "__main__":
    threading.Thread(target=threading.Event().wait, daemon=True).start()
    job = Job(agent="tests.cli.hostile_agents:names_its_start_method", scenario="%s", seed=0)
    (record,) = run_jobs([job], lookup=scenarios.get).records
    print(record.reported.reason)
"""
"""A run in a worker a fork server started (the harness runs a thread beside it, as pytest's
plugins do), its agent saying which start method its own pools would use."""


@pytest.mark.skipif(sys.platform != "linux", reason="the harness forks workers on Linux alone")
def test_an_agent_in_a_worker_a_fork_server_started_has_its_platforms_start_method(
    tmp_path: Path,
) -> None:
    """Such a worker inherits the fork server's start method as its default: an agent's
    ``multiprocessing.Pool()`` started by a fork server there, where production forks it."""
    script = tmp_path / "beside_a_thread.py"  # a fork server imports the main module again
    script.write_text(textwrap.dedent(BESIDE_A_THREAD % REPEAT))
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).parents[3],
    )
    platform = subprocess.run(
        [sys.executable, "-c", "import multiprocessing; print(multiprocessing.get_start_method())"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.returncode == 0, done.stderr
    assert (
        done.stdout.split() == platform.stdout.split() == ["fork" if OLD_PYTHON else "forkserver"]
    )


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_an_interrupt_that_lands_as_a_record_is_read_keeps_that_record(
    how: signal.Signals, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run ended before the interrupt: its record, read from its worker's channel as the
    signal arrives (here, while the harness judges it), is kept with those before it."""
    judged, sent = _batch.judged, []

    def judged_as_the_signal_arrives(*args: Any, **kwargs: Any) -> TerminationRecord:
        if not sent:
            sent.append(how)
            os.kill(os.getpid(), how)  # its handler runs at this function's next instruction
        return judged(*args, **kwargs)

    monkeypatch.setattr(_batch, "judged", judged_as_the_signal_arrives)
    previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    signal.signal(signal.SIGINT, signal.default_int_handler)  # as a command line has it
    try:
        batch = run_jobs(JOBS[:1], lookup=scenarios.get)
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    assert sent and batch.interrupted
    assert [(r.scenario, r.seed, r.agent) for r in batch.records] == [
        (job.scenario, job.seed, job.agent) for job in JOBS[:1]
    ]
