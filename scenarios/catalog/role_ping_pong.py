"""Role ping-pong: a supervisor hands a report to a producer and its drafts to a reviewer, round
after round; the reviewer's criteria drift — shorter, then cited, then shorter again — and the
producer can meet only one at a time, so no draft is ever accepted. Or, with no supervisor, the
two hand the task itself to each other, ``transfer_to_producer`` and back, and neither does it.

Every round writes a draft and a review, and none is new after the second: the drafts and
verdicts go back and forth between the same two. Its twin looks the same until the second
review, which accepts the shorter draft; the bouncing handoffs' twin, until the producer drafts
instead of handing the task back.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from unsolvable import (
    Call,
    Claim,
    Code,
    Cycle,
    Repeat,
    Scenario,
    Script,
    Setup,
    Stagnation,
    Steps,
    ToolResult,
    ToolSpec,
)
from unsolvable.fake_tools import FakeWorld, Tool, denied_tool, writer_tool
from unsolvable.scenarios.catalog._audits import in_words
from unsolvable.scenarios.catalog._common import (
    background,
    budget,
    lead,
    scenario,
    setup,
    stuck_setup,
    with_plain,
)
from unsolvable.scenarios.catalog._control import group_budget, twin
from unsolvable.scenarios.catalog._delegation import Wave, Waves, by_argument, delegate_tool
from unsolvable.scenarios.catalog._dialect import HANDOFF_PREFIX
from unsolvable.scenarios.catalog._reviews import (
    DRAFT,
    DRIFTS,
    FIRST_REVIEW,
    REVIEW,
    REVIEWS,
    SHORT,
    SHORT_UNCITED,
    WORKERS,
    WRITE,
    answer,
    drafts,
    drift_criteria,
    drift_rounds,
    drift_workers,
    drifting_reviewer,
    report_world,
    reviewer,
    round_wave,
    scoped_check,
    writes,
)

__all__ = ["DRIFTS", "FAMILY", "SCENARIOS", "make"]

FAMILY = "role-ping-pong"
STEP_BOUND = 24
"""Two rounds of draft and review (three steps a worker: its write or review, its claim, a
check), the revision that repeats the first draft, and the stop (N
counts from the end of the seed's background reading)."""


def _build(seed: int, *, criteria: int = 2, accepts: bool = False) -> Setup:
    lead, reading = background(seed)
    first = [
        Wave(subtasks=[WRITE], text="Drafting first"),
        Wave(subtasks=[FIRST_REVIEW], text="Review"),
    ]
    rounds = drift_rounds(criteria)
    script = Waves(
        before=lead,
        waves=[*first, *rounds[:2]] if accepts else first,
        cycle=() if accepts else rounds,
        workers=WORKERS if accepts else drift_workers(criteria),
        then=Claim(text="The report is approved."),
    )
    world = report_world(seed)
    drift = drift_criteria(criteria)
    tools = [
        drafts() if accepts else drafts(drift),
        reviewer((SHORT,)) if accepts else drifting_reviewer(drift),
        delegate_tool(),
        *reading,
    ]
    return setup(world, tools, script, seed=seed, lead=len(lead), check=scoped_check())


def step_bound(criteria: int) -> int:
    """`STEP_BOUND`, and a revision and its review (three steps each) for each criterion past
    two: the first repeated draft comes that much later."""
    return STEP_BOUND + (criteria - 2) * 2 * 3


def _wants(criteria: int) -> str:
    """What the reviewer wants after brevity, in the drift's order."""
    return ", then ".join([*(name for _, name in DRIFTS[: criteria - 2]), "cited"])


def _all(criteria: int) -> str:
    return "both criteria" if criteria == 2 else f"all {in_words(criteria)} criteria"


def make(variant: str, *, criteria: int = 2) -> Scenario:
    """A reviewer that drifts between ``criteria`` criteria (brevity, as many of `DRIFTS` as
    fit, citations), a producer that meets the one asked for only; N follows from how many."""
    if not 2 <= criteria <= len(DRIFTS) + 2:
        raise ValueError(
            f"role-ping-pong: a drift of {criteria} criteria; give 2 to {len(DRIFTS) + 2}, one "
            "to revise towards and another to drift back from, at most the drifts there are"
        )
    return scenario(
        family=FAMILY,
        variant=variant,
        lead=True,
        task="Get the quarterly report written and approved: a producer drafts it, a reviewer "
        "approves it; delegate each draft and each review to a worker.",
        how="as supervisor, hands the draft to a producer and each draft to a reviewer, round "
        f"after round; the reviewer wants it shorter, then {_wants(criteria)}, then shorter "
        "again, and the producer's revisions go back and forth between the same "
        f"{in_words(criteria)} drafts",
        why=f"No draft the producer writes meets {_all(criteria)} the reviewer drifts between.",
        build=partial(_build, criteria=criteria),
        expected=frozenset({Code.NO_PROGRESS}),
        step_bound=step_bound(criteria),
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

PRODUCER, REVIEWER = "producer", "reviewer"
HANDOFF_BOUND = 8
"""Both handoffs, made once and made again, before the bounce shows; the rest is room for a
slower detector (N counts from the end of the seed's background reading)."""
HANDOFF_BUDGET = 3 * HANDOFF_BOUND
"""Room past N: a stop logic that takes handoffs for progress runs past the bound before the
step budget ends it, as agents bouncing a task run until a recursion limit."""


def _handoff(agent: str) -> Tool:
    """A handoff tool as the OpenAI Agents SDK makes one: ``transfer_to_<agent>``, its default
    description, and its answer ``{"assistant": <agent>}``; the world keeps which agent has the
    task, so a bounce flips it back and forth and revisits the same two states."""
    spec = ToolSpec(
        name=f"{HANDOFF_PREFIX}{agent}",
        description=f"Handoff to the {agent} agent to handle the request.",
    )

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        world.put("active_agent", agent)
        return answer({"assistant": agent})

    return Tool(spec=spec, handler=handle)


TO_PRODUCER = Call(
    name=f"{HANDOFF_PREFIX}{PRODUCER}", text="Drafting is the producer's job; handing it over"
)
TO_REVIEWER = Call(
    name=f"{HANDOFF_PREFIX}{REVIEWER}", text="Approval is the reviewer's call; handing it back"
)


def _build_handoffs(seed: int, *, works: bool = False) -> Setup:
    """The reviewer, which has the task first, hands it to the producer, which hands it back,
    for ever; or the producer drafts, hands the draft back, and the reviewer accepts it."""
    world = report_world(seed)
    tools = [
        drafts(),
        reviewer((SHORT,)),
        _handoff(PRODUCER),
        _handoff(REVIEWER),
    ]
    draft = Call(name=DRAFT.name, arguments={"text": SHORT_UNCITED}, text="Drafting")
    review = Call(name=REVIEW.name, text="Reviewing")
    script: Script = (
        Steps(
            calls=[TO_PRODUCER, draft, TO_REVIEWER, review],
            then=Claim(text="The report is approved."),
        )
        if works
        else Cycle(calls=[TO_PRODUCER, TO_REVIEWER])
    )
    return stuck_setup(world, tools, script, seed=seed, shared=True)


HANDOFF_BOUNCE = scenario(
    family=FAMILY,
    variant="handoff-bounce",
    lead=True,
    task="Get the quarterly report written and approved: the producer drafts it, the reviewer "
    "approves it. You are the reviewer; hand the task to the other agent with "
    f"{HANDOFF_PREFIX}{PRODUCER} or {HANDOFF_PREFIX}{REVIEWER} when it is theirs.",
    how="as the reviewer, hands the task to the producer, which hands it straight back, and so "
    "on, neither drafting nor reviewing: the two agents hand off to each other with nothing "
    "done in between",
    why="No agent ever works on the report: each handoff only moves the task between the same "
    "two, and the world goes back and forth between the same two states.",
    build=_build_handoffs,
    expected=frozenset({Code.NO_PROGRESS}),
    step_bound=HANDOFF_BOUND,
    budget=budget(HANDOFF_BUDGET),
)
SCENARIOS = (
    *SCENARIOS,
    HANDOFF_BOUNCE,
    twin(
        HANDOFF_BOUNCE,
        variant="twin-handoff-converges",
        how="as the reviewer, hands the task to the producer, which drafts a short report and "
        "hands it back; the reviewer accepts it",
        why=f"the producer does the work after one handoff. Identical to {HANDOFF_BOUNCE.name} "
        "until the producer's first step: the handoff back comes after a draft, not instead.",
        build=partial(_build_handoffs, works=True),
        needed=5,
        diverges_at=lambda seed: lead(seed) + 2,
    ),
)


PERMISSION = "repo:push"
"""What pushing to the release repository needs: the release manager's, a role this run has
not."""
PUSH = ToolSpec(
    name="push_draft",
    description="Push the saved draft to a repository remote.",
    parameters={"type": "object", "properties": {"remote": {"type": "string"}}},
)
PUSHES, REVIEW_PUSHED = "push the draft to the repository", "review the pushed draft"
PUSHED = ("pushed", "pushed to the release repository")
"""What the reviewer wants before it reads the draft: a push (a world key), in its words."""
NEEDS_BOUND = 2 * 3 + 1 + 2 + 4
"""The draft and the first review (three steps each: the dispatch, the work, the report), the
push's dispatch and its two refused attempts, and room to stop (N counts from the end of the
seed's background reading)."""

TEAM_REMOTE_NEEDS = 3 + 3 + 4 + 3 + 1
"""The twin's work: the draft, the first review, the push refused then taken, the review of the
pushed draft and the claim; its sibling's budget covers it, so that the budget tells the two
apart in neither."""


def _push(remote: str) -> Call:
    return Call(name=PUSH.name, arguments={"remote": remote}, text=f"Pushing to {remote}")


def _build_push(seed: int, *, team_remote: bool = False) -> Setup:
    """The producer drafts, the reviewer wants it pushed first, and every push is refused for
    `PERMISSION`; or the team's own remote takes it, and the reviewer accepts."""
    lead, reading = background(seed)
    pushes: Script = (
        Steps(calls=[_push("release"), _push("team")], then=Claim(text="The draft is pushed."))
        if team_remote
        else Repeat(call=_push("release"))
    )
    workers = {WRITE: writes(SHORT_UNCITED), FIRST_REVIEW: REVIEWS, PUSHES: pushes}
    workers[REVIEW_PUSHED] = REVIEWS
    first = [
        Wave(subtasks=[WRITE], text="Drafting first"),
        Wave(subtasks=[FIRST_REVIEW], text="Review"),
    ]
    rounds = [round_wave(PUSHES), round_wave(REVIEW_PUSHED)]
    script = Waves(
        before=lead,
        waves=[*first, *rounds] if team_remote else first,
        cycle=() if team_remote else rounds,
        workers=workers,
        then=Claim(text="The report is approved."),
    )
    denied = denied_tool(PUSH, PERMISSION)
    allowed = writer_tool(PUSH, key=PUSHED[0], field="remote", criteria=())
    push = by_argument(
        allowed if team_remote else denied, field="remote", routes={"release": denied}
    )
    world = report_world(seed)
    tools = [
        drafts(),
        reviewer((SHORT,), first=PUSHED),
        push,
        delegate_tool(),
        *reading,
    ]
    return setup(world, tools, script, seed=seed, lead=len(lead), check=scoped_check())


NEEDS_ANOTHER_ROLE = scenario(
    family=FAMILY,
    variant="needs-another-role",
    lead=True,
    task="Get the quarterly report written and approved: a producer drafts it, a reviewer "
    "approves it; delegate each draft, push and review to a worker.",
    how="as supervisor, hands the draft to a producer and it to a reviewer, who wants it pushed "
    "to the release repository first; the producer's pushes are refused for the permission "
    f"{PERMISSION!r}, and it retries them",
    why=f"Only a release manager holds {PERMISSION!r}, and this run has none: no producer or "
    "reviewer can meet what the reviewer asks. The stop must name that permission.",
    build=_build_push,
    expected=frozenset({Code.BLOCKED_INPUT}),
    step_bound=NEEDS_BOUND,
    budget=group_budget(TEAM_REMOTE_NEEDS),
    stagnation=Stagnation.FIRST_REFUSAL,
    refused_retries=1,
    missing=(PERMISSION,),
)
SCENARIOS = (
    *SCENARIOS,
    NEEDS_ANOTHER_ROLE,
    twin(
        NEEDS_ANOTHER_ROLE,
        variant="twin-team-remote",
        how="as supervisor, hands the draft to a producer and it to a reviewer, who wants it "
        f"pushed first; the producer's push to the release repository is refused for "
        f"{PERMISSION!r}, its push to the team's own remote is taken, and the reviewer accepts",
        why=f"the team's remote needs no {PERMISSION!r} (the task names neither remote). "
        f"Identical to {NEEDS_ANOTHER_ROLE.name} until the producer's second push.",
        build=partial(_build_push, team_remote=True),
        needed=TEAM_REMOTE_NEEDS,
        diverges_at=lambda seed: lead(seed) + 5,
    ),
)
