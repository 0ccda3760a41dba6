"""The code way in: fixtures and ``@pytest.mark.unsolvable`` in a user's own tests."""

from __future__ import annotations

import json

import pytest

from tests.plugin._helpers import Run, outcomes
from unsolvable import scenarios
from unsolvable.plugin._options import (
    AGENT_OPTION,
    CEILING_SECONDS_OPTION,
    JSON_OPTION,
    MARKER,
    NO_SNAPSHOT_OPTION,
    SCENARIO_OPTION,
)


def test_the_closest_marker_wins_keyword_by_keyword(run: Run, pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_mine="""
        import pytest

        pytestmark = pytest.mark.unsolvable(agent="pkg:naive", max_steps=30)

        @pytest.mark.unsolvable(agent="pkg:contract", strict=True)
        class TestContract:
            @pytest.mark.unsolvable(strict=False)
            def test_method_marker_wins(self, unsolvable):
                record = unsolvable.run("constant-return/repeat")
                assert (record.agent, record.verdict.strict) == ("pkg:contract", False)
                assert record.budget["max_steps"] == 30

            def test_class_marker_wins(self, unsolvable):
                assert unsolvable.run("constant-return/repeat").verdict.strict

        def test_module_marker(unsolvable):
            assert unsolvable.run("constant-return/repeat", step_bound=30).agent == "pkg:naive"

        def test_call_arguments_win(unsolvable):
            record = unsolvable.run("constant-return/repeat", agent="contract", strict=True)
            assert (record.agent, record.verdict.strict) == ("contract", True)
        """
    )
    run("--strict-markers").assert_outcomes(passed=4)


def test_unsolvable_case_parametrizes_over_the_marker_scenarios(
    run: Run, pytester: pytest.Pytester
) -> None:
    pytester.makepyfile(
        test_mine="""
        import pytest

        @pytest.mark.unsolvable(agent="pkg:contract", seeds=[0, 2],
                                scenarios=["missing-permission", "constant-return/repeat"])
        def test_each(unsolvable_case, unsolvable_record):
            assert unsolvable_record.scenario == unsolvable_case.scenario.name
            assert unsolvable_record.seed == unsolvable_case.seed
        """
    )
    result = run("--collect-only", "-q")
    result.stdout.fnmatch_lines(
        [
            "test_mine.py::test_each[missing-permission/retry-403-seed0]",
            "test_mine.py::test_each[missing-permission/retry-403-seed2]",
            "*",
            "test_mine.py::test_each[constant-return/repeat-seed2]",
        ]
    )
    # the family and constant-return/repeat, two seeds each
    run().assert_outcomes(passed=2 * (len(scenarios.select(["missing-permission"])) + 1))


def test_a_misspelt_marker_keyword_is_a_short_type_error(
    run: Run, pytester: pytest.Pytester
) -> None:
    pytester.makepyfile(
        test_mine="""
        import pytest

        @pytest.mark.unsolvable(agent="contract", max_step=3)
        def test_run(unsolvable):
            unsolvable.run("constant-return/repeat")
        """
    )
    result = run("--strict-markers")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "E   TypeError: @pytest.mark.unsolvable(max_step=...): unknown keyword; did you mean "
            "max_steps=? it accepts agent, scenarios, seeds, strict, step_bound, max_steps, *",
        ]
    )
    assert "_marker.py" not in result.stdout.str()


def test_a_negative_seed_in_the_marker_is_a_short_type_error(
    run: Run, pytester: pytest.Pytester
) -> None:
    """It once ran, as ``...-seed-3``: seed 3's random draws under another name."""
    pytester.makepyfile(
        test_mine="""
        import pytest

        @pytest.mark.unsolvable(agent="pkg:contract", seeds=[-3],
                                scenarios=["constant-return/repeat"])
        def test_each(unsolvable_record):
            pass
        """
    )
    result = run()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        [
            "test_mine.py::test_each: TypeError: @pytest.mark.unsolvable(seeds=[-3]): expected "
            "seeds, each a whole number from 0 to 9223372036854775807, e.g. seeds=[0, 1]",
        ]
    )


def test_a_misspelt_scenario_in_the_marker_fails_collection_with_one_line(
    run: Run, pytester: pytest.Pytester
) -> None:
    pytester.makepyfile(
        test_mine="""
        import pytest

        @pytest.mark.unsolvable(agent="contract", scenarios=["missing-permision"])
        def test_each(unsolvable_record):
            pass
        """
    )
    result = run()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        ["test_mine.py::test_each: ScenarioError: unknown scenario 'missing-permision'; *"]
    )


def test_no_agent_anywhere_says_where_to_name_one(run: Run, pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_mine="""
        def test_run(unsolvable):
            unsolvable.run("constant-return/repeat")
        """
    )
    result = run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["E   * unsolvable._errors.AdapterError: no agent to run: name one with unsolvable.run(*"]
    )


def test_assert_passed_shows_expected_vs_observed(run: Run, pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_mine="""
        import pytest

        @pytest.mark.unsolvable(agent="naive")
        def test_naive(unsolvable):
            unsolvable.assert_passed(unsolvable.run("missing-permission/retry-403"))
        """
    )
    result = run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "E       AssertionError: missing-permission/retry-403 (seed 0) × naive: FAIL: *",
            "E         ended:    unstructured",
            "E         stopped:  step 25 (bound N=6); first stagnant step 1; lag 24 steps, *",
            "E         trajectory tail:",
        ],
        consecutive=True,
    )


