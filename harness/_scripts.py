"""Consumes a model request, produces the scripted model's next move: the ways agents get stuck.

Every script is a policy, not a list: it answers call 5,000 the way it answered call 5, so a stuck
agent meets the same stuck model however long it runs. Randomness comes only from the run's seeded
generator, so the same seed gives the same moves.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from unsolvable._moves import Call, in_its_conversation, own_step, rebased, say, single_call
from unsolvable._subtasks import named_subtask
from unsolvable._types import GIVE_UP_TOOL, JSON, ModelRequest, ModelResponse, ToolCall

__all__ = [
    "FINAL_ANSWER_CLAIM",
    "PERTURBATIONS",
    "TODO_TOPICS",
    "Alternate",
    "Call",
    "Claim",
    "ClaimSuccess",
    "Cycle",
    "FanOut",
    "FirstThen",
    "GiveUp",
    "Moment",
    "Perturbed",
    "Repeat",
    "Script",
    "Steps",
    "TodoSpawn",
    "Until",
    "in_its_conversation",
    "restyle",
    "todo_items",
]

FINAL_ANSWER_CLAIM = "I have completed the task successfully. Everything requested is done."
"""What the fake model says when it is offered no tools: the forced "best final answer" that
frameworks ask for at their limit, answered the way real models answer it — as a success."""

PERTURBATIONS = ("offset", "synonym", "case", "volatile-id")
"""Cosmetic changes that defeat a naive fingerprint of the call while the world stays the same."""


def restyle(text: str, index: int) -> str:
    """The ``index``-th case/whitespace variant of ``text``: same meaning, different bytes."""
    styles = (text, text.upper(), f"  {text} ", text.title(), text.replace(" ", "  "))
    return styles[index % len(styles)]


class Script(Protocol):
    """A policy: given the request and the run's generator, what the model does next."""

    def reply(self, request: ModelRequest, rng: random.Random) -> ModelResponse: ...


@dataclass(frozen=True, kw_only=True)
class Repeat:
    """Makes the same call, with the same arguments, every step."""

    call: Call

    def reply(self, request: ModelRequest, rng: random.Random) -> ModelResponse:
        return single_call(self.call, request)


@dataclass(frozen=True, kw_only=True)
class Perturbed:
    """Repeats a call with one cosmetic perturbation per step (see `PERTURBATIONS`).

    ``field`` names the argument perturbed: an integer for ``offset``, a string for ``synonym`` and
    ``case``; ``volatile-id`` adds a fresh ``request_id`` argument instead.
    """

    call: Call
    kind: str
    field: str = ""
    synonyms: Sequence[str] = ()

    def __post_init__(self) -> None:
        if self.kind not in PERTURBATIONS:
            raise ValueError(f"unknown perturbation {self.kind!r}; use one of {PERTURBATIONS}")
        if self.kind == "synonym" and not self.synonyms:
            raise ValueError("Perturbed(kind='synonym') needs synonyms=[...]")
        if self.kind != "volatile-id" and self.field not in self.call.arguments:
            raise ValueError(f"Perturbed(field={self.field!r}) is not an argument of {self.call}")
        value = self.call.arguments.get(self.field)
        if self.kind == "offset" and (not isinstance(value, int) or isinstance(value, bool)):
            raise ValueError(
                f"Perturbed(kind='offset') adds the step to a whole number, and {self.field} is "
                f"{value!r}: perturb a whole-number argument, or text with kind='case'"
            )
        if self.kind == "case" and not isinstance(value, str):
            raise ValueError(
                f"Perturbed(kind='case') restyles text, and {self.field} is {value!r}: perturb "
                "a text argument, or a whole number with kind='offset'"
            )

    def reply(self, request: ModelRequest, rng: random.Random) -> ModelResponse:
        arguments = dict(self.call.arguments)
        arguments.update(self._perturb(arguments, own_step(request) - 1, rng))
        return single_call(self.call, request, arguments)

    def _perturb(self, arguments: JSON, index: int, rng: random.Random) -> JSON:
        value: Any = arguments.get(self.field)
        if self.kind == "offset":
            return {self.field: int(value) + index}
        if self.kind == "synonym":
            return {self.field: self.synonyms[index % len(self.synonyms)]}
        if self.kind == "case":
            return {self.field: restyle(str(value), index)}
        return {"request_id": f"req-{rng.getrandbits(32):08x}"}


