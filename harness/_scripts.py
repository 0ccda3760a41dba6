"""Consumes a model request, produces the scripted model's next move: the ways agents get stuck.

Every script is a policy, not a list: it answers call 5,000 the way it answered call 5, so a stuck
agent meets the same stuck model however long it runs. Randomness comes only from the run's seeded
generator, so the same seed gives the same moves.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from harness._types import JSON, ModelRequest, ModelResponse, ToolCall

__all__ = [
    "FINAL_ANSWER_CLAIM",
    "PERTURBATIONS",
    "Alternate",
    "Call",
    "ClaimSuccess",
    "Perturbed",
    "Repeat",
    "Script",
    "restyle",
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
class Call:
    """A tool call template; ``text`` is the thought the model writes beside it."""

    name: str
    arguments: JSON = field(default_factory=dict)
    text: str = ""


def _tool_call(call: Call, request: ModelRequest, arguments: JSON | None = None) -> ToolCall:
    return ToolCall(
        id=f"call_{request.step}_0",
        name=call.name,
        arguments=dict(call.arguments if arguments is None else arguments),
    )


def _say(call: Call, request: ModelRequest) -> str:
    """The thought varies step by step, as real model text does, so text equality is no signal."""
    return f"{call.text} (attempt {request.step})" if call.text else f"Attempt {request.step}."


@dataclass(frozen=True, kw_only=True)
class Repeat:
    """Makes the same call, with the same arguments, every step."""

    call: Call

    def reply(self, request: ModelRequest, rng: random.Random) -> ModelResponse:
        return ModelResponse(
            content=_say(self.call, request), tool_calls=(_tool_call(self.call, request),)
        )


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

    def reply(self, request: ModelRequest, rng: random.Random) -> ModelResponse:
        arguments = dict(self.call.arguments)
        arguments.update(self._perturb(arguments, request.step - 1, rng))
        call = _tool_call(self.call, request, arguments)
        return ModelResponse(content=_say(self.call, request), tool_calls=(call,))

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
        call = self.plans[(request.step - 1) % 2]
        arguments = dict(call.arguments)
        if self.restyled:
            rounds = (request.step - 1) // 2
            arguments = {
                k: restyle(v, rounds) if isinstance(v, str) else v for k, v in arguments.items()
            }
        tool_call = _tool_call(call, request, arguments)
        return ModelResponse(content=_say(call, request), tool_calls=(tool_call,))


@dataclass(frozen=True, kw_only=True)
class ClaimSuccess:
    """Follows ``before`` for ``after`` steps, then announces success with no tool call, forever.

    Only a check of the world shows the claim is false.
    """

    after: int
    before: Script
    claim: str = "Done: the task is complete and verified."

    def reply(self, request: ModelRequest, rng: random.Random) -> ModelResponse:
        if request.step > self.after:
            return ModelResponse(content=self.claim)
        return self.before.reply(request, rng)
