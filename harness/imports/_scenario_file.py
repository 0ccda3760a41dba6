"""Consumes a scenario file's checked fields, produces its typed form (`ScenarioFile`): the
recorded turns, the tools' recorded answers and the solvable twin that a replay runs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from unsolvable._errors import ScenarioError
from unsolvable._scenario import Budget, Stagnation
from unsolvable._stop import Code
from unsolvable._types import JSON

__all__ = [
    "SCHEMA",
    "Answer",
    "FileCall",
    "FileTurn",
    "Result",
    "ScenarioFile",
    "ScenarioFileError",
    "Twin",
    "unblocking_step",
]

SCHEMA = "unsolvable-scenario/1"
"""The ``schema`` every scenario file names; a later, incompatible layout gets a new number."""


class ScenarioFileError(ScenarioError):
    """A scenario file that cannot be read or does not follow `SCHEMA`."""


@dataclass(frozen=True, kw_only=True)
class FileCall:
    """A tool call the recorded model asked for."""

    name: str
    arguments: JSON = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class FileTurn:
    """One recorded model turn: its text and its tool calls (none: it answered in words)."""

    text: str = ""
    calls: tuple[FileCall, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Result:
    """One recorded answer of a tool."""

    text: str
    refusal: str | None = None
    """The kind of refusal (one of `unsolvable.fake_tools.REFUSALS`) when the call was refused."""
    world: str = ""
    """The world's fingerprint after the call, when the recording has one."""


@dataclass(frozen=True, kw_only=True)
class Answer:
    """What one tool answered one set of arguments, in the order it answered; the last answer
    is given again to every later call, so a replayed loop never runs out."""

    tool: str
    arguments: JSON
    results: tuple[Result, ...]


@dataclass(frozen=True, kw_only=True)
class Twin:
    """The solvable twin: the same recording, but ``tool`` answers ``result`` and the task is
    then done, as the user said the real run should have gone."""

    tool: str
    result: str
    step_bound: int


@dataclass(frozen=True, kw_only=True)
class ScenarioFile:
    """A checked scenario file; `unsolvable.imports.build` makes the `Scenario` of it."""

    name: str
    family: str
    task: str
    explanation: str
    tools: tuple[JSON, ...]
    """Each ``{"name", "description", "parameters"}``, as the agent is told."""
    prefix: tuple[FileTurn, ...]
    cycle: tuple[FileTurn, ...]
    answers: tuple[Answer, ...]
    unrecorded: str
    unrecorded_text: str
    stagnation: Stagnation
    first_stagnant_step: int | None
    why: str
    expected: frozenset[Code]
    step_bound: int
    budget: Budget
    missing: tuple[str, ...] = ()
    refused_retries: int | None = None
    give_up: str | None = None
    context_window: int | None = None
    """Tokens a model request may hold (`Scenario.context_window`); ``None``: no window."""
    seeds: tuple[int, ...] = (0,)
    twin: Twin | None = None
    source: str = ""
    """Where the file was read from, for messages."""


def unblocking_step(tool: str, turns: Sequence[FileTurn]) -> int | None:
    """The step at which the recorded model first calls ``tool``, the twin's unblocking tool,
    going once through ``turns``; ``None`` if it never does."""
    called = (step for step, turn in enumerate(turns, 1) if any(c.name == tool for c in turn.calls))
    return next(called, None)
