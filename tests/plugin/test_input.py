"""Bad input to the pytest face is a usage error before anything runs (issue 10)."""

from __future__ import annotations

from harness.plugin._options import (
    AGENT_OPTION,
    FAMILY_OPTION,
    JSON_OPTION,
    NO_SNAPSHOT_OPTION,
    SCENARIO_OPTION,
    SNAPSHOT_DIR_OPTION,
)
from tests.plugin._helpers import Run, cases

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
