"""`publish`, which both faces call: what it writes, and what it leaves as it was."""

from __future__ import annotations

from pathlib import Path

from tests.reports._records import record
from unsolvable.reports._blessed import write_baseline
from unsolvable.reports._metrics import measure
from unsolvable.reports._publish import ReportOptions, publish


def test_no_records_leave_a_good_baseline_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "baseline.json"
    write_baseline(measure([record()]), path)
    good = path.read_bytes()
    options = ReportOptions(baseline=path, update_baseline=True)
    published = publish([], options)
    assert path.read_bytes() == good
    assert published.notes == (
        "unsolvable: baseline not rewritten: no termination records to make it from",
    )
    assert published.passed
