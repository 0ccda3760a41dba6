"""The README's plugin section, run exactly as written: its commands, its ini block and its test
module, in a scratch project that only has the package installed."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests._docs import marked
from tests.plugin._helpers import PYTEST_SECONDS, Run, cases, outcomes

SECTION = marked("plugin")


def _block(language: str, containing: str = "") -> str:
    """The one ``language`` block of the plugin's sections (the README's CI recipe and the
    plugin's page) that holds ``containing``."""
    blocks = re.findall(rf"```{language}\n(.*?)```", SECTION, re.S)
    (block,) = [str(block) for block in blocks if containing in block]
    return block


def _commands(block: str) -> list[list[str]]:
    lines = block.splitlines()
    assert all(line.startswith("pytest ") for line in lines)
    return [shlex.split(line)[1:] for line in lines]


ZERO_CODE, BLESS, KNOWN = "-n 2 --snapshot-update\n", "--unsolvable-update-baseline", "@ci/"
"""What tells the ``sh`` blocks apart: the zero-code commands, blessing a CI baseline, and
deselecting known failures."""


def test_the_zero_code_commands(run: Run) -> None:
    """The issue's "done when": ``pytest --unsolvable-agent=... -n 2`` with nothing but the
    package installed: contract passes and its snapshots are created, then matched; naive fails,
    each failure explaining itself, and its snapshots are created as well."""
    create, match, naive = (run(*args) for args in _commands(_block("sh", ZERO_CODE)))
    assert outcomes(create) == outcomes(match) == {"passed": cases()}
    create.stdout.fnmatch_lines([f"{cases()} snapshots generated."])
    match.stdout.fnmatch_lines([f"{cases()} snapshots passed."])
    failed = naive.parseoutcomes()["failed"]
    explained = [  # the failure sections; CI=true also prints the full short summary lines
        line
        for line in naive.outlines
        if line.startswith("E   AssertionError:") and " × naive: FAIL: " in line
    ]
    assert failed > cases() / 2 and len(explained) == failed
    naive.stdout.fnmatch_lines([f"{cases()} snapshots generated."])
    naive.stdout.fnmatch_lines(
        [
            "E   AssertionError: constant-return/perturbed-synonym (seed 0) × "
            "naive: FAIL: returned no structured exit *",
            "      ended:    unstructured",
            "      stopped:  step 25 (bound N=12); first stagnant step 2; lag 23 steps, *",
            "      trajectory tail:",
        ],
        consecutive=True,
    )
    assert _words(_shown_summary()) <= _words(match.stdout.str())


def _shown_summary() -> str:
    """The summary the plugin's page shows, its rows cut short by ``…`` lines."""
    shown = re.search(r"```\n(=+ unsolvable =+\n.*?)```", SECTION, re.S)
    assert shown is not None
    return shown.group(1)


def _words(text: str) -> set[tuple[str, ...]]:
    """Each line as its words: the page narrows the columns to fit its width."""
    return {tuple(line.split()) for line in text.splitlines() if line.strip() not in ("", "…")}


def test_the_snapshot_path_shown(run: Run, pytester: pytest.Pytester) -> None:
    shown = re.search(r"```\n(__unsolvable__/\S+\.json)\n```", SECTION)
    assert shown is not None
    run("--unsolvable-agent=unsolvable.agents:contract", "--snapshot-update", "-k", "offset-seed1")
    assert (pytester.path / shown.group(1)).is_file()


def test_the_ini_block(run: Run, pytester: pytest.Pytester) -> None:
    (pytester.path / "pyproject.toml").write_text(_block("toml"))
    chosen = cases("constant-return", "missing-permission")
    assert outcomes(run("--snapshot-update")) == {"passed": chosen}
    assert outcomes(run()) == {"passed": chosen}
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    run("test_one.py").assert_outcomes(passed=1)


def test_the_test_module(run: Run, pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_readme_example=_block("python"))
    expected = cases("missing-permission") + 2
    assert outcomes(run("--strict-markers", "--snapshot-update")) == {"passed": expected}
    assert outcomes(run("--strict-markers")) == {"passed": expected}
    assert (pytester.path / "__snapshots__/test_readme_example").is_dir()


