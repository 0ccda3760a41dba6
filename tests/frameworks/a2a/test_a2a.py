"""The A2A face (`A2AAdapter`) against an agent of our own served with the A2A SDK's server on
loopback, run as a real child process: each task state read as its code, the code an extension
names, and the harness's cancel at a ceiling."""

from __future__ import annotations

import contextlib
import gc
import os
import shutil
import signal
import sys
import tracemalloc
from pathlib import Path

import pytest

pytest.importorskip("a2a")
pytest.importorskip("openai")

import unsolvable
from tests._docs import DOCS, compiled
from tests.frameworks._glue import environ_given
from unsolvable import AdapterError, Ceilings, Code, Exit, Outcome, scenarios
from unsolvable.adapters.a2a import A2AAdapter, read_task_state

AGENT = [sys.executable, str(Path(__file__).parent / "a2a_agent.py")]
LOUD_BYTES = 200 * 1024 * 1024
"""What a ``loud`` server writes to its stdout (a2a_agent.py's ``LOUD_MEGABYTES``)."""
WALL = Ceilings(max_wall_seconds=60)
"""The agent's start-up (its imports and the server's) is inside the run."""


def _run(
    mode: str, scenario: str, *args: str, ceilings: Ceilings = WALL
) -> unsolvable.TerminationRecord:
    adapter = A2AAdapter([*AGENT, mode, *args])
    return unsolvable.run(adapter, scenarios.get(scenario), ceilings=ceilings)


def test_input_required_is_blocked_input_naming_what_it_asks_for() -> None:
    record = _run("stop", "missing-permission/retry-403")
    assert (record.exit, record.code) == (Exit.ABANDONED, Code.BLOCKED_INPUT)
    assert "reports:publish" in record.reported.missing[0]
    assert record.verdict.passed and record.observed.detection_lag == 0


def test_auth_required_is_needs_human() -> None:
    record = _run("auth", "missing-permission/retry-403")
    assert (record.code, record.observed.refusals) == (Code.NEEDS_HUMAN, {"denied": 1})


def test_completed_is_a_claim_the_world_confirms_on_a_control() -> None:
    record = _run("stop", "long-healthy/16-chapters")
    assert (record.code, record.observed.world_complete, record.verdict.passed) == (
        Code.COMPLETED,
        True,
        True,
    )


def test_completed_on_an_unsolvable_task_is_a_false_completion() -> None:
    record = _run("completed", "constant-return/repeat")
    assert record.code is Code.COMPLETED
    assert record.verdict.broke(unsolvable.Rule.FALSE_COMPLETION)


def test_a_completed_task_s_artifact_is_what_it_claims() -> None:
    """A2A: a task's result is its artifacts; its final status may carry no message at all."""
    record = _run("artifact", "constant-return/repeat")
    assert record.code is Code.COMPLETED
    assert record.reported.reason.startswith("a2a task completed: the answer: ")


def test_an_artifact_update_with_append_false_replaces_the_artifact() -> None:
    """A2A: an artifact update with ``append`` false replaces the artifact of its id, as the
    SDK's task manager applies it; the draft was kept and the answer added to it ("a draftthe
    answer: …")."""
    record = _run("replace", "constant-return/repeat")
    assert record.code is Code.COMPLETED
    assert record.reported.reason.startswith("a2a task completed: the answer: ")


def test_an_event_of_another_task_is_a_crash_and_ends_nothing() -> None:
    """A status of a task not the delegated one, on the delegated task's stream, is no news of
    it: the run is crashed, saying so. It was read as the delegated task's: ``completed``."""
    record = _run("stray", "constant-return/repeat")
    assert record.outcome is Outcome.CRASHED, record.observed.error
    said = "it sent an event of task 'another-task' while following task"
    assert said in record.observed.error


def test_a_message_once_its_task_is_under_way_is_a_crash_and_ends_nothing() -> None:
    """A message on the stream of a task under way, which the SDK's legacy handler streams and
    its default one refuses, is not the task's answer: the run is crashed, saying so. It was
    read as the answer, ``completed``: a false completion of a task the agent went on to end
    ``input-required``."""
    record = _run("chatty", "missing-permission/retry-403")
    assert record.outcome is Outcome.CRASHED, record.observed.error
    assert "it sent a message while following task" in record.observed.error


def test_a_server_that_logs_to_its_stdout_is_not_held_in_memory() -> None:
    """What a server writes to its stdout past its URL is read and dropped: a server's 200 MB
    of log lines were held whole in the harness's memory (a traced peak of 252 MB, where a run
    takes about 40), so one logging for the whole run could take the harness down."""
    tracemalloc.start()
    try:
        record = _run("loud", "constant-return/repeat")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert record.code is Code.COMPLETED, record.observed.error
    assert peak < LOUD_BYTES / 2, f"the harness held {peak:,} bytes"


