"""Installed but unused, the plugin changes nothing; used, it shows up where pytest users look."""

from __future__ import annotations

import pytest

from tests.plugin._helpers import Run
from unsolvable.plugin._options import (
    AGENT_OPTION,
    BASELINE_FALSE_STOP_MARGIN_OPTION,
    BASELINE_MARGIN_OPTION,
    BASELINE_OPTION,
    HTML_OPTION,
    JSON_OPTION,
    LENIENT_OPTION,
    MARKDOWN_OPTION,
    STRICT_OPTION,
    UPDATE_BASELINE_OPTION,
)


def test_options_are_grouped_in_help(run: Run) -> None:
    result = run("--help")
    result.stdout.fnmatch_lines(
        [
            "unsolvable: unsolvable tasks for an agent's stop logic:",
            f"  {AGENT_OPTION}=SPEC",
            "*",
            f"  {STRICT_OPTION}*",
            f"  {LENIENT_OPTION}*",
            "*",
            f"  {JSON_OPTION}=PATH",
            "*",
            f"  {MARKDOWN_OPTION}=PATH",
            f"  {HTML_OPTION}=PATH",
            f"  {BASELINE_OPTION}=PATH",
            "*",
            f"  {UPDATE_BASELINE_OPTION}",
            "*",
            f"  {BASELINE_MARGIN_OPTION}=STEPS",
            "*",
            f"  {BASELINE_FALSE_STOP_MARGIN_OPTION}=RATE",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "  unsolvable_agent (linelist):",
            "*",
            "  unsolvable_strict (bool):",
            "*",
            "  unsolvable_baseline (string):",
            "*",
            "  unsolvable_update_baseline (bool):",
        ]
    )


def test_an_unrelated_project_sees_no_difference(run: Run, pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_plain="import pytest\n\n@pytest.mark.slow\ndef test_one():\n    pass\n"
    )
    pytester.makeini("[pytest]\nmarkers =\n    slow: a slow test\n")
    result = run("--strict-markers")
    result.assert_outcomes(passed=1)
    assert not [line for line in result.outlines if "unsolvable" in line and "plugins:" not in line]
    # nothing of ours or syrupy's; pytest's own __pycache__ appears when bytecode is written
    assert [p.name for p in pytester.path.glob("__*__") if p.name != "__pycache__"] == []


def test_the_plugin_comes_from_the_entry_point(run: Run) -> None:
    run().stdout.fnmatch_lines(["plugins: *unsolvable-*"])
    result = run("-p", "no:unsolvable", f"{AGENT_OPTION}=contract")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*unrecognized arguments: {AGENT_OPTION}=contract*"])
