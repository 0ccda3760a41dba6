"""The zero-code way in: ``pytest --unsolvable-agent=pkg:agent`` in a project with no test code."""

from __future__ import annotations

import importlib

import pytest

from tests.plugin._helpers import Run, cases, outcomes
from unsolvable.plugin._options import (
    AGENT_OPTION,
    BASELINE_COST_MARGIN_OPTION,
    BASELINE_FALSE_STOP_MARGIN_OPTION,
    CEILING_SECONDS_OPTION,
    CEILING_STEPS_OPTION,
    FAMILY_OPTION,
    JSON_OPTION,
    LENIENT_OPTION,
    MAX_STEPS_OPTION,
    NO_SNAPSHOT_OPTION,
    SCENARIO_OPTION,
    STEP_BOUND_OPTION,
    STRICT_OPTION,
)
from unsolvable.plugin._suite import SUITE_MODULE, SUITE_TEST

CONTRACT, NAIVE = f"{AGENT_OPTION}=pkg:contract", f"{AGENT_OPTION}=pkg:naive"
TALKS = """import logging, warnings

def agent(session):
    warnings.warn("this call is going away", UserWarning)
    logging.getLogger("agent").warning("going on all the same")
    return "no structured exit"
"""
SETS_UP = """import logging, warnings

logging.basicConfig(format="logged: %(message)s")
logging.captureWarnings(True)
warnings.filterwarnings("ignore", message="this module is internal")

def agent(session):
    warnings.warn("this call is going away", UserWarning)
    warnings.warn("this module is internal", UserWarning)
    return "no structured exit"
"""


def test_contract_agent_passes_the_whole_library(run: Run) -> None:
    """Serially; the README's ``-n 2`` run, with snapshots, is in test_readme.py."""
    result = run(CONTRACT, NO_SNAPSHOT_OPTION)
    result.assert_outcomes(passed=cases())
    assert result.ret == 0


def test_a_failure_shows_expected_vs_observed_and_the_tail(run: Run) -> None:
    result = run(NAIVE, NO_SNAPSHOT_OPTION, "-k", "constant-return/repeat-seed0")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "E   AssertionError: constant-return/repeat (seed 0) × pkg:naive: FAIL: returned no "
            "structured exit (*); expected NO_PROGRESS; stopped at step 25, after the bound N=12*",
            "      ended:    unstructured",
            "      stopped:  step 25 (bound N=12); first stagnant step 2; lag 23 steps, *",
            "      trajectory tail:",
            "        step 20: *",
            "          → search_invoices(*) = *",
        ],
        consecutive=True,
    )


def test_last_failed_runs_the_suites_failures_again_beside_a_files(
    run: Run, pytester: pytest.Pytester
) -> None:
    """``--lf``, once it has collected a file with a known failure, skips every file whose path
    holds none it knows of: a suite whose snapshot folder does not exist (no snapshots, or none
    recorded yet) was skipped so, and only the test file's failure ran again."""
    pytester.makepyfile(test_mine="def test_fails():\n    assert False\n")
    args = (NAIVE, NO_SNAPSHOT_OPTION, "-k", "test_fails or constant-return/repeat-seed0")
    assert outcomes(run(*args)) == {"failed": 2}
    again = run(*args, "--lf")
    assert outcomes(again) == {"failed": 2}
    again.stdout.fnmatch_lines(["run-last-failure: rerun previous 2 failures"])


def test_ids_are_readable_and_selectable_with_k(run: Run) -> None:
    result = run(CONTRACT, "--collect-only", "-q")
    result.stdout.fnmatch_lines(
        ["__unsolvable__/pkg.contract::test_unsolvable[constant-return/perturbed-offset-seed1]"]
    )
    selected = run(CONTRACT, NO_SNAPSHOT_OPTION, "-k", "perturbed-offset-seed1")
    selected.assert_outcomes(passed=1, deselected=cases() - 1)


