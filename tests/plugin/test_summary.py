"""The terminal summary and ``--unsolvable-json`` gather every record of the session, also from
xdist workers, and print or write them once: the same text and bytes as a serial run."""

from __future__ import annotations

import pytest

from tests.plugin._helpers import Run, cases, summary_section
from unsolvable import scenarios
from unsolvable.plugin._options import AGENT_OPTION, FAMILY_OPTION, JSON_OPTION, NO_SNAPSHOT_OPTION

OWN_TEST = """
import pytest

@pytest.mark.unsolvable(agent="pkg:naive", scenarios=["missing-permission/retry-403"])
def test_fixture_run(unsolvable_record):
    assert unsolvable_record.agent == "pkg:naive"
"""


def _run_both_ways_in(run: Run, json: str, *args: str) -> pytest.RunResult:
    return run(
        f"{AGENT_OPTION}=pkg:contract",
        f"{AGENT_OPTION}=pkg:naive",
        f"{FAMILY_OPTION}=missing-permission",
        NO_SNAPSHOT_OPTION,
        f"{JSON_OPTION}={json}",
        *args,
    )


def test_xdist_gathers_records_and_prints_once_what_a_serial_run_prints(
    run: Run, pytester: pytest.Pytester
) -> None:
    pytester.makepyfile(test_own=OWN_TEST)
    serial = _run_both_ways_in(run, "one.json")
    parallel = _run_both_ways_in(run, "two.json", "-n", "2")
    assert sum(line.strip("= ") == "unsolvable" for line in parallel.outlines) == 1
    section = summary_section(parallel)
    assert section == [line.replace("one.json", "two.json") for line in summary_section(serial)]
    agents = [line for line in section if line.startswith("agent ")]
    assert agents == ["agent pkg:contract", "agent pkg:naive"]
    runs = 2 * cases("missing-permission") + 3
    passed = cases("missing-permission") + 3  # contract all; naive the solvable twin's 3 seeds
    parallel.stdout.fnmatch_lines(
        [
            f"unsolvable: all agents: {runs} runs, {passed} passed, {runs - passed} failed (*",
            f"unsolvable: wrote {runs} records to two.json",
        ]
    )
    one, two = (pytester.path / name for name in ("one.json", "two.json"))
    assert one.read_bytes() == two.read_bytes()


def test_the_summary_names_each_k_its_pass_k_column_counts_together(run: Run) -> None:
    """context-overflow has scenarios of three seeds and one of one: the table's pass^k column
    counts them together, and only the line under it says which scenario passed on how many
    seeds, as `unsolvable run --all-seeds` prints it."""
    result = run(
        f"{AGENT_OPTION}=pkg:contract", f"{FAMILY_OPTION}=context-overflow", NO_SNAPSHOT_OPTION
    )
    one_seed = [s for s in scenarios.select(["context-overflow"]) if len(s.seeds) == 1]
    many = len(scenarios.select(["context-overflow"])) - len(one_seed)
    assert one_seed and many  # the family still mixes the two
    section = summary_section(result)
    assert f"unsolvable: pkg:contract pass^3 {many}/{many} and pass^1 1/1 scenarios" in section
