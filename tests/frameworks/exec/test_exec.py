"""Agents in other processes and languages (``exec:COMMAND``), run as real child processes on the
loopback wire: their stops, the harness's counts beside their own, crashes, hangs and the CLI."""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("openai")

import unsolvable
from tests._docs import DOCS, compiled
from tests._gone import survivors
from tests.frameworks._glue import model_calls, recording
from unsolvable import Ceilings, Code, Outcome, Session, scenarios
from unsolvable.adapters.process import (
    STOP_DEPTH,
    STOP_LINE_LIMIT,
    TOO_DEEP,
    TOO_LONG,
    ProcessAdapter,
)
from unsolvable.plugin._options import AGENT_OPTION, NO_SNAPSHOT_OPTION, SCENARIO_OPTION
from unsolvable.wire import Wire

HERE = Path(__file__).parent
PYTHON = shlex.quote(sys.executable)
HANG_WALL = Ceilings(max_wall_seconds=5.0)
"""The hanging child writes its group's id as it starts, before the wall ceiling kills it: a
second or two for its interpreter on a loaded machine, so this leaves it room."""


def _can_unshare() -> bool:
    try:
        return subprocess.run(["unshare", "-rn", "true"], capture_output=True).returncode == 0
    except OSError:
        return False


NEEDS_UNSHARE = pytest.mark.skipif(not _can_unshare(), reason="needs unshare -rn (Linux)")


def python(code: str, *args: str) -> str:
    """``exec:`` running ``code`` here; its braces are placeholders, ``{{`` is a brace."""
    return f"exec:{PYTHON} -c {shlex.quote(code)} {shlex.join(args)}"


@pytest.mark.parametrize(
    ("scenario", "code"),
    [
        ("constant-return/repeat", Code.NO_PROGRESS),
        ("missing-permission/retry-403", Code.BLOCKED_INPUT),
    ],
)
def test_an_openai_sdk_agent_stops_and_is_counted_as_it_counts_itself(
    scenario: str, code: Code, capsys: pytest.CaptureFixture[str]
) -> None:
    record = unsolvable.run(
        f"exec:{PYTHON} {HERE / 'sdk_agent.py'} {{task}}", scenarios.get(scenario)
    )
    own = json.loads(capsys.readouterr().err.strip().splitlines()[-1])
    assert (record.code, record.verdict.passed) == (code, True)
    assert own == {"steps": record.observed.steps, "tool_calls": record.observed.tool_calls}


def _by_hand(session: Session) -> dict[str, object]:
    """The SDK agent run as a child without the adapter: the wire served, the environment set."""
    with Wire(session) as wire, wire.serve() as server:
        budget, tools = json.dumps(session.budget.to_dict()), json.dumps(session.openai_tools)
        own = {"UNSOLVABLE_BUDGET": budget, "UNSOLVABLE_TOOLS": tools}
        child = subprocess.run(
            [sys.executable, str(HERE / "sdk_agent.py"), session.task],
            env={**os.environ, **server.environ(), **own},
            capture_output=True,
            text=True,
            timeout=60,
        )
    return dict(json.loads(child.stdout.splitlines()[-1]))


@pytest.mark.parametrize("name", ["constant-return/repeat", "missing-permission/retry-403"])
def test_exec_runs_an_agent_as_a_hand_made_child_does(name: str) -> None:
    scenario, via_exec = recording(name)
    first = unsolvable.run(f"exec:{PYTHON} {HERE / 'sdk_agent.py'} {{task}}", scenario)
    scenario, by_hand = recording(name)
    second = unsolvable.run(_by_hand, scenario)
    assert model_calls(via_exec) == model_calls(by_hand)
    assert (first.outcome, first.code, first.observed.steps) == (
        second.outcome,
        second.code,
        second.observed.steps,
    )


@pytest.mark.skipif(not (shutil.which("curl") and shutil.which("jq")), reason="needs curl and jq")
def test_a_shell_script_with_curl_stops_on_no_progress() -> None:
    record = unsolvable.run(f"exec:sh {HERE / 'agent.sh'}", scenarios.get("constant-return/repeat"))
    assert (record.code, record.observed.steps, record.observed.tool_calls) == (
        Code.NO_PROGRESS,
        2,
        2,
    )


