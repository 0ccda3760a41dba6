"""Snapshots of termination records: created, matched, failed with a diff and updated as syrupy
users expect; in a predictable folder; the same bytes serially and under xdist."""

from __future__ import annotations

import pytest

from tests.plugin._helpers import Run, cases, outcomes, snapshot_files
from unsolvable.plugin._options import (
    AGENT_OPTION,
    FAMILY_OPTION,
    NO_SNAPSHOT_OPTION,
    SNAPSHOT_DIR_OPTION,
    STRICT_OPTION,
)

FAMILY = "missing-permission"
CONTRACT = (f"{AGENT_OPTION}=pkg:contract", f"{FAMILY_OPTION}={FAMILY}")
RECORD = "__unsolvable__/pkg.contract/missing-permission/retry-403-seed1.json"


def test_a_missing_snapshot_fails_and_says_how_to_record_it(run: Run) -> None:
    result = run(*CONTRACT, "-k", "retry-403-seed1")
    result.assert_outcomes(failed=1, deselected=cases() - 1)
    result.stdout.fnmatch_lines(
        [
            "E   unsolvable.plugin.SnapshotMissing: unsolvable: "
            "missing-permission/retry-403 (seed 1) × pkg:contract "
            f"has no snapshot yet at */{RECORD}",
            "    Record it with pytest --snapshot-update (or turn snapshots of the generated "
            f"suite off with {NO_SNAPSHOT_OPTION}).",
        ],
        consecutive=True,
    )


def test_snapshots_are_created_then_matched_in_a_predictable_folder(
    run: Run, pytester: pytest.Pytester
) -> None:
    """Under xdist: test_serial_and_xdist_runs_write_the_same_bytes and test_readme.py."""
    created = run(*CONTRACT, "--snapshot-update")
    created.stdout.fnmatch_lines([f"{cases(FAMILY)} snapshots generated."])
    record = (pytester.path / RECORD).read_text()
    assert '"code": "BLOCKED_INPUT"' in record and '"wall_seconds"' not in record
    matched = run(*CONTRACT)
    assert outcomes(matched) == {"passed": cases(FAMILY)}
    matched.stdout.fnmatch_lines([f"{cases(FAMILY)} snapshots passed."])


def test_a_changed_stop_fails_with_a_diff_and_update_accepts_it(
    run: Run, pytester: pytest.Pytester, xdist_args: tuple[str, ...]
) -> None:
    run(*CONTRACT, "--snapshot-update")
    path = pytester.path / RECORD
    original = path.read_text()
    assert '"detection_lag": 1' in original
    path.write_text(original.replace('"detection_lag": 1', '"detection_lag": 4'))
    failed = run(*CONTRACT, *xdist_args)
    assert outcomes(failed) == {"failed": 1, "passed": cases(FAMILY) - 1}
    failed.stdout.fnmatch_lines(
        [
            "E   unsolvable.plugin.SnapshotChanged: unsolvable: the termination record of "
            "missing-permission/retry-403 (seed 1) × pkg:contract differs from its snapshot",
            "      stop changed: lag 4 → 1, code unchanged",
            "    [- snapshot] == [+ received]",
            "*",
            '    -     "detection_lag": 4,',
            '    +     "detection_lag": 1,',
        ]
    )
    failed.stdout.fnmatch_lines(["*If the new stop behaviour is intended, accept it with pytest "
                                 "--snapshot-update."])  # fmt: skip
    failed.stdout.fnmatch_lines(
        [
            f"unsolvable: {cases(FAMILY)} runs, {cases(FAMILY)} passed, 0 failed *",
            "*",
            "unsolvable: 1 test(s) failed on their snapshot alone: the verdict passed, but the "
            "record differs from its snapshot *",
        ]
    )
    run(*CONTRACT, "--snapshot-update", *xdist_args).stdout.fnmatch_lines(["*1 snapshot updated."])
    assert path.read_text() == original


def test_serial_and_xdist_runs_write_the_same_bytes(run: Run, pytester: pytest.Pytester) -> None:
    run(*CONTRACT, "--snapshot-update", f"{SNAPSHOT_DIR_OPTION}=serial")
    run(*CONTRACT, "--snapshot-update", f"{SNAPSHOT_DIR_OPTION}=parallel", "-n", "2")
    serial = snapshot_files(pytester.path / "serial")
    assert len(serial) == cases(FAMILY)
    assert serial == snapshot_files(pytester.path / "parallel")


def test_an_obsolete_snapshot_is_reported_then_deleted(run: Run, pytester: pytest.Pytester) -> None:
    """As in syrupy, ``-k`` (or no selection) can tell; the unsolvable filters leave snapshots
    alone (below)."""
    selected = (f"{AGENT_OPTION}=pkg:contract", "-k", FAMILY)
    run(*selected, "--snapshot-update")
    gone = pytester.path / "__unsolvable__/pkg.contract/missing-permission/retired-seed0.json"
    gone.write_text("{}\n")
    reported = run(*selected)
    assert reported.ret == 1
    reported.stdout.fnmatch_lines([f"{cases(FAMILY)} snapshots passed. 1 snapshot unused."])
    run(*selected, "--snapshot-update").stdout.fnmatch_lines(["*1 unused snapshot deleted."])
    assert not gone.exists()


