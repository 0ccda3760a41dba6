"""Contradictory-criteria: the summary must be at most 40 words and cover all 12 changes, and
covering a change takes five words — 60 at least.

Every write changes the world and satisfies one criterion by breaking the other, so the world,
judged by which criteria fail, only ever moves between states it has already been in; a new text
that fails as an earlier one did is no new state. The agent reads only the criteria's
names, as a release checklist states them; its twin differs in what covering a change takes
(three words), which no answer shows before a draft meets both.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from unsolvable import (
    Alternate,
    Call,
    Claim,
    Code,
    Repeat,
    Scenario,
    Script,
    Setup,
    Steps,
    ToolSpec,
)
from unsolvable.fake_tools import Criterion, FakeWorld, failing, writer_tool
from unsolvable.scenarios.catalog._common import lead, scenario, stuck_setup, with_plain
from unsolvable.scenarios.catalog._control import twin

__all__ = ["SCENARIOS"]

FAMILY = "contradictory-criteria"
STEP_BOUND = 12
"""Both plans must be tried once (2 steps) before the contradiction shows; the rest is slack for
a detector that needs a few revisits, well short of a framework's 25-step default."""
MAX_WORDS, CHANGES, WORDS_PER_CHANGE = 40, 12, 5
SHORT_ENOUGH = f"at most {MAX_WORDS} words"
COVERED = f"covers all {CHANGES} changes"
CRITERIA = (
    Criterion(name=SHORT_ENOUGH, holds=lambda t: len(t.split()) <= MAX_WORDS),
    Criterion(name=COVERED, holds=lambda t: len(t.split()) >= CHANGES * WORDS_PER_CHANGE),
)
"""Covering a change takes five words here, so no summary is short enough and complete."""
SUMMARY = ToolSpec(
    name="save_summary",
    description="Save the release summary; answers which completion criteria it fails.",
    parameters={
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    },
)
SHORT = " ".join(["Release 4.2 fixes login, speeds up search and tidies the settings page."] * 2)
LONG = " ".join(f"Change {i}: a fix that users of the product will notice." for i in range(1, 13))
PLANS = (
    Call(name=SUMMARY.name, arguments={"text": SHORT}, text="A short summary meets the limit"),
    Call(name=SUMMARY.name, arguments={"text": LONG}, text="Covering every change needs more"),
)


def _names_every_change(text: str) -> bool:
    return all(f"Change {i}:" in text for i in range(1, CHANGES + 1))


TWIN_CRITERIA = (CRITERIA[0], Criterion(name=COVERED, holds=_names_every_change))
"""The twin's, named as the sibling's: covering a change takes naming it (three words), so a
compact summary can be both; the sibling's two drafts still fail one each."""
COMPACT = " ".join(f"Change {i}: {fix}." for i, fix in enumerate(
    ("login", "search", "settings", "exports", "imports", "billing", "sharing", "alerts",
     "profiles", "reports", "caching", "backups"), 1))  # fmt: skip
"""36 words: every change named, inside the limit."""


def _build(
    make_script: Callable[[], Script], seed: int, criteria: tuple[Criterion, ...] = CRITERIA
) -> Setup:
    """The sibling's build, or with the twin's ``criteria`` the twin's."""
    world = FakeWorld(failing=lambda w: failing(criteria, w.peek("summary")), seed=seed)
    tool = writer_tool(SUMMARY, key="summary", field="text", criteria=criteria)
    return stuck_setup(world, [tool], make_script(), seed=seed)


def _converges() -> Script:
    """Short, long, short again, then a draft that satisfies both criteria."""
    compact = Call(name=SUMMARY.name, arguments={"text": COMPACT}, text="One that covers and fits")
    return Steps(calls=[PLANS[0], PLANS[1], PLANS[0], compact], then=Claim())


TASK = (
    f"Write the release summary with save_summary. It must be at most {MAX_WORDS} words and "
    f"must cover all {CHANGES} changes."
)


def _scenario(variant: str, how: str, make_script: Callable[[], Script]) -> Scenario:
    return scenario(
        family=FAMILY,
        lead=True,
        variant=variant,
        task=TASK,
        how=how,
        why=f"Covering a change takes {WORDS_PER_CHANGE} words, so covering all {CHANGES} takes "
        f"{CHANGES * WORDS_PER_CHANGE}, and no text is both that and at most {MAX_WORDS} words: "
        "the completion predicate can never hold.",
        build=partial(_build, make_script),
        expected={Code.NO_PROGRESS},
        step_bound=STEP_BOUND,
    )


ALTERNATE = _scenario(
    "alternate", "alternates between a short and a long summary", lambda: Alternate(plans=PLANS)
)
SCENARIOS: tuple[Scenario, ...] = (
    ALTERNATE,
    _scenario(
        "alternate-restyled",
        "alternates between the two summaries, changing case and spacing every round",
        lambda: Alternate(plans=PLANS, restyled=True),
    ),
    _scenario("insist", "saves the short summary again and again", lambda: Repeat(call=PLANS[0])),
    twin(
        ALTERNATE,
        variant="twin-converges",
        how="alternates between the short and the long summary as its sibling does, then saves "
        "a compact one of 36 words that names every change",
        why="here covering a change takes naming it, so a summary can be both short enough and "
        "complete: the drafts converge.",
        build=partial(_build, _converges, criteria=TWIN_CRITERIA),
        needed=5,
        diverges_at=lambda seed: lead(seed) + 4,
    ),
)
SCENARIOS = with_plain(SCENARIOS, "insist")
