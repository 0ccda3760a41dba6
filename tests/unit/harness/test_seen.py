"""What a worker shows the harness of its running job, for the record of a run it loses."""

from __future__ import annotations

import multiprocessing

from unsolvable._seen import Counts, Seen


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
        worker.join()
    finally:
        if worker.is_alive():
            worker.kill()
            worker.join()
    assert seen.of(7) == Counts(steps=30, tool_calls=31)
