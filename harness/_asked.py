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
from dataclasses import dataclass, field
from typing import NamedTuple

__all__ = ["Asked", "AskedCall", "Unmade"]


class Unmade(NamedTuple):
    """A call the model asked for at ``step`` that the agent did not make."""

    step: int
    tool: str
    arguments: str
    """Canonical JSON (`unsolvable._dispatch.canonical_arguments`)."""


class AskedCall(NamedTuple):
    """A call the model asked for."""

    tool: str
    arguments: str
    """Canonical JSON (`unsolvable._dispatch.canonical_arguments`)."""


@dataclass(kw_only=True, slots=True)
class _LastStep:
    """An agent's last step, and the calls its model asked for there not yet made."""

    step: int = 0
    calls: list[AskedCall] = field(default_factory=list)

    def unmade(self) -> list[Unmade]:
        return [Unmade(self.step, call.tool, call.arguments) for call in self.calls]


class Asked:
    """Each agent's asked calls still to be made, for its last step."""

    def __init__(self) -> None:
        self._pending: dict[str, _LastStep] = {}

    def ask(self, agent: str, step: int, calls: Iterable[tuple[str, str]]) -> list[Unmade]:
        """``agent``'s model asked, at ``step``, for ``calls`` (tool, canonical arguments); what
        it asked at its step before and was never made."""
        unmade = self._unmade(agent)
        self._pending[agent] = _LastStep(step=step, calls=[AskedCall._make(call) for call in calls])
        return unmade

    def take(self, agent: str, tool: str, arguments: str) -> bool:
        """Whether a call of ``tool`` that ``agent`` makes is one its model asked for at its last
        step (each asked call is taken once)."""
        pending = self._pending.get(agent, _LastStep()).calls
        same_tool = [call for call in pending if call.tool == tool]
        if not same_tool:
            return False
        made = AskedCall(tool, arguments)
        pending.remove(made if made in same_tool else same_tool[0])
        return True

    def pending(self) -> list[Unmade]:
        """Every asked call still unmade, as `close` gives them, kept: the agent may make them
        yet."""
        return [unmade for last in self._pending.values() for unmade in last.unmade()]

    def close(self) -> list[Unmade]:
        """The run ended: every asked call still unmade."""
        return [unmade for agent in list(self._pending) for unmade in self._unmade(agent)]

    def _unmade(self, agent: str) -> list[Unmade]:
        return self._pending.pop(agent, _LastStep()).unmade()
