"""The README's quickstart, run exactly as written: its agent saved as ``myagent.py`` in a
scratch project, its command, and the failure it shows among the failures that command prints."""

from __future__ import annotations

import re
import shlex

import pytest

from tests._docs import ROOT, TEXTS
from tests.plugin._helpers import Run, cases, outcomes

QUICKSTART = TEXTS[ROOT / "README.md"].partition("## Quickstart")[2].partition("\n## ")[0]


def test_the_quickstart_agent_and_command_fail_as_shown(
    run: Run, pytester: pytest.Pytester
) -> None:
    agent = re.search(r"```python\n(import json\n.*?)```", QUICKSTART, re.S)
    command = re.search(r"```sh\n(pytest .*)\n```", QUICKSTART)
    shown = re.search(r"```\n(E   AssertionError: .*?)```", QUICKSTART, re.S)
    assert agent and command and shown
    (pytester.path / "myagent.py").write_text(agent.group(1))
    result = run(*shlex.split(command.group(1))[1:])
    counts = outcomes(result)
    assert counts["failed"] > 0 and counts["failed"] + counts["passed"] == cases()
    lines = [line for line in shown.group(1).splitlines() if line.strip() != "…"]
    printed = result.outlines
    start = printed.index(lines[0])
    tail = printed[start : start + 40]
    assert lines[:4] == tail[:4] and all(line in tail for line in lines[4:])
