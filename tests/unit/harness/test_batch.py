"""Batches of runs: records in job order, the same records on a pool of processes as in this one,
and a dead worker reported as such."""

from __future__ import annotations

import pytest

import scenarios
from harness._batch import Job, run_jobs
from harness._errors import UnsolvableError

JOBS = [
    Job(agent=agent, scenario=scenario.name, seed=seed)
    for scenario in scenarios.select(["missing-permission"])
    for seed in (0, 1)
    for agent in ("naive", "contract")
]


def test_records_come_back_in_job_order_whatever_the_workers() -> None:
    seen: list[str] = []
    serial = run_jobs(JOBS, lookup=scenarios.get, on_record=lambda r: seen.append(r.agent))
    pooled = run_jobs(JOBS, lookup=scenarios.get, workers=2)
    assert [(r.scenario, r.seed, r.agent) for r in serial] == [
        (job.scenario, job.seed, job.agent) for job in JOBS
    ]
    assert [r.to_json() for r in pooled] == [r.to_json() for r in serial]
    assert seen == [job.agent for job in JOBS]


def test_a_worker_that_dies_is_named_with_the_way_to_find_it() -> None:
    job = Job(agent="tests.reports._agents:exits", scenario="constant-return/repeat", seed=0)
    with pytest.raises(UnsolvableError, match="rerun with --workers 1"):
        run_jobs([job, job], lookup=scenarios.get, workers=2)
