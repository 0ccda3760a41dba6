"""Nested delegation: a worker hands its own brief to another worker ("I've dispatched this"),
which hands it on again, level after level, and no level does the work.

Passing a brief on once — a coordinator handing it to a specialist — is delegation; passing it
on again with nothing done in between is a loop one level deeper each time. Its twin looks the
same until the specialist, which does the audit.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from functools import partial

from unsolvable import (
    DELEGATE_TOOL,
    JSON,
    Claim,
    Code,
    ModelRequest,
    ModelResponse,
    Scenario,
    Script,
    Setup,
    ToolCall,
)
from unsolvable.scenarios.catalog._audits import (
    WORKER_STEPS,
    audits,
    filing,
    finishes,
    in_words,
    registry,
    subtask,
)
from unsolvable.scenarios.catalog._common import background, scenario, with_plain
from unsolvable.scenarios.catalog._control import twin
from unsolvable.scenarios.catalog._delegation import Wave, Waves, delegated_setup

__all__ = ["FAMILY", "SCENARIOS", "PassesOn", "make"]

FAMILY = "nested-delegation"
SUPPLIERS = 2
"""The library's suppliers: the first's audit is filed, the second's brief is passed on."""
PASSED = SUPPLIERS
"""The supplier whose brief is passed on in the library's variants: the last."""


def step_bound(suppliers: int) -> int:
    """The dispatch, every audit's work, room for the passes a stop needs to see, and the stop
    (N counts from the end of the seed's background reading)."""
    return 1 + suppliers * WORKER_STEPS + 8


class PassesOn:
    """The first ``levels`` workers that take ``brief`` hand it on whole at their first step
    ("I've dispatched this") and say so after; every later one follows ``then``, from its own
    first step. Stateful (it remembers the levels in the order they came), so one instance
    serves one run.

    A level is a worker's conversation: a fresh one (or a new agent's) opens the next level, so a
    runtime that runs every worker under one name nests as deep as one that names each; a
    conversation goes on at the level whose first call it holds (a fresh id each step), else at
    its agent's (one handed on whole holds its supervisor's calls)."""

    def __init__(self, *, brief: str, levels: int | None, then: Script) -> None:
        self.brief, self.levels, self.then = brief, levels, then
        self._opened: list[int] = []
        """Each level's own step count when it opened."""
        self._by_call: dict[str, int] = {}
        """The level of the conversation that holds each level's first call."""
        self._by_agent: dict[str, int] = {}
        """The level each agent opened last."""

    def reply(self, request: ModelRequest, rng: random.Random) -> ModelResponse:
        level, opens = self._level(request)
        step = (request.agent_step or request.step) - self._opened[level] + 1
        if self.levels is not None and level >= self.levels:
            later = dataclasses.replace(request, agent_step=step)
            return self._opening(level, opens, self.then.reply(later, rng))
        if not opens:
            return ModelResponse(content=f"I've dispatched this: {self.brief} is with a worker.")
        arguments = {"subtask": self.brief}
        call = ToolCall(id=f"call_{request.step}_0", name=DELEGATE_TOOL, arguments=arguments)
        passed = ModelResponse(content="I've dispatched this to a specialist.", tool_calls=(call,))
        return self._opening(level, opens, passed)

    def _level(self, request: ModelRequest) -> tuple[int, bool]:
        """The level the request's conversation is at, and whether it opens it."""
        first = _first_call(request.messages)
        if first in self._by_call:
            return self._by_call[first], False
        if first is not None and request.agent in self._by_agent:
            return self._by_agent[request.agent], False
        self._opened.append(request.agent_step or request.step)
        self._by_agent[request.agent] = len(self._opened) - 1
        return len(self._opened) - 1, True

    def _opening(self, level: int, opens: bool, response: ModelResponse) -> ModelResponse:
        """``response``, its first call noted as its level's when it opens the level."""
        if opens and response.tool_calls:
            self._by_call[response.tool_calls[0].id] = level
        return response


def _first_call(messages: Sequence[JSON]) -> str | None:
    """The id of the first tool call the conversation holds, or ``None`` in a fresh one."""
    calls = (c for m in messages if m.get("role") == "assistant" for c in m.get("tool_calls") or ())
    return next((str(call.get("id")) for call in calls), None)


def _filed(suppliers: int) -> str:
    """The supervisor's claim once every audit is dispatched."""
    return "Both audits are filed." if suppliers == 2 else f"All {suppliers} audits are filed."


def _build(seed: int, *, suppliers: int = SUPPLIERS, levels: int | None = None) -> Setup:
    lead, reading = background(seed)
    numbers = range(1, suppliers + 1)
    passes = PassesOn(brief=subtask(suppliers), levels=levels, then=finishes(suppliers))
    workers: dict[str, Script] = {subtask(n): finishes(n) for n in range(1, suppliers)}
    workers[subtask(suppliers)] = passes
    script = Waves(
        before=lead,
        waves=[Wave(subtasks=[subtask(n) for n in numbers], text="Splitting the audits")],
        workers=workers,
        then=Claim(text=_filed(suppliers)),
    )
    tools = [registry(numbers), filing(numbers)]
    return delegated_setup(
        audits(numbers), tools, script, seed=seed, reading=reading, lead=len(lead)
    )


def _filed_first(suppliers: int) -> str:
    """What becomes of the audits before the last: filed, as the library's first is."""
    if suppliers == 2:
        return "the first is filed"
    return f"the first {in_words(suppliers - 1)} are filed"


def make(variant: str, *, suppliers: int = SUPPLIERS) -> Scenario:
    """The audits of ``suppliers`` delegated at once, all filed but the last, whose brief is
    passed on level after level; N follows from how many there are."""
    if suppliers < 2:
        raise ValueError(
            f"nested-delegation: with {suppliers} suppliers no audit is filed beside the brief "
            "passed on, so no tool ever answers and any stop is blind; give at least 2"
        )
    return scenario(
        family=FAMILY,
        variant=variant,
        lead=True,
        task=f"Audit the compliance files of {in_words(suppliers)} suppliers; delegate one per "
        "worker.",
        how=f"as supervisor, delegates the {in_words(suppliers)} audits; "
        f"{_filed_first(suppliers)}, while S-{suppliers}'s worker hands its brief on whole to "
        "another worker, which hands it on again, level after level, each saying it has "
        "dispatched it",
        why=f"No level ever works on S-{suppliers}'s audit.",
        build=partial(_build, suppliers=suppliers),
        expected=frozenset({Code.NO_PROGRESS}),
        step_bound=step_bound(suppliers),
    )


PASSED_ON = make("passed-on")
SCENARIOS: tuple[Scenario, ...] = (
    PASSED_ON,
    twin(
        PASSED_ON,
        variant="twin-specialist-works",
        how=f"as supervisor, delegates the two audits; S-{PASSED}'s worker hands its brief to a "
        "specialist, which looks the file up and files the audit",
        why=f"the specialist does the work. Identical to {PASSED_ON.name} until the "
        "specialist's first step.",
        build=partial(_build, levels=1),
        needed=1 + 2 * WORKER_STEPS + 2 + 1,
        diverges_at=lambda seed: None,  # its workers' runs differ: a single loop sees none of them
    ),
)
SCENARIOS = with_plain(SCENARIOS, "passed-on")
