"""The record table the concepts page shows under "What a run prints" is what `unsolvable run`
prints for those agents and scenarios, row by row and column by column."""

from __future__ import annotations

import re
import subprocess
import sys

from tests._docs import ROOT, TEXTS

PAGE = TEXTS[ROOT / "docs" / "concepts.md"]
ELIDED = "(...)"
"""Where the page shortens a long cell: any text in its place."""


def _shown_rows() -> list[str]:
    table = PAGE.partition("## What a run prints")[2].partition("```\n")[2].partition("```")[0]
    return table.splitlines()


def _pattern(row: str) -> re.Pattern[str]:
    return re.compile(".*?".join(re.escape(part) for part in row.split(ELIDED)) + "$")


def test_the_table_shown_is_what_the_command_prints() -> None:
    header, *rows = _shown_rows()
    assert rows, "the page shows no row under its table's header"
    agents = sorted({row.split()[1] for row in rows})
    scenarios = list(dict.fromkeys(row.split()[0] for row in rows))
    command = [sys.executable, "-m", "unsolvable.cli", "run", "--no-progress"]
    command += [arg for agent in agents for arg in ("--agent", agent)]
    command += [arg for scenario in scenarios for arg in ("--scenario", scenario)]
    result = subprocess.run(
        command, capture_output=True, text=True, cwd=ROOT, timeout=120, check=False
    )
    printed = result.stdout.splitlines()
    assert printed[0] == header, result.stderr
    for row in rows:
        assert any(_pattern(row).match(line) for line in printed[1:]), (
            f"the page shows {row!r}; the command printed:\n" + "\n".join(printed)
        )
