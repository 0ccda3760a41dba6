"""A crash keeps the agent's own traceback: its frames and the line that raised, the harness's
frames left out, its chain as Python shows it, bounded; the hint says the agent raised."""

from __future__ import annotations

import sys

import unsolvable
from tests import _builders as b
from tests.cli import crashing_agent
from unsolvable import Outcome, TerminationRecord
from unsolvable._traceback import TRACEBACK_CUT
from unsolvable.plugin._fixture import verdict_message
from unsolvable.plugin.snapshot import behaviour
from unsolvable.reports._table import explain

FILE = "tests/cli/crashing_agent.py"


def test_the_record_keeps_the_agents_frames_and_the_line_that_raised() -> None:
    record = unsolvable.run(crashing_agent.agent, b.scenario())
    assert record.outcome is Outcome.CRASHED and record.observed.error == "KeyError: 'nme'"
    lines = str(record.observed.traceback).splitlines()
    assert lines[:5] == [
        "Traceback (most recent call last):",
        f'  File "{FILE}", line 14, in agent',
        '    return _lookup({"name": "invoice"})',
        f'  File "{FILE}", line 9, in _lookup',
        '    return fields["nme"]  # the bug: the line the record and --explain must show',
    ]
    assert lines[-1] == "KeyError: 'nme'" and "unsolvable" not in "\n".join(lines)


def test_explain_shows_it_and_the_hint_says_the_agent_raised() -> None:
    record = unsolvable.run(crashing_agent.agent, b.scenario())
    shown = verdict_message(record)
    assert f'      File "{FILE}", line 9, in _lookup' in shown.splitlines()
    assert "  the agent raised an exception (its traceback is above)" in shown
    assert "stop logic needs fixing" not in shown
    assert explain(record) in shown


def test_frames_inside_the_harness_are_left_out() -> None:
    record = unsolvable.run(crashing_agent.calls_a_missing_tool, b.scenario())
    text = str(record.observed.traceback)
    assert f'File "{FILE}", line 22, in calls_a_missing_tool' in text
    assert "_session.py" not in text and "_run.py" not in text


def test_a_chained_exception_shows_its_cause_as_python_does() -> None:
    def agent(session: unsolvable.Session) -> None:
        try:
            crashing_agent.agent(session)
        except KeyError as error:
            raise ValueError("the agent's data is broken") from error

    text = str(unsolvable.run(agent, b.scenario()).observed.traceback)
    assert text.index("KeyError: 'nme'") < text.index("direct cause") < text.index("ValueError")


def test_a_deep_recursion_is_cut_to_its_end() -> None:
    """Two functions calling each other: no two frames in a row alike, so Python's own
    "[Previous line repeated]" does not shorten it."""

    def ping(depth: int) -> None:
        pong(depth + 1)

    def pong(depth: int) -> None:
        if depth > sys.getrecursionlimit() // 2:
            raise RuntimeError("deep")
        ping(depth + 1)

    text = str(unsolvable.run(lambda session: ping(0), b.scenario()).observed.traceback)
    assert len(text) <= TRACEBACK_CUT and text.startswith("…\n  File ")
    assert text.endswith('raise RuntimeError("deep")\nRuntimeError: deep\n')


def test_it_round_trips_stays_out_of_snapshots_and_older_records_read_without_it() -> None:
    record = unsolvable.run(crashing_agent.agent, b.scenario())
    data = record.to_dict()
    assert TerminationRecord.from_dict(data).observed.traceback == record.observed.traceback
    assert "traceback" not in behaviour(record)["observed"]  # type: ignore[operator]
    del data["observed"]["traceback"]
    assert TerminationRecord.from_dict({**data, "schema_version": 4}).observed.traceback is None