def test_scenario_and_family_filters_deselect(run: Run) -> None:
    result = run(
        CONTRACT,
        NO_SNAPSHOT_OPTION,
        f"{FAMILY_OPTION}=missing-permission",
        f"{SCENARIO_OPTION}=constant-return/repeat",
    )
    chosen = cases("missing-permission", "constant-return/repeat")
    result.assert_outcomes(passed=chosen, deselected=cases() - chosen)


def test_lenient_accepts_an_exhausted_budget_and_strict_does_not(run: Run) -> None:
    args = (
        CONTRACT,
        NO_SNAPSHOT_OPTION,
        "-k",
        "constant-return/repeat-seed0",
        f"{MAX_STEPS_OPTION}=2",
    )
    run(*args, LENIENT_OPTION).assert_outcomes(passed=1, deselected=cases() - 1)
    strict = run(*args, STRICT_OPTION)
    strict.assert_outcomes(failed=1, deselected=cases() - 1)
    strict.stdout.fnmatch_lines(["*expected NO_PROGRESS, got BUDGET_STEPS*"])


def test_step_bound_and_ceiling_options_reach_the_runs(run: Run) -> None:
    bound = run(CONTRACT, NO_SNAPSHOT_OPTION, f"{SCENARIO_OPTION}=constant-return/repeat",
                f"{STEP_BOUND_OPTION}=2")  # fmt: skip
    bound.stdout.fnmatch_lines(["*stopped at step 3, after the bound N=2*"])
    ceiling = run(NAIVE, NO_SNAPSHOT_OPTION, f"{SCENARIO_OPTION}=constant-return/repeat",
                  f"{CEILING_STEPS_OPTION}=5")  # fmt: skip
    ceiling.stdout.fnmatch_lines(["unsolvable: 3 runs, 0 passed, 3 failed (3 did_not_stop, *"])


