"""``pytest --unsolvable-shard K/N``: each job of a CI matrix runs its 1/N of the generated
suite (a test of one's own in shard 1 alone), and ``unsolvable merge`` of their
``--unsolvable-json`` files is the whole session's file, byte for byte."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.plugin._helpers import Run, cases, outcomes, snapshot_files
from unsolvable.plugin._options import (
    AGENT_OPTION,
    BASELINE_OPTION,
    FAMILY_OPTION,
    JSON_OPTION,
    NO_SNAPSHOT_OPTION,
    SHARD_OPTION,
)

FAMILIES = ("missing-permission", "long-healthy")
SUITE = (f"{AGENT_OPTION}=pkg:contract", f"{AGENT_OPTION}=pkg:naive",
         *(f"{FAMILY_OPTION}={family}" for family in FAMILIES))  # fmt: skip
OWN_TEST = (
    "def test_of_my_own(unsolvable):\n    unsolvable.run('oscillation/a-b', agent='pkg:naive')\n"
)


def _ran(result: pytest.RunResult) -> int:
    return sum(outcomes(result).values())


def test_the_shards_merged_are_the_whole_session_byte_for_byte(
    run: Run, pytester: pytest.Pytester
) -> None:
    pytester.makepyfile(test_own=OWN_TEST)
    whole = run(*SUITE, NO_SNAPSHOT_OPTION, f"{JSON_OPTION}=whole.json")
    ran = []
    for k, xdist in ((1, ()), (2, ("-n", "2")), (3, ())):
        shard = run(*SUITE, NO_SNAPSHOT_OPTION, f"{SHARD_OPTION}={k}/3",
                    f"{JSON_OPTION}=part{k}.json", *xdist)  # fmt: skip
        ran.append(_ran(shard))
    assert sum(ran) == _ran(whole) == 2 * cases(*FAMILIES) + 1
    merge = [sys.executable, "-m", "unsolvable.cli", "merge", "part3.json", "part1.json",
             "part2.json", "--json", "merged.json"]  # fmt: skip
    subprocess.run(merge, cwd=pytester.path, check=False, capture_output=True, timeout=120)
    merged = (pytester.path / "merged.json").read_bytes()
    assert merged == (pytester.path / "whole.json").read_bytes()


def test_shards_that_shuffle_their_tests_apart_still_split_the_session(
    run: Run, pytester: pytest.Pytester
) -> None:
    """pytest-randomly, on wherever it is installed, shuffles each job's tests with a seed of its
    own: the shards took their cases, and hashed their plan, in that order, so that they ran
    some cases twice, others never, and ``unsolvable merge`` refused them as different runs."""
    run(*SUITE, NO_SNAPSHOT_OPTION, f"{JSON_OPTION}=whole.json")
    for k in (1, 2):
        run(*SUITE, NO_SNAPSHOT_OPTION, "-p", "randomly", f"--randomly-seed={k}",
            f"{SHARD_OPTION}={k}/2", f"{JSON_OPTION}=part{k}.json")  # fmt: skip
    merge = [sys.executable, "-m", "unsolvable.cli", "merge", "part1.json", "part2.json",
             "--json", "merged.json"]  # fmt: skip
    merged = subprocess.run(merge, cwd=pytester.path, capture_output=True, text=True, timeout=120)
    assert merged.returncode != 2, merged.stderr  # 2: refused; 1: pkg:naive's verdicts failed
    whole = (pytester.path / "whole.json").read_bytes()
    assert (pytester.path / "merged.json").read_bytes() == whole


def test_a_shards_snapshot_update_leaves_the_other_shards_snapshots(
    run: Run, pytester: pytest.Pytester
) -> None:
    run(*SUITE, "--snapshot-update")
    before = snapshot_files(pytester.path / "__unsolvable__")
    updated = run(*SUITE, f"{SHARD_OPTION}=2/3", "--snapshot-update")
    assert 0 < _ran(updated) < 2 * cases(*FAMILIES)
    assert snapshot_files(pytester.path / "__unsolvable__") == before


def test_a_shard_with_a_baseline_or_not_k_of_n_is_a_usage_error(run: Run) -> None:
    gated = run(*SUITE, f"{SHARD_OPTION}=1/3", f"{BASELINE_OPTION}=b.json")
    assert gated.ret == pytest.ExitCode.USAGE_ERROR
    gated.stderr.fnmatch_lines(["*with a shard would gate (or write) a part of each group*"])
    bad = run(*SUITE, f"{SHARD_OPTION}=3/2")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines([f"ERROR: {SHARD_OPTION}: shard 3/2: K/N needs 1 ≤ K ≤ N*"])


def test_shards_of_two_sessions_are_refused(run: Run, pytester: pytest.Pytester) -> None:
    """Shard 1 of one suite and shard 2 of another (other families) are no whole session."""
    for k, family in ((1, "missing-permission"), (2, "long-healthy")):
        run(f"{AGENT_OPTION}=pkg:contract", f"{FAMILY_OPTION}={family}", NO_SNAPSHOT_OPTION,
            f"{SHARD_OPTION}={k}/2", f"{JSON_OPTION}=part{k}.json")  # fmt: skip
    merge = [sys.executable, "-m", "unsolvable.cli", "merge", "part1.json", "part2.json",
             "--json", "merged.json"]  # fmt: skip
    merged = subprocess.run(merge, cwd=pytester.path, capture_output=True, text=True, timeout=120)
    assert merged.returncode == 2, merged.stdout
    assert "the parts were cut from different runs" in merged.stderr
    assert not (pytester.path / "merged.json").exists()