def test_fixture_runs_reach_the_summary_and_the_json(run: Run, pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_mine="""
        import pytest

        @pytest.mark.unsolvable(scenarios=["missing-permission"], seeds=[0])
        @pytest.mark.parametrize("agent", ["pkg:contract", "pkg:naive"])
        def test_both(unsolvable, unsolvable_case, agent):
            unsolvable.run(unsolvable_case, agent=agent)
        """
    )
    result = run(f"{JSON_OPTION}=out/records.json")
    # five scenarios, one seed, two agents; naive passes only the solvable twin
    assert outcomes(result) == {"passed": 10}
    result.stdout.fnmatch_lines(
        ["unsolvable: all agents: 10 runs, 6 passed, 4 failed (0 did_not_stop, *"]
    )
    records = json.loads((pytester.path / "out/records.json").read_text())["records"]
    assert sorted(r["agent"] for r in records) == ["pkg:contract"] * 5 + ["pkg:naive"] * 5


def test_a_test_that_changes_its_record_changes_no_report(
    run: Run, pytester: pytest.Pytester
) -> None:
    """The record a test gets is the one the session reports: a test that edits its counts,
    its budget or its partial result must not edit what the JSON says was counted."""
    pytester.makepyfile(
        test_mine="""
        import contextlib, json

        def test_edits(unsolvable):
            record = unsolvable.run("missing-permission/retry-403", agent="pkg:contract")
            with open("before.json", "w") as file:
                json.dump(record.to_dict(), file)
            observed = record.observed
            edits = [
                lambda: record.budget.update(max_steps=999),
                lambda: observed.refusals.update(made_up=7),
                lambda: observed.steps_by_agent.update(main=999),
                lambda: observed.agents["main"].refusals.update(made_up=7),
                lambda: record.reported.partial.update(made_up=7),
            ]
            for edit in edits:
                with contextlib.suppress(TypeError):
                    edit()
        """
    )
    result = run(f"{JSON_OPTION}=out/records.json")
    assert outcomes(result) == {"passed": 1}
    (written,) = json.loads((pytester.path / "out/records.json").read_text())["records"]
    before = json.loads((pytester.path / "before.json").read_text())
    assert isinstance(before["reported"]["partial"], dict)  # so that its edit is tried
    for key in ("budget", "observed", "reported"):
        assert written[key] == before[key]


NEEDS_TIME = """
class NeedsTime:
    \"\"\"An adapter that declares the wall ceiling it needs, as the coding-agent CLIs do; it
    returns the one it was given.\"\"\"

    name = "needs-time"
    wall_seconds = 42.0

    def run(self, session):
        return session.ceilings.max_wall_seconds

    def interpret(self, returned, error):
        return None


needs_time = NeedsTime()
"""


def test_an_agent_gets_the_wall_ceiling_it_declares_unless_one_is_given(
    run: Run, pytester: pytest.Pytester
) -> None:
    """In the fixture's runs and in the generated suite's, as under ``unsolvable run``."""
    pytester.makepyfile(timed=NEEDS_TIME)
    pytester.makepyfile(
        test_mine="""
        import pytest

        pytestmark = pytest.mark.unsolvable(agent="timed:needs_time")

        def test_its_own(unsolvable):
            assert unsolvable.run("constant-return/repeat").returned == "42.0"

        @pytest.mark.unsolvable(ceiling_seconds=7.5)
        def test_the_markers(unsolvable):
            assert unsolvable.run("constant-return/repeat").returned == "7.5"
        """
    )
    run().assert_outcomes(passed=2)
    suite = (f"{AGENT_OPTION}=timed:needs_time", f"{SCENARIO_OPTION}=constant-return/repeat",
             NO_SNAPSHOT_OPTION, "-k", "seed0")  # fmt: skip
    for given, returned in (((), "42.0"), ((f"{CEILING_SECONDS_OPTION}=7.5",), "7.5")):
        run(*suite, *given, f"{JSON_OPTION}=records.json")
        (record,) = json.loads((pytester.path / "records.json").read_text())["records"]
        assert record["returned"] == returned, given


def test_the_marker_is_registered_with_its_signature(run: Run) -> None:
    result = run("--markers")
    result.stdout.fnmatch_lines(
        [f"@pytest.mark.{MARKER}(*, agent=None, scenarios=None, seeds=None, strict=None, *"]
    )


READS_THE_TEST_ID = """
import os
from unsolvable import Code, Stop

def agent(session):
    return Stop(code=Code.NO_PROGRESS, reason=str(os.environ.get("PYTEST_CURRENT_TEST")))
"""
"""An agent that stops at once, saying what pytest's variable naming the running test holds."""


def test_no_agent_reads_the_running_tests_id_which_names_its_scenario(
    run: Run, pytester: pytest.Pytester
) -> None:
    """pytest names the running test in ``PYTEST_CURRENT_TEST``, and a test's id names its
    scenario (``test_each[constant-return/repeat-seed0]``): an agent run in the test's process
    read its own there, and a worker started during a test kept that test's for every run."""
    pytester.makepyfile(
        reader=READS_THE_TEST_ID,
        test_mine="""
        import pytest

        @pytest.mark.unsolvable(agent="reader:agent", scenarios=["constant-return/repeat"])
        def test_each(unsolvable, unsolvable_case):
            unsolvable.run(unsolvable_case)
        """,
    )
    generated = (f"{AGENT_OPTION}=reader:agent", f"{SCENARIO_OPTION}=constant-return/repeat")
    run(*generated, NO_SNAPSHOT_OPTION, f"{JSON_OPTION}=out.json")
    records = json.loads((pytester.path / "out.json").read_text())["records"]
    assert [r["reported"]["reason"] for r in records] == ["None"] * 6
