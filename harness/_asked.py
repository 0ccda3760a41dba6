"""Consumes the tool calls each agent's model asks for and the calls the agent makes, produces
which calls were asked for and which asked calls were never made.

The ground truth reads the agent's own trajectory, so what the agent does of its own accord
must not make evidence: a call it repeats unasked can always be made to answer nothing new, and
a call it leaves unmade answers nothing at all. A call made is matched to an asked one by its
arguments where they agree, else by its tool alone, so that a framework that writes a call's
arguments its own way (defaults filled in) still makes the call it was asked for.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

__all__ = ["Asked", "Unmade"]


class Unmade(NamedTuple):
    """A call the model asked for at ``step`` that the agent did not make."""

    step: int
    tool: str
    arguments: str
    """Canonical JSON (`unsolvable._dispatch.canonical_arguments`)."""


class Asked:
    """Each agent's asked calls still to be made, for its last step."""

    def __init__(self) -> None:
        self._pending: dict[str, tuple[int, list[tuple[str, str]]]] = {}
        """Agent → its last step, and the calls (tool, arguments) its model asked for there,
        not yet made."""

    def ask(self, agent: str, step: int, calls: Iterable[tuple[str, str]]) -> list[Unmade]:
        """``agent``'s model asked, at ``step``, for ``calls`` (tool, canonical arguments); what
        it asked at its step before and was never made."""
        unmade = self._unmade(agent)
        self._pending[agent] = (step, list(calls))
        return unmade

    def take(self, agent: str, tool: str, arguments: str) -> bool:
        """Whether a call of ``tool`` that ``agent`` makes is one its model asked for at its last
        step (each asked call is taken once)."""
        _, pending = self._pending.get(agent, (0, []))
        same_tool = [call for call in pending if call[0] == tool]
        if not same_tool:
            return False
        pending.remove((tool, arguments) if (tool, arguments) in same_tool else same_tool[0])
        return True

    def pending(self) -> list[Unmade]:
        """Every asked call still unmade, as `close` gives them, kept: the agent may make them
        yet."""
        return [
            Unmade(step, tool, arguments)
            for step, calls in self._pending.values()
            for tool, arguments in calls
        ]

    def close(self) -> list[Unmade]:
        """The run ended: every asked call still unmade."""
        return [unmade for agent in list(self._pending) for unmade in self._unmade(agent)]

    def _unmade(self, agent: str) -> list[Unmade]:
        step, pending = self._pending.pop(agent, (0, []))
        return [Unmade(step, tool, arguments) for tool, arguments in pending]
