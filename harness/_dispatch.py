"""Consumes the tool calls an agent makes, produces what each returned and how the world stood
after it: the tool runs against the run's toolbox, its arguments read and written canonically.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from typing import Any, NamedTuple

from unsolvable._json import canonical_json, sorted_json
from unsolvable._types import JSON, Toolbox, ToolResult, World

__all__ = [
    "BAD_ARGUMENTS_STATUS",
    "Dispatched",
    "ToolDispatch",
    "bad_arguments",
    "canonical_arguments",
    "parse_arguments",
]

BAD_ARGUMENTS_STATUS = 400
"""Arguments that are not a JSON object get the answer an HTTP API gives a malformed body."""


def parse_arguments(arguments: Mapping[str, Any] | str | None) -> JSON:
    """Arguments as a dict; tool-call arguments often arrive as a JSON string. Raises
    `ValueError` saying why when they are not a JSON object (``"{not json"``, ``[1]``, ``3``)."""
    if arguments is None:
        return {}
    if not isinstance(arguments, str):
        return dict(arguments)
    try:
        parsed = json.loads(arguments) if arguments.strip() else {}
    except json.JSONDecodeError as error:
        raise ValueError(f"arguments are not a JSON object: {error}: {arguments!r}") from None
    if not isinstance(parsed, dict):
        raise ValueError(
            f"arguments are not a JSON object: a {type(parsed).__name__}: {arguments!r}"
        )
    return parsed


def canonical_arguments(arguments: Mapping[str, Any] | str | None) -> str:
    """Arguments as canonical JSON (sorted keys); arguments that are not a JSON object are kept
    as given, for the trace."""
    try:
        return canonical_json(parse_arguments(arguments))
    except ValueError:
        return str(arguments)


def bad_arguments(problem: ValueError) -> ToolResult:
    """What the agent sees for arguments the tool cannot read: an error it can act on, as the
    other fake tool errors are written, rather than a tool run on ``{"_unparsed": ...}``."""
    body = {"error": {"status": BAD_ARGUMENTS_STATUS, "message": str(problem)}}
    text = sorted_json(body)
    return ToolResult(text=text, observation=text)


class Dispatched(NamedTuple):
    """One tool call as it was made."""

    name: str
    arguments: str
    """Canonical JSON of the arguments, or the arguments as given when they are not JSON."""
    result: ToolResult
    world: str
    """The world's fingerprint after the call."""
    reached: bool
    """Whether the call reached a tool: one the toolbox has, given arguments it could read. An
    answer to any other is the error of a call that never ran, which says the call back and
    nothing of the world."""


class ToolDispatch:
    """The run's tool calls: each runs on its own copy of its arguments, and the calls are
    counted by name and arguments, and their results kept for the calling agent's next step."""

    def __init__(self, toolbox: Toolbox, world: World) -> None:
        self._toolbox = toolbox
        self._world = world
        self._names = frozenset(spec.name for spec in toolbox.specs)
        self._actions: Counter[tuple[str, str]] = Counter()
        """Calls by name and canonical arguments: a pair, so no name and arguments run together."""
        self._results: dict[str, list[str]] = {}

    def call(self, name: str, arguments: Mapping[str, Any] | str | None, agent: str) -> Dispatched:
        try:
            parsed = parse_arguments(arguments)
        except ValueError as problem:
            canonical, result, reached = str(arguments), bad_arguments(problem), False
        else:  # a tool's own ValueError is the tool's, not the arguments'
            canonical, reached = canonical_json(parsed), name in self._names
            result = self._toolbox.call(name, parsed)
        self._actions[name, canonical] += 1
        self._results.setdefault(agent, []).append(result.text)
        return Dispatched(
            name=name,
            arguments=canonical,
            result=result,
            world=self._world.fingerprint(),
            reached=reached,
        )

    def results_since(self, agent: str) -> tuple[str, ...]:
        """The results ``agent`` received since this was last asked for it."""
        return tuple(self._results.pop(agent, ()))

    def has_made(self, name: str, arguments: str) -> bool:
        """Whether the call of ``name`` with ``arguments`` (canonical) was made before."""
        return self._actions[name, arguments] > 0

    @property
    def max_repeated_action(self) -> int:
        """Most times one identical call (name and canonical arguments) was made."""
        return max(self._actions.values(), default=0)
