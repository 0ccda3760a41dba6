"""Consumes nothing: the shape every format reader produces and the importer consumes — a
recorded run as turns of model text and tool calls with their answers."""

from __future__ import annotations

from dataclasses import dataclass

from unsolvable._errors import ScenarioError
from unsolvable._types import JSON

__all__ = ["ImportFailed", "Recorded", "Trace", "Turn"]


class ImportFailed(ScenarioError):
    """A trace that cannot become a scenario as it is: says what to pass to fix it."""


@dataclass(frozen=True, kw_only=True)
class Recorded:
    """One tool call of the recorded run and what came back."""

    name: str
    arguments: JSON
    result: str
    """The answer's text; empty when the recording holds none."""
    world: str = ""
    """The world's fingerprint after the call, when the recording has one (the harness's own)."""
    refused: bool = False
    """The format itself says the call was refused (an OpenHands rejection)."""


@dataclass(frozen=True, kw_only=True)
class Turn:
    """One model turn: its text and the tool calls it asked for."""

    text: str
    calls: tuple[Recorded, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Trace:
    """A recorded run as a format reader found it."""

    turns: tuple[Turn, ...]
    task: str | None = None
    tools: tuple[JSON, ...] = ()
    """The tools the agent was offered (``name``, ``description``, ``parameters``), when the
    recording lists them; otherwise the importer infers them from the calls."""
    step_bound: int | None = None
    """N, when the recording says it (the harness's own traces)."""
    budget: JSON | None = None
    """The run's budget (`Budget.to_dict`), when the recording says it (the harness's own
    traces): a replay given another would stop, or be judged, at another step."""
    removed: tuple[str, ...] = ()
    """What the reader left out, said to the user."""
    inferred: tuple[str, ...] = ()
    """What the reader filled in, said to the user."""
