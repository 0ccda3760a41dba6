"""An imported incident replays as what it was: every distinct recorded answer in order, the last
one again for ever, sameness decided by the importer's own printed rule, every merge said —
never the reference agent's idea of a volatile field (a ``checked_at`` that moves, an
``order_id`` that pages)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import unsolvable
from tests._explorer import Explorer
from unsolvable.cli import main
from unsolvable.imports import build, parse
from unsolvable.imports._sameness import RULE

TASK = "Find the duplicated order and refund it."
STEPS = 8
"""Turns of each recording: six that bring something new, then the same one twice."""


def _tool(name: str, key: str) -> dict[str, Any]:
    parameters = {"type": "object", "properties": {key: {"type": "string"}}}
    return {"type": "function", "function": {"name": name, "parameters": parameters}}


def _transcript(path: Path, name: str, calls: list[dict[str, str]], answers: list[str]) -> Path:
    """An OpenAI Chat Completions request body: the task, then one call and its answer a turn."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": TASK}]
    for i, (arguments, answer) in enumerate(zip(calls, answers, strict=True)):
        call = {"id": f"c{i}", "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)}}  # fmt: skip
        messages += [
            {"role": "assistant", "content": f"Looking ({i})", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"c{i}", "content": answer},
        ]
    body = {"messages": messages, "tools": [_tool(name, next(iter(calls[0])))]}
    path.write_text(json.dumps(body))
    return path


def _polled(path: Path) -> tuple[Path, list[str]]:
    """An export polled eight times: six answers that differ in when they were checked, then
    the sixth twice more."""
    answers = [
        json.dumps({"status": "pending", "checked_at": f"2026-03-01T10:0{min(i, 5)}:00Z"})
        for i in range(STEPS)
    ]
    return _transcript(path, "get_export", [{"export": "E-7"}] * STEPS, answers), answers


def _paged(path: Path) -> tuple[Path, list[str]]:
    """Orders ORD-1001 to ORD-1006 read one by one, then ORD-1006 twice more."""
    ids = [f"ORD-100{min(i, 5) + 1}" for i in range(STEPS)]
    answers = [json.dumps({"order_id": order, "status": "delivered"}) for order in ids]
    return _transcript(path, "get_order", [{"order_id": order} for order in ids], answers), answers


INCIDENTS = {
    "checked-at": (_polled, 'get_export {"export": "E-7"}: answers 7-8 the same as answer 6'),
    "order-paging": (
        _paged,
        'get_order {"order_id": "ORD-1006"}: answers 2-3 the same as answer 1',
    ),
}
"""Each recording, and the one merge its import says it made."""


@pytest.mark.parametrize("incident", INCIDENTS)
def test_an_incident_round_trips_as_what_it_was(
    incident: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record_it, merge = INCIDENTS[incident]
    trace, recorded = record_it(tmp_path / "trace.json")
    out = tmp_path / "incident.json"
    args = [
        "import",
        str(trace),
        "--format",
        "openai-chat",
        "--name",
        "incidents/x",
        "-o",
        str(out),
    ]
    assert main(args) == 0
    printed = capsys.readouterr().out
    data = json.loads(out.read_text())
    assert data["ground_truth"]["first_stagnant_step"] == 7, "six steps brought something new"
    assert f"  inferred: sameness: {RULE}\n" in printed
    assert f"  merged:   {merge}, which the replay repeats for ever\n" in printed
    (scenario,) = build(parse(data))
    explorer = Explorer(STEPS + 2)
    record = unsolvable.run(explorer, scenario)
    received = [json.loads(seen.answers[0]) for seen in explorer.seen]
    assert received == [json.loads(text) for text in [*recorded, recorded[-1], recorded[-1]]]
    assert record.observed.first_stagnant_step == 7, "the replay stagnates where the run did"


def test_a_tool_message_answers_the_call_of_its_own_turn_when_ids_repeat(tmp_path: Path) -> None:
    """Servers that number each response's calls from ``call_0`` reuse ids across turns; each
    answer still belongs to the call of the assistant message it follows."""
    queries, answers = ["a", "b", "b", "b"], ["page one", "nothing", "nothing", "nothing"]
    messages: list[dict[str, Any]] = [{"role": "user", "content": TASK}]
    for query, answer in zip(queries, answers, strict=True):
        call = {"id": "call_0", "type": "function",
                "function": {"name": "search", "arguments": json.dumps({"q": query})}}  # fmt: skip
        messages += [
            {"role": "assistant", "content": "", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "call_0", "content": answer},
        ]
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps({"messages": messages, "tools": [_tool("search", "q")]}))
    out = tmp_path / "incident.json"
    assert main(["import", str(trace), "--format", "openai-chat", "--name", "incidents/x",
                 "-o", str(out)]) == 0  # fmt: skip
    data = json.loads(out.read_text())
    results = {a["arguments"]["q"]: [r["text"] for r in a["results"]] for a in data["answers"]}
    assert results == {"a": ["page one"], "b": ["nothing"]}
    assert data["ground_truth"]["first_stagnant_step"] == 3, "step 2 brought 'nothing', new"
