"""The same scenario, seed and agent give the same record, byte for byte, from one run to the
next: what changes every run (the loopback server's port, the run's key) never reaches it."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.cli.test_cli import _unsolvable

URLS = f"exec:{sys.executable} tests/cli/url_agent.py"


def test_the_loopback_urls_an_agent_prints_leave_its_record_the_same(tmp_path: Path) -> None:
    written = []
    for attempt in ("first", "second"):
        out = tmp_path / f"{attempt}.json"
        result = _unsolvable("run", "--agent", URLS, "--scenario", "constant-return/repeat",
                             "--json", str(out))  # fmt: skip
        assert result.returncode == 1 and "crashed" in result.stdout, result.stderr
        written.append(out.read_text())
    assert "http://127.0.0.1:" in written[0]
    assert written[0] == written[1]
