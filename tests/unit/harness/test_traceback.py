"""A crash keeps the agent's own traceback: its frames and the line that raised, the harness's
frames left out, its chain as Python shows it, bounded; the hint says the agent raised."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

import unsolvable
from tests import _builders as b
from tests.cli import crashing_agent
from unsolvable import Outcome, TerminationRecord, scenarios
from unsolvable._capture import OUTPUT_CUT, output_end
from unsolvable._text import ERROR_CUT
from unsolvable._traceback import GROUP_WIDTH, TRACEBACK_CUT, relative_files
from unsolvable.plugin._fixture import verdict_message
from unsolvable.plugin.snapshot import behaviour
from unsolvable.reports._table import explain

FILE = "tests/cli/crashing_agent.py"
THIS = "tests/unit/harness/test_traceback.py"


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


async def _fail(error: BaseException) -> None:
    raise error


FAIL_LINE = _fail.__code__.co_firstlineno + 1


def _task_group_agent(*errors: BaseException) -> Callable[[unsolvable.Session], None]:
    """An agent whose tasks, run in an asyncio task group, raise ``errors``, one each."""

    async def work() -> None:
        async with asyncio.TaskGroup() as group:
            for error in errors:
                group.create_task(_fail(error))

    def agent(session: unsolvable.Session) -> None:
        asyncio.run(work())

    return agent


def test_a_task_groups_crash_names_the_exceptions_its_tasks_raised() -> None:
    """The group's own message ("unhandled errors in a TaskGroup") names none of them: the error
    and the traceback give each, as Python prints them below the group."""
    agent = _task_group_agent(ValueError("the ledger is locked"), KeyError("nme"))
    record = unsolvable.run(agent, b.scenario())
    assert record.outcome is Outcome.CRASHED
    assert record.observed.error == (
        "ExceptionGroup: unhandled errors in a TaskGroup (2 sub-exceptions): "
        "ValueError: the ledger is locked; KeyError: 'nme'"
    )
    lines = str(record.observed.traceback).splitlines()
    group = lines.index("ExceptionGroup: unhandled errors in a TaskGroup (2 sub-exceptions)")
    assert lines[group + 1 :] == [
        "+-- sub-exception 1 of 2:",
        "| Traceback (most recent call last):",
        f'|   File "{THIS}", line {FAIL_LINE}, in _fail',
        "|     raise error",
        "| ValueError: the ledger is locked",
        "+-- sub-exception 2 of 2:",
        "| Traceback (most recent call last):",
        f'|   File "{THIS}", line {FAIL_LINE}, in _fail',
        "|     raise error",
        "| KeyError: 'nme'",
    ]


def test_a_nested_group_shows_its_members_indented_and_a_wide_one_counts_the_rest() -> None:
    inner = ExceptionGroup("inner", [ValueError("deep")])
    many = [RuntimeError(f"task {n}") for n in range(GROUP_WIDTH + 2)]

    def agent(session: unsolvable.Session) -> None:
        raise ExceptionGroup("outer", [inner, *many])

    record = unsolvable.run(agent, b.scenario())
    error = str(record.observed.error)
    assert error.startswith("ExceptionGroup: outer (18 sub-exceptions): ValueError: deep; ")
    assert error.endswith(f"RuntimeError: task {GROUP_WIDTH - 2}; and 3 more")
    text = str(record.observed.traceback)
    assert "+-- sub-exception 1 of 18:\n| ExceptionGroup: inner (1 sub-exception)\n" in text
    assert "| +-- sub-exception 1 of 1:\n| | ValueError: deep\n" in text
    assert text.endswith(f"| RuntimeError: task {GROUP_WIDTH - 2}\n+-- and 3 more exceptions\n")


def test_a_worker_process_keeps_a_groups_members_too(tmp_path: Path) -> None:
    """The CLI's runs are made in worker processes, and their records read back by the harness."""
    (tmp_path / "grouped.py").write_text(
        "import asyncio\n"
        "async def fail():\n"
        "    raise ValueError('the ledger is locked')\n"
        "async def work():\n"
        "    async with asyncio.TaskGroup() as group:\n"
        "        group.create_task(fail())\n"
        "def agent(session):\n"
        "    asyncio.run(work())\n"
    )
    out = tmp_path / "records.json"
    command = [sys.executable, "-m", "unsolvable.cli", "run", "--agent", "grouped:agent"]
    command += ["--scenario", "constant-return/plain", "--json", str(out), "--no-progress"]
    subprocess.run(command, cwd=tmp_path, capture_output=True, check=False, timeout=120)
    (record,) = json.loads(out.read_text())["records"]
    assert record["observed"]["error"].endswith(": ValueError: the ledger is locked")
    assert "| ValueError: the ledger is locked\n" in record["observed"]["traceback"]