@dataclass(frozen=True, kw_only=True)
class Alternate:
    """Switches between plan A and plan B every step: each step changes the world, to no end.

    With ``restyled`` set, the string arguments of each round are `restyle`-d, so the calls never
    repeat byte for byte while the world goes back and forth between the same two states.
    """

    plans: tuple[Call, Call]
    restyled: bool = False

    def reply(self, request: ModelRequest, rng: random.Random) -> ModelResponse:
        rounds, plan = divmod(own_step(request) - 1, 2)
        call = self.plans[plan]
        arguments = dict(call.arguments)
        if self.restyled:
            arguments = {
                k: restyle(v, rounds) if isinstance(v, str) else v for k, v in arguments.items()
            }
        return single_call(call, request, arguments)


@dataclass(frozen=True, kw_only=True)
class ClaimSuccess:
    """Follows ``before`` for ``after`` steps, then announces success with no tool call, forever.

    Only a check of the world shows the claim is false.
    """

    after: int
    before: Script
    claim: str = "Done: the task is complete and verified."

    def reply(self, request: ModelRequest, rng: random.Random) -> ModelResponse:
        if own_step(request) > self.after:
            return ModelResponse(content=self.claim)
        return self.before.reply(request, rng)


@dataclass(frozen=True, kw_only=True)
class Claim:
    """Says the task is done, with no tool call, every time it is asked."""

    text: str = "Done: the task is complete."

    def reply(self, request: ModelRequest, rng: random.Random) -> ModelResponse:
        return ModelResponse(content=self.text)


@dataclass(frozen=True, kw_only=True)
class Steps:
    """Makes ``calls`` in order, one per step — real progress when each call moves the world —
    then follows ``then`` (with its steps counted from 1 again)."""

    calls: Sequence[Call]
    then: Script = field(default_factory=Claim)

    def reply(self, request: ModelRequest, rng: random.Random) -> ModelResponse:
        index = own_step(request) - 1
        if index < len(self.calls):
            return single_call(self.calls[index], request)
        return self.then.reply(rebased(request, len(self.calls)), rng)


@dataclass(frozen=True, kw_only=True)
class FirstThen:
    """Replies as ``first`` at its first step, then follows ``then`` (its steps counted from 1
    again): `Steps` for a first move only a script makes, as one that draws a fresh request id
    from the run's generator does."""

    first: Script
    then: Script

    def reply(self, request: ModelRequest, rng: random.Random) -> ModelResponse:
        if own_step(request) == 1:
            return self.first.reply(request, rng)
        return self.then.reply(rebased(request, 1), rng)


@dataclass(frozen=True, kw_only=True)
class Shared:
    """Follows ``script`` by the run's steps, whichever agent makes them: agents that share one
    conversation, as a swarm's do, each take the turn the conversation is at, where a script
    of their own would start each agent again from its first move."""

    script: Script

    def reply(self, request: ModelRequest, rng: random.Random) -> ModelResponse:
        return self.script.reply(dataclasses.replace(request, agent_step=request.step), rng)


@dataclass(frozen=True, kw_only=True)
class Cycle:
    """Goes round ``calls`` for ever: re-checking what is already known, and calling it progress."""

    calls: Sequence[Call]

    def reply(self, request: ModelRequest, rng: random.Random) -> ModelResponse:
        return single_call(self.calls[(own_step(request) - 1) % len(self.calls)], request)


@dataclass(frozen=True, kw_only=True)
class TodoSpawn:
    """Wraps each conclusion as a fresh to-do list and starts on its first item: every step
    writes new artifacts, and no completion criterion ever moves."""

    call: Call
    field: str
    """The list argument that receives the new to-do items."""

    def reply(self, request: ModelRequest, rng: random.Random) -> ModelResponse:
        items = todo_items(own_step(request))
        return single_call(self.call, request, {**self.call.arguments, self.field: items})


TODO_TOPICS = ("re-verify the findings", "draft next actions", "review open questions")
"""What a to-do spawning model writes: plausible, endless, and never the deliverable."""


def todo_items(step: int) -> list[str]:
    """The to-do list a `TodoSpawn` model writes at its ``step``-th step (a twin that writes
    the same list once, then works, writes this one)."""
    return [f"follow-up {step}.{i}: {topic}" for i, topic in enumerate(TODO_TOPICS, 1)]


