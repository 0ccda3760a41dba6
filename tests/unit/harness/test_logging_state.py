"""What each run of a worker starts from of `logging`: the loggers as its agent's loading left
them, whatever the runs before it configured."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from unsolvable._logging_state import LoggingState


@pytest.fixture
def kept() -> Iterator[LoggingState]:
    """This process's logging as it is, put back after the test."""
    state = LoggingState.now()
    yield state
    state.restore()


def test_a_runs_handlers_levels_and_switching_off_are_undone(kept: LoggingState) -> None:
    made_at_import = logging.getLogger("tests.made-at-import")
    state = LoggingState.now()
    logging.getLogger().addHandler(logging.NullHandler())
    made_at_import.addHandler(logging.NullHandler())
    made_at_import.setLevel(logging.ERROR)
    made_at_import.propagate = False
    logging.disable(logging.CRITICAL)
    assert not made_at_import.isEnabledFor(logging.WARNING)  # which each logger remembers
    state.restore()
    assert LoggingState.now() == state
    assert made_at_import.isEnabledFor(logging.WARNING) == logging.getLogger().isEnabledFor(
        logging.WARNING
    )  # what it remembered is forgotten


def test_a_logger_first_made_during_a_run_is_left_as_it_is(kept: LoggingState) -> None:
    """A library imported during a run (lazily, by a framework) gives its logger a handler as it
    is imported, once per process: undone, the worker's later runs would lose it."""
    state = LoggingState.now()
    library = logging.getLogger("tests.imported-during-a-run")
    handler = logging.NullHandler()
    library.addHandler(handler)
    state.restore()
    assert library.handlers == [handler]
