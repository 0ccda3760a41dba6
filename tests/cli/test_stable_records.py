"""The same scenario, seed and agent give the same record, byte for byte, from one run to the
next and from one checkout to another: what changes every run (the loopback server's port, the
run's key, the harness's temporary folders), where it runs (the working directory, TMPDIR, the
venv) and which worker made it after which other runs never reaches it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import pytest

AGENT = Path(__file__).with_name("url_agent.py")
WARNING_AGENT = Path(__file__).with_name("warning_agent.py")
LOGGING_AGENT = Path(__file__).with_name("logging_agent.py")
LIBRARY_EXEC_AGENT = Path(__file__).with_name("library_exec_agent.py")
QUIET_AGENT = Path(__file__).with_name("quiet_agent.py")
RECONFIGURING_AGENT = Path(__file__).with_name("reconfiguring_agent.py")
EXEC_AGENTS = (AGENT, LIBRARY_EXEC_AGENT)
SCENARIOS = ("constant-return/repeat", "constant-return/perturbed-offset", "oscillation/plain")


def _records(
    folder: Path,
    *args: str,
    agent: Path = AGENT,
    scenarios: tuple[str, ...] = SCENARIOS[:1],
    environ: dict[str, str] | None = None,
    name: str | None = None,
    attributes: tuple[str, ...] = ("agent",),
) -> str:
    """The records of ``agent`` run from a copy of it in ``folder``, with its TMPDIR there
    unless ``environ`` (added to this process's) names another; ``name`` labels its runs. A
    module's agent is each of its ``attributes``, several labelled by their attribute."""
    project, tmp, out = folder / "project", folder / "tmp", folder / "records.json"
    project.mkdir(parents=True)
    tmp.mkdir()
    shutil.copy(agent, project)
    if agent in EXEC_AGENTS:
        specs = [f"exec:{sys.executable} {agent.name}"]
    elif len(attributes) == 1:
        specs = [f"{agent.stem}:{attributes[0]}"]
    else:
        specs = [f"{attribute}={agent.stem}:{attribute}" for attribute in attributes]
    specs = specs if name is None else [f"{name}={spec}" for spec in specs]
    agents = [part for spec in specs for part in ("--agent", spec)]
    command = [sys.executable, "-m", "unsolvable.cli", "run", *agents, "--scenario", *scenarios,
               "--json", str(out), *args]  # fmt: skip
    environ = {**os.environ, "TMPDIR": str(tmp), **(environ or {})}
    result = subprocess.run(command, capture_output=True, text=True, cwd=project, env=environ,
                            timeout=120, check=False)  # fmt: skip
    assert result.returncode == 1, result.stderr
    return out.read_text()


def test_the_urls_and_paths_an_agent_prints_leave_its_record_the_same(tmp_path: Path) -> None:
    first, second = _records(tmp_path / "one"), _records(tmp_path / "deeper" / "two")
    assert '"outcome": "crashed"' in first
    assert "http://127.0.0.1:" in first and "mcp.json" in first and AGENT.name in first
    assert first == second


def test_a_warning_names_its_file_as_a_traceback_does_wherever_the_checkout_is(
    tmp_path: Path,
) -> None:
    first = _records(tmp_path / "one", agent=WARNING_AGENT)
    second = _records(tmp_path / "deeper" / "two", agent=WARNING_AGENT)
    assert "warning_agent.py:10: UserWarning: this call is going away" in first
    assert first == second


def test_every_run_shows_its_warnings_whichever_worker_ran_what_before(tmp_path: Path) -> None:
    """A worker makes many runs, Python shows a warning once per place in a process, and the
    agent silences warnings after its first: each run is recorded as if it had the worker
    alone."""
    alone = _records(tmp_path / "one", "-n", "1", agent=WARNING_AGENT, scenarios=SCENARIOS)
    shared = _records(tmp_path / "two", "-n", "2", agent=WARNING_AGENT, scenarios=SCENARIOS)
    for records in (alone, shared):
        assert records.count("UserWarning: this call is going away") == len(SCENARIOS)
        assert "DeprecationWarning" not in records
    assert alone == shared


def test_a_file_an_agent_logs_or_prints_is_named_as_its_traceback_names_it(tmp_path: Path) -> None:
    """``%(pathname)s`` and ``__file__`` name the agent's file where it lies, in more output than
    a record keeps: the record names it relative, and keeps the same end of the output, from any
    checkout."""
    first = _records(tmp_path / "one", agent=LOGGING_AGENT)
    second = _records(tmp_path / "deeper" / "two", agent=LOGGING_AGENT)
    assert "\\nlogging_agent.py:16 WARNING step 39" in first
    assert "loaded from logging_agent.py" in first
    assert 'File \\"pluggy/_decorators.py\\"' in first
    assert str(tmp_path) not in first
    assert first == second


def test_a_library_in_the_venv_is_named_relative_to_its_site_packages(tmp_path: Path) -> None:
    """An ``exec:`` agent's traceback, printed by its own Python, names the venv's files where
    the venv lies: the record names them as Python users read them, by their package path."""
    first = _records(tmp_path / "one", agent=LIBRARY_EXEC_AGENT)
    second = _records(tmp_path / "deeper" / "two", agent=LIBRARY_EXEC_AGENT)
    assert 'File \\"pluggy/_decorators.py\\", line' in first
    assert 'File \\"library_exec_agent.py\\", line 7' in first
    assert sysconfig.get_paths()["purelib"] not in first
    assert first == second


@pytest.mark.parametrize("telemetry", ["off", "on"])
def test_every_run_keeps_the_warnings_and_logging_its_agent_set_up_as_it_was_imported(
    tmp_path: Path, telemetry: str
) -> None:
    """Each run starts from what the agent's import set up (a warnings filter, warnings sent to
    `logging`), as every call of the agent in production does, whichever process imported it:
    the harness before it forks its workers, or each worker in its first run (with a thread
    running, the harness starts them from a fork server), whichever runs came before."""
    # A short TMPDIR, so that with a thread running the workers start from a fork server (its
    # socket lies there, and under a deep one they would start by spawn).
    environ = {"TELEMETRY": telemetry, "TMPDIR": tempfile.gettempdir()}
    alone = _records(tmp_path / "one", "-n", "1", agent=QUIET_AGENT, scenarios=SCENARIOS,
                     environ=environ, name="quiet")  # fmt: skip
    shared = _records(tmp_path / "two", "-n", "2", agent=QUIET_AGENT, scenarios=SCENARIOS,
                      environ=environ, name="quiet")  # fmt: skip
    for records in (alone, shared):
        said = "logged: quiet_agent.py:20: UserWarning: this call is going away"
        assert records.count(said) == len(SCENARIOS)
        assert "this module is internal" not in records
    assert alone == shared


@pytest.mark.parametrize("workers", ["1", "2"])
def test_an_agent_named_twice_from_one_module_keeps_what_its_import_set_up_under_both(
    tmp_path: Path, workers: str
) -> None:
    """Two agents of one module: the module is imported for the first, and the second's runs
    started from the harness's warnings filters, not the module's, and showed the warning its
    import silenced."""
    records = _records(tmp_path, "-n", workers, agent=QUIET_AGENT, scenarios=SCENARIOS,
                       attributes=("agent", "also"))  # fmt: skip
    said = "logged: quiet_agent.py:20: UserWarning: this call is going away"
    assert records.count(said) == 2 * len(SCENARIOS)
    assert "this module is internal" not in records


def test_workers_start_under_a_tmpdir_too_deep_for_a_fork_servers_socket(tmp_path: Path) -> None:
    """A fork server names its socket in TMPDIR, and a Unix socket's path holds 107 bytes: under
    a deep one (a build sandbox's, a CI runner's) a run whose harness had a thread running ended
    in ``OSError: AF_UNIX path too long`` before any record. Its workers start by spawn then, and
    write the records a short TMPDIR gives."""
    deep = tmp_path / ("d" * 100)
    deep.mkdir()
    records = [
        _records(
            tmp_path / run,
            "-n",
            "2",
            agent=QUIET_AGENT,
            scenarios=SCENARIOS,
            environ={"TELEMETRY": "on", "TMPDIR": str(folder)},
            name="quiet",
        )
        for run, folder in (("shallow", tempfile.gettempdir()), ("deep", deep))
    ]
    assert records[1] == records[0]


def test_every_run_starts_from_the_logging_its_agent_set_up_as_it_was_imported(
    tmp_path: Path,
) -> None:
    """A run that adds handlers or switches logging off left them to the runs its worker made
    after it: each run logged once more than the one before, or not at all, and the records
    told a worker's first run from its later ones, ``-n 1`` from ``-n 2``."""
    alone, shared = (
        _records(
            tmp_path / str(workers),
            "-n",
            str(workers),
            agent=RECONFIGURING_AGENT,
            scenarios=SCENARIOS,
            name="reconfiguring",
        )
        for workers in (1, 2)
    )
    assert alone.count("this run logs once") == 2 * len(SCENARIOS)
    assert alone == shared