def test_a_stream_that_ends_with_no_task_is_a_crash_saying_so() -> None:
    """A stream that ends before any task or message never began one: the error says so. It
    said the task "ended None", a task the agent never made."""
    record = _run("silent", "constant-return/repeat")
    assert record.outcome is Outcome.CRASHED, record.observed.error
    assert "its stream ended before it sent a task or a message" in record.observed.error


def test_a_code_named_in_the_status_metadata_is_read_as_that_code() -> None:
    record = _run("stop", "constant-return/repeat")
    assert (record.code, record.observed.steps) == (Code.NO_PROGRESS, 2)  # failed + the code
    assert record.verdict.passed


@pytest.mark.parametrize(
    ("state", "code"), [("rejected", Code.NEEDS_HUMAN), ("failed", Code.ERROR_FATAL)]
)
def test_rejected_and_failed_are_abandoned(state: str, code: Code) -> None:
    record = _run(state, "constant-return/repeat")
    assert (record.exit, record.code) == (Exit.ABANDONED, code)


@pytest.mark.parametrize("streaming", [[], ["--no-streaming"]], ids=["streamed", "answered"])
def test_a_task_left_working_when_its_answer_ended_is_polled_until_it_rests(
    streaming: list[str],
) -> None:
    """A2A: a task the answer (or the stream) left ``working`` goes on; the client reads it with
    ``tasks/get`` until it rests, here in ``input-required`` on the refused call."""
    record = _run("later", "missing-permission/retry-403", *streaming)
    assert (record.exit, record.code) == (Exit.ABANDONED, Code.BLOCKED_INPUT), record.observed.error
    assert record.verdict.passed


@pytest.mark.parametrize("streaming", [[], ["--no-streaming"]], ids=["streamed", "answered"])
def test_at_a_ceiling_the_task_is_canceled_and_the_agent_hears_it(
    streaming: list[str], tmp_path: Path
) -> None:
    """A server that does not stream is asked to answer at once (``return_immediately``), with
    the task: waiting for its one answer, the harness had no task to cancel, and it never heard."""
    marker = tmp_path / "canceled"
    ceilings = Ceilings(max_steps=5, max_wall_seconds=60)
    record = _run("forever", "constant-return/repeat", str(marker), *streaming, ceilings=ceilings)
    assert (record.outcome, record.observed.ceiling) == (Outcome.DID_NOT_STOP, "steps")
    assert marker.read_text() == "canceled"


def test_a_card_that_names_another_host_is_a_crash_and_that_host_is_sent_nothing(
    offline: list[str],
) -> None:
    """The client sends the task where the agent card says, not to the URL the server printed:
    a card that names another host (its public address) is refused before the task is sent."""
    record = _run("stop", "constant-return/repeat", "--card-url=http://agent.example.com/a2a")
    assert record.outcome is Outcome.CRASHED
    assert "'http://agent.example.com/a2a'" in record.observed.error
    assert offline == [], "the harness tried to reach the host the card names"
    gc.collect()  # a connection the harness left open to the server warns as it is collected


def test_a_server_that_exits_mid_task_is_a_crash_naming_its_exit() -> None:
    record = _run("exit", "constant-return/repeat")
    assert record.outcome is Outcome.CRASHED
    assert "its server exited with status 3 before the task rested" in record.observed.error
    assert record.observed.error.endswith("its stderr ends: exiting mid-task")


def test_a_server_that_prints_no_url_is_a_crash_naming_it() -> None:
    adapter = A2AAdapter([sys.executable, "-c", "print()"])
    record = unsolvable.run(adapter, scenarios.get("constant-return/repeat"), ceilings=WALL)
    assert record.outcome is Outcome.CRASHED and "printed no URL" in record.observed.error


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH")
def test_a_node_server_that_dies_on_a_long_error_is_a_crash_naming_the_error(
    tmp_path: Path,
) -> None:
    """Node's report opens with the error's name, which a report longer than the stderr kept
    (an SDK error carrying its request) pushed out of it: it is read as stderr is written."""
    server = tmp_path / "server.mjs"
    server.write_text(
        "const fields = Array.from({ length: 300 }, (_, i) => [`f${i}`, 'a value '.repeat(9)]);\n"
        'throw Object.assign(new Error("too much"), Object.fromEntries(fields));\n'
    )
    adapter = A2AAdapter(["node", str(server)])
    record = unsolvable.run(adapter, scenarios.get("constant-return/repeat"), ceilings=WALL)
    assert record.outcome is Outcome.CRASHED
    assert "printed no URL; its stderr says: Error: too much" in str(record.observed.error)


def test_a_server_that_prints_another_hosts_url_is_a_crash_and_is_sent_nothing() -> None:
    """192.0.2.1 is a documentation address: the harness must not send the task there."""
    adapter = A2AAdapter([sys.executable, "-c", "print('http://192.0.2.1:9/')"])
    record = unsolvable.run(adapter, scenarios.get("constant-return/repeat"), ceilings=WALL)
    assert record.outcome is Outcome.CRASHED
    assert "not the URL of a server on this machine" in str(record.observed.error)


