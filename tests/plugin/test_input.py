"""Bad input to the pytest face is a usage error before anything runs (issue 10)."""

from __future__ import annotations

from harness.plugin._options import AGENT_OPTION, FAMILY_OPTION, NO_SNAPSHOT_OPTION, SCENARIO_OPTION
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
