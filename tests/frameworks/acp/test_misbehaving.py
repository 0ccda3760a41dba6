"""The ACP face's editor against agents that misbehave as real ones do, run as real child
processes: methods the editor never offered, a flood of updates, a permission asked in a
cancelled turn or with no option to reject it, a connection that ends mid-turn. Each run ends,
is recorded, and says what happened."""

from __future__ import annotations

import shlex
import sys
import tracemalloc
from pathlib import Path

import pytest

pytest.importorskip("acp")
pytest.importorskip("mcp")
pytest.importorskip("openai")

import unsolvable
from tests.frameworks._glue import CHILD_CEILINGS, CHILD_SECONDS, account
from unsolvable import Ceilings, Code, Outcome, scenarios
from unsolvable.adapters import _editor
from unsolvable.adapters._editor_client import SAID_KEPT

HERE = Path(__file__).parent
RAW = f"acp:{shlex.quote(sys.executable)} {HERE / 'raw_agent.py'}"
AGENT = f"acp:{shlex.quote(sys.executable)} {HERE / 'acp_agent.py'}"
REPEAT = scenarios.get("constant-return/repeat")
TORRENT = 200
"""Message chunks of a megabyte in a torrent."""
FLOOD = 150_000
"""Message chunks in a flood: read in a few seconds, where joining the message at every chunk
took minutes (quadratic: 40,000 took 6 s)."""


def test_terminal_methods_the_editor_never_offered_are_not_found() -> None:
    """The editor offers no terminal (nor file system): an agent that asks anyway gets "method
    not found" (-32601) for both, never an empty success."""
    record = unsolvable.run(f"{RAW} terminal", REPEAT, ceilings=CHILD_CEILINGS)
    assert (record.outcome, record.code) == (Outcome.STOPPED, Code.NEEDS_HUMAN), account(record)


def test_a_flood_of_message_chunks_is_read_within_the_ceiling() -> None:
    record = unsolvable.run(f"{RAW} flood {FLOOD}", REPEAT, ceilings=CHILD_CEILINGS)
    assert (record.outcome, record.code) == (Outcome.STOPPED, Code.NEEDS_HUMAN), account(record)
    assert record.reported.reason.endswith("said: " + "x" * 160)


def test_message_chunks_of_megabytes_are_not_held_in_memory() -> None:
    """The editor keeps the start of the agent's message, all a record shows of it: 200 chunks
    of a megabyte were held whole, 200 MB of the harness's memory."""
    tracemalloc.start()
    try:
        record = unsolvable.run(f"{RAW} torrent {TORRENT}", REPEAT, ceilings=CHILD_CEILINGS)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert record.reported.reason.endswith("said: " + "x" * SAID_KEPT), account(record)
    assert peak < TORRENT * 1024 * 1024 / 2, f"the harness held {peak:,} bytes"


