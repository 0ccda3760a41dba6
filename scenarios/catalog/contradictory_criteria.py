"""Contradictory-criteria: the document must be both at most 40 words and at least 60 words.

Every write changes the world and satisfies one criterion by breaking the other, so the world
only ever moves between states it has already been in.
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
from unsolvable.scenarios.catalog._common import scenario, stuck_setup, with_plain
from unsolvable.scenarios.catalog._control import twin

__all__ = ["SCENARIOS"]

FAMILY = "contradictory-criteria"
STEP_BOUND = 12
"""Both plans must be tried once (2 steps) before the contradiction shows; the rest is slack for
a detector that needs a few revisits, well short of a framework's 25-step default."""
MAX_WORDS, MIN_WORDS = 40, 60
CRITERIA = (
    Criterion(name=f"at most {MAX_WORDS} words", holds=lambda t: len(t.split()) <= MAX_WORDS),
    Criterion(
        name=f"at least {MIN_WORDS} words (all 12 changes covered)",
        holds=lambda t: len(t.split()) >= MIN_WORDS,
    ),
)
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


TWIN_MAX_WORDS = 100
"""The twin's upper limit: both bounds can hold at once (60 to 100 words), and the sibling's two
drafts still fail one each."""
TWIN_CRITERIA = (
    Criterion(
        name=f"at most {TWIN_MAX_WORDS} words", holds=lambda t: len(t.split()) <= TWIN_MAX_WORDS
    ),
    CRITERIA[1],
)
MEDIUM = " ".join(f"Change {i}: a fix users notice." for i in range(1, 13))
"""72 words: every change covered, inside the twin's limit."""


def _build(
    make_script: Callable[[], Script], seed: int, criteria: tuple[Criterion, ...] = CRITERIA
) -> Setup:
    """The sibling's build, or with the twin's ``criteria`` the twin's."""
    world = FakeWorld(failing=lambda w: failing(criteria, w.peek("summary")), seed=seed)
    tool = writer_tool(SUMMARY, key="summary", field="text", criteria=criteria)
    return stuck_setup(world, [tool], make_script(), seed=seed)


def _converges() -> Script:
    """Short, long, short again, then a draft that satisfies both criteria."""
    medium = Call(name=SUMMARY.name, arguments={"text": MEDIUM}, text="One that covers and fits")
    return Steps(calls=[PLANS[0], PLANS[1], PLANS[0], medium], then=Claim())


def _task(max_words: int) -> str:
    return (
        f"Write the release summary with save_summary. It must be at most {max_words} words "
        f"and must cover all 12 changes, which takes at least {MIN_WORDS} words."
    )


def _scenario(variant: str, how: str, make_script: Callable[[], Script]) -> Scenario:
    return scenario(
        family=FAMILY,
        lead=True,
        variant=variant,
        task=_task(MAX_WORDS),
        how=how,
        why=f"No text is both at most {MAX_WORDS} and at least {MIN_WORDS} words, so the "
        "completion predicate can never hold (texts are compared without case or spacing).",
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
        how="alternates between the short and the long summary twice, then saves one of 72 words",
        why=f"here the limit is {TWIN_MAX_WORDS} words, so a summary can be both short enough "
        "and complete: the drafts converge.",
        build=partial(_build, _converges, criteria=TWIN_CRITERIA),
        needed=5,
        task=_task(TWIN_MAX_WORDS),
    ),
)
SCENARIOS = with_plain(SCENARIOS, "insist")
