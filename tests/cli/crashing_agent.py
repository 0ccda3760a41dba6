"""An agent with a bug, not a stop-logic problem: it misspells a key of its own data."""

from __future__ import annotations

from unsolvable import Session


def _lookup(fields: dict[str, str]) -> str:
    return fields["nme"]  # the bug: the line the record and --explain must show


def agent(session: Session) -> str:
    session.call_model([{"role": "user", "content": session.task}], session.tools)
    return _lookup({"name": "invoice"})


def calls_a_missing_tool(session: Session) -> str:
    """Lets a tool's refusal escape: the harness frames it passes through are left out."""
    session.call_model([], session.tools)
    for spec in session.tools:
        session.call_tool(spec.name, {})
    raise RuntimeError("no tool gave an answer")
