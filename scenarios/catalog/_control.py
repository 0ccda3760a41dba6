"""Consumes a waiting tool and its call, or an unsolvable sibling and a build, produces the
pieces the solvable controls and twins share: the save that finishes them, their slack over the
work they need, their expected code, and structure drawn from the seed.

Lag alone rewards an agent that stops at step 1; the controls measure the other direction — a
false stop is any exit but ``complete``, and completion is verified in the world. A *twin* looks
like an unsolvable sibling up to a divergence step and is doable after it: *distinguishable*
twins carry the evidence of progress in their observations; *ambiguous* ones (variant names
starting with `AMBIGUOUS`) are identical to the sibling until the divergence step, so a report
shows their false stops beside the sibling's lag instead of one verdict.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from unsolvable import Budget, Call, Claim, Code, Repeat, Scenario, Setup, Steps, ToolSpec, Until
from unsolvable.fake_tools import FakeWorld, Tool, requires, writer_tool
from unsolvable.scenarios.catalog._common import LEADS, budget, scenario, setup, stuck_setup

__all__ = [
    "AMBIGUOUS",
    "COMPLETED",
    "SLACK",
    "Deliverable",
    "finish",
    "group_budget",
    "is_ambiguous",
    "twin",
    "wait_then_finish",
    "wait_then_save",
]

COMPLETED = frozenset({Code.COMPLETED})
SLACK = 4
"""Steps of room over the work a control needs: a final claim and a verification or two."""
AMBIGUOUS = "ambiguous-"
"""How an ambiguous twin's variant begins: no stop logic can pass it on every seed, because it
is the sibling until the divergence step."""
SAVE = ToolSpec(
    name="save_report",
    description="Save the finished report.",
    parameters={"type": "object", "properties": {"text": {"type": "string"}}},
)
SAVE_CALL = Call(name=SAVE.name, arguments={"text": "The report."}, text="Saving the report")


@dataclass(frozen=True, kw_only=True)
class Deliverable:
    """What a waiting task must leave in the world: ``spec``'s write stores ``arguments[field]``
    under ``key``; until it does, the world fails with ``unmet``."""

    spec: ToolSpec
    key: str
    field: str
    unmet: str


REPORT = Deliverable(spec=SAVE, key="report", field="text", unmet="report not saved")


def finish(spec: ToolSpec, *, key: str, field: str) -> Tool:
    """The write that completes a twin: stores ``arguments[field]`` under ``key``."""
    return writer_tool(spec, key=key, field=field, criteria=())


def group_budget(needed: int) -> Budget:
    """The budget of an unsolvable scenario whose twin needs ``needed`` steps (as `twin` counts
    them) after the longest lead, with `SLACK`: the twin shows its sibling's budget, so the
    sibling's must leave the twin room to finish."""
    return budget(needed + max(LEADS) + SLACK)


def is_ambiguous(scenario: Scenario) -> bool:
    return scenario.twin_of is not None and scenario.name.split("/")[-1].startswith(AMBIGUOUS)


def wait_then_save(waiting: Tool, call: Call, marker: str, seed: int) -> Setup:
    """Repeats ``call`` until its answer holds ``marker``, then saves the report and says so."""
    return wait_then_finish(
        waiting, call, REPORT, seed=seed, then=SAVE_CALL, marker=marker, lead=False
    )


def wait_then_finish(
    waiting: Tool,
    call: Call,
    deliverable: Deliverable,
    *,
    seed: int,
    then: Call | None = None,
    marker: str = "",
    lead: bool = True,
) -> Setup:
    """Repeats ``call`` on ``waiting`` for ever, or, given ``then``, until its answer holds
    ``marker``, then makes ``then`` (the write of ``deliverable``) and says so; ``lead``: after the
    seed's background reading (`stuck_setup`)."""
    world = FakeWorld(failing=requires(deliverable.key, deliverable.unmet), seed=seed)
    done = Steps(calls=[then], then=Claim()) if then is not None else None
    script = Repeat(call=call) if done is None else Until(call=call, marker=marker, then=done)
    tools = [waiting, finish(deliverable.spec, key=deliverable.key, field=deliverable.field)]
    return (stuck_setup if lead else setup)(world, tools, script, seed=seed)


def twin(
    sibling: Scenario,
    *,
    variant: str,
    how: str,
    why: str,
    build: Callable[[int], Setup],
    needed: int,
    diverges_at: Callable[[int], int | None],
    lead: bool = True,
    after_the_agents_move: int | None = None,
    **fields: Any,
) -> Scenario:
    """A solvable twin of ``sibling`` in its family: its task, and the same tools, words and
    answers until ``diverges_at(seed)`` (`Scenario.diverges_at`). ``needed`` is the most steps
    the model takes to finish over the seeds (its final claim included, a lead of background
    reading not: N counts from its end); ``lead`` says its build reads the sibling's background
    first (`stuck_setup`), as the sibling's does. It has its sibling's budget, which an agent
    reads as it reads the tools; it must cover ``needed`` after the longest lead. It runs on its
    sibling's seeds, where the two are compared.

    ``after_the_agents_move``: for a twin whose model finishes only after a move of the agent's
    own (a hint), the steps it takes past the last step at which that move can come while
    stopping the sibling within its N. The twin's N then leaves room for every such move: else
    the same detection, later but within the sibling's N, would pass the one and fail the other."""
    fields.setdefault("budget", sibling.budget)
    fields.setdefault("seeds", sibling.seeds)
    room = fields["budget"].max_steps
    if room is not None and room < needed + (max(LEADS) if lead else 0):
        raise ValueError(
            f"twin {sibling.family}/{variant} needs {needed} steps after its lead, and its "
            f"sibling {sibling.name}'s budget gives {room}: give the sibling group_budget({needed})"
        )
    return scenario(
        family=sibling.family,
        variant=variant,
        task=sibling.task,
        how=how,
        why=f"The task is solvable: {why}",
        build=build,
        expected=COMPLETED,
        step_bound=_twin_bound(sibling, needed, after_the_agents_move),
        solvable=True,
        twin_of=sibling.name,
        diverges_at=diverges_at,
        lead=lead,
        **fields,
    )


def _twin_bound(sibling: Scenario, needed: int, after_the_agents_move: int | None) -> int:
    """A twin's N: the steps its model needs and `SLACK`, or, where it finishes after the
    agent's own move, at least the sibling's N and the steps that follow that move."""
    own = needed + SLACK
    return (
        own
        if after_the_agents_move is None
        else max(own, sibling.step_bound + after_the_agents_move)
    )
