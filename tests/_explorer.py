"""An agent that explores and notes everything it received, so that two runs — a twin and its
sibling — can be compared step by step: the task, the tools offered, the model's words and
moves, every answer (request ids aside) and the world re-read after each step."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import unsolvable
from unsolvable import CHECK_TOOL, Code, ContextOverflow, Scenario, Session, Stop
from unsolvable.agents._loop import assistant, dispatch, opening, tool_calls

VOLATILE = "request_id"
"""The one field two runs may differ in before they diverge: a fresh id per answer."""


def _aside(text: str) -> str:
    """``text`` with its top-level request id left out."""
    try:
        body = json.loads(text)
    except json.JSONDecodeError:
        return text
    if isinstance(body, dict):
        body.pop(VOLATILE, None)
    return json.dumps(body, sort_keys=True)


@dataclass(frozen=True)
class Seen:
    """One step as the explorer received it."""

    step: int
    tools: str
    """The tools offered, as the agent reads them (names, descriptions, parameters)."""
    said: str | None
    calls: tuple[tuple[str, str], ...]
    answers: tuple[str, ...]
    world: str
    """``check_completion`` after the step."""


@dataclass
class Explorer:
    """Makes every call the model asks for, re-reads the world after each step, never hints and
    never stops early: it sees everything a run shows, for ``steps`` steps."""

    steps: int
    task: str = ""
    seen: list[Seen] = field(default_factory=list)

    def __call__(self, session: Session) -> Stop:
        self.task, messages = session.task, opening(session)
        for step in range(1, self.steps + 1):
            offered = json.dumps([spec.to_openai() for spec in session.tools], sort_keys=True)
            try:
                reply = session.call_model(messages, session.tools)
            except ContextOverflow as overflow:  # as far as a run goes without compacting
                world = _aside(session.call_tool(CHECK_TOOL, {}))
                said = f"refused: {overflow}"
                self.seen.append(Seen(step, offered, said, calls=(), answers=(), world=world))
                break
            messages.append(assistant(reply))
            calls = tool_calls(reply)
            answers = [dispatch(session, *call)[0] for call in calls]
            messages += answers
            self.seen.append(
                Seen(
                    step=step,
                    tools=offered,
                    said=reply.get("content"),
                    calls=tuple((name, str(arguments)) for _, name, arguments in calls),
                    answers=tuple(_aside(answer["content"]) for answer in answers),
                    world=_aside(session.call_tool(CHECK_TOOL, {})),
                )
            )
            if not calls:
                break
        return Stop(code=Code.NO_PROGRESS, reason="explored", partial=len(self.seen))


def explore(scenario: Scenario, seed: int, steps: int) -> Explorer:
    explorer = Explorer(steps)
    unsolvable.run(explorer, scenario, seed=seed)
    return explorer


def first_difference(twin: Explorer, sibling: Explorer, upto: int) -> str | None:
    """Where ``twin`` first looks different from ``sibling`` before step ``upto``, in words; the
    tools offered are compared at every step, ``upto`` included. ``None`` when nowhere."""
    if twin.task != sibling.task:
        return f"the task: {twin.task!r} vs {sibling.task!r}"
    for mine, theirs in zip(twin.seen, sibling.seen, strict=False):
        if mine.tools != theirs.tools:
            return f"step {mine.step}: the tools offered: {mine.tools} vs {theirs.tools}"
        if mine.step < upto and mine != theirs:
            return f"step {mine.step}: {_differing(mine, theirs)}"
    ended = len(twin.seen) != len(sibling.seen)  # where both end alike, neither ended first
    if ended and min(len(twin.seen), len(sibling.seen)) < upto - 1:
        return f"one run ended first: {len(twin.seen)} vs {len(sibling.seen)} steps"
    return None


def _differing(mine: Seen, theirs: Seen) -> str:
    fields: dict[str, Any] = {
        name: (getattr(mine, name), getattr(theirs, name))
        for name in ("said", "calls", "answers", "world")
        if getattr(mine, name) != getattr(theirs, name)
    }
    return "; ".join(f"{name}: {a!r} vs {b!r}" for name, (a, b) in fields.items())
