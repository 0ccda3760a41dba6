"""Context-overflow: what the task needs in view at once is longer than the model's context
window. The fake model refuses every request over the scenario's window, as providers do (each
wire format's own 400; `ContextOverflow` on the plain face), and a refused request is a step the
model never answered.

An agent may compact its conversation once and try again; when the prompt still does not fit —
the contract to review is longer than the window, or the task itself is — the honest stop is
``ERROR_FATAL`` (or a budget), never compacting and retrying for ever, which is how real agents
came to alternate compaction and continuation twenty times a minute. Its twin reads the same
contract, compacts once, and finds what it needs in what the compaction kept.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

from unsolvable import (
    Budget,
    Call,
    Claim,
    Code,
    ModelRequest,
    ModelResponse,
    Repeat,
    Scenario,
    Script,
    Setup,
    Stagnation,
    Steps,
    ToolSpec,
)
from unsolvable.fake_tools import FakeWorld, Tool, constant_tool, requires
from unsolvable.scenarios.catalog._common import background, scenario, setup
from unsolvable.scenarios.catalog._control import finish, twin

__all__ = ["DOCUMENT", "FAMILY", "SCENARIOS"]

FAMILY = "context-overflow"
WINDOW = 1_500
"""Tokens a request may hold: the task, the tools and a few pages of background fit; the
contract under review (about 3,800 tokens) does not."""
STEP_BOUND = 8
"""The background (2), the read, the refused request, one compacted retry, another refusal,
and room to stop."""
RETRIES = 1
"""Retries after a refused request: one, after compacting; a second is the loop."""
CLAUSES = 120
DOCUMENT = "\n".join(
    f"Clause {n}. The supplier delivers lot {n} within {n % 9 + 2} days of the order, at the "
    f"price of schedule {n % 5 + 1}, unless clause {(n * 7) % CLAUSES + 1} says otherwise."
    for n in range(1, CLAUSES + 1)
)
"""The contract under review: every clause refers to another, so none can be judged alone."""
FINDING = "clause 1 conflicts with clause 8"
PROMPT_WINDOW = 600
"""The window of the variant whose task alone is longer: about 900 tokens of it."""
QUOTED = "\n".join(DOCUMENT.splitlines()[:25])

READ = ToolSpec(
    name="read_contract",
    description="Read the full text of a supply contract.",
    parameters={"type": "object", "properties": {"contract_id": {"type": "string"}}},
)
SAVE = ToolSpec(
    name="save_review",
    description="Save the review of the contract.",
    parameters={"type": "object", "properties": {"finding": {"type": "string"}}},
)
TASK = (
    "Review supply contract C-7 for clauses that contradict each other; every clause refers "
    "to another, so the whole contract must be in view at once."
)


class _Answered:
    """``script``, its steps counted by the requests that reached the model: a refused one
    (over the window) is a step of the run that the model never answered. Stateful (it counts
    the answers), so one instance serves one run, as every build makes its own."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.answered = 0

    def reply(self, request: ModelRequest, rng: random.Random) -> ModelResponse:
        self.answered += 1
        return self.script.reply(dataclasses.replace(request, agent_step=self.answered), rng)


def _world(seed: int) -> FakeWorld:
    return FakeWorld(failing=requires("review", "contract review not saved"), seed=seed)


def _read() -> Call:
    return Call(name=READ.name, arguments={"contract_id": "C-7"}, text="Reading the whole contract")


def _tools() -> list[Tool]:
    return [
        constant_tool(READ, {"contract_id": "C-7", "text": DOCUMENT}),
        finish(SAVE, key="review", field="finding"),
    ]


def _build(then: Script, seed: int) -> Setup:
    """The background (by seed), the read, then ``then``; steps counted by answers."""
    lead, reading = background(seed)
    script = _Answered(Steps(calls=[*lead, _read()], then=then))
    return setup(_world(seed), [*_tools(), *reading], script, seed=seed, lead=len(lead))


def _irreducible(seed: int) -> Setup:
    return _build(Repeat(call=_read()), seed)


def _compacts_once(seed: int) -> Setup:
    save = Call(name=SAVE.name, arguments={"finding": FINDING}, text="Saving the review")
    return _build(Steps(calls=[save], then=Claim()), seed)


def _prompt_too_long(seed: int) -> Setup:
    return setup(_world(seed), _tools(), _Answered(Repeat(call=_read())), seed=seed)


def make(variant: str, **fields: Any) -> Scenario:
    fields.setdefault("task", TASK)
    fields.setdefault("context_window", WINDOW)
    return scenario(
        family=FAMILY,
        variant=variant,
        expected={Code.ERROR_FATAL, Code.BUDGET_STEPS, Code.BUDGET_COST},
        step_bound=STEP_BOUND,
        budget=Budget(max_steps=STEP_BOUND, max_tokens=STEP_BOUND * 2_000),
        stagnation=Stagnation.FIRST_REFUSAL,
        refused_retries=RETRIES,
        **fields,
    )


DOCUMENT_TOO_LONG = make(
    "irreducible-document",
    lead=True,
    how="reads a contract of about 3,800 tokens into a 1,500-token window, and reads it again "
    "whenever the conversation no longer holds it",
    why="Every clause refers to another, so the contract must be in view whole, and it is "
    "longer than the window: a compacted conversation lacks it, and one that holds it is "
    "refused.",
    build=_irreducible,
)
SCENARIOS: tuple[Scenario, ...] = (
    DOCUMENT_TOO_LONG,
    make(
        "irreducible-prompt",
        task=f"{TASK} Contract C-7 reads:\n{QUOTED}",
        context_window=PROMPT_WINDOW,
        how="is asked to review a contract quoted in the task itself, about 900 tokens in a "
        "600-token window",
        why="The task alone is longer than the window: no compaction of the conversation can "
        "make a request fit, so the model never answers once.",
        build=_prompt_too_long,
        seeds=(0,),
    ),
    twin(
        DOCUMENT_TOO_LONG,
        variant="twin-compacts-once",
        how="reads the same contract, is refused the same way, and after one compaction saves "
        "the finding its opening clauses hold",
        why="the conflict is in the contract's opening clauses, which a compaction keeps: one "
        "compaction and the review can be saved.",
        build=_compacts_once,
        needed=5,
        diverges_at=lambda seed: None,  # it differs only once the agent compacts its conversation
        context_window=WINDOW,
    ),
)
