"""Bad input is a usage error before anything runs: `unsolvable` run as users run it,
from a folder of their own, through the console-script path (``python -P``: no current directory
on ``sys.path`` unless the harness puts it there)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests._hanging_import import HANGS_AT_IMPORT

AGENT = (
    "from unsolvable import Code, Stop\n\n\n"
    "def agent(session):\n    return Stop(code=Code.NO_PROGRESS)\n"
)
ADAPTER_CLASS = (
    "class MyAdapter:\n    def __init__(self):\n        self.name = 'mine'\n\n"
    "    def run(self, session):\n        return None\n\n"
    "    def interpret(self, returned, error):\n        return None\n"
)


def unsolvable(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-P", "-m", "unsolvable.cli", *args]
    return subprocess.run(
        command, capture_output=True, text=True, cwd=folder, timeout=120, check=False
    )


def run_agent(
    folder: Path, source: str, attribute: str = "agent"
) -> subprocess.CompletedProcess[str]:
    (folder / "myagent.py").write_text(source, encoding="utf-8")
    return unsolvable(
        folder, "run", "--agent", f"myagent:{attribute}", "--scenario", "give-up-honoured"
    )


def test_an_agent_beside_the_user_imports_from_the_current_directory(tmp_path: Path) -> None:
    result = run_agent(tmp_path, AGENT)
    assert "myagent:agent" in result.stdout, result.stderr
    assert result.returncode in (0, 1)


def test_an_exception_at_import_is_a_usage_error_naming_it(tmp_path: Path) -> None:
    result = run_agent(tmp_path, "raise RuntimeError('no API key configured')\n")
    assert result.returncode == 2
    assert "raised RuntimeError: no API key configured" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("source", "named"),
    [
        ("import pytest\npytest.importorskip('no_such_framework')\n", "raised Skipped: could not"),
        ("import asyncio\nraise asyncio.CancelledError('shut')\n", "raised CancelledError: shut"),
        ("raise KeyboardInterrupt('mine')\n", "raised KeyboardInterrupt: mine"),
    ],
    ids=["importorskip", "cancelled", "keyboard-interrupt"],
)
def test_a_base_exception_at_import_is_a_usage_error_naming_it(
    tmp_path: Path, source: str, named: str
) -> None:
    """What derives from `BaseException` alone (pytest's skip in a module shared with tests, an
    ``asyncio`` cancellation) is the module's own failure as any exception is."""
    result = run_agent(tmp_path, source)
    assert result.returncode == 2, result.stderr
    assert named in result.stderr and "Traceback" not in result.stderr, result.stderr


@pytest.mark.parametrize("status", [0, 1])
def test_an_exit_at_import_is_a_usage_error_not_the_command_s_status(
    tmp_path: Path, status: int
) -> None:
    """``os._exit`` at import would end the command at once with its status: 0, a run that
    passed to CI, with nothing run."""
    result = run_agent(tmp_path, f"import os\nos._exit({status})\n")
    assert result.returncode == 2, result.stderr
    assert f"loading it called os._exit({status})" in result.stderr, result.stderr


def test_a_process_forked_at_import_still_exits_as_it_means_to(tmp_path: Path) -> None:
    """Only the loading thread of the harness's own process is refused ``os._exit``: a child the
    module forks ends with it, as in production, and the module loads."""
    source = (
        "import os\n"
        "child = os.fork()\n"
        "if child == 0:\n"
        "    os._exit(7)\n"
        "assert os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]) == 7\n"
        + AGENT
    )  # fmt: skip
    result = run_agent(tmp_path, source)
    assert result.returncode in (0, 1) and "myagent:agent" in result.stdout, result.stderr


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM], ids=lambda how: how.name)
def test_a_signal_during_the_load_still_ends_the_session(tmp_path: Path, how: int) -> None:
    """What the module raises itself is its failure; a Ctrl-C or a CI service's SIGTERM that
    arrives while it loads is the person's, and ends the session as it would anywhere."""
    ready = tmp_path / "ready"
    os.mkfifo(ready)
    (tmp_path / "myagent.py").write_text(
        "import os, threading\n"
        f"os.close(os.open({str(ready)!r}, os.O_WRONLY))\n"
        "threading.Event().wait(60)\n" + AGENT,
        encoding="utf-8",
    )
    command = [
        sys.executable, "-m", "unsolvable.cli", "run", "--agent", "myagent:agent",
        "--scenario", "give-up-honoured",
    ]  # fmt: skip
    child = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        os.close(os.open(ready, os.O_RDONLY))  # returns once the module has opened its end
        child.send_signal(how)
        _, stderr = child.communicate(timeout=60)
    finally:
        child.kill()
        child.wait()
    assert child.returncode == 130, stderr
    assert f"interrupted ({signal.Signals(how).name})".encode() in stderr, stderr


