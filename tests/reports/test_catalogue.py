"""The catalogue is generated from the library: every scenario and family appears, with its
ground truth and its twins, and ``unsolvable list --markdown`` prints exactly that page."""

from __future__ import annotations

import subprocess
import sys

from unsolvable import scenarios
from unsolvable.reports._catalogue import catalogue_markdown

PAGE = catalogue_markdown(scenarios.SCENARIOS)


def test_every_family_has_a_section_introduced_by_its_module() -> None:
    for family in {s.family for s in scenarios.SCENARIOS}:
        section = PAGE.split(f"\n## {family}\n", 1)[1]
        assert not section.startswith("\n|"), f"{family} has no introduction"


def test_every_scenario_has_a_row_and_details_with_its_truth() -> None:
    for scenario in scenarios.SCENARIOS:
        assert f"| `{scenario.name}` |" in PAGE
        details = PAGE.split(f"### `{scenario.name}`\n", 1)[1].split("\n### ", 1)[0]
        assert scenario.explanation in details
        has_truth = f"the `{scenario.stagnation}` rule" in details
        assert has_truth is not scenario.solvable, scenario.name


def test_a_twin_names_its_sibling() -> None:
    twin = next(s for s in scenarios.SCENARIOS if s.twin_of)
    assert f"| `{twin.name}` | twin of `{twin.twin_of}` |" in PAGE


def test_list_markdown_prints_the_catalogue_and_refuses_json_beside_it() -> None:
    command = [sys.executable, "-m", "unsolvable.cli", "list"]
    printed = subprocess.run([*command, "--markdown"], capture_output=True, text=True, timeout=120)
    assert (printed.returncode, printed.stdout) == (0, PAGE)
    both = subprocess.run(
        [*command, "--markdown", "--json"], capture_output=True, text=True, timeout=120
    )
    assert both.returncode == 2 and "not allowed with argument" in both.stderr
