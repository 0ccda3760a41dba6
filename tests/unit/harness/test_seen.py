"""What a worker shows the harness of its running job, for the record of a run it loses."""

from __future__ import annotations

import multiprocessing

from unsolvable._seen import Counts, Seen
from unsolvable._truth import Truth


def test_the_counts_are_those_of_the_job_asked_about() -> None:
    seen = Seen.shared(multiprocessing.get_context("fork"))
    assert seen.of(0) == Counts(), "no job begun: nothing seen"
    seen.begin(0)
    seen.saw(Counts(steps=3, tool_calls=4, input_tokens=500, output_tokens=60))
    assert seen.of(0) == Counts(steps=3, tool_calls=4, input_tokens=500, output_tokens=60)
    assert seen.of(1) == Counts(), "a job not begun is not the last one's"
    seen.begin(1)
    assert seen.of(1) == Counts()


def test_a_worker_process_shows_its_counts_to_the_harness() -> None:
    context = multiprocessing.get_context("fork")
    seen = Seen.shared(context)

    def job() -> None:
        seen.begin(7)
        seen.saw(Counts(steps=30, tool_calls=31))

    worker = context.Process(target=job)
    worker.start()
    try:
        worker.join(60)  # a guard against a worker that hangs (a lock taken at the fork)
        assert worker.exitcode == 0, f"the worker ended with {worker.exitcode} or hung"
    finally:
        if worker.is_alive():
            worker.kill()
            worker.join()
    assert seen.of(7) == Counts(steps=30, tool_calls=31)


def test_the_truth_is_that_of_the_job_asked_about_as_it_last_stood() -> None:
    """A lost run keeps the stagnant step and the lag it last showed; a job begun since, or one
    that showed none (lost before its first step), has none."""
    seen = Seen.shared(multiprocessing.get_context("fork"))
    none = Truth(first_stagnant_step=None, lag_tokens=None, lag_cost_usd=None, evidence_step=None)
    stood = Truth(first_stagnant_step=6, lag_tokens=-2322, lag_cost_usd=-0.010749, evidence_step=5)
    no_guess = Truth(first_stagnant_step=2, lag_tokens=900, lag_cost_usd=0.004, evidence_step=2)
    seen.begin(0)
    assert seen.truth_of(0) == seen.truth_of(0, no_guess=True) == none
    seen.stood(stood, no_guess=no_guess)
    assert (seen.truth_of(0), seen.truth_of(0, no_guess=True)) == (stood, no_guess)
    assert seen.truth_of(1) == none, "a job not begun is not the last one's"
    seen.begin(1)
    assert seen.truth_of(1) == seen.truth_of(1, no_guess=True) == none


def test_a_lost_run_keeps_the_truth_of_an_end_that_is_no_guess_once_it_had_the_evidence() -> None:
    """As a run that ended in its worker is judged: by the truth of a guess before the evidence
    step, by the truth of what it saw from there on, or wherever a ceiling ended it."""
    seen = Seen.shared(multiprocessing.get_context("fork"))
    guess = Truth(first_stagnant_step=6, lag_tokens=-10, lag_cost_usd=-0.1, evidence_step=5)
    no_guess = Truth(first_stagnant_step=2, lag_tokens=900, lag_cost_usd=0.004, evidence_step=2)
    seen.begin(0)
    seen.stood(guess, no_guess=no_guess)
    lost = {}
    for steps in (4, 5):
        seen.saw(Counts(steps=steps))
        lost[steps] = [seen.lost_truth(0, ceiling=ceiling) for ceiling in (False, True)]
    assert lost == {4: [guess, no_guess], 5: [no_guess, no_guess]}