def test_a_syntax_error_names_file_and_line(tmp_path: Path) -> None:
    result = run_agent(tmp_path, "x = 1\ndef agent(session)\n")
    assert result.returncode == 2
    assert f"syntax error at {tmp_path / 'myagent.py'}:2" in result.stderr


def test_an_agent_whose_import_hangs_is_a_usage_error_once_its_allowance_is_spent(
    tmp_path: Path,
) -> None:
    """The command, not a worker, imports the agent first, to check it and name its records:
    without an allowance of its own, a module that waits at import would hang the command."""
    (tmp_path / "myagent.py").write_text(HANGS_AT_IMPORT, encoding="utf-8")
    lowered = (
        "import sys; from unsolvable import _loading; _loading.LOAD_SECONDS = 0.5; "
        "from unsolvable.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    args = ("run", "--agent", "myagent:agent", "--scenario", "give-up-honoured")
    result = subprocess.run(
        [sys.executable, "-P", "-c", lowered, *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.startswith(
        "unsolvable: error: agent 'myagent:agent' was not loaded within 0.5 s: importing its "
        "module or its adapter's preflight waits on something that does not answer"
    )
    assert "Traceback" not in result.stderr


def test_an_adapter_class_says_to_instantiate_it(tmp_path: Path) -> None:
    result = run_agent(tmp_path, ADAPTER_CLASS, attribute="MyAdapter")
    assert result.returncode == 2
    assert "is an Adapter class (MyAdapter)" in result.stderr
    assert (
        "`adapter = MyAdapter()`, then name that object as the agent: myagent:adapter"
        in result.stderr
    )


def test_a_closed_pipe_ends_the_listing_quietly() -> None:
    """The reader is gone before the listing is written (``unsolvable list | head``, with
    head long done): no BrokenPipeError traceback."""
    command = [sys.executable, "-m", "unsolvable.cli", "list"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        try:
            assert process.stdout is not None
            process.stdout.close()
            _, stderr = process.communicate(timeout=120)
        finally:
            process.kill()  # a listing that hangs ends here, reaped as the with block ends
    assert process.returncode == 0 and stderr == b""


def test_the_gate_compares_like_with_like(tmp_path: Path) -> None:
    baseline = str(tmp_path / "baseline.json")
    bless = ("run", "--agent", "contract", "--scenario", "missing-permission")
    assert unsolvable(tmp_path, *bless, "--baseline", baseline, "--update-baseline").returncode == 0
    narrowed = unsolvable(tmp_path, "run", "--agent", "unsolvable.agents:contract", "--scenario",
                          "missing-permission/retry-403", "--baseline", baseline)  # fmt: skip
    assert narrowed.returncode == 0, narrowed.stdout
    assert "1 group compared" in narrowed.stdout
    assert "2 groups this run covers only in part were not compared" in narrowed.stdout
    other = unsolvable(tmp_path, "run", "--agent", "naive", "--scenario", "give-up-honoured",
                       "--baseline", baseline, "--allow-empty-gate")  # fmt: skip
    assert "baseline gate passed (allowed empty): compared no group" in other.stdout


def test_an_output_path_that_cannot_be_written_is_a_usage_error(tmp_path: Path) -> None:
    cases = {
        "--json": str(tmp_path),
        "--markdown": "/sys/kernel/summary.md",
        "--html": "/proc/report.html",
    }
    for flag, path in cases.items():
        result = unsolvable(tmp_path, "run", "--agent", "contract", flag, path)
        assert result.returncode == 2 and result.stdout == "", flag
        assert f"{flag} {path!r} cannot be written (" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []


ROOT = Path(__file__).parents[2]
INPUT_AGENTS = "tests.cli.agents_for_input"


def test_no_secret_reaches_any_written_file(tmp_path: Path, monkeypatch: Any) -> None:
    from tests.cli.agents_for_input import BEARER, SECRET_ENV, SK_KEY, URL_PASSWORD

    env_secret = "s3cr3t-from-the-environment"
    monkeypatch.setenv(SECRET_ENV, env_secret)
    outputs = {flag: tmp_path / f"out.{flag}" for flag in ("json", "markdown", "html")}
    agents = [f"--agent={INPUT_AGENTS}:{name}" for name in ("leaky", "leaky_crash")]
    result = unsolvable(ROOT, "run", *agents, "--scenario", "constant-return/repeat", "--explain",
                        *(f"--{flag}={path}" for flag, path in outputs.items()))  # fmt: skip
    written = [result.stdout, *(path.read_text() for path in outputs.values())]
    assert "[redacted]" in written[1] and "Bearer [redacted]" in written[0]
    for text in written:
        for secret in (env_secret, SK_KEY, BEARER, URL_PASSWORD):
            assert secret not in text


def test_default_reprs_are_masked_so_json_is_byte_identical(tmp_path: Path) -> None:
    names = ("returns_an_object", "raises_an_object", "partial_object")
    agents = [f"--agent={INPUT_AGENTS}:{name}" for name in names]
    for out in ("a.json", "b.json"):
        unsolvable(ROOT, "run", *agents, "--scenario", "give-up-honoured", "--json",
                   str(tmp_path / out))  # fmt: skip
    first = (tmp_path / "a.json").read_text()
    assert first == (tmp_path / "b.json").read_text()
    assert "Answer object at 0x\\u2026>" in first and not re.search(r"0x[0-9a-f]{6}", first)


def test_a_coding_agent_whose_cli_is_missing_is_a_usage_error_before_any_run(
    tmp_path: Path,
) -> None:
    command = [sys.executable, "-P", "-m", "unsolvable.cli", "run", "--agent", "claude-code"]
    result = subprocess.run(
        command,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PATH": str(tmp_path)},
        timeout=120,
        check=False,
    )
    assert result.returncode == 2 and result.stdout == ""
    assert "the Claude Code CLI is not on PATH; install it with npm install -g" in result.stderr
    assert "crashed" not in result.stderr


def test_a_named_agent_blessed_from_its_folder_gates_a_run_from_the_root(tmp_path: Path) -> None:
    folder = tmp_path / "agents"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "myagent.py").write_text(AGENT, encoding="utf-8")
    chosen = ("--scenario", "missing-permission", "--baseline", str(tmp_path / "baseline.json"))
    blessed = unsolvable(folder, "run", "--agent", "mine=myagent:agent", *chosen,
                         "--update-baseline")  # fmt: skip
    groups = re.search(r"wrote baseline of (\d+) groups", blessed.stdout)
    assert groups is not None, blessed.stderr
    gated = unsolvable(tmp_path, "run", "--agent", "mine=agents.myagent:agent", *chosen)
    assert f"baseline gate passed: {groups[1]} groups compared" in gated.stdout
    assert re.search(r"^missing-permission/retry-403 +mine +", gated.stdout, re.M)


def test_two_agents_that_would_share_a_label_are_a_usage_error(tmp_path: Path) -> None:
    result = unsolvable(tmp_path, "run", "--agent", "contract", "--agent",
                        "unsolvable.agents:contract")  # fmt: skip
    assert result.returncode == 2 and result.stdout == ""
    assert "would both be labelled 'contract'" in result.stderr
