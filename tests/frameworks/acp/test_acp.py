"""The ACP face (``acp:COMMAND``) against an ACP agent of our own, written with the ACP SDK and
run as a real child process: the handshake, the tools over MCP, permissions refused and granted
from the scenario, ``session/cancel`` at a ceiling, and each stop reason read."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("acp")
pytest.importorskip("mcp")
pytest.importorskip("openai")

import unsolvable
from tests.frameworks._glue import CHILD_SECONDS, account, environ_given
from unsolvable import AdapterError, Ceilings, Code, Exit, Outcome, scenarios
from unsolvable.adapters import _editor
from unsolvable.adapters.acp import AcpAdapter, read_stop_reason

HERE = Path(__file__).parent
AGENT = f"acp:{shlex.quote(sys.executable)} {HERE / 'acp_agent.py'}"
WALL = Ceilings(max_wall_seconds=60)
REPEAT = "constant-return/repeat"
"""The MCP server's start-up (seconds on a loaded 2-core machine) is inside the run."""


def test_its_own_stop_reason_names_the_code_and_the_tools_were_granted() -> None:
    record = unsolvable.run(f"{AGENT} stop", scenarios.get(REPEAT), ceilings=WALL)
    assert (record.exit, record.code) == (Exit.ABANDONED, Code.NO_PROGRESS)
    assert "_no_progress" in record.reported.reason
    assert record.observed.tool_calls == 1  # granted, then made over MCP: counted once
    assert record.verdict.passed


def test_a_refused_permission_is_the_refused_call_and_ends_in_blocked_input() -> None:
    scenario = scenarios.get("missing-permission/retry-403")
    record = unsolvable.run(f"{AGENT} stop", scenario, ceilings=WALL)
    assert (record.code, record.reported.missing) == (Code.BLOCKED_INPUT, ("reports:publish",))
    assert record.observed.refusals == {"denied": 1}
    assert record.observed.first_stagnant_step == record.observed.steps == 1
    assert '"status": 403' in record.observed.trajectory[0].tools[0].result


def test_a_permission_the_scenario_grants_is_granted() -> None:
    scenario = scenarios.get("missing-permission/twin-other-route")
    record = unsolvable.run(f"{AGENT} stop", scenario, seed=0, ceilings=WALL)
    names = [tool.name for step in record.observed.trajectory for tool in step.tools]
    assert names == ["publish_report"]  # refused; the route the twin allows is never reached
    assert record.code is Code.BLOCKED_INPUT  # a stop on the first denial: the twin's false stop
    assert not record.verdict.passed


@pytest.mark.parametrize(
    ("ceiling", "mode", "ceilings"),
    [
        # Either ceiling well past the agent's start-up, so that the turn is under way when it
        # comes (a ceiling during the handshake leaves no turn to cancel). The hanging agent
        # waits from the start of its turn, so only the clock ends it; the assertion says
        # whether the turn had begun and how the run ended.
        ("steps", "forever", Ceilings(max_steps=4, max_wall_seconds=60)),
        ("wall_seconds", "hang", WALL),
    ],
)
def test_at_a_ceiling_the_editor_cancels_and_the_agent_hears_it(
    tmp_path: Path, ceiling: str, mode: str, ceilings: Ceilings, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An agent that honours the cancel answers at once; the time it is given before it is killed
    # is made long here so that a process woken on a loaded machine is not what the test times.
    monkeypatch.setattr(_editor, "CANCEL_SECONDS", CHILD_SECONDS)
    marker = tmp_path / "cancelled"
    spec = f"{AGENT} {mode} {marker}"
    record = unsolvable.run(spec, scenarios.get(REPEAT), ceilings=ceilings)
    ending = account(record)
    assert (record.outcome, record.observed.ceiling) == (Outcome.DID_NOT_STOP, ceiling), ending
    heard = marker.read_text() if marker.exists() else ""
    when = {"": "the ceiling came before its turn began", "turn": "its turn was under way"}
    assert heard == "cancelled", f"it never heard session/cancel ({when.get(heard)}): {ending}"


def test_at_the_wall_ceiling_the_agents_stderr_is_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Passed on to the harness's stderr, which a worker keeps as the record's ``output``,
    however the run ended: at the wall ceiling, the watchdog's interruption once dropped it."""
    marker = tmp_path / "cancelled"
    ceilings = Ceilings(max_wall_seconds=CHILD_SECONDS / 2)  # past the agent's start-up
    record = unsolvable.run(f"{AGENT} hang {marker}", scenarios.get(REPEAT), ceilings=ceilings)
    assert (record.outcome, record.observed.ceiling) == (Outcome.DID_NOT_STOP, "wall_seconds")
    assert marker.read_text() == "cancelled", "the ceiling came before its turn began"
    assert "hanging until cancelled" in capsys.readouterr().err


def test_an_agent_deaf_to_the_cancel_is_killed_after_its_grace_and_the_run_recorded(
    tmp_path: Path,
) -> None:
    """At the product's own grace (`_editor.CANCEL_SECONDS`, seconds): the cancel is sent,
    never answered, and the agent's process is ended then, long before the wall ceiling would
    have ended it."""
    marker = tmp_path / "cancelled"
    spec = f"{AGENT} deaf {marker}"
    ceilings = Ceilings(max_steps=4, max_wall_seconds=CHILD_SECONDS)
    try:
        record = unsolvable.run(spec, scenarios.get(REPEAT), ceilings=ceilings)
        ending = account(record)
        assert (record.outcome, record.observed.ceiling) == (Outcome.DID_NOT_STOP, "steps"), ending
        assert record.observed.steps == 4
        assert record.wall_seconds < CHILD_SECONDS, f"only the wall ceiling ended it: {ending}"
        assert marker.read_text() == "cancelled", f"it never heard session/cancel: {ending}"
        pid = int((tmp_path / "cancelled.pid").read_text())
        assert not Path(f"/proc/{pid}").exists(), "the agent outlived its run"
    finally:
        if (tmp_path / "cancelled.pid").exists():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int((tmp_path / "cancelled.pid").read_text()), signal.SIGKILL)