@dataclass(frozen=True, kw_only=True)
class GiveUp:
    """Follows ``before`` for ``after`` steps, then calls ``give_up(reason)`` — every step after."""

    after: int
    reason: str
    before: Script

    def reply(self, request: ModelRequest, rng: random.Random) -> ModelResponse:
        if own_step(request) <= self.after:
            return self.before.reply(request, rng)
        call = Call(name=GIVE_UP_TOOL, arguments={"reason": self.reason}, text="I cannot do this")
        return single_call(call, request)


class Moment:
    """When something first held for each agent of a run, in the agent's own steps: each agent
    reads its own conversation, sees the results of its own calls and counts its own steps, so a
    script that moves on at a moment moves on for that agent alone."""

    def __init__(self) -> None:
        self._before: dict[str, int] = {}
        """Each agent's own step before the one at which it first held."""

    def since(
        self, request: ModelRequest, holds: Callable[[ModelRequest], bool]
    ) -> ModelRequest | None:
        """``request`` as the phase after the moment sees it (its steps counted from there,
        `rebased`), once ``holds`` has held for its agent, now or at an earlier step; ``None``
        before."""
        if request.agent not in self._before and holds(request):
            self._before[request.agent] = own_step(request) - 1
        before = self._before.get(request.agent)
        return None if before is None else rebased(request, before)

    def has_held(self) -> bool:
        """Whether it has held for any agent of the run yet: what a tool the agents share
        follows (`unsolvable.fake_tools.staged_tool`)."""
        return bool(self._before)


class Until:
    """Repeats ``call`` until a tool result contains ``marker``, then follows ``then``.

    Stateful (it remembers when each agent saw the marker, `Moment`), so one instance serves one
    run — scenarios build a fresh script per run.
    """

    def __init__(self, *, call: Call, marker: str, then: Script) -> None:
        self.call, self.marker, self.then = call, marker, then
        self._seen = Moment()

    def reply(self, request: ModelRequest, rng: random.Random) -> ModelResponse:
        later = self._seen.since(request, self._sees_marker)
        if later is None:
            return single_call(self.call, request)
        return self.then.reply(later, rng)

    def _sees_marker(self, request: ModelRequest) -> bool:
        return any(self.marker in result for result in request.results)


@dataclass(frozen=True, kw_only=True)
class FanOut:
    """A supervisor that hands every subtask to a worker, step after step; workers follow
    ``worker``. The supervisor is the ``main`` agent; any other agent name is a worker.

    The delegation contract: the agent under test runs ``delegate`` itself — each call starts a
    worker of its own runtime, whose model calls pass ``agent="worker-N"`` (any name but
    ``main``) and whose conversation names its subtask; a worker's script counts the steps of
    its own conversation (`in_its_conversation`). A worker whose conversation names one of
    ``per_subtask`` follows that script instead (the longest name found wins, so ``S-1`` is not
    taken for ``S-10``). The supervisor first makes the ``before`` calls, one a step; after
    ``rounds`` rounds of delegation (``None``: for ever) it follows ``then``.
    """

    delegate: Call
    field: str
    """The argument of ``delegate`` that names the subtask."""
    subtasks: Sequence[str]
    worker: Script
    # ``dataclasses.field``: this class's own ``field`` names the subtask argument
    per_subtask: Mapping[str, Script] = dataclasses.field(default_factory=dict)
    before: Sequence[Call] = ()
    rounds: int | None = None
    then: Script = dataclasses.field(default_factory=Claim)

    def reply(self, request: ModelRequest, rng: random.Random) -> ModelResponse:
        if request.agent != "main":
            return self._worker(request).reply(in_its_conversation(request), rng)
        step = own_step(request)
        if step <= len(self.before):
            return single_call(self.before[step - 1], request)
        delegations = step - len(self.before)
        if self.rounds is not None and delegations > self.rounds:
            return self.then.reply(rebased(request, len(self.before) + self.rounds), rng)
        calls = tuple(
            ToolCall(
                id=f"call_{request.step}_{i}",
                name=self.delegate.name,
                arguments={**self.delegate.arguments, self.field: subtask},
            )
            for i, subtask in enumerate(self.subtasks)
        )
        return ModelResponse(content=say(self.delegate, request), tool_calls=calls)

    def _worker(self, request: ModelRequest) -> Script:
        """The script of the worker whose conversation names its subtask."""
        if not self.per_subtask:
            return self.worker
        named = named_subtask(request.messages, self.per_subtask)
        return self.worker if named is None else self.per_subtask[named]
