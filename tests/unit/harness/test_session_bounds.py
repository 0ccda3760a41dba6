"""What a session keeps of what an agent sends: a tool's arguments are counted whole and kept cut,
with the cut said, so one agent cannot make a record of hundreds of megabytes."""

from __future__ import annotations

import unsolvable
from unsolvable import Code, Session, Stop, scenarios

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