def test_the_readme_shows_the_shell_agent_as_it_is_tested() -> None:
    assert f"```sh\n{(HERE / 'agent.sh').read_text()}```" in DOCS


def test_the_readmes_isolated_adapter_is_an_isolated_process_adapter() -> None:
    block = "# agents.py" + DOCS.partition("```python\n# agents.py")[2].partition("```")[0]
    namespace: dict[str, object] = {}
    exec(compiled(block), namespace)
    adapter = namespace["isolated"]
    assert isinstance(adapter, ProcessAdapter) and adapter.isolate_network


def test_a_non_zero_status_without_a_structured_exit_is_a_crash_naming_it() -> None:
    record = unsolvable.run(
        python("import sys; sys.exit('out of ideas')"), scenarios.get("constant-return/repeat")
    )
    assert record.outcome is Outcome.CRASHED
    assert "exited with status 1" in str(record.observed.error)
    assert "out of ideas" in str(record.observed.error)


def test_a_child_ended_by_a_signal_is_a_crash_naming_the_signal() -> None:
    record = unsolvable.run(
        python("import os, signal; os.kill(os.getpid(), signal.SIGTERM)"),
        scenarios.get("constant-return/repeat"),
    )
    assert record.outcome is Outcome.CRASHED
    assert "killed by signal SIGTERM" in str(record.observed.error)


@pytest.mark.skipif(not hasattr(signal, "SIGRTMIN"), reason="needs real-time signals (Linux)")
def test_a_child_ended_by_a_real_time_signal_is_a_crash_naming_it() -> None:
    """Python's `signal.Signals` names no real-time signal between the first and the last: the
    record said the child crashed with the harness's own ``ValueError: 40 is not a valid
    Signals``."""
    sent = signal.SIGRTMIN + 6
    record = unsolvable.run(
        python(f"import os; os.kill(os.getpid(), {sent})"), scenarios.get("constant-return/repeat")
    )
    assert record.outcome is Outcome.CRASHED
    assert "killed by signal SIGRTMIN+6 without a structured exit" in str(record.observed.error)


def test_a_structured_exit_counts_whatever_the_status() -> None:
    code = (
        "import sys; print('chatter'); "
        """print('{{"code": "NEEDS_HUMAN", "reason": "r"}}'); sys.exit(3)"""
    )
    record = unsolvable.run(python(code), scenarios.get("constant-return/repeat"))
    assert (record.outcome, record.code) == (Outcome.STOPPED, Code.NEEDS_HUMAN)


def _nested_stop(depth: int, status: int) -> str:
    """A child that stops NO_PROGRESS, its partial result ``depth`` lists deep, with ``status``."""
    line = "'{{\"code\": \"NO_PROGRESS\", \"partial\": ' + '[' * d + ']' * d + '}}'"
    return python(f"import sys; d = {depth}; print({line}); sys.exit({status})")


@pytest.mark.parametrize(
    ("depth", "status"), [(STOP_DEPTH + 1, 0), (2000, 0), (2000, 3)]
)  # past the bound; past what the interpreter reads, with either status
def test_a_stop_nested_too_deeply_to_read_is_a_crash_naming_it(depth: int, status: int) -> None:
    """Such a line passed for no stop: a child that printed its NO_PROGRESS stop, its partial
    2,000 lists deep, and exited 0 was recorded unstructured, in silence."""
    record = unsolvable.run(_nested_stop(depth, status), scenarios.get("constant-return/repeat"))
    assert record.outcome is Outcome.CRASHED and TOO_DEEP in str(record.observed.error)


def test_a_stop_too_long_to_read_is_a_crash_naming_it() -> None:
    """Such a line passed for no stop: a child that printed its NO_PROGRESS stop, its partial
    65 MiB long, was recorded unstructured, in silence."""
    past = STOP_LINE_LIMIT // 2**20 + 1
    code = (
        "import sys; out = sys.stdout.buffer; "
        'out.write(b\'{{"code": "NO_PROGRESS", "partial": "\'); '
        f"[out.write(b'x' * 2**20) for _ in range({past})]; out.write(b'\"}}}}')"
    )
    record = unsolvable.run(python(code), scenarios.get("constant-return/repeat"))
    assert record.outcome is Outcome.CRASHED and TOO_LONG in str(record.observed.error)