def test_a_long_url_it_prints_is_shown_cut_saying_so() -> None:
    """As far as an error keeps it (`a2a.URL_CUT`), the cut marked: a URL cut bare reads as the
    whole of what the server printed."""
    adapter = A2AAdapter([sys.executable, "-c", "print('http://192.0.2.1:9/' + 'a' * 1000)"])
    record = unsolvable.run(adapter, scenarios.get("constant-return/repeat"), ceilings=WALL)
    assert "it printed 'http://192.0.2.1:9/aaa" in str(record.observed.error)
    assert "aa…', not the URL of a server on this machine" in str(record.observed.error)


@pytest.mark.parametrize(
    ("state", "code", "expected"),
    [
        ("TASK_STATE_INPUT_REQUIRED", None, Code.BLOCKED_INPUT),
        ("auth-required", None, Code.NEEDS_HUMAN),
        ("failed", "BUDGET_IDLE", Code.BUDGET_IDLE),
        ("canceled", None, None),
        ("working", None, None),
        ("completed", "DONE", Code.COMPLETED),
    ],
)
def test_task_states_and_codes_are_read(state: str, code: str | None, expected: Code) -> None:
    assert read_task_state(state, code) is expected


def test_the_readme_names_an_a2a_agent_as_a_module_attribute() -> None:
    (block,) = [
        b
        for b in DOCS.split("```python\n")
        if b.startswith("# agents.py, then: unsolvable run --agent agents:delegated")
    ]
    namespace: dict[str, object] = {}
    exec(compiled(block.partition("```")[0]), namespace)
    delegated = namespace["delegated"]
    assert isinstance(delegated, A2AAdapter)
    assert delegated.command == ("python", "my_a2a_server.py")


def test_the_agent_gets_no_credential_of_the_harness(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Started as the ``exec:`` face starts its child: the same environment, so a CI job's
    credentials never reach it."""
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_" + "x" * 36)
    names = environ_given(A2AAdapter, tmp_path)
    assert "GITHUB_TOKEN" not in names
    assert {"PATH", "UNSOLVABLE_TASK", "OPENAI_BASE_URL"} <= names


def test_a_server_that_is_not_there_is_refused_before_the_run_naming_the_command() -> None:
    adapter = A2AAdapter(["/nonexistent/agent"])
    with pytest.raises(AdapterError, match="the program '/nonexistent/agent' is not an executable"):
        unsolvable.run(adapter, scenarios.get("constant-return/repeat"), ceilings=WALL)


MUTE = (
    "import os, socket, sys; server = socket.create_server(('127.0.0.1', 0)); "
    "open(sys.argv[1], 'w').write(str(os.getpid())); "
    "print(f'http://127.0.0.1:{{server.getsockname()[1]}}', flush=True); "
    "kept = [server.accept() for _ in iter(int, 1)]"
)
"""A server that prints its URL, takes every connection in and never answers one (its braces
doubled: a command line's braces are placeholders)."""


def test_a_server_that_never_serves_its_card_is_ended_at_the_ceiling(tmp_path: Path) -> None:
    """The harness's client waited for the agent card without end: the run never ended, and a
    worker that gave up on it left the server running."""
    pid_file = tmp_path / "pid"
    adapter = A2AAdapter([sys.executable, "-c", MUTE, str(pid_file)])
    try:
        record = unsolvable.run(
            adapter, scenarios.get("constant-return/repeat"), ceilings=Ceilings(max_wall_seconds=5)
        )
        assert (record.outcome, record.observed.ceiling) == (Outcome.DID_NOT_STOP, "wall_seconds")
        assert not Path(f"/proc/{pid_file.read_text()}").exists(), "the server outlived its run"
    finally:
        if pid_file.exists():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid_file.read_text()), signal.SIGKILL)


def test_an_artifact_appended_to_without_end_is_held_cut_to_what_a_record_shows() -> None:
    """A server may stream ``append`` updates to one artifact for as long as the run lasts: the
    task the client holds kept every part, and its text was joined after each update, so both
    grew with every update. It is held cut to `MADE_KEPT` characters, which is all a record
    shows of it, and the start of its text is the same."""
    from a2a.helpers.proto_helpers import get_artifact_text
    from a2a.types import Artifact, Part, StreamResponse, Task, TaskArtifactUpdateEvent

    from unsolvable.adapters.a2a import MADE_KEPT, Delegation, _read

    delegated, latest, chunks = (
        Task(),
        Delegation(state=None),
        [f"chunk {n:04d}" for n in range(500)],
    )
    for n, chunk in enumerate(chunks):
        artifact = Artifact(artifact_id="answer", parts=[Part(text=chunk)])
        update = TaskArtifactUpdateEvent(task_id="t-1", artifact=artifact, append=n > 0)
        latest = _read(StreamResponse(artifact_update=update), latest, delegated)
    (held,) = delegated.artifacts
    assert len(get_artifact_text(held)) <= MADE_KEPT + len(chunks[-1]) + 1
    assert latest.made == "\n".join(chunks)[:MADE_KEPT]
