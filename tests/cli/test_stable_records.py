"""The same scenario, seed and agent give the same record, byte for byte, from one run to the
next: what changes every run (the loopback server's port, the run's key, the harness's
temporary folders and where they are) never reaches it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.cli.test_cli import ROOT

URLS = f"exec:{sys.executable} tests/cli/url_agent.py"


def _records(out: Path, tmp: Path) -> str:
    tmp.mkdir()
    command = [sys.executable, "-m", "unsolvable.cli", "run", "--agent", URLS, "--scenario",
               "constant-return/repeat", "--json", str(out)]  # fmt: skip
    environ = {**os.environ, "TMPDIR": str(tmp)}
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=environ,
                            timeout=120, check=False)  # fmt: skip
    assert result.returncode == 1 and "crashed" in result.stdout, result.stderr
    return out.read_text()


def test_the_urls_and_folders_an_agent_prints_leave_its_record_the_same(tmp_path: Path) -> None:
    first = _records(tmp_path / "first.json", tmp_path / "tmp-one")
    second = _records(tmp_path / "second.json", tmp_path / "tmp-two")
    assert "http://127.0.0.1:" in first and "mcp.json" in first
    assert first == second