def test_a_json_file_the_suite_never_writes_is_no_snapshot_of_it(
    run: Run, pytester: pytest.Pytester
) -> None:
    """Only ``<family>/<variant>-seed<N>.json`` is a case's: a user's file of another shape in
    the agent's folder (a snapshot folder of ``.`` puts it in the project's) is never unused."""
    selected = (f"{AGENT_OPTION}=pkg:contract", "-k", FAMILY)
    run(*selected, "--snapshot-update")
    folder = pytester.path / "__unsolvable__/pkg.contract"
    theirs = [folder / "settings.json", folder / FAMILY / "notes.json"]
    for path in theirs:
        path.write_text("{}\n")
    updated = run(*selected, "--snapshot-update")
    assert updated.ret == 0 and "unused" not in updated.stdout.str()
    assert all(path.exists() for path in theirs)


def test_filtered_runs_and_other_agents_leave_other_snapshots_alone(
    run: Run, pytester: pytest.Pytester
) -> None:
    run(*CONTRACT, f"{FAMILY_OPTION}=constant-return", "--snapshot-update")
    before = snapshot_files(pytester.path / "__unsolvable__")
    filtered = run(*CONTRACT, "--snapshot-update")
    assert outcomes(filtered) == {"passed": cases(FAMILY)} and "unused" not in filtered.stdout.str()
    run(f"{AGENT_OPTION}=contract", f"{FAMILY_OPTION}={FAMILY}", "--snapshot-update")
    after = snapshot_files(pytester.path / "__unsolvable__")
    assert {k: v for k, v in after.items() if k.startswith("pkg.contract/")} == before
    assert sum(k.startswith("contract/") for k in after) == cases(FAMILY)


def test_snapshots_can_be_turned_off(run: Run, pytester: pytest.Pytester) -> None:
    run(*CONTRACT, NO_SNAPSHOT_OPTION).assert_outcomes(
        passed=cases(FAMILY), deselected=cases() - cases(FAMILY)
    )
    assert not (pytester.path / "__unsolvable__").exists()


def test_own_tests_snapshot_records_where_syrupy_puts_json(
    run: Run, pytester: pytest.Pytester
) -> None:
    pytester.makepyfile(
        test_mine="""
        import pytest

        @pytest.mark.unsolvable(agent="pkg:contract")
        def test_record(unsolvable, unsolvable_snapshot):
            assert unsolvable_snapshot == unsolvable.run("missing-permission/retry-403")
        """
    )
    run("--snapshot-update").stdout.fnmatch_lines(["1 snapshot generated."])
    assert (pytester.path / "__snapshots__/test_mine/test_record.json").is_file()
    run().assert_outcomes(passed=1)


def test_own_tests_over_each_case_snapshot_each_record_under_w_error(
    run: Run, pytester: pytest.Pytester
) -> None:
    """Every `unsolvable_case` id holds a "/", which syrupy leaves out of the file's name and
    then looked for in it, warning that it could not relate the file to the test: under
    ``-W error`` (the run's `QUIET`) that failed every case's ``--snapshot-update``."""
    pytester.makepyfile(
        test_mine="""
        import pytest

        @pytest.mark.unsolvable(agent="pkg:contract", scenarios=["constant-return/repeat"])
        def test_record(unsolvable_record, unsolvable_snapshot):
            assert unsolvable_snapshot == unsolvable_record
            assert unsolvable_snapshot == unsolvable_record.code
        """
    )
    repeat = cases("constant-return/repeat")
    run("--snapshot-update").stdout.fnmatch_lines([f"{2 * repeat} snapshots generated."])
    folder = pytester.path / "__snapshots__/test_mine"
    assert {path.name for path in folder.iterdir()} == {
        f"test_record[constant-returnrepeat-seed{seed}]{index}.json"
        for seed in range(repeat)
        for index in ("", ".1")
    }
    run().assert_outcomes(passed=repeat)


def test_switching_strictness_changes_no_snapshot(run: Run) -> None:
    blessed = run(f"{AGENT_OPTION}=pkg:contract", f"{FAMILY_OPTION}=missing-permission",
                  "--snapshot-update")  # fmt: skip
    assert blessed.ret == 0
    strict = run(f"{AGENT_OPTION}=pkg:contract", f"{FAMILY_OPTION}=missing-permission",
                 STRICT_OPTION)  # fmt: skip
    assert strict.ret == 0, strict.stdout.str()


def test_a_first_run_without_snapshots_says_so_in_one_line(
    run: Run, xdist_args: tuple[str, ...]
) -> None:
    result = run(*CONTRACT, *xdist_args)
    assert outcomes(result) == {"failed": cases(FAMILY)}
    result.stdout.fnmatch_lines(
        [
            f"unsolvable: {cases(FAMILY)} verdict(s) passed but their snapshots are not recorded "
            "yet; record them with the same command plus --snapshot-update"
        ]
    )
