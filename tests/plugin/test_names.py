"""An agent's name labels its suite, its records, its snapshots and its baseline groups, so a
bless from one folder matches a run from another; a failed test's id runs it again."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.plugin._helpers import (
    PYTEST_SECONDS,
    QUIET,
    USER_AGENTS,
    XDIST_ENVIRONMENT,
    Run,
    cases,
    outcomes,
)
from unsolvable.plugin._options import (
    AGENT_OPTION,
    BASELINE_OPTION,
    FAMILY_OPTION,
    NO_SNAPSHOT_OPTION,
    UPDATE_BASELINE_OPTION,
)

FAMILY = "missing-permission"
CHOSEN = f"{FAMILY_OPTION}={FAMILY}"


def _project(pytester: pytest.Pytester) -> Path:
    """A repository with an ini file at its root and the agent in ``agents/myagent.py``."""
    pytester.makepyprojecttoml("[tool.pytest.ini_options]\n")
    folder = pytester.mkpydir("agents")
    (folder / "myagent.py").write_text(USER_AGENTS)
    return folder


def _pytest(pytester: pytest.Pytester, where: Path, *args: str) -> pytest.RunResult:
    """pytest started from ``where``, as the `run` fixture starts it from the project's root."""
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(where)
        for name in XDIST_ENVIRONMENT:
            patch.delenv(name, raising=False)
        return pytester.runpytest_subprocess(*QUIET, CHOSEN, *args, timeout=PYTEST_SECONDS)


def test_a_bless_from_the_agents_folder_matches_a_run_from_the_root(
    pytester: pytest.Pytester,
) -> None:
    folder = _project(pytester)
    bless = ("--snapshot-update", f"{BASELINE_OPTION}=../ci/b.json", UPDATE_BASELINE_OPTION)
    blessed = _pytest(pytester, folder, f"{AGENT_OPTION}=mine=myagent:contract", *bless)
    assert outcomes(blessed) == {"passed": cases(FAMILY)}
    wrote = re.search(r"wrote baseline of (\d+) groups", blessed.stdout.str())
    assert wrote is not None
    groups = wrote[1]
    gate = f"{BASELINE_OPTION}=ci/b.json"
    again = _pytest(pytester, pytester.path, f"{AGENT_OPTION}=mine=agents.myagent:contract", gate)
    assert outcomes(again) == {"passed": cases(FAMILY)}
    again.stdout.fnmatch_lines([f"{cases(FAMILY)} snapshots passed."])
    again.stdout.fnmatch_lines([f"unsolvable: baseline gate passed: {groups} groups compared *"])
    unnamed = _pytest(pytester, pytester.path, f"{AGENT_OPTION}=agents.myagent:contract")
    assert outcomes(unnamed) == {"failed": cases(FAMILY)}, "labelled by the spec, it is new"


def test_two_agents_with_one_label_are_a_usage_error(run: Run, pytester: pytest.Pytester) -> None:
    pytester.makepyfile(adapters="from unsolvable.agents import contract\nother = contract\n")
    result = run(f"{AGENT_OPTION}=adapters:contract", f"{AGENT_OPTION}=adapters:other", CHOSEN)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            f"ERROR: {AGENT_OPTION}: agents 'adapters:contract' and 'adapters:other' would both "
            f"be labelled 'contract'*e.g. {AGENT_OPTION} first=adapters:contract "
            f"{AGENT_OPTION} second=adapters:other)*"
        ]
    )
    named = run(f"{AGENT_OPTION}=a=adapters:contract", f"{AGENT_OPTION}=b=adapters:other", CHOSEN,
                NO_SNAPSHOT_OPTION, "--collect-only", "-q")  # fmt: skip
    named.stdout.fnmatch_lines(["__unsolvable__/a::*", "__unsolvable__/b::*"])


def _failed_id(result: pytest.RunResult) -> str:
    (line,) = [line for line in result.outlines if line.startswith("FAILED __unsolvable__/")][:1]
    return line.split()[1]


@pytest.mark.parametrize("xdist", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_a_failed_tests_id_runs_it_again_alone(
    run: Run, pytester: pytest.Pytester, xdist: tuple[str, ...]
) -> None:
    first = run(f"{AGENT_OPTION}=pkg:naive", CHOSEN, "--snapshot-update")
    snapshots = sorted((pytester.path / "__unsolvable__").rglob("*.json"))
    node_id = _failed_id(first)
    assert node_id.startswith("__unsolvable__/pkg.naive::test_unsolvable[missing-permission/")
    again = run(f"{AGENT_OPTION}=pkg:naive", node_id, "--snapshot-update", *xdist)
    assert outcomes(again) == {"failed": 1} and _failed_id(again) == node_id
    assert sorted((pytester.path / "__unsolvable__").rglob("*.json")) == snapshots, "kept"
    whole = run(f"{AGENT_OPTION}=pkg:naive", "__unsolvable__/pkg.naive::test_unsolvable",
                NO_SNAPSHOT_OPTION, "--collect-only", "-q")  # fmt: skip
    whole.stdout.fnmatch_lines([f"{cases()} tests collected*"])


def test_a_node_id_that_names_no_test_of_the_suite_says_so(run: Run) -> None:
    result = run(f"{AGENT_OPTION}=pkg:naive", "__unsolvable__/pkg.naive::test_unsolvable[nope]")
    says = "__unsolvable__/pkg.naive: no test 'test_unsolvable[nope]' in this suite"
    assert says in result.outlines
    assert result.ret == pytest.ExitCode.INTERRUPTED
