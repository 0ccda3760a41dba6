"""A harness that is busy with one worker's record while another worker finishes a run and dies
in its next: ``python -m tests.cli.next_run_exits FOLDER`` runs `run_jobs` on two workers and
prints each record's agent, outcome and steps, one JSON line each.

The second worker's agent (`stops_then_exits`) stops its first run only once the harness, handed
the first worker's record, opens ``FOLDER/go``; its next run, pipelined on the same worker,
writes the worker's pid to ``FOLDER/pid`` and exits the process. The harness's hook returns only
once that process is gone: a record sent before a worker died must still be read, not taken for
the crash of the run it belongs to."""

from __future__ import annotations

import json
import os
import select
import sys
from pathlib import Path

from unsolvable import Code, Session, Stop, scenarios
from unsolvable._batch import Job, run_jobs
from unsolvable._record import TerminationRecord

FOLDER = "NEXT_RUN_EXITS_FOLDER"
"""The environment variable naming the folder of the two FIFOs and the mark of the first run."""
SCENARIO = "constant-return/repeat"
STOPPED = "stopped"
EXITED = "exited"


def stops_then_exits(session: Session) -> Stop:
    """First run: one step, then a stop once ``go`` is opened; the next: its process exits."""
    folder = Path(os.environ[FOLDER])
    if (folder / STOPPED).exists():
        if not (folder / EXITED).exists():  # its run again, on a fresh worker, exits at once
            (folder / EXITED).touch()
            with open(folder / "pid", "w") as pid:
                pid.write(str(os.getpid()))
        os._exit(3)
    session.call_model([{"role": "user", "content": session.task}], session.tools)
    with open(folder / "go"):  # blocks until the harness opens it for writing
        pass
    (folder / STOPPED).touch()
    return Stop(code=Code.NO_PROGRESS, reason="nothing new")


def _hold_the_harness(folder: Path) -> None:
    """On the first worker's record: lets the second worker's first run stop, and returns once
    its worker has died in its next."""
    with open(folder / "go", "w"):
        pass
    with open(folder / "pid") as pid:
        worker = int(pid.read())
    gone = os.pidfd_open(worker)
    try:
        select.select([gone], [], [], 60)
    finally:
        os.close(gone)


def main(folder: Path) -> None:
    os.mkfifo(folder / "go")
    os.mkfifo(folder / "pid")
    held = []

    def on_record(record: TerminationRecord) -> None:
        if not held:
            held.append(record)
            _hold_the_harness(folder)

    spec = "tests.cli.next_run_exits:stops_then_exits"
    jobs = [Job(agent="contract", scenario=SCENARIO, seed=0)]
    jobs += [Job(agent=spec, scenario=SCENARIO, seed=seed) for seed in (0, 1)]
    batch = run_jobs(jobs, lookup=scenarios.get, workers=2, on_record=on_record)
    for record in batch.records:
        made = {"agent": record.agent, "outcome": str(record.outcome)}
        print(json.dumps({**made, "seed": record.seed, "steps": record.observed.steps}))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
