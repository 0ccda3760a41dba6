"""The round trip as the test: ``naive`` on a built-in scenario with ``--trace-dir``,
``unsolvable import`` of the ATIF it wrote, then ``contract`` and ``naive`` on the imported
scenario give the same stop codes, first stagnant step and budget as on the original — for every
family the importer can express. Not expressible (the reason is in README.md, "From an incident
to a regression test"): todo-spawn (criteria ground truth), forced-final-answer and cost-runaway
(budget-spent ground truth), fan-out (sub-agents)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from unsolvable.cli import main

EXPRESSIBLE = (
    "contradictory-criteria/alternate",
    "constant-return/repeat",
    "constant-return/perturbed-offset",
    "constant-return/stuck-after-progress",
    "missing-permission/retry-403",
    "dependency-unavailable/retry",
    "oscillation/a-b",
    "reconfirm-as-progress/three-checks",
    "false-completion/claim-after-1",
    "give-up-honoured/after-two-searches",
)
"""One scenario per family the importer expresses (two more where perturbed arguments or real
work before the loop test the cycle and the ground truth)."""


def _stops(path: Path) -> dict[str, tuple[Any, ...]]:
    records = json.loads(path.read_text())["records"]
    return {
        r["agent"]: (
            r["outcome"],
            (r["reported"] or {}).get("code"),
            r["observed"]["first_stagnant_step"],
            r["observed"]["steps"],
            json.dumps(r["budget"], sort_keys=True),
        )
        for r in records
    }


def _run(*args: str) -> None:
    main(["run", "--no-progress", *args])


@pytest.mark.parametrize("name", EXPRESSIBLE)
def test_an_imported_trace_stops_as_the_original(name: str, tmp_path: Path) -> None:
    family, variant = name.split("/")
    original, imported = tmp_path / "original.json", tmp_path / "imported.json"
    _run("--scenario", name, "--seed", "1", "--json", str(original), "--trace-dir", str(tmp_path))
    trace = tmp_path / "naive" / family / f"{variant}-seed1.json"
    scenario = tmp_path / "scenario.json"
    args = [
        "import",
        str(trace),
        "--format",
        "atif",
        "--name",
        f"rt/{variant}",
        "-o",
        str(scenario),
    ]
    assert main(args) == 0
    _run("--scenario-file", str(scenario), "--json", str(imported))
    assert _stops(imported) == _stops(original)
