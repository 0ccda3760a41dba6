"""The README's plugin section, run exactly as written: its commands, its ini block and its test
module, in a scratch project that only has the package installed."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from tests.plugin._helpers import Run, cases, outcomes

pytest_plugins = ["pytester"]

README = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
SECTION = README[README.index("<!-- plugin:start -->") : README.index("<!-- plugin:end -->")]


def _block(language: str) -> str:
    blocks = re.findall(rf"```{language}\n(.*?)```", SECTION, re.S)
    assert len(blocks) == 1, f"the plugin section must have one {language} block"
    return str(blocks[0])


def _commands() -> list[list[str]]:
    lines = _block("sh").splitlines()
    assert all(line.startswith("pytest ") for line in lines)
    return [shlex.split(line)[1:] for line in lines]


def test_the_zero_code_commands(run: Run) -> None:
    """The issue's "done when": ``pytest --unsolvable-agent=... -n 2`` with nothing but the
    package installed: contract passes and its snapshots are created, then matched; naive fails,
    each failure explaining itself, and its snapshots are created as well."""
    create, match, naive = (run(*args) for args in _commands())
    assert outcomes(create) == outcomes(match) == {"passed": cases()}
    create.stdout.fnmatch_lines([f"{cases()} snapshots generated."])
    match.stdout.fnmatch_lines([f"{cases()} snapshots passed."])
    failed = naive.parseoutcomes()["failed"]
    explained = [line for line in naive.outlines if " × harness.agents:naive: FAIL: " in line]
    assert failed > cases() / 2 and len(explained) == failed
    naive.stdout.fnmatch_lines([f"{cases()} snapshots generated."])
    naive.stdout.fnmatch_lines(
        [
            "E   AssertionError: constant-return/perturbed-synonym (seed 0) × "
            "harness.agents:naive: FAIL: returned no structured exit *",
            "      ended:    unstructured",
            "      stopped:  step 25 (bound N=12); first stagnant step 2; lag 23 steps, *",
            "      trajectory tail:",
        ],
        consecutive=True,
    )


def test_the_snapshot_path_shown(run: Run, pytester: pytest.Pytester) -> None:
    shown = re.search(r"```\n(__unsolvable__/\S+\.json)\n```", SECTION)
    assert shown is not None
    run("--unsolvable-agent=harness.agents:contract", "--snapshot-update", "-k", "offset-seed1")
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
