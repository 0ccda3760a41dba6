"""``unsolvable report`` of records that are not a whole run: an interrupted session's are
reported as that session reported them (marked, no gate, no new baseline); a shard's are
refused, as only `unsolvable merge` makes a whole run of them, and the shard's own reports say
they are of its runs alone; none never blesses a baseline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_cli import _unsolvable
from unsolvable._shard import Shard
from unsolvable.reports._table import INTERRUPTED, part_of_a_run

CHOSEN = ("--agent", "contract", "--scenario", "oscillation")


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A whole run's records (``records.json``) and the baseline blessed from them."""
    folder = tmp_path_factory.mktemp("whole")
    bless = ("--baseline", str(folder / "baseline.json"), "--update-baseline")
    blessed = _unsolvable("run", *CHOSEN, "--json", str(folder / "records.json"), *bless)
    assert blessed.returncode == 0, blessed.stderr
    return folder


def test_an_interrupted_sessions_records_are_marked_and_never_blessed(
    whole: Path, tmp_path: Path
) -> None:
    data = json.loads((whole / "records.json").read_text())
    data["records"], data["interrupted"] = data["records"][:1], True  # as a cut session writes
    (tmp_path / "cut.json").write_text(json.dumps(data))
    baseline = tmp_path / "baseline.json"
    baseline.write_bytes((whole / "baseline.json").read_bytes())
    out = ("--json", str(tmp_path / "out.json"), "--markdown", str(tmp_path / "out.md"))
    report = _unsolvable("report", str(tmp_path / "cut.json"), *out, "--baseline",
                         str(baseline), "--update-baseline")  # fmt: skip
    assert report.returncode == 130, report.stderr  # as the session exited: nothing was gated
    assert report.stdout.splitlines()[-2:] == [
        "unsolvable: baseline not rewritten: the session was interrupted",
        f"unsolvable: {INTERRUPTED}",
    ]
    assert baseline.read_bytes() == (whole / "baseline.json").read_bytes()
    assert json.loads((tmp_path / "out.json").read_text())["interrupted"] is True
    assert INTERRUPTED in (tmp_path / "out.md").read_text()


def test_a_shards_file_is_refused_pointing_to_merge(whole: Path, tmp_path: Path) -> None:
    part = tmp_path / "part-1.json"
    shard = _unsolvable("run", *CHOSEN, "--shard", "1/3", "--json", str(part))
    assert shard.returncode == 0, shard.stderr
    baseline = tmp_path / "baseline.json"
    baseline.write_bytes((whole / "baseline.json").read_bytes())
    for gate in ((), ("--update-baseline",)):
        report = _unsolvable("report", str(part), "--baseline", str(baseline), *gate)
        assert report.returncode == 2 and report.stdout == ""
        assert "is a shard's file" in report.stderr and "unsolvable merge" in report.stderr
    assert baseline.read_bytes() == (whole / "baseline.json").read_bytes()


def test_a_shards_own_reports_say_their_figures_are_of_its_runs_alone(tmp_path: Path) -> None:
    """A CI matrix job's summary of one shard reads like a whole run's (runs, passed, pass^k over
    the seeds it happened to get), unless it says it is a part: the terminal, the Markdown and
    the HTML report all do, and a whole run's say nothing of the kind."""
    reports = ("--markdown", str(tmp_path / "part.md"), "--html", str(tmp_path / "part.html"))
    shard = _unsolvable("run", *CHOSEN, "--shard", "2/3", *reports, "--no-progress")
    assert shard.returncode == 0, shard.stderr
    said = part_of_a_run(Shard(2, 3))
    assert f"unsolvable: {said}" in shard.stdout.splitlines()
    assert f"**{said}**" in (tmp_path / "part.md").read_text()
    assert said.replace("'", "&#x27;") in (tmp_path / "part.html").read_text()
    whole = _unsolvable("run", *CHOSEN, "--markdown", str(tmp_path / "whole.md"), "--no-progress")
    assert "Shard" not in whole.stdout + (tmp_path / "whole.md").read_text()


def test_a_file_of_no_records_never_replaces_a_good_baseline(whole: Path, tmp_path: Path) -> None:
    (tmp_path / "none.json").write_text('{"records": []}')
    baseline = tmp_path / "baseline.json"
    baseline.write_bytes((whole / "baseline.json").read_bytes())
    report = _unsolvable("report", str(tmp_path / "none.json"), "--baseline", str(baseline),
                         "--update-baseline")  # fmt: skip
    assert report.returncode == 0, report.stderr
    assert report.stdout.splitlines()[-1] == (
        "unsolvable: baseline not rewritten: no termination records to make it from"
    )
    assert baseline.read_bytes() == (whole / "baseline.json").read_bytes()
