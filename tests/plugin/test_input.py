"""Bad input to the pytest face is a usage error before anything runs."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests._hanging_import import HANGS_AT_IMPORT
from tests.plugin._helpers import QUIET, XDIST_ENVIRONMENT, Run, cases
from unsolvable.plugin._options import (
    AGENT_OPTION,
    FAMILY_OPTION,
    JSON_OPTION,
    MARKDOWN_OPTION,
    NO_SNAPSHOT_OPTION,
    SCENARIO_OPTION,
    SNAPSHOT_DIR_OPTION,
)

CONTRACT = f"{AGENT_OPTION}=pkg:contract"


def test_each_filter_takes_a_scenario_or_a_family(run: Run) -> None:
    result = run(
        CONTRACT,
        NO_SNAPSHOT_OPTION,
        f"{SCENARIO_OPTION}=missing-permission",
        f"{FAMILY_OPTION}=constant-return/repeat",
    )
    chosen = cases("missing-permission", "constant-return/repeat")
    result.assert_outcomes(passed=chosen, deselected=cases() - chosen)


def test_an_output_path_that_cannot_be_written_is_a_usage_error(run: Run) -> None:
    for flag in (JSON_OPTION, SNAPSHOT_DIR_OPTION):
        result = run(CONTRACT, f"{flag}=/sys/unsolvable", "--snapshot-update")
        assert result.ret == 4
        result.stderr.fnmatch_lines([f"ERROR: {flag} '/sys/unsolvable*' cannot be written (*"])


def test_a_report_at_the_path_of_the_records_stream_is_a_usage_error(run: Run) -> None:
    """The stream is removed once the session's files are written: a report written there would
    go with it."""
    reports = (f"{JSON_OPTION}=r.json", f"{MARKDOWN_OPTION}=r.json.jsonl")
    result = run(CONTRACT, NO_SNAPSHOT_OPTION, f"{SCENARIO_OPTION}=give-up-honoured", *reports)
    assert result.ret == 4
    result.stderr.fnmatch_lines(
        [f"ERROR: {MARKDOWN_OPTION} and {JSON_OPTION}'s record stream both name 'r.json.jsonl'*"]
    )


def test_an_agent_beside_the_user_imports_from_the_current_directory(
    pytester: pytest.Pytester,
) -> None:
    """``python -P`` and no PYTHONPATH (which pytester's own runs set): like the ``pytest``
    console script, nothing puts the current directory on sys.path but the harness."""
    pytester.makepyfile(myagent="from unsolvable.agents import contract as agent\n")
    args = (f"{AGENT_OPTION}=myagent:agent", f"{SCENARIO_OPTION}=give-up-honoured")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", *XDIST_ENVIRONMENT)}
    command = [sys.executable, "-P", "-m", "pytest", *QUIET, *args, NO_SNAPSHOT_OPTION]
    result = subprocess.run(
        command,
        cwd=pytester.path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{cases('give-up-honoured')} passed" in result.stdout


def test_an_agent_whose_import_hangs_is_a_usage_error_once_its_allowance_is_spent(
    run: Run, pytester: pytest.Pytester
) -> None:
    """pytest imports the agent to check it before collecting; the project's conftest lowers
    the allowance, as nothing else can reach the subprocess."""
    pytester.makepyfile(myagent=HANGS_AT_IMPORT)
    pytester.makeconftest("from unsolvable import _loading\n\n_loading.LOAD_SECONDS = 0.5\n")
    result = run(f"{AGENT_OPTION}=myagent:agent", f"{SCENARIO_OPTION}=give-up-honoured")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            f"ERROR: {AGENT_OPTION}: agent 'myagent:agent' was not loaded within 0.5 s: "
            "importing its module or its adapter's preflight waits on *"
        ]
    )


@pytest.mark.parametrize(
    ("source", "named"),
    [
        ("import pytest\n\npytest.importorskip('no_such_framework')\n", "raised Skipped: *"),
        ("import os\n\nos._exit(0)\n", "called os._exit(0)*"),
        ("raise KeyboardInterrupt('mine')\n", "raised KeyboardInterrupt: mine*"),
    ],
    ids=["importorskip", "os-exit", "keyboard-interrupt"],
)
def test_an_agent_module_that_ends_its_import_is_a_usage_error_naming_how(
    run: Run, pytester: pytest.Pytester, source: str, named: str
) -> None:
    """Each is the module's own failure, where it would otherwise end pytest as something else:
    pytest's skip derives from `BaseException` alone (an internal error), ``os._exit(0)`` ends
    it at once with status 0 (green CI, no test run), and a `KeyboardInterrupt` that no signal
    raised would read as a Ctrl-C."""
    pytester.makepyfile(myagent=source)
    result = run(f"{AGENT_OPTION}=myagent:agent", f"{SCENARIO_OPTION}=give-up-honoured")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [f"ERROR: {AGENT_OPTION}: agent 'myagent:agent': loading it {named}"]
    )


def test_a_snapshotting_suite_without_syrupy_is_a_usage_error_naming_both_fixes(run: Run) -> None:
    """syrupy is an extra: a suite that would snapshot without it stops up front."""
    result = run(CONTRACT, "-p", "no:syrupy", f"{SCENARIO_OPTION}=give-up-honoured")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    error = result.stderr.str()
    assert error.startswith(
        "ERROR: unsolvable: the generated suite snapshots its records with syrupy"
    )
    assert "pip install 'pytest-unsolvable[snapshot]'" in error and NO_SNAPSHOT_OPTION in error
    without = run(
        CONTRACT, "-p", "no:syrupy", NO_SNAPSHOT_OPTION, f"{SCENARIO_OPTION}=give-up-honoured"
    )
    without.assert_outcomes(passed=cases("give-up-honoured"))