def test_ini_options_drive_the_suite(run: Run, pytester: pytest.Pytester) -> None:
    pytester.makeini(
        "[pytest]\nunsolvable_agent = pkg:contract\nunsolvable_family = missing-permission\n"
        "unsolvable_strict = true\nunsolvable_snapshot = false\n"
    )
    pytester.makepyfile(test_other="def test_other():\n    pass\n")
    chosen = cases("missing-permission")
    run().assert_outcomes(passed=chosen + 1, deselected=cases() - chosen)
    run("test_other.py").assert_outcomes(passed=1)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            (f"{AGENT_OPTION}=nope:agent",),
            f"ERROR: {AGENT_OPTION}: agent 'nope:agent': module 'nope' cannot be imported *",
        ),
        (
            (f"{AGENT_OPTION}=pkg:missing",),
            f"ERROR: {AGENT_OPTION}: agent 'pkg:missing': 'pkg' has no attribute 'missing'; "
            "check its spelling*",
        ),
        (
            (f"{AGENT_OPTION}=unsolvable.adapters:PlainAdapter",),
            f"ERROR: {AGENT_OPTION}: agent 'unsolvable.adapters:PlainAdapter' is an Adapter class "
            "(PlainAdapter), *`adapter = PlainAdapter()`, then name that object as the agent: "
            "unsolvable.adapters:adapter",
        ),
        (
            (CONTRACT, f"{SCENARIO_OPTION}=constant-return/repeet"),
            "ERROR: *: unknown scenario 'constant-return/repeet'; did you mean "
            "constant-return/repeat*",
        ),
        (
            (CONTRACT, f"{CEILING_STEPS_OPTION}=0"),
            f"ERROR: {CEILING_STEPS_OPTION}=0: must be a positive number *",
        ),
        (
            (CONTRACT, f"{CEILING_SECONDS_OPTION}=inf"),
            f"ERROR: {CEILING_SECONDS_OPTION}=inf: must be a finite number *",
        ),
        (
            (f"{BASELINE_COST_MARGIN_OPTION}=inf",),
            f"ERROR: {BASELINE_COST_MARGIN_OPTION}=inf: must be a finite number *",
        ),
        (
            (f"{BASELINE_FALSE_STOP_MARGIN_OPTION}=2",),
            f"ERROR: {BASELINE_FALSE_STOP_MARGIN_OPTION}=2.0: must be 1 at most, or any rate "
            "would pass *",
        ),
    ],
    ids=[
        "module",
        "attribute",
        "class",
        "scenario",
        "ceiling",
        "endless",
        "cost-margin",
        "rate-margin",
    ],
)
def test_bad_options_are_usage_errors_not_tracebacks(
    run: Run, args: tuple[str, ...], message: str
) -> None:
    result = run(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert "Traceback" not in result.stderr.str() + result.stdout.str()


def test_a_bad_ini_number_is_a_usage_error(run: Run, pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nunsolvable_step_bound = ten\n")
    result = run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: ini unsolvable_step_bound = 'ten' is not a whole number*"])


def test_a_bad_ini_switch_is_a_usage_error_naming_its_key(
    run: Run, pytester: pytest.Pytester
) -> None:
    pytester.makeini("[pytest]\nunsolvable_strict = maybe\n")
    result = run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: ini unsolvable_strict: *'maybe'; write unsolvable_strict = true or false *"]
    )


def test_the_suite_constants_name_the_generated_test() -> None:
    module = importlib.import_module(SUITE_MODULE)
    assert callable(getattr(module, SUITE_TEST))


def test_a_failing_runs_output_is_kept_alike_serially_and_under_xdist(
    run: Run, pytester: pytest.Pytester
) -> None:
    """The suite's runs are made in worker processes: one started as a copy of a serial
    session's own process carried pytest's capture of warnings and logs into every run, whose
    record then kept none of what the agent said; an xdist worker's kept it all."""
    pytester.makepyfile(talks=TALKS)
    suite = (f"{AGENT_OPTION}=talks:agent", f"{FAMILY_OPTION}=oscillation", NO_SNAPSHOT_OPTION)
    run(*suite, f"{JSON_OPTION}=serial.json")
    run(*suite, f"{JSON_OPTION}=xdist.json", "-n", "2")
    serial = (pytester.path / "serial.json").read_text()
    for said in ("talks.py:4: UserWarning: this call is going away", "going on all the same"):
        assert serial.count(said) == cases("oscillation"), said
    assert serial == (pytester.path / "xdist.json").read_text()


def test_what_an_agents_import_sets_up_holds_for_each_run_serially_and_under_xdist(
    run: Run, pytester: pytest.Pytester
) -> None:
    """Each worker imports the agent's module in its first run, whose warnings filter and
    warnings sent to `logging` held for that run alone: the records then told a worker's first
    run from its later ones, and a serial session from an xdist one."""
    pytester.makepyfile(sets_up=SETS_UP)
    suite = (f"{AGENT_OPTION}=sets_up:agent", f"{FAMILY_OPTION}=oscillation", NO_SNAPSHOT_OPTION)
    run(*suite, f"{JSON_OPTION}=serial.json")
    run(*suite, f"{JSON_OPTION}=xdist.json", "-n", "2")
    serial = (pytester.path / "serial.json").read_text()
    said = "logged: sets_up.py:8: UserWarning: this call is going away"
    assert serial.count(said) == cases("oscillation")
    assert "this module is internal" not in serial
    assert serial == (pytester.path / "xdist.json").read_text()


def test_the_suite_runs_under_a_tmpdir_too_deep_for_a_fork_servers_socket(
    run: Run, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plugin's workers start from a fork server, which names its socket in TMPDIR, and a
    Unix socket's path holds 107 bytes: under a deep one (a build sandbox's, a CI runner's) every
    case failed with ``OSError: AF_UNIX path too long``. They start by spawn then."""
    deep = pytester.path / ("d" * 100)
    deep.mkdir()
    monkeypatch.setenv("TMPDIR", str(deep))
    suite = (f"{AGENT_OPTION}=contract", f"{FAMILY_OPTION}=oscillation", NO_SNAPSHOT_OPTION)
    run(*suite).assert_outcomes(passed=cases("oscillation"))
