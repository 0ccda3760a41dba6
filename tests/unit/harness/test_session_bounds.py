"""What a session keeps of what an agent sends: a tool's arguments are counted whole and kept cut,
with the cut said, and a stop's reason and missing inputs are cut before they are judged, so one
agent cannot make a record of hundreds of megabytes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import unsolvable
from unsolvable import Code, Session, Stop, scenarios
from unsolvable._text import MISSING_CUT, REASON_CUT

HUGE = 1_000_000


def _sends_a_huge_argument_twice(session: Session) -> Stop:
    for _ in range(2):
        session.call_model([{"role": "user", "content": session.task}], session.tools)
        session.call_tool("search_invoices", {"customer": "x" * HUGE})
    return Stop(code=Code.NO_PROGRESS, reason="the same search twice")


def test_a_huge_tool_argument_is_counted_whole_and_kept_cut() -> None:
    record = unsolvable.run(_sends_a_huge_argument_twice, scenarios.get("constant-return/repeat"))
    kept = record.observed.trajectory[0].tools[0].arguments
    assert kept.startswith('{"customer": "xxx') and kept.endswith(" more characters cut)")
    assert len(kept) < 4_100 and len(record.to_json(volatile=True)) < 100_000
    assert record.observed.max_repeated_action == 2


BIG_STOP = """
from unsolvable import Stop


def agent(session):
    session.call_model([{"role": "user", "content": session.task}])
    missing = ["reports:publish", *("x" * 50_000 for _ in range(150))]
    return Stop(code="BLOCKED_INPUT", reason="reports:publish " + "r" * 5_000_000, missing=missing)
"""


def test_a_stop_of_megabytes_is_cut_before_it_is_judged_on_every_face(tmp_path: Path) -> None:
    """Five megabytes of reason and a hundred and fifty long names were kept whole, in the record
    and again in the Markdown report; they are cut where the stop is made, so the verdict the
    worker gives, the harness's own and a record read back all read the same text."""
    (tmp_path / "big_stop.py").write_text(BIG_STOP)
    json_file, markdown = tmp_path / "records.json", tmp_path / "report.md"
    command = [sys.executable, "-m", "unsolvable.cli", "run", "--agent", "big_stop:agent"]
    command += ["--scenario", "missing-permission/plain", "--no-progress"]
    command += ["--json", str(json_file), "--markdown", str(markdown)]
    subprocess.run(command, cwd=tmp_path, capture_output=True, check=False, timeout=120)
    (record,) = json.loads(json_file.read_text())["records"]
    reason, missing = record["reported"]["reason"], record["reported"]["missing"]
    assert len(reason) == REASON_CUT and reason.startswith("reports:publish rrr")
    assert len(missing) == MISSING_CUT and missing[0] == "reports:publish"
    assert all(len(item) == REASON_CUT and item.endswith("x…") for item in missing[1:-1])
    assert missing[-1] == "… (52 more cut)"
    assert record["verdict"]["passed"], record["verdict"]
    assert json_file.stat().st_size < 2_000_000 and markdown.stat().st_size < 100_000
    read_back = unsolvable.TerminationRecord.from_dict(record)
    assert read_back.reported is not None and read_back.reported.missing == tuple(missing)