@pytest.mark.parametrize(
    ("reason", "code"),
    [
        ("end_turn", Code.COMPLETED),
        ("max_turn_requests", Code.BUDGET_STEPS),
        ("max_tokens", Code.BUDGET_COST),
        ("refusal", Code.NEEDS_HUMAN),
        ("_budget_idle", Code.BUDGET_IDLE),
        ("_blocked_input", Code.BLOCKED_INPUT),
    ],
)
def test_each_stop_reason_is_read_as_its_code(reason: str, code: Code) -> None:
    record = unsolvable.run(f"{AGENT} {reason}", scenarios.get(REPEAT), ceilings=WALL)
    assert (record.outcome, record.code, record.observed.steps) == (Outcome.STOPPED, code, 1)


def test_end_turn_is_a_claim_the_verdict_checks() -> None:
    record = unsolvable.run(f"{AGENT} end_turn", scenarios.get(REPEAT), ceilings=WALL)
    assert record.exit is Exit.COMPLETE and not record.verdict.passed  # a false completion


@pytest.mark.parametrize("reason", ["_made_up", "cancelled"])
def test_a_stop_reason_the_vocabulary_does_not_read_is_a_crash_naming_it(reason: str) -> None:
    record = unsolvable.run(f"{AGENT} {reason}", scenarios.get(REPEAT), ceilings=WALL)
    assert record.outcome is Outcome.CRASHED  # cancelled: the editor never cancelled
    assert f"stop reason {reason!r}" in record.observed.error


@pytest.mark.parametrize(
    ("value", "code"),
    [
        ("_no_progress", Code.NO_PROGRESS),
        ("_needs_human", Code.NEEDS_HUMAN),
        ("cancelled", None),
        ("_progress", None),
        ("other", None),
    ],
)
def test_custom_stop_reasons_are_read_only_when_they_name_a_code(value: str, code: Code) -> None:
    assert read_stop_reason(value) is code


def test_an_agent_that_is_not_there_is_refused_before_the_run_naming_the_command() -> None:
    with pytest.raises(AdapterError, match="the program '/nonexistent/agent' is not an executable"):
        unsolvable.run(AcpAdapter(["/nonexistent/agent"]), scenarios.get(REPEAT))


def test_the_command_line_runs_it_by_its_spec(tmp_path: Path) -> None:
    out = tmp_path / "records.json"
    command = ["unsolvable", "run", "--agent", f"{AGENT} stop", "--ceiling-seconds", "60"]
    command += ["--scenario", "missing-permission/retry-403", "--json", str(out)]
    cli = [sys.executable, "-m", "unsolvable.cli", *command[1:]]
    finished = subprocess.run(cli, timeout=120, check=False)
    assert finished.returncode == 0
    (record,) = json.loads(out.read_text())["records"]
    assert record["reported"]["code"] == "BLOCKED_INPUT"


def test_the_agent_gets_no_credential_of_the_harness(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Started as the ``exec:`` face starts its child: the same environment, so a CI job's
    credentials never reach it."""
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_" + "x" * 36)
    names = environ_given(AcpAdapter, tmp_path)
    assert "GITHUB_TOKEN" not in names
    assert {"PATH", "UNSOLVABLE_TASK", "OPENAI_BASE_URL"} <= names
