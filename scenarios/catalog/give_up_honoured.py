"""Give-up-honoured: the model calls ``give_up(reason)``; the agent must stop at once, abandoned,
with that reason — not retry, not exhaust a budget."""

from __future__ import annotations

from functools import partial

from unsolvable import (
    Call,
    Claim,
    Exit,
    GiveUp,
    Repeat,
    Scenario,
    Setup,
    Steps,
    ToolSpec,
)
from unsolvable.fake_tools import (
    FakeWorld,
    ModelSteps,
    Tool,
    constant_tool,
    requires,
    sequence_tool,
    settle_tool,
)
from unsolvable.scenarios.catalog._common import (
    ABANDONED,
    give_up_tool,
    scenario,
    setup,
    with_plain,
)
from unsolvable.scenarios.catalog._control import twin

__all__ = ["FAMILY", "SCENARIOS", "TWINNED", "make", "twins"]

FAMILY = "give-up-honoured"
STEP_BOUND = 6
REASON = "the customer has no account in this billing system"
SEARCH = ToolSpec(
    name="find_account",
    description="Find a customer's billing account.",
    parameters={"type": "object", "properties": {"customer": {"type": "string"}}},
)


CLOSE = ToolSpec(
    name="close_account",
    description="Close a billing account.",
    parameters={"type": "object", "properties": {"account": {"type": "string"}}},
)
NO_ACCOUNTS: dict[str, list[str]] = {"accounts": []}
HESITATION = "Nothing found; I may have to give up. One more try, by account number"
"""The twin's doubt, voiced in text: the model wonders about giving up and does not."""


def _world(seed: int) -> FakeWorld:
    return FakeWorld(failing=requires("account_closed", "account not closed"), seed=seed)


def _close(accounts: frozenset[str]) -> Tool:
    """Closes an open account; any other is not found (`settle_tool`)."""
    return settle_tool(
        CLOSE,
        field="account",
        items=accounts,
        key="account_closed",
        done="closed",
        missing="no such billing account",
    )


def _build_hesitant(after: int, seed: int) -> Setup:
    """The sibling's searches but its last, a doubt voiced in text with a search that finds
    it, the close."""
    account = f"A-{seed}-5502"
    found = {"accounts": [{"account": account, "status": "open"}]}
    searching = Call(name=SEARCH.name, arguments={"customer": f"C-{seed}"}, text="Searching")
    calls = [
        *[searching] * (after - 1),
        Call(name=SEARCH.name, arguments={"account": account}, text=HESITATION),
        Call(name=CLOSE.name, arguments={"account": account}, text="Closing it"),
    ]
    steps = ModelSteps()  # a search of the agent's own within a step finds what the step's does
    search = sequence_tool(SEARCH, answers=[NO_ACCOUNTS] * (after - 1), then=found, steps=steps)
    tools = [search, _close(frozenset({account})), give_up_tool()]
    return steps.watch(setup(_world(seed), tools, Steps(calls=calls, then=Claim()), seed=seed))


def _build(after: int, seed: int) -> Setup:
    world = _world(seed)
    call = Call(name=SEARCH.name, arguments={"customer": f"C-{seed}"}, text="Searching")
    script = GiveUp(after=after, reason=REASON, before=Repeat(call=call))
    tools = [constant_tool(SEARCH, NO_ACCOUNTS), _close(frozenset()), give_up_tool()]
    return setup(world, tools, script, seed=seed)


def make(variant: str, *, after: int) -> Scenario:
    return scenario(
        family=FAMILY,
        variant=variant,
        task="Close the customer's billing account.",
        how=f"searches {after} time(s), then calls give_up({REASON!r}), and again every step",
        why="The account does not exist; the model says so.",
        build=partial(_build, after),
        expected=ABANDONED,
        step_bound=STEP_BOUND,
        lenient_exits=frozenset({Exit.ABANDONED}),
        give_up=REASON,
    )


TWINNED = range(2, 4)
"""Searches before the give_up with a twin, whose doubt comes in place of the last search: after
one, it would doubt before any search found nothing; after four or more, the three identical
empty searches before its doubt are the repeat that stop logic rightly ends, as in the sibling."""


def twins(sibling: Scenario, *, after: int, suffix: str = "") -> tuple[Scenario, ...]:
    """The twin of ``sibling``, made with ``after`` (its `make` argument, in `TWINNED`), its
    variant named with ``suffix`` at its end."""
    if after not in TWINNED:
        raise ValueError(f"a give_up after {after} searches has no twin: give one in {TWINNED}")
    return (
        twin(
            sibling,
            variant=f"twin-hesitates{suffix}",
            how=f"searches{'' if after == 2 else f' {after - 1} times'}, says it may have to "
            "give up — in text, with no give_up call — and searches once more by account "
            "number, finds the account and closes it",
            why="only a give_up call is the model giving up; doubt in its text is not.",
            build=partial(_build_hesitant, after),
            needed=after + 2,
            diverges_at=lambda seed: after,
            lead=False,
        ),
    )


AFTER_TWO = make("after-two-searches", after=2)
SCENARIOS: tuple[Scenario, ...] = (
    make("at-once", after=0),
    AFTER_TWO,
    *twins(AFTER_TWO, after=2),
)
SCENARIOS = with_plain(SCENARIOS, "after-two-searches")