def test_a_permission_asked_in_a_cancelled_turn_is_answered_cancelled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ACP: once the editor has sent ``session/cancel`` it answers every permission request
    with the ``cancelled`` outcome; granting it would let the agent call on after the run."""
    monkeypatch.setattr(_editor, "CANCEL_SECONDS", CHILD_SECONDS)
    marker = tmp_path / "cancelled"
    ceilings = Ceilings(max_steps=4, max_wall_seconds=CHILD_SECONDS)
    record = unsolvable.run(f"{AGENT} asking {marker}", REPEAT, ceilings=ceilings)
    assert (record.outcome, record.observed.ceiling) == (Outcome.DID_NOT_STOP, "steps")
    assert (tmp_path / "cancelled.asked").read_text() == "cancelled", account(record)


def test_a_permission_it_cannot_reject_is_refused_by_cancelling_the_turn(tmp_path: Path) -> None:
    """ACP has no "rejected" outcome: ``cancelled`` says the turn was cancelled. Asked for a
    call the run lacks the permission for with no reject option offered, the editor cancels the
    turn (the agent hears ``session/cancel``) and answers ``cancelled``; the run is crashed,
    saying why, never read as a blocker the agent named."""
    marker = tmp_path / "cancelled"
    refused = scenarios.get("missing-permission/retry-403")
    record = unsolvable.run(f"{AGENT} allow-only {marker}", refused, ceilings=CHILD_CEILINGS)
    assert marker.read_text() == "cancelled", account(record)
    assert record.outcome is Outcome.CRASHED, account(record)
    assert "offered no option to reject it" in record.observed.error
    assert "(the agent answered stop reason 'cancelled')" in record.observed.error


@pytest.mark.parametrize(
    ("mode", "said"),
    [
        ("exit", "it exited with status 3 before it answered session/prompt"),
        ("close", "it closed its stdout before it answered session/prompt"),
    ],
)
def test_a_connection_ended_mid_turn_is_a_crash_that_says_how(mode: str, said: str) -> None:
    record = unsolvable.run(f"{RAW} {mode}", REPEAT, ceilings=CHILD_CEILINGS)
    assert record.outcome is Outcome.CRASHED, account(record)
    assert said in record.observed.error


def test_updates_of_a_kind_the_editor_cannot_read_are_ignored_and_said_once(
    capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    """ACP lets an editor ignore an update it does not know (a newer agent's): the turn goes
    on, and the harness says so in one line, not in a logged traceback per update."""
    record = unsolvable.run(f"{RAW} unknown 100", REPEAT, ceilings=CHILD_CEILINGS)
    assert (record.outcome, record.code) == (Outcome.STOPPED, Code.NEEDS_HUMAN), account(record)
    assert record.reported.reason.endswith("said: read after them")
    assert capsys.readouterr().err.count("session/update of kind 'made_up_kind'") == 1
    assert not [entry.getMessage() for entry in caplog.records if entry.levelname == "ERROR"]


def test_lines_on_its_stdout_that_are_no_message_are_ignored_and_said_once(
    capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    """A debug print, a JSON array (a batch, which ACP has not) or a bare value on the agent's
    stdout is no message: an editor ignores it, and the turn goes on. A JSON array ended the
    SDK's reading, and the run was recorded as the agent closing its stdout, which it never
    did; a text line was logged with a traceback each time."""
    record = unsolvable.run(f"{RAW} noise", REPEAT, ceilings=CHILD_CEILINGS)
    assert (record.outcome, record.code) == (Outcome.STOPPED, Code.NEEDS_HUMAN), account(record)
    assert capsys.readouterr().err.count("no JSON-RPC message") == 1
    assert not [entry.getMessage() for entry in caplog.records if entry.levelname == "ERROR"]


def test_an_agent_on_a_protocol_version_the_editor_does_not_speak_is_refused() -> None:
    """ACP: an editor that does not speak the version the agent answers ``initialize`` with
    disconnects and tells the user; no turn is run on a protocol neither side shares."""
    record = unsolvable.run(f"{RAW} version", REPEAT, ceilings=CHILD_CEILINGS)
    assert record.outcome is Outcome.CRASHED, account(record)
    assert "initialize with protocol version 99" in record.observed.error


def test_an_agent_that_never_answers_initialize_is_said_to_at_the_ceiling(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The run did not stop, but the agent never began the task: the harness says which
    request went unanswered, and why that happens, where the record's output keeps it."""
    ceilings = Ceilings(max_wall_seconds=CHILD_SECONDS / 20)  # past a raw agent's start-up
    record = unsolvable.run(f"{RAW} mute", REPEAT, ceilings=ceilings)
    assert (record.outcome, record.observed.ceiling) == (Outcome.DID_NOT_STOP, "wall_seconds")
    assert "the ACP agent never answered initialize" in capsys.readouterr().err


def test_an_agent_that_never_answers_session_new_is_said_to_sign_in_at_the_ceiling(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """In its ACP mode, the agent answered ``initialize``: the line names what keeps an agent
    from ``session/new`` (Gemini CLI signing in to the Google account its settings select), not
    its ACP mode."""
    ceilings = Ceilings(max_wall_seconds=CHILD_SECONDS / 20)  # past a raw agent's start-up
    record = unsolvable.run(f"{RAW} signin", REPEAT, ceilings=ceilings)
    assert (record.outcome, record.observed.ceiling) == (Outcome.DID_NOT_STOP, "wall_seconds")
    said = capsys.readouterr().err
    assert "the ACP agent never answered session/new" in said
    assert "give it an empty HOME" in said and "--acp" not in said


def test_an_error_answer_to_the_prompt_is_a_crash_naming_the_request_and_the_error() -> None:
    record = unsolvable.run(f"{RAW} error", REPEAT, ceilings=CHILD_CEILINGS)
    assert record.outcome is Outcome.CRASHED, account(record)
    said = "it answered session/prompt with error -32603 'Internal error' ({'details': 'API 500'})"
    assert said in record.observed.error


@pytest.mark.parametrize(
    ("mode", "said"),
    [
        ("null", "initialize with result null; ACP's result for initialize is a JSON object"),
        ("list", 'session/new with result ["s-1"]; ACP\'s result for session/new is a JSON'),
        ("nameless", 'it answered session/new with {"session": "s-1"}, which has no sessionId'),
        ("reasonless", 'session/prompt with {"reason": "end_turn"}, which has no stopReason'),
    ],
)
def test_a_result_that_is_not_the_object_acp_gives_is_a_crash_naming_what_was_sent(
    mode: str, said: str
) -> None:
    """A null, a list, or an object without the member ACP requires, answered to a request of
    the handshake or to the prompt, is no turn that ran: the run is crashed, saying what the
    agent sent. It was recorded as a turn that ended with stop reason None, or crashed on a
    TypeError or KeyError of the editor's own."""
    record = unsolvable.run(f"{RAW} {mode}", REPEAT, ceilings=CHILD_CEILINGS)
    assert record.outcome is Outcome.CRASHED, account(record)
    assert said in record.observed.error, account(record)
    assert "stop reason None" not in record.observed.error


def test_a_long_result_is_shown_cut_saying_so() -> None:
    """What the agent sent is shown as far as an error keeps it (`_editor.SHOWN_CUT`), and the
    cut is marked: it was cut bare, as if the agent had sent only that much."""
    record = unsolvable.run(f"{RAW} wordy 100000", REPEAT, ceilings=CHILD_CEILINGS)
    shown = '{"session": "s-1", "notes": "xxx'
    assert shown in record.observed.error, account(record)
    assert "x…, which has no sessionId" in record.observed.error
    assert len(record.observed.error) < _editor.SHOWN_CUT * 3


def test_what_it_sends_of_a_session_the_editor_never_opened_is_not_the_turns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An update or a permission request of another session than the one ``session/new``
    answered is not this turn's (an editor such as Zed has no session of its id): the update is
    ignored, the request answered with an error and never made. The agent refused in its own
    session says a message in another: recorded as the refusal it is, where the other
    session's message was taken as the turn's last word, a false completion, and its
    permission request made as a second refused call."""
    marker = tmp_path / "stray"
    refused = scenarios.get("missing-permission/retry-403")
    record = unsolvable.run(f"{AGENT} stray {marker}", refused, ceilings=CHILD_CEILINGS)
    assert (record.code, record.observed.refusals) == (Code.BLOCKED_INPUT, {"denied": 1})
    assert record.observed.tool_calls == 1, account(record)
    assert (tmp_path / "stray.stray").read_text() == "error -32602\n"  # invalid params
    assert capsys.readouterr().err.count("of session 's-2', which the editor never opened") == 1


def test_an_update_that_comes_with_the_answer_to_session_new_is_the_turns(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """An agent may send its session's first update right behind its answer to
    ``session/new``, and an editor that reads late gets both at once: the update is of the
    session the editor opens, and was taken for another's when read before the answer was."""
    record = unsolvable.run(f"{RAW} early", REPEAT, ceilings=CHILD_CEILINGS)
    assert record.reported.reason == "acp stopReason refusal; said: ready", account(record)
    assert "never opened" not in capsys.readouterr().err


def test_a_refused_call_past_a_ceiling_cancels_the_turn_without_an_error_of_the_harness(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The refused call the editor makes on the agent's behalf may be the one a ceiling
    refuses (an agent that asks again after every refusal, as Codex does): the editor cancels
    the turn and answers ``cancelled``. The ceiling's exception ended the SDK's handling of the
    request instead, logged with a traceback, and the agent was never answered."""
    marker = tmp_path / "cancelled"
    ceilings = Ceilings(max_tool_calls=3, max_wall_seconds=CHILD_SECONDS)
    refused = scenarios.get("missing-permission/retry-403")
    record = unsolvable.run(f"{AGENT} insist {marker}", refused, ceilings=ceilings)
    assert (record.outcome, record.observed.ceiling) == (Outcome.DID_NOT_STOP, "tool_calls")
    assert record.observed.refusals == {"denied": 3}, account(record)
    assert marker.read_text() == "cancelled", account(record)
    assert not [entry.getMessage() for entry in caplog.records if entry.levelname == "ERROR"]
