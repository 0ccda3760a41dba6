"""Consumes the tool calls each agent's model asks for and the calls the agent makes, produces
which calls were asked for and which asked calls were never made.

The ground truth reads the agent's own trajectory, so what the agent does of its own accord
must not make evidence: a call it repeats unasked can always be made to answer nothing new, and
a call it leaves unmade answers nothing at all. Calls are matched by tool name, so that a
framework that writes a call's arguments its own way (defaults filled in) still makes the call
it was asked for.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

__all__ = ["Asked", "Unmade"]

Unmade = tuple[int, str]
"""A step, and the tool of one call its model asked for that the agent did not make."""


class Asked:
    """Each agent's asked calls still to be made, for its last step."""

    def __init__(self) -> None:
        self._pending: dict[str, tuple[int, Counter[str]]] = {}
        """Agent → its last step, and the tools its model asked to call there, not yet made."""

    def ask(self, agent: str, step: int, tools: Iterable[str]) -> list[Unmade]:
        """``agent``'s model asked, at ``step``, for calls of ``tools``; what it asked at its
        step before and was never made."""
        unmade = self._unmade(agent)
        self._pending[agent] = (step, Counter(tools))
        return unmade

    def take(self, agent: str, tool: str) -> bool:
        """Whether a call of ``tool`` that ``agent`` makes is one its model asked for at its last
        step (each asked call is taken once)."""
        _, pending = self._pending.get(agent, (0, Counter[str]()))
        if pending[tool] <= 0:
            return False
        pending[tool] -= 1
        return True

    def close(self) -> list[Unmade]:
        """The run ended: every asked call still unmade."""
        return [unmade for agent in list(self._pending) for unmade in self._unmade(agent)]

    def _unmade(self, agent: str) -> list[Unmade]:
        step, pending = self._pending.pop(agent, (0, Counter[str]()))
        return [(step, tool) for tool, left in pending.items() for _ in range(left)]
