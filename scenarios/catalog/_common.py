"""Consumes a family's world, tools and script, produces scenarios and the `Setup` of one run.

Every built-in scenario offers `CHECK`, the tool that re-reads the system of record, so that an
agent *can* verify a completion claim instead of trusting the model's word.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from unsolvable import (
    CHECK_TOOL,
    DELEGATE_TOOL,
    GIVE_UP_TOOL,
    Budget,
    Call,
    Code,
    Scenario,
    Script,
    ScriptedModel,
    Setup,
    Shared,
    Stagnation,
    Steps,
    ToolSpec,
)
from unsolvable.fake_tools import (
    FakeWorld,
    Tool,
    ToolRouter,
    check_tool,
    constant_tool,
    pages_tool,
)
from unsolvable.scenarios.catalog._dialect import dialect, speak, without_volatile_ids

__all__ = [
    "ABANDONED",
    "CHECK",
    "DELEGATE",
    "GIVE_UP",
    "LEADS",
    "background",
    "budget",
    "by_seed",
    "give_up_tool",
    "lead",
    "plain",
    "scenario",
    "setup",
    "stuck_setup",
    "with_plain",
]

CHECK = ToolSpec(
    name=CHECK_TOOL,
    description="Re-read the system of record: is the task complete, and what still fails?",
)
GIVE_UP = ToolSpec(
    name=GIVE_UP_TOOL,
    description="Declare that the task cannot be done, and why.",
    parameters={
        "type": "object",
        "properties": {"reason": {"type": "string"}},
        "required": ["reason"],
    },
)
DELEGATE = ToolSpec(
    name=DELEGATE_TOOL,
    description="Hand a subtask to a worker agent, which runs it and reports back.",
    parameters={
        "type": "object",
        "properties": {"subtask": {"type": "string"}},
        "required": ["subtask"],
    },
)
ABANDONED = frozenset({Code.NO_PROGRESS, Code.BLOCKED_INPUT, Code.NEEDS_HUMAN, Code.ERROR_FATAL})
"""Every abandoned code: for scenarios where the reason matters more than the code."""

GROUND_TRUTH = {
    Stagnation.NOVELTY: "the step after the last one that produced a new world state or a new "
    "observation (request ids, case and spacing ignored; a write counted by what the world's "
    "checks say of it, not by the words written; the agent's own input said back is no news)",
    Stagnation.FIRST_REFUSAL: "the step of the first refused call the model asked for, or the "
    "step after a subtask that other workers finished later",
    Stagnation.CRITERIA: "the step after the last one that changed which completion criteria "
    "fail; new artifacts that move no criterion are no progress",
    Stagnation.BUDGET_SPENT: "the step during which a budget ran out — steps (the run's or a "
    "role's own, or the step after a subtask other workers finished later), tokens, total or "
    "idle time on the session clock, external calls — or the last step the dollar budget could "
    "cover (projected at the last step's spend for a run that stopped short of it); every step "
    "after that is waste",
}

SOLVABLE_TRUTH = (
    "none — the task is solvable, so no step is stagnant and no lag is counted; any exit but "
    "complete is a false stop, and completion is re-read in the world"
)

LEADS = (0, 1, 2)
"""Steps of background reading before an unsolvable scenario's model gets stuck, by seed."""
BACKGROUND = ToolSpec(
    name="read_background",
    description="Read one page of background on the task.",
    parameters={"type": "object", "properties": {"page": {"type": "integer"}}},
)

TOKENS_PER_STEP = 2_000
"""Token allowance per allowed step: a run of that many steps fits with room to spare, so steps,
not tokens, bind first (except where a scenario is about tokens)."""


def budget(steps: int, *, tokens: int | None = None) -> Budget:
    """The budgets of the built-in scenarios."""
    return Budget(
        max_steps=steps, max_tokens=tokens or steps * TOKENS_PER_STEP, max_wall_seconds=5.0
    )


def give_up_tool() -> Tool:
    return constant_tool(GIVE_UP, {"acknowledged": True})


def setup(
    world: FakeWorld,
    tools: Sequence[Tool],
    script: Script,
    *,
    seed: int,
    check: Tool | None = None,
    lead: int = 0,
) -> Setup:
    """World, tools (with `CHECK` added, or ``check`` in its place) and the scripted model for
    one run, in the seed's `dialect` (tool names, field names, nesting of results); ``lead`` is
    the steps of real work before the model gets stuck (`Setup.lead`)."""
    offered = [*tools, check or check_tool(CHECK)]
    spoken, script = speak(dialect(seed), offered, script)
    renamed = {
        old.spec.name: new.spec.name
        for old, new in zip(offered, spoken, strict=True)
        if old.spec.name != new.spec.name
    }
    router = ToolRouter(world, spoken)
    model = ScriptedModel(script, seed=seed)
    refusing = frozenset(tool.spec.name for tool in spoken if tool.refuses_every_call)
    return Setup(
        world=world,
        toolbox=router,
        model=model,
        tool_names=renamed,
        lead=lead,
        refusing=refusing,
    )


