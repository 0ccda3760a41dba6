"""What `run` puts in the record whatever the agent does: the scenario's facts and seed, the
strict flag passed on, a ceiling winning over what the agent says, long returns cut."""

from __future__ import annotations

import contextlib
import dataclasses
import threading

import pytest

import unsolvable
from tests import _builders as b
from unsolvable import Code, Outcome, Stop
from unsolvable._errors import CeilingHit
from unsolvable._run import RETURNED_CUT


def test_the_record_carries_the_scenario_seed_and_agent() -> None:
    scenario = dataclasses.replace(b.scenario(step_bound=4), seeds=(7, 3))
    record = unsolvable.run(b.steps_then(2, Stop(code=Code.NO_PROGRESS)), scenario)
    assert (record.scenario, record.family, record.seed, record.step_bound) == (
        "test/constant",
        "test",
        7,
        4,
    )
    assert record.budget == scenario.budget.to_dict() and record.solvable is False
    assert isinstance(record.wall_seconds, float)
    assert record.agent.endswith(":steps_then.<locals>.agent")
    assert unsolvable.run(b.steps_then(1, Stop(code=Code.NO_PROGRESS)), scenario, seed=3).seed == 3


@pytest.mark.parametrize("strict", [False, True])
def test_the_verdict_says_whether_it_was_strict(strict: bool) -> None:
    record = unsolvable.run(
        b.steps_then(1, Stop(code=Code.NO_PROGRESS)), b.scenario(), strict=strict
    )
    assert record.verdict is not None and record.verdict.strict is strict
    assert unsolvable.run(b.steps_then(1), b.scenario()).verdict.strict is False  # type: ignore[union-attr]


def test_a_ceiling_wins_over_a_stop_the_agent_returns_after_it() -> None:
    def stubborn(session: unsolvable.Session) -> Stop:
        with contextlib.suppress(CeilingHit):
            b.forever(session)
        return Stop(code=Code.NO_PROGRESS)

    record = unsolvable.run(stubborn, b.scenario(), ceilings=unsolvable.Ceilings(max_steps=3))
    assert (record.outcome, record.reported, record.observed.ceiling) == (
        Outcome.DID_NOT_STOP,
        None,
        "steps",
    )


@pytest.mark.parametrize(("length", "cut"), [(RETURNED_CUT - 2, False), (RETURNED_CUT - 1, True)])
def test_an_unstructured_return_is_kept_as_a_repr_cut_to_one_line(length: int, cut: bool) -> None:
    record = unsolvable.run(lambda session: "x" * length, b.scenario())
    returned = repr("x" * length)
    expected = returned[: RETURNED_CUT - 1] + "…" if cut else returned
    assert (record.outcome, record.returned) == (Outcome.UNSTRUCTURED, expected)


class _Misreads:
    name = "misreads"

    def run(self, session: unsolvable.Session) -> object:
        return {"code": "NO_PROGRESS"}

    def interpret(self, returned: object, error: BaseException | None) -> Stop | None:
        raise KeyError("code")


def test_an_adapter_that_cannot_read_the_return_is_a_crash_naming_it() -> None:
    record = unsolvable.run(_Misreads(), b.scenario())
    assert (record.outcome, record.observed.error) == (
        Outcome.CRASHED,
        "adapter misreads: KeyError('code')",
    )


def test_a_spec_string_names_a_built_in_agent() -> None:
    assert unsolvable.run("naive", b.scenario()).agent == "naive"


def test_the_agent_runs_on_the_calling_thread_with_the_seed() -> None:
    seen: list[tuple[threading.Thread, int]] = []

    def agent(session: unsolvable.Session) -> Stop:
        seen.append((threading.current_thread(), session.seed))
        return Stop(code=Code.NO_PROGRESS)

    unsolvable.run(agent, b.scenario(), seed=5)
    assert seen == [(threading.current_thread(), 5)]


def test_an_agent_that_never_calls_back_is_interrupted_and_no_watchdog_is_left() -> None:
    before = set(threading.enumerate())
    record = unsolvable.run(
        b.busy, b.scenario(), ceilings=unsolvable.Ceilings(max_wall_seconds=0.1)
    )
    assert record.outcome is Outcome.DID_NOT_STOP
    assert set(threading.enumerate()) <= before


class _MapsTimeouts:
    name = "maps-timeouts"

    def run(self, session: unsolvable.Session) -> object:
        raise TimeoutError("took too long")

    def interpret(self, returned: object, error: BaseException | None) -> Stop | None:
        return Stop(code=Code.BUDGET_TIME, partial=[1]) if isinstance(error, TimeoutError) else None


def test_an_adapter_reads_the_exception_the_agent_raised() -> None:
    record = unsolvable.run(_MapsTimeouts(), b.scenario())
    assert (record.outcome, record.code) == (Outcome.STOPPED, Code.BUDGET_TIME)