def _ci(run: Run, pytester: pytest.Pytester, workflow: str) -> subprocess.CompletedProcess[str]:
    """The workflow's matrix, one shard after another (its pytest step with the shard filled
    in), then its merge job."""
    [shard_step] = re.findall(r"- run: (pytest .*)", workflow)
    [merge_step] = re.findall(r"- run: unsolvable (merge .*)", workflow)
    shards = re.search(r"shard: \[([\d, ]+)\]", workflow)
    assert shards is not None
    for shard in shards[1].split(", "):
        run(*shlex.split(shard_step.replace("${{ matrix.shard }}", shard))[1:])
    command = [sys.executable, "-m", "unsolvable.cli", *shlex.split(merge_step)]
    return subprocess.run(command, cwd=pytester.path, capture_output=True, text=True, timeout=300)


def test_the_ci_example(run: Run, pytester: pytest.Pytester) -> None:
    """The bless command, then the workflow's matrix of shards and its merge job: the gate
    passes and the files the workflow uses are there; with the agent changed to stop like
    naive, the merge fails as shown."""
    agents = pytester.mkpydir("mypkg") / "agents.py"
    agents.write_text("from unsolvable.agents import contract as my_agent\n")
    [bless] = _commands(_block("sh", BLESS))
    assert run(*bless).ret == 0
    workflow = _block("yaml")
    passed = _ci(run, pytester, workflow)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "unsolvable: baseline gate passed: " in passed.stdout
    summary = re.search(r'run: cat (\S+) >> "\$GITHUB_STEP_SUMMARY"', workflow)
    assert summary is not None
    assert (pytester.path / summary.group(1)).read_text().startswith("## unsolvable: ")
    artifact = re.search(r"name: unsolvable-report\n\s+path: \|\n\s+(\S+)", workflow)
    assert artifact is not None
    kept = sorted(path.name for path in pytester.path.glob(artifact.group(1)))
    assert kept == ["unsolvable.html", "unsolvable.json", "unsolvable.md"]

    agents.write_text("from unsolvable.agents import naive as my_agent\n")
    failed = _ci(run, pytester, workflow)
    assert failed.returncode == 1
    shown = re.search(r"```\n(unsolvable: baseline gate FAILED.*?)```", SECTION, re.S)
    assert shown is not None
    expected = [line for line in shown.group(1).splitlines() if line != "  …"]
    assert [line for line in failed.stdout.splitlines() if line in expected] == expected


def test_known_failures_are_deselected_by_family_and_by_id(
    run: Run, pytester: pytest.Pytester
) -> None:
    """The README's recipe for living with known failures, with its file of ids as shown: the
    family ``-k`` leaves out and the runs the file names do not run; everything else does."""
    agents = pytester.mkpydir("mypkg") / "agents.py"
    agents.write_text("from unsolvable.agents import contract as my_agent\n")
    listing = re.search(r"```\n(--deselect=.*?)```", SECTION, re.S)
    assert listing is not None
    (pytester.path / "ci").mkdir()
    (pytester.path / "ci" / "known-failures.txt").write_text(listing.group(1))
    [command] = _commands(_block("sh", KNOWN))
    left = cases() - cases("false-premise") - len(listing.group(1).splitlines())
    assert outcomes(run(*command, "--snapshot-update")) == {"passed": left}
    assert outcomes(run(*command)) == {"passed": left}


def test_the_known_failures_file_is_made_from_one_runs_summary(
    run: Run, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's line that lists a run's failures, run by a shell as written: it lists every
    failed test, and a run that deselects them all fails none."""
    agents = pytester.mkpydir("mypkg") / "agents.py"
    agents.write_text("from unsolvable.agents import naive as my_agent\n")
    (pytester.path / "ci").mkdir()
    [line] = _block("sh", "> ci/known-failures.txt").splitlines()
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    subprocess.run(line, shell=True, cwd=pytester.path, check=True, timeout=PYTEST_SECONDS)
    listed = (pytester.path / "ci" / "known-failures.txt").read_text().splitlines()
    prefix = "--deselect=__unsolvable__/my-agent::test_unsolvable["
    assert listed and all(entry.startswith(prefix) for entry in listed)
    command = shlex.split(line.partition(" | ")[0])[1:]
    result = run(*command, "@ci/known-failures.txt")
    assert outcomes(result) == {"passed": cases() - len(listed)}