def by_seed(choices: Sequence[int], seed: int) -> int:
    """The seed's pick from ``choices``: seeds vary structure (when the model gets stuck, how long
    a warm-up lasts), not only identifiers, so a stop logic tuned to one step fails another."""
    return choices[seed % len(choices)]


def lead(seed: int) -> int:
    """Steps of background reading a seed's run makes before the model gets stuck (or, in a
    twin, before it moves on): where a twin's divergence step is counted from."""
    return by_seed(LEADS, seed)


def background(seed: int) -> tuple[list[Call], list[Tool]]:
    """The calls that read `LEADS` (by seed) pages of background — new, real reading — and the
    tool they need (none for a seed with no lead), which holds those pages and no more: reading
    on past them, or again, is no progress an agent could add to move its first stagnant
    step."""
    pages = lead(seed)
    calls = [
        Call(name=BACKGROUND.name, arguments={"page": page}, text="Reading the background")
        for page in range(1, pages + 1)
    ]
    book = pages_tool(BACKGROUND, key="background_read", lines_per_page=2, pages=pages)
    tools = [book] if pages else []
    return calls, tools


def stuck_setup(
    world: FakeWorld, tools: Sequence[Tool], script: Script, *, seed: int, shared: bool = False
) -> Setup:
    """`setup`, the model first reading `background` before it follows ``script`` and gets
    stuck: the first stagnant step moves, and N with it. ``shared``: every agent speaks in one
    conversation, the reading included (`Shared`)."""
    reads, reading = background(seed)
    if reads:
        tools, script = [*tools, *reading], Steps(calls=reads, then=script)
    if shared:
        script = Shared(script=script)
    return setup(world, tools, script, seed=seed, lead=len(reads))


def scenario(
    *,
    family: str,
    variant: str,
    task: str,
    how: str,
    why: str,
    build: Callable[[int], Setup],
    expected: frozenset[Code] | set[Code],
    step_bound: int,
    lead: bool = False,
    **fields: Any,
) -> Scenario:
    """A built-in scenario whose explanation says what the model does, why the task cannot be
    done, and which ground truth the lag is measured against; ``lead`` says its build uses
    `stuck_setup`: N counts from the end of the seed's background reading (`Setup.lead`)."""
    stagnation = fields.get("stagnation", Stagnation.NOVELTY)
    truth = SOLVABLE_TRUTH if fields.get("solvable") else GROUND_TRUTH[stagnation]
    fields.setdefault("budget", budget(step_bound))
    if lead:  # built by `stuck_setup`: N counts from the end of the lead
        how += f", after {'/'.join(map(str, LEADS))} pages of background reading (by seed)"
    fields.setdefault("seeds", (0, 1, 2))
    return Scenario(
        name=f"{family}/{variant}",
        family=family,
        task=task,
        explanation=f"The model {how}. {why} Ground truth: {truth}.",
        build=build,
        expected=frozenset(expected),
        step_bound=step_bound,
        **fields,
    )


PLAIN = "plain"
"""The variant of each unsolvable family with no volatile id in its results."""


def plain(sibling: Scenario) -> Scenario:
    """``sibling`` with no ``request_id`` in what the agent sees: the bottom of the family's
    graded hostility, which an honest detector comparing raw results catches; the sibling's
    volatile ids (and the family's perturbations and restyling) are the hostile steps above."""
    return dataclasses.replace(
        sibling,
        name=f"{sibling.family}/{PLAIN}",
        explanation=f"{sibling.explanation} Plain: as {sibling.name}, but no result carries a "
        "volatile id, so exact repeats look exact to a detector that compares raw results.",
        build=partial(_plain_build, sibling.build),
    )


def with_plain(scenarios: Sequence[Scenario], variant: str) -> tuple[Scenario, ...]:
    """``scenarios`` with the `plain` variant of ``variant`` just before it: graded hostility,
    from exact repeats up."""
    at = next(i for i, s in enumerate(scenarios) if s.name.endswith(f"/{variant}"))
    return (*scenarios[:at], plain(scenarios[at]), *scenarios[at:])


def _plain_build(build: Callable[[int], Setup], seed: int) -> Setup:
    return without_volatile_ids(build(seed))