def test_a_message_of_megabytes_is_cut_and_the_frames_where_it_was_raised_stay() -> None:
    """The record, every report and every terminal line repeat the error: five megabytes of
    message would be ten of JSON, and the traceback's last lines would be the message alone."""

    def agent(session: unsolvable.Session) -> None:
        raise ValueError("x" * 5_000_000)

    record = unsolvable.run(agent, b.scenario())
    error = str(record.observed.error)
    assert len(error) == ERROR_CUT and error.startswith("ValueError: xxx") and error.endswith("…")
    text = str(record.observed.traceback)
    assert len(text) <= TRACEBACK_CUT and text.startswith("Traceback (most recent call last):")
    assert '    raise ValueError("x" * 5_000_000)\nValueError: xxx' in text
    assert text.endswith("x…\n")


def test_groups_nested_past_what_a_traceback_shows_are_named_by_the_deepest_one_shown() -> None:
    error: BaseException = ValueError("at the bottom")
    for level in range(1000):
        error = ExceptionGroup(f"level {level}", [error])

    def agent(session: unsolvable.Session) -> None:
        raise error

    record = unsolvable.run(agent, b.scenario())
    assert record.outcome is Outcome.CRASHED
    assert str(record.observed.error).startswith(
        "ExceptionGroup: level 999 (1 sub-exception): ExceptionGroup: level 989 (1 sub-exception)"
    )
    assert "... (max_group_depth is 10)" in str(record.observed.traceback)


def test_a_python_file_in_a_runs_output_is_named_as_a_traceback_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Relative to the working directory or the deepest ``sys.path`` entry that holds it,
    wherever a line names it: a warning, a log line (``%(pathname)s``), a printed ``__file__``,
    an ``exec:`` agent's traceback. A file that is no Python source, one beside a root that only
    starts with the same letters, or a root's name inside a longer path, stays."""
    packages = tmp_path / "venv" / "site-packages"
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(packages))
    text = (
        f"{tmp_path}/agent.py:9: UserWarning: going away\n  warnings.warn(x)\n"
        f"{packages}/pkg/mod.py:3: PydanticDeprecatedSince20: old\n"
        f"INFO {tmp_path}/agent.py:12 step 1\nloaded from {tmp_path}/agent.py.\n"
        f'  File "{packages}/pkg/mod.py", line 3, in f\n'
        f"{tmp_path}/q3.md {tmp_path}/agent.pyc {tmp_path}-old/agent.py /x{tmp_path}/agent.py\n"
    )
    assert relative_files(text) == (
        "agent.py:9: UserWarning: going away\n  warnings.warn(x)\n"
        "pkg/mod.py:3: PydanticDeprecatedSince20: old\n"
        "INFO agent.py:12 step 1\nloaded from agent.py.\n"
        '  File "pkg/mod.py", line 3, in f\n'
        f"{tmp_path}/q3.md {tmp_path}/agent.pyc {tmp_path}-old/agent.py /x{tmp_path}/agent.py\n"
    )


def test_a_runs_output_keeps_the_same_end_however_deep_its_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its files are named relative before it is cut, from as far back as that takes: the end a
    record keeps is the same from a checkout whose path is long beside the lines that name it."""
    ends = []
    for checkout in (tmp_path / "ci", tmp_path / "home" / ("deep" * 60)):
        checkout.mkdir(parents=True)
        monkeypatch.chdir(checkout)
        lines = "".join(f"{checkout}/agent.py:{line}\n" for line in range(1000))
        with tempfile.TemporaryFile() as sink:
            sink.write(lines.encode())
            ends.append(output_end(sink))
    assert ends[0] == ends[1] and len(ends[0]) == OUTPUT_CUT
    assert ends[0].endswith("\nagent.py:998\nagent.py:999\n")


def test_each_hint_points_at_the_page_that_says_what_to_do() -> None:
    """A crash's hint points at what the session's calls raise, a stop's at the verdict rules,
    never at the plugin's page, which says neither."""
    crashed = verdict_message(unsolvable.run(crashing_agent.agent, b.scenario()))
    stopped = verdict_message(unsolvable.run("naive", scenarios.get("constant-return/repeat")))
    assert crashed.splitlines()[-1].endswith(
        "docs/plain-face.md#put-your-agent-under-test-the-plain-python-face"
    )
    assert stopped.splitlines()[-1].endswith("docs/scenarios.md#the-verdict-rules")
