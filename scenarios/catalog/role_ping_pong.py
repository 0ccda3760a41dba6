"""Role ping-pong: a supervisor hands a report to a producer and its drafts to a reviewer, round
after round; the reviewer's criteria drift — shorter, then cited, then shorter again — and the
producer can meet only one at a time, so no draft is ever accepted.

Every round writes a draft and a review, and none is new after the second: the drafts and
verdicts go back and forth between the same two. Its twin looks the same until the second
review, which accepts the shorter draft.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import partial
from typing import Any

from unsolvable import Call, Claim, Code, Scenario, Script, Setup, Steps, ToolResult, ToolSpec
from unsolvable.fake_tools import Criterion, FakeWorld, Tool, writer_tool
from unsolvable.scenarios.catalog._common import (
    background,
    lead,
    scenario,
    setup,
    with_plain,
)
from unsolvable.scenarios.catalog._control import twin
from unsolvable.scenarios.catalog._delegation import ROUND, SCOPED_CHECK, Wave, Waves, delegate_tool

__all__ = ["FAMILY", "SCENARIOS", "make"]

FAMILY = "role-ping-pong"
WORDS = 300
SHORT = Criterion(name=f"under {WORDS} words", holds=lambda text: "short" in text)
CITED = Criterion(name="cites its sources", holds=lambda text: "cited" in text)
LONG_CITED = "Report: long, cited."
SHORT_UNCITED = "Report: short."
STEP_BOUND = 24
"""Two rounds of draft and review (three steps a worker: its write or review, its claim, a
check), the revision that repeats the first draft, and the stop (N
counts from the end of the seed's background reading)."""

DRAFT = ToolSpec(
    name="write_draft",
    description="Save the report's draft.",
    parameters={"type": "object", "properties": {"text": {"type": "string"}}},
)
REVIEW = ToolSpec(name="review_draft", description="Review the saved draft against the criteria.")
WRITE, FIRST_REVIEW = "write the draft", "review the first draft"
BRIEFER, REVIEW_BRIEFER = "revise the draft for brevity", "review the shorter draft"
CITE, REVIEW_CITED = "revise the draft to cite sources", "review the cited draft"


def _answer(body: Mapping[str, Any]) -> ToolResult:
    text = json.dumps(body, sort_keys=True)
    return ToolResult(text=text, observation=text)


def _reviewer(criteria: tuple[Criterion, ...]) -> Tool:
    """Reviews the saved draft: the first criterion it fails, or acceptance; keeps only the
    latest verdict, so the world goes back and forth with the drafts."""

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        text = str(world.get("draft", ""))
        failing = [c.name for c in criteria if not c.holds(text)]
        verdict = f"rejected: it must be {failing[0]}" if failing else "accepted"
        world.put("review", verdict)
        if not failing:
            world.put("approved", True)
        return _answer({"review": verdict})

    return Tool(spec=REVIEW, handler=handle)


def _scoped_check() -> Tool:
    """Re-reads the world; with ``subtask``, that subtask's own work: a draft saved for a
    writing subtask, a verdict given for a review."""

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        subtask = str(arguments.get("subtask", ""))
        if not subtask:
            failing = [] if world.peek("approved") else ["the report is not approved"]
        else:
            key = "review" if subtask.startswith("review") else "draft"
            failing = [] if world.peek(key) else [f"{subtask}: not done"]
        return _answer({"complete": not failing, "failing": failing})

    return Tool(spec=SCOPED_CHECK, handler=handle)


def _writes(text: str) -> Script:
    return Steps(calls=[Call(name=DRAFT.name, arguments={"text": text}, text="Drafting")],
                 then=Claim(text="The draft is saved."))  # fmt: skip


REVIEWS = Steps(calls=[Call(name=REVIEW.name, text="Reviewing")], then=Claim(text="Reviewed."))
WORKERS: dict[str, Script] = {
    WRITE: _writes(LONG_CITED),
    BRIEFER: _writes(SHORT_UNCITED),
    CITE: _writes(LONG_CITED),
    FIRST_REVIEW: REVIEWS,
    REVIEW_BRIEFER: REVIEWS,
    REVIEW_CITED: REVIEWS,
}


def _round(subtask: str) -> Wave:
    return Wave(subtasks=[f"{subtask} (round {ROUND})"], text=f"Next: {subtask}")


def _build(seed: int, *, accepts: bool = False) -> Setup:
    lead, reading = background(seed)
    first = [
        Wave(subtasks=[WRITE], text="Drafting first"),
        Wave(subtasks=[FIRST_REVIEW], text="Review"),
    ]
    rounds = [_round(BRIEFER), _round(REVIEW_BRIEFER), _round(CITE), _round(REVIEW_CITED)]
    script = Waves(
        before=lead,
        waves=[*first, *rounds[:2]] if accepts else first,
        cycle=() if accepts else rounds,
        workers=WORKERS,
        then=Claim(text="The report is approved."),
    )
    world = FakeWorld(failing=lambda w: [] if w.peek("approved") else ["not approved"], seed=seed)
    criteria = (SHORT,) if accepts else (SHORT, CITED)
    tools = [
        writer_tool(DRAFT, key="draft", field="text", criteria=(SHORT, CITED)),
        _reviewer(criteria),
        delegate_tool(),
        *reading,
    ]
    return setup(world, tools, script, seed=seed, lead=len(lead), check=_scoped_check())


def make(variant: str) -> Scenario:
    return scenario(
        family=FAMILY,
        variant=variant,
        lead=True,
        task="Get the quarterly report written and approved: a producer drafts it, a reviewer "
        "approves it; delegate each draft and each review to a worker.",
        how="as supervisor, hands the draft to a producer and each draft to a reviewer, round "
        "after round; the reviewer wants it shorter, then cited, then shorter again, and the "
        "producer's revisions go back and forth between the same two drafts",
        why="No draft the producer writes meets both criteria the reviewer drifts between.",
        build=_build,
        expected=frozenset({Code.NO_PROGRESS}),
        step_bound=STEP_BOUND,
    )


REVIEWER_NEVER_ACCEPTS = make("reviewer-never-accepts")
SCENARIOS: tuple[Scenario, ...] = (
    REVIEWER_NEVER_ACCEPTS,
    twin(
        REVIEWER_NEVER_ACCEPTS,
        variant="twin-accepts-revision",
        how="as supervisor, hands the draft to a producer and a reviewer; the reviewer wants it "
        "shorter, the producer revises it, and the reviewer accepts the shorter draft",
        why=f"the reviewer's only criterion is brevity. Identical to "
        f"{REVIEWER_NEVER_ACCEPTS.name} until the second review.",
        build=partial(_build, accepts=True),
        needed=4 * 3 + 4 + 1,
        diverges_at=lambda seed: lead(seed) + 5,
    ),
)
SCENARIOS = with_plain(SCENARIOS, "reviewer-never-accepts")