def test_a_stop_nested_to_the_bound_is_read_its_partial_noted() -> None:
    """The bound is fixed, not where the interpreter's stack runs out, so a line reads the same
    in every run; the partial result is noted as a record notes any past `PARTIAL_DEPTH`."""
    record = unsolvable.run(_nested_stop(STOP_DEPTH, 0), scenarios.get("constant-return/repeat"))
    assert (record.outcome, record.code) == (Outcome.STOPPED, Code.NO_PROGRESS)
    assert record.reported is not None and "nested more than" in str(record.reported.partial)


class _BrokenModel:
    """A scenario's model with a bug: it raises on every request."""

    def respond(self, request: object) -> None:
        raise KeyError("reply")


def _with_broken_model(name: str) -> unsolvable.Scenario:
    scenario = scenarios.get(name)
    return dataclasses.replace(
        scenario,
        build=lambda seed: dataclasses.replace(scenario.build(seed), model=_BrokenModel()),
    )


ASKS_ONCE = """
import json, os, urllib.error, urllib.request
url = os.environ["OPENAI_BASE_URL"] + "/chat/completions"
ask = {{"model": "m", "messages": [{{"role": "user", "content": os.environ["UNSOLVABLE_TASK"]}}]}}
headers = {{"content-type": "application/json"}}
request = urllib.request.Request(url, json.dumps(ask).encode(), headers)
try:
    urllib.request.urlopen(request)
except urllib.error.HTTPError as error:
    print(json.dumps({{"code": "ERROR_FATAL", "reason": "the model answered %d" % error.code}}))
"""
"""An agent that asks the model once and stops on the error it is answered."""


def test_a_scenario_model_that_raises_crashes_the_run_naming_it_not_the_agents_stop() -> None:
    """The agent was answered 500 and stopped in good order on it, but it answered no
    scenario: the record says the harness failed, and where, as an in-process run's would."""
    record = unsolvable.run(python(ASKS_ONCE), _with_broken_model("constant-return/repeat"))
    assert record.outcome is Outcome.CRASHED
    error = str(record.observed.error)
    assert error.startswith(
        "HarnessFailure: unsolvable: the scenario's model, answering step 1, raised "
        "KeyError: 'reply', so what the agent did after it answered no scenario"
    )
    assert 'raise KeyError("reply")' in str(record.observed.traceback)


def test_a_zero_status_without_a_structured_exit_is_unstructured_showing_the_tail() -> None:
    record = unsolvable.run(
        python("print('all done, I think')"), scenarios.get("constant-return/repeat")
    )
    assert (record.outcome, record.returned) == (Outcome.UNSTRUCTURED, "'all done, I think'")


def _group(pgid: int) -> list[int]:
    """The processes of group ``pgid`` that still run (zombies waiting for init do not)."""
    running = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:  # it ended while we looked
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            running.append(int(stat.parent.name))
    return running


HANG = (
    "import os, subprocess, sys, time; subprocess.Popen(['sleep', '600']); "
    "open(sys.argv[1], 'w').write(str(os.getpgrp())); time.sleep(600)"
)
"""A child that starts a grandchild, writes its process group and never ends."""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize("isolate_network", [False, pytest.param(True, marks=NEEDS_UNSHARE)])
def test_a_child_that_never_ends_is_killed_with_its_group_at_the_wall_ceiling(
    tmp_path: Path, isolate_network: bool
) -> None:
    pid_file = tmp_path / "pgid"
    adapter = ProcessAdapter(
        [sys.executable, "-c", HANG, str(pid_file)], isolate_network=isolate_network
    )
    record = unsolvable.run(adapter, scenarios.get("constant-return/repeat"), ceilings=HANG_WALL)
    assert (record.outcome, record.observed.ceiling) == (Outcome.DID_NOT_STOP, "wall_seconds")
    pgid = int(pid_file.read_text())
    assert pgid != os.getpgrp(), "the child was left in the test's own process group"
    assert survivors(_group(pgid)) == [] and _group(pgid) == []


