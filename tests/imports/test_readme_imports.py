"""README.md's "From an incident to a regression test", run exactly as written: its three
commands, the import's output, its hand-written scenario file, and every flag it names."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import unsolvable
from tests._docs import marked
from tests.plugin._helpers import PYTEST_SECONDS
from unsolvable.cli._main import _parser
from unsolvable.imports import build, parse
from unsolvable.plugin._options import (
    AGENT_OPTION,
    JSON_OPTION,
    NO_SNAPSHOT_OPTION,
    SCENARIO_DIR_OPTION,
    SCENARIO_FILE_OPTION,
    SCENARIO_OPTION,
)

SECTION = marked("imports")


def _blocks(language: str) -> list[str]:
    """The bodies of the section's fenced blocks in ``language`` (``""``: no language)."""
    bodies = SECTION.split("```")[1::2]
    return [b.split("\n", 1)[1] for b in bodies if b.split("\n", 1)[0] == language]


def _unsolvable(line: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    words = shlex.split(line)
    assert words[0] == "unsolvable"
    command = [sys.executable, "-m", "unsolvable.cli", *words[1:], "--no-progress"]
    if words[1] == "import":
        command.pop()
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=120)


def test_the_three_commands_and_what_import_prints(tmp_path: Path) -> None:
    (commands,) = _blocks("sh")
    results = [_unsolvable(line, tmp_path) for line in commands.splitlines()]
    assert [r.returncode for r in results] == [1, 0, 0], [r.stderr for r in results]
    (printed,) = _blocks("")
    assert results[1].stdout == printed
    assert "incidents/twin-publish-denied  contract  complete/COMPLETED" in results[2].stdout


def test_the_hand_written_file_loads_and_is_stopped(tmp_path: Path) -> None:
    (text,) = _blocks("json")
    (scenario,) = build(parse(json.loads(text)))
    record = unsolvable.run("contract", scenario)
    assert record.verdict.passed and record.code is unsolvable.Code.NO_PROGRESS
    assert record.observed.first_stagnant_step == 2


def test_the_ini_folder_as_shown_adds_the_hand_written_file(pytester: pytest.Pytester) -> None:
    (ini,) = _blocks("toml")
    (text,) = _blocks("json")
    pytester.makepyprojecttoml(ini)
    folder = re.search(r'unsolvable_scenario_dir = "(.*)"', ini)
    assert folder is not None
    (pytester.mkdir(folder[1]) / "ticket-loop.json").write_text(text)
    result = pytester.runpytest_subprocess(
        "-p",
        "no:cacheprovider",
        f"{AGENT_OPTION}=contract",
        f"{SCENARIO_OPTION}=incidents",
        NO_SNAPSHOT_OPTION,
        timeout=PYTEST_SECONDS,
    )
    result.assert_outcomes(passed=1)


def test_every_flag_shown_exists() -> None:
    commands = next(a for a in _parser()._actions if a.__class__.__name__ == "_SubParsersAction")
    known = {SCENARIO_FILE_OPTION, SCENARIO_DIR_OPTION, JSON_OPTION, "--junitxml"}
    for parser in commands.choices.values():  # type: ignore[attr-defined]
        known |= {flag for action in parser._actions for flag in action.option_strings}
    shown = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]+)", SECTION))
    assert shown - known == set()
