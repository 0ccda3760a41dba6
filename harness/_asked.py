"""Consumes the tool calls each agent's model asks for and the calls the agent makes, produces
which calls were asked for and which asked calls were never made.

The ground truth reads the agent's own trajectory, so what the agent does of its own accord
must not make evidence: a call it repeats unasked can always be made to answer nothing new, and
a call it leaves unmade answers nothing at all. A call made is matched to an asked one by its
arguments where they agree, else where it gives every argument the model gave with the value
the model gave, so that a framework that fills in defaults still makes the call it was asked
for; a call that changes one (an earlier offset, whose answer is known) is not the call asked.

An agent name may hold several conversations at once — a runtime that runs every worker under
one name, concurrently (agents-as-tools) — so the calls asked are kept by conversation: a call
asked in one is not left unmade by the next step of another, and a call made is the one asked
at the last step of one of its agent's conversations. A call made under a name whose
conversations asked for none like it (a runtime that runs its workers' tools on the
supervisor's client) is the one another agent's conversation asked for: the name a call is made
under is the agent's to choose, and the work is the conversation's that asked for it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from unsolvable._json import canonical_json

__all__ = ["Asked", "AskedCall", "Taken", "Unmade"]


class Unmade(NamedTuple):
    """A call the model asked for at ``step`` that the agent did not make."""

    step: int
    tool: str
    arguments: str
    """Canonical JSON (`unsolvable._dispatch.canonical_arguments`)."""


class Taken(NamedTuple):
    """Where a call made was asked for: the step, and the agent whose conversation asked."""

    step: int
    agent: str
    since: int = 0
    """The first step before ``step`` at which a model asked for the same call and the agent
    did not make it there, since the call was last made (0: none, `Asked._since`): what that
    step's call would have answered is what this one answers, where the world answers it alike
    whenever it is made."""


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


Conversation = tuple[str, str | None]
"""An agent, and the subtask its conversation names (``None``: the agent's one conversation)."""


class Asked:
    """Each conversation's asked calls still to be made, for its last step."""

    def __init__(self, *, refusing: frozenset[str] = frozenset()) -> None:
        """``refusing``: the tools whose every call is refused, whatever its arguments
        (`unsolvable.Setup.refusing`): a call of one stands for any other."""
        self._refusing = refusing
        self._pending: dict[Conversation, _LastStep] = {}
        self._passed_over: dict[AskedCall, int] = {}
        """The first step at which each call was asked for and passed over, since it was last
        made (`Taken.since`)."""
        self._refusal_passed_over = 0
        """The same for the calls of the refusing tools, as one (0: none)."""

    def ask(
        self,
        agent: str,
        step: int,
        calls: Iterable[tuple[str, str]],
        *,
        subtask: str | None = None,
    ) -> list[Unmade]:
        """``agent``'s model asked, at ``step``, in its conversation on ``subtask``, for
        ``calls`` (tool, canonical arguments); what it asked at that conversation's step before
        and was never made."""
        unmade = self._unmade((agent, subtask))
        last = _LastStep(step=step, calls=[AskedCall._make(call) for call in calls])
        self._pending[(agent, subtask)] = last
        return unmade

    def take(self, agent: str, tool: str, arguments: str) -> Taken | None:
        """Where the call of ``tool`` that ``agent`` makes was asked for, or ``None`` when no
        model asked for it: the last step of one of ``agent``'s conversations, the one that
        asked for these arguments, else the latest that asked for a call of the tool these
        arguments fill in (`_fills_in`); failing those, another agent's conversation, the same
        way. Each asked call is taken once."""
        lasts = sorted(self._pending.items(), key=lambda item: item[1].step, reverse=True)
        own = [(who, last) for (who, _), last in lasts if who == agent]
        others = [(who, last) for (who, _), last in lasts if who != agent]
        made, given = AskedCall(tool, arguments), _object(arguments)
        for conversations in (own, others):
            for who, last in conversations:
                if made in last.calls:
                    last.calls.remove(made)
                    return Taken(last.step, who, self._since(made, last.step))
            for who, last in conversations:
                filled = [c for c in last.calls if c.tool == tool and _fills_in(given, c)]
                if filled:
                    last.calls.remove(filled[0])
                    return Taken(last.step, who, self._since(filled[0], last.step))
        return None

    def _since(self, call: AskedCall, step: int) -> int:
        """`Taken.since` of ``call``, taken at ``step``: the first step before it at which a
        model asked for the same call and it was not made there — passed over since it was
        last made, or still asked in another conversation (an agent that asks each step afresh,
        under a new name, passes nothing over); 0 for none. Of a refusing tool's call, any call
        of a refusing tool is the same: it would have been refused alike, whatever spelling of
        what is not there it asked for."""
        passed = [self._passed_over.pop(call, 0)]
        if call.tool in self._refusing:
            passed.append(self._refusal_passed_over)
            self._refusal_passed_over = 0
            asked = [
                last.step
                for last in self._pending.values()
                if any(other.tool in self._refusing for other in last.calls)
            ]
        else:
            asked = [last.step for last in self._pending.values() if call in last.calls]
        return min([s for s in (*passed, *asked) if 0 < s < step], default=0)

    def pending(self) -> list[Unmade]:
        """Every asked call still unmade, as `close` gives them, kept: the agent may make them
        yet."""
        return [unmade for last in self._pending.values() for unmade in last.unmade()]

    def passed_over(self, agent: str) -> list[Unmade]:
        """``agent`` moved on from its last steps: the calls they asked for still unmade."""
        return [
            unmade for key in list(self._pending) if key[0] == agent for unmade in self._unmade(key)
        ]

    def close(self) -> list[Unmade]:
        """The run ended: every asked call still unmade."""
        return [unmade for key in list(self._pending) for unmade in self._unmade(key)]

    def _unmade(self, conversation: Conversation) -> list[Unmade]:
        last = self._pending.pop(conversation, _LastStep())
        for call in last.calls:
            self._passed_over.setdefault(call, last.step)
            if call.tool in self._refusing:
                self._refusal_passed_over = self._refusal_passed_over or last.step
        return last.unmade()


def _object(arguments: str) -> dict[str, Any] | None:
    """Canonical arguments read back as the JSON object they are, else ``None`` (arguments that
    were not one are kept as given)."""
    try:
        value = json.loads(arguments)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _fills_in(made: dict[str, Any] | None, asked: AskedCall) -> bool:
    """Whether arguments ``made`` give every argument of the call ``asked`` with its value (as
    canonical JSON: ``==`` takes ``1`` for ``true``): the same call with defaults filled in."""
    wanted = _object(asked.arguments)
    if made is None or wanted is None:
        return False
    return all(
        key in made and canonical_json(made[key]) == canonical_json(value)
        for key, value in wanted.items()
    )
