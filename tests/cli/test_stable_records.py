"""The same scenario, seed and agent give the same record, byte for byte, from one run to the
next and from one checkout to another: what changes every run (the loopback server's port, the
run's key, the harness's temporary folders) and where it runs (the working directory, TMPDIR)
never reaches it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

AGENT = Path(__file__).with_name("url_agent.py")


def _records(folder: Path) -> str:
    """The record of the agent run from a copy of it in ``folder``, with its TMPDIR there."""
    project, tmp, out = folder / "project", folder / "tmp", folder / "records.json"
    project.mkdir(parents=True)
    tmp.mkdir()
    shutil.copy(AGENT, project)
    command = [sys.executable, "-m", "unsolvable.cli", "run", "--agent",
               f"exec:{sys.executable} {AGENT.name}", "--scenario", "constant-return/repeat",
               "--json", str(out)]  # fmt: skip
    environ = {**os.environ, "TMPDIR": str(tmp)}
    result = subprocess.run(command, capture_output=True, text=True, cwd=project, env=environ,
                            timeout=120, check=False)  # fmt: skip
    assert result.returncode == 1 and "crashed" in result.stdout, result.stderr
    return out.read_text()


def test_the_urls_and_paths_an_agent_prints_leave_its_record_the_same(tmp_path: Path) -> None:
    first, second = _records(tmp_path / "one"), _records(tmp_path / "deeper" / "two")
    assert "http://127.0.0.1:" in first and "mcp.json" in first and AGENT.name in first
    assert first == second
