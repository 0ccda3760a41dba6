"""A figure of millions is written whole wherever it is shown: the calibrated step cap's
sentence, the reasons it gives in the JSON, and the HTML chart's titles say the number the
tables say, never ``2.34568e+06``, which is another number in another notation."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

import pytest

from tests.reports._records import record
from unsolvable import Code, TerminationRecord
from unsolvable.cli import main

LONG = 2_345_678
"""Steps of a run that went on long past its stagnant step 2: a lag of 2345676."""
NEEDED = 3_456_789
"""Steps a control needed: a step cap of as many, whose lag is 3456787."""


def _report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], *records: TerminationRecord
) -> tuple[str, dict[str, str]]:
    """``unsolvable report`` of ``records``: what it printed, and each report it wrote."""
    source = tmp_path / "records.json"
    source.write_text(json.dumps({"records": [r.to_dict() for r in records]}))
    written = {kind: tmp_path / f"report.{kind}" for kind in ("json", "md", "html")}
    flags = ("--json", "--markdown", "--html")
    args = [arg for flag, path in zip(flags, written.values(), strict=True) for arg in (flag, path)]
    assert main(["report", str(source), *map(str, args)]) == 1
    return capsys.readouterr().out, {kind: path.read_text() for kind, path in written.items()}


def test_a_lag_of_millions_is_written_whole_in_the_step_caps_reasons(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    long = record(scenario="fam/a", steps=LONG, stagnant=2, bound=10)
    control = record(
        scenario="fam/c", steps=5, bound=10, solvable=True, code=Code.COMPLETED, world_complete=True
    )
    out, reports = _report(tmp_path, capsys, long, control)
    reason = "lag p95 2345676 vs 3"
    assert f"Why not: 1 of 2 runs failed their verdicts; {reason}." in out
    metrics = json.loads(reports["json"])["metrics"]
    assert {reason} == {
        shortfall for group in metrics["agents"] for shortfall in group["step_cap"]["shortfalls"]
    } - {"1 of 2 runs failed their verdicts"}
    for form in (out, reports["md"], reports["html"]):
        assert "e+0" not in form


def test_a_step_caps_lag_of_millions_is_written_whole_in_the_chart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    long = record(scenario="fam/a", steps=LONG, stagnant=2, bound=10, passed=False)
    control = record(
        scenario="fam/c", steps=NEEDED, bound=NEEDED, solvable=True, code=Code.COMPLETED,
        world_complete=True,
    )  # fmt: skip
    out, reports = _report(tmp_path, capsys, long, control)
    assert "cap 3456789: lag 3456787/3456787/3456787" in out
    titles = [unescape(t) for t in re.findall(r"<title>([^<]*)</title>", reports["html"])]
    assert "step cap 3456789: signed lag p95 3456787" in titles
