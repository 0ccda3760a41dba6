"""Consumes a recorded run's turns, produces where it got stuck: the first stagnant step (by
novelty or by the first refusal), the refusal's kind and what it names, and the cycle of turns
that a replay goes round for ever.

Novelty is judged as the harness judges it on a live run (`unsolvable._probes`): a step is
productive when one of its tool calls brought an answer not seen before (by the importer's rule
of sameness, `unsolvable.imports._sameness`: request ids aside) or a world state not seen before
(when the recording has them).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from unsolvable.fake_tools import DENIED, UNAVAILABLE
from unsolvable.imports._sameness import answer_key, call_key
from unsolvable.imports._trace import Recorded, Turn

__all__ = ["Cycle", "Stuck", "find_cycle", "find_stuck", "refusal_of"]

DENIAL = re.compile(
    r"\b40[13]\b|forbidden|permission denied|not permitted|unauthori[sz]ed|access denied|"
    r"lacks the permission|action rejected",
    re.IGNORECASE,
)
"""What a refusal for a missing permission says, in the words APIs and agent runtimes use."""
OUTAGE = re.compile(
    r"\b50[234]\b|service unavailable|temporarily unavailable|connection refused|bad gateway",
    re.IGNORECASE,
)
"""What an answer from a dependency that is down says."""
PERMISSION = re.compile(r"permission '([^']+)'|\"missing_permission\": \"([^\"]+)\"")
"""How a denial names the permission it lacks (the fake tools' wording and JSON field)."""


def refusal_of(call: Recorded) -> str | None:
    """The refusal kind of a recorded answer, or ``None`` when it was answered."""
    if call.refused or DENIAL.search(call.result):
        return DENIED
    if OUTAGE.search(call.result):
        return UNAVAILABLE
    return None


@dataclass(frozen=True, kw_only=True)
class Stuck:
    """Where the recorded run got stuck, and why."""

    first_stagnant_step: int
    """1-based, counted over the turns given; past the last turn when it never got stuck."""
    by_refusal: bool
    refusal: str | None = None
    missing: tuple[str, ...] = ()
    why: str = ""


def _novel_steps(turns: Sequence[Turn]) -> list[int]:
    """The 1-based steps that brought a new observation or world state."""
    seen_observations: set[str] = set()
    seen_worlds: set[str] = set()
    productive = []
    for step, turn in enumerate(turns, start=1):
        new = False
        for call in turn.calls:
            observation = f"{call.name}:{answer_key(call.result)}"
            new |= observation not in seen_observations
            new |= bool(call.world) and call.world not in seen_worlds
            seen_observations.add(observation)
            seen_worlds.add(call.world)
        if new:
            productive.append(step)
    return productive


def find_stuck(turns: Sequence[Turn]) -> Stuck:
    """The first refusal when there is one (no call can lift it), else novelty."""
    for step, turn in enumerate(turns, start=1):
        for call in turn.calls:
            kind = refusal_of(call)
            if kind is not None:
                names = tuple(dict.fromkeys(a or b for a, b in PERMISSION.findall(call.result)))
                what = "denied for a missing permission" if kind == DENIED else "down"
                return Stuck(
                    first_stagnant_step=step,
                    by_refusal=True,
                    refusal=kind,
                    missing=names if kind == DENIED else (),
                    why=f"step {step}: {call.name} was refused ({what}); no later call can "
                    "lift a refusal the recording never lifted",
                )
    productive = _novel_steps(turns)
    last = productive[-1] if productive else 0
    why = (
        f"step {last} brought the last new observation; from step {last + 1} on, every call "
        "answered what had been answered before"
        if last
        else "no step brought any observation: the model never got anything new"
    )
    return Stuck(first_stagnant_step=last + 1, by_refusal=False, why=why)


@dataclass(frozen=True, kw_only=True)
class Cycle:
    """The turns before the loop, and the loop the replay goes round for ever."""

    start: int
    """0-based index of the loop's first turn."""
    period: int
    how: str


def _action(turn: Turn) -> tuple[str, ...]:
    """A turn's moves, as the answers are keyed (`call_key`); a turn of words is its own move."""
    if not turn.calls:
        return ("text",)
    return tuple(call_key(call.name, call.arguments) for call in turn.calls)


def _is_periodic(actions: Sequence[tuple[str, ...]], start: int, period: int) -> bool:
    return all(actions[i] == actions[i + period] for i in range(start, len(actions) - period))


def find_cycle(turns: Sequence[Turn], first_stagnant_step: int) -> Cycle:
    """The shortest loop that the recording repeats at least twice up to its end, starting no
    later than the first stagnant step; failing that, the whole stagnant tail. A last turn with
    no tool call (the model said it was done) is what the model says from then on."""
    if turns and not turns[-1].calls:
        return Cycle(
            start=len(turns) - 1,
            period=1,
            how="the model's last turn called no tool: "
            "the replayed model says it again every step after",
        )
    actions = [_action(turn) for turn in turns]
    latest = min(first_stagnant_step - 1, len(turns) - 1)
    for period in range(1, len(turns) // 2 + 1):
        for start in range(0, latest + 1):
            if len(turns) - start >= 2 * period and _is_periodic(actions, start, period):
                return Cycle(
                    start=start,
                    period=period,
                    how=f"turns {start + 1}–{start + period} repeat, the same calls with the "
                    f"same arguments, to the end of the recording",
                )
    start = max(0, latest)
    return Cycle(
        start=start,
        period=len(turns) - start,
        how=f"no exact repeat (the arguments vary); the stagnant turns {start + 1}–{len(turns)} "
        "are gone round for ever",
    )
