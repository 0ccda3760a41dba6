"""``--isolate-network`` (``unsolvable run``) and ``--unsolvable-isolate-network`` (the plugin):
exec agents run with loopback only, and a platform that cannot do it is a usage error up front."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

from tests.frameworks.exec.test_exec import NEEDS_UNSHARE
from unsolvable.plugin._options import (
    AGENT_OPTION,
    ISOLATE_NETWORK_OPTION,
    NO_SNAPSHOT_OPTION,
    SCENARIO_OPTION,
)

HERE = Path(__file__).parent
DIAL = "import socket; socket.create_connection(('192.0.2.1', 443), timeout=30)"
DIALLER = f"exec:{shlex.quote(sys.executable)} -c {shlex.quote(DIAL)}"
SDK_AGENT = f"exec:{shlex.quote(sys.executable)} {HERE / 'sdk_agent.py'} {{task}}"


def _cli(tmp_path: Path, agent: str, **env: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    out = tmp_path / "records.json"
    command = [sys.executable, "-m", "unsolvable.cli", "run", "--isolate-network", "--agent", agent]
    scenario = ["--scenario", "constant-return/repeat", "--json", str(out), "--no-progress"]
    done = subprocess.run(
        [*command, *scenario],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env},
    )
    return done, out


@NEEDS_UNSHARE
def test_the_cli_flag_cuts_an_exec_agent_off_every_network_but_the_harness(
    tmp_path: Path,
) -> None:
    _, out = _cli(tmp_path, DIALLER)
    (record,) = json.loads(out.read_text())["records"]
    assert record["outcome"] == "crashed" and "Network is unreachable" in str(
        record["observed"]["error"]
    )
    sdk_agent, out = _cli(tmp_path, SDK_AGENT)
    assert sdk_agent.returncode == 0, sdk_agent.stdout + sdk_agent.stderr


@NEEDS_UNSHARE
def test_the_plugin_flag_cuts_an_exec_agent_off_every_network_but_the_harness(
    tmp_path: Path,
) -> None:
    options = [f"{AGENT_OPTION}={DIALLER}", f"{SCENARIO_OPTION}=constant-return/repeat"]
    options += [NO_SNAPSHOT_OPTION, ISOLATE_NETWORK_OPTION]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:xdist", "-q", *options],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1 and "Network is unreachable" in done.stdout, done.stdout


def test_a_platform_without_unshare_is_a_usage_error_before_anything_runs(
    tmp_path: Path,
) -> None:
    done, out = _cli(tmp_path, DIALLER, PATH=str(tmp_path))
    assert done.returncode == 2 and not out.exists()
    assert "cannot run it with loopback only" in done.stderr
    assert "the unshare command (util-linux) is not installed" in done.stderr
