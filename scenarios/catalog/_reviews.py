"""Consumes a reviewer's criteria, produces the report-review world role ping-pong plays in: the
producer's draft, a reviewer that holds its criteria or drifts between them, the check scoped to
one subtask, and the worker scripts that draft, review and revise, round after round."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import partial
from typing import Any

from unsolvable import Call, Claim, Script, Steps, ToolResult, ToolSpec
from unsolvable.fake_tools import Criterion, FakeWorld, Tool, writer_tool
from unsolvable.scenarios.catalog._delegation import ROUND, SCOPED_CHECK, Wave

__all__ = [
    "DRAFT",
    "DRIFTS",
    "FIRST_REVIEW",
    "REVIEW",
    "REVIEWS",
    "SHORT",
    "SHORT_UNCITED",
    "WORKERS",
    "WRITE",
    "answer",
    "drafts",
    "drift_criteria",
    "drift_rounds",
    "drift_workers",
    "drifting_reviewer",
    "report_world",
    "reviewer",
    "round_wave",
    "scoped_check",
    "writes",
]

WORDS = 300
SHORT = Criterion(name=f"under {WORDS} words", holds=lambda text: "short" in text)
CITED = Criterion(name="cites its sources", holds=lambda text: "cited" in text)
LONG_CITED = "Report: long, cited."
SHORT_UNCITED = "Report: short."
DRAFT = ToolSpec(
    name="write_draft",
    description="Save the report's draft.",
    parameters={"type": "object", "properties": {"text": {"type": "string"}}},
)
REVIEW = ToolSpec(name="review_draft", description="Review the saved draft against the criteria.")
WRITE, FIRST_REVIEW = "write the draft", "review the first draft"
BRIEFER, REVIEW_BRIEFER = "revise the draft for brevity", "review the shorter draft"
CITE, REVIEW_CITED = "revise the draft to cite sources", "review the cited draft"


def answer(body: Mapping[str, Any]) -> ToolResult:
    text = json.dumps(body, sort_keys=True)
    return ToolResult(text=text, observation=text)


def reviewer(criteria: tuple[Criterion, ...], *, first: tuple[str, str] | None = None) -> Tool:
    """Reviews the saved draft: the first criterion it fails, or acceptance; keeps only the
    latest verdict, so the world goes back and forth with the drafts. ``first``, a world key and
    what it stands for, must be set before any criterion is read."""

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        text = str(world.get("draft", ""))
        failing = [first[1]] if first and not world.peek(first[0]) else []
        failing += [c.name for c in criteria if not c.holds(text)]
        verdict = f"rejected: it must be {failing[0]}" if failing else "accepted"
        world.put("review", verdict)
        if not failing:
            world.put("approved", True)
        return answer({"review": verdict})

    return Tool(spec=REVIEW, handler=handle)


DRIFTS = (
    ("tabled", "summed up in a table"),
    ("dated", "dated"),
    ("signed", "signed off"),
    ("plain", "in plain words"),
)
"""Further criteria a reviewer can drift through, between brevity and citations: the word a
draft that meets one holds, and what the reviewer asks for."""


def drift_criteria(criteria: int) -> tuple[Criterion, ...]:
    """The reviewer's drift, in order: brevity, ``criteria - 2`` of `DRIFTS`, citations."""
    drifts = tuple(
        Criterion(name=name, holds=partial(_holds, word)) for word, name in DRIFTS[: criteria - 2]
    )
    return (SHORT, *drifts, CITED)


def _holds(word: str, text: str) -> bool:
    return word in text


def drifting_reviewer(criteria: tuple[Criterion, ...]) -> Tool:
    """Reviews the saved draft as a reviewer whose criteria drift: a draft that meets them all
    is accepted; one that meets some is asked for the criterion after the first it meets (the
    last's after is the first), one that meets none for the first. With two criteria, that is
    the one the draft fails."""

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        text = str(world.get("draft", ""))
        met = [i for i, criterion in enumerate(criteria) if criterion.holds(text)]
        if len(met) == len(criteria):
            world.put("review", "accepted")
            world.put("approved", True)
            return answer({"review": "accepted"})
        wanted = criteria[(met[0] + 1) % len(criteria) if met else 0]
        verdict = f"rejected: it must be {wanted.name}"
        world.put("review", verdict)
        return answer({"review": verdict})

    return Tool(spec=REVIEW, handler=handle)


def report_world(seed: int) -> FakeWorld:
    """The family's world: the task is done when the report is approved."""
    return FakeWorld(failing=lambda w: [] if w.peek("approved") else ["not approved"], seed=seed)


def drafts(criteria: tuple[Criterion, ...] = (SHORT, CITED)) -> Tool:
    """The producer's write: saves the draft, which the reviewer reads, judged by ``criteria``."""
    return writer_tool(DRAFT, key="draft", field="text", criteria=criteria)


SUBTASK_KEYS = {"review": "review", "push": "pushed"}
"""What a subtask leaves in the world, by its first word: a verdict, a push, else a draft."""


def scoped_check() -> Tool:
    """Re-reads the world; with ``subtask``, that subtask's own work: a draft saved for a
    writing subtask, a verdict given for a review."""

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        subtask = str(arguments.get("subtask", ""))
        if not subtask:
            failing = [] if world.peek("approved") else ["the report is not approved"]
        else:
            key = next((k for verb, k in SUBTASK_KEYS.items() if subtask.startswith(verb)), "draft")
            failing = [] if world.peek(key) else [f"{subtask}: not done"]
        return answer({"complete": not failing, "failing": failing})

    return Tool(spec=SCOPED_CHECK, handler=handle)


def writes(text: str) -> Script:
    return Steps(calls=[Call(name=DRAFT.name, arguments={"text": text}, text="Drafting")],
                 then=Claim(text="The draft is saved."))  # fmt: skip


REVIEWS = Steps(calls=[Call(name=REVIEW.name, text="Reviewing")], then=Claim(text="Reviewed."))
WORKERS: dict[str, Script] = {
    WRITE: writes(LONG_CITED),
    BRIEFER: writes(SHORT_UNCITED),
    CITE: writes(LONG_CITED),
    FIRST_REVIEW: REVIEWS,
    REVIEW_BRIEFER: REVIEWS,
    REVIEW_CITED: REVIEWS,
}


def round_wave(subtask: str) -> Wave:
    return Wave(subtasks=[f"{subtask} (round {ROUND})"], text=f"Next: {subtask}")


def _drift(word: str) -> tuple[str, str]:
    """The revision towards one of `DRIFTS` and the review of it, as subtasks."""
    return f"revise the draft to be {word}", f"review the {word} draft"


def drift_workers(criteria: int) -> dict[str, Script]:
    """`WORKERS`, and the revision and review of each of the drift's further criteria."""
    workers = dict(WORKERS)
    for word, _ in DRIFTS[: criteria - 2]:
        revise, review = _drift(word)
        workers |= {revise: writes(f"Report: long, {word}."), review: REVIEWS}
    return workers


def drift_rounds(criteria: int) -> list[Wave]:
    """A revision and its review for each criterion, in the drift's order."""
    drifts = [_drift(word) for word, _ in DRIFTS[: criteria - 2]]
    pairs = [(BRIEFER, REVIEW_BRIEFER), *drifts, (CITE, REVIEW_CITED)]
    return [round_wave(subtask) for pair in pairs for subtask in pair]