def test_a_child_past_the_step_ceiling_is_killed_and_did_not_stop() -> None:
    ceilings = Ceilings(max_steps=5, max_wall_seconds=60.0)  # the steps end it, however slow
    spec = f"exec:{PYTHON} {HERE / 'loop_agent.py'}"
    record = unsolvable.run(spec, scenarios.get("constant-return/repeat"), ceilings=ceilings)
    assert (record.outcome, record.observed.steps) == (Outcome.DID_NOT_STOP, 5)
    assert record.observed.ceiling == "steps"


def test_a_child_that_did_not_stop_keeps_its_stderr_in_the_record(tmp_path: Path) -> None:
    """The run that most needs the agent's own words, as a crashed one keeps them."""
    said = "import runpy, sys; print('thinking hard', file=sys.stderr, flush=True); "
    agent = python(said + f"runpy.run_path({str(HERE / 'loop_agent.py')!r})")
    out = tmp_path / "records.json"
    command = ["run", "--agent", agent, "--scenario", "constant-return/repeat"]
    command += ["--ceiling-steps", "3", "--ceiling-seconds", "60", "--json", str(out)]
    subprocess.run([sys.executable, "-m", "unsolvable.cli", *command], timeout=120, check=False)
    (record,) = json.loads(out.read_text())["records"]
    assert (record["outcome"], record["output"]) == ("did_not_stop", "thinking hard\n")


def test_the_cli_runs_an_exec_agent(tmp_path: Path) -> None:
    out = tmp_path / "records.json"
    agent = f"exec:{PYTHON} {HERE / 'sdk_agent.py'} {{task}}"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "unsolvable.cli",
            "run",
            "--agent",
            agent,
            "--scenario",
            "constant-return/repeat",
            "--json",
            str(out),
            "--no-progress",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (record,) = json.loads(out.read_text())["records"]
    assert (record["agent"], record["reported"]["code"]) == (agent, "NO_PROGRESS")


def test_the_pytest_plugin_runs_an_exec_agent(tmp_path: Path) -> None:
    agent = f"exec:{PYTHON} {HERE / 'sdk_agent.py'} {{task}}"
    options = [f"{AGENT_OPTION}={agent}", f"{SCENARIO_OPTION}=constant-return/repeat"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:xdist", "-q", *options, NO_SNAPSHOT_OPTION],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{len(scenarios.get('constant-return/repeat').seeds)} passed" in done.stdout


@NEEDS_UNSHARE
@pytest.mark.parametrize("scenario", ["constant-return/repeat", "missing-permission/retry-403"])
def test_an_isolated_sdk_agent_reaches_the_fake_and_is_counted_the_same(
    scenario: str, capsys: pytest.CaptureFixture[str]
) -> None:
    command = [sys.executable, str(HERE / "sdk_agent.py"), "{task}"]
    record = unsolvable.run(ProcessAdapter(command, isolate_network=True), scenarios.get(scenario))
    own = json.loads(capsys.readouterr().err.strip().splitlines()[-1])
    assert record.verdict.passed
    assert own == {"steps": record.observed.steps, "tool_calls": record.observed.tool_calls}


@NEEDS_UNSHARE
def test_an_isolated_agent_that_dials_out_fails_at_once() -> None:
    dial = "import socket; socket.create_connection(('192.0.2.1', 443), timeout=30)"
    adapter = ProcessAdapter([sys.executable, "-c", dial], isolate_network=True)
    record = unsolvable.run(adapter, scenarios.get("constant-return/repeat"))
    assert record.outcome is Outcome.CRASHED
    assert "Network is unreachable" in str(record.observed.error)


def test_a_multi_agent_process_names_each_worker_by_its_base_url() -> None:
    record = unsolvable.run(
        f"exec:{PYTHON} {HERE / 'fan_out_agent.py'}", scenarios.get("fan-out/four-workers")
    )
    workers = {f"worker-{i}": 2 for i in range(1, 5)}  # each stops at its first repeat
    assert record.observed.steps_by_agent == {"main": 1, **workers}
    assert (record.code, record.observed.tool_calls, record.verdict.passed) == (
        Code.NO_PROGRESS,
        8,
        True,
    )
