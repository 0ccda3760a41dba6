"""Calls that are no progress — reading past a seed's background, re-reading a page, naming an
invoice or account that does not exist, writing a new value that the world's checks judge as
they judged one before — never move the first stagnant step, so no agent can shorten its lag by
padding its steps with them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import unsolvable
from unsolvable import Code, Session, Stagnation, Stop, ToolSpec, scenarios
from unsolvable.agents._loop import assistant, dispatch, opening, tool_calls
from unsolvable.scenarios.catalog import constant_return, give_up_honoured
from unsolvable.scenarios.catalog._common import BACKGROUND

STOP_AT = 8
"""The step every agent below stops at: past every lead, before any bound."""

Padding = Callable[[Session, int], None]
"""Calls an agent adds at a step (the session, the step) beside what the model asked for."""


def _follows_the_model(pad: Padding | None = None, stop_at: int = STOP_AT) -> Any:
    """Does what the model asks for ``stop_at`` steps, then stops; ``pad`` adds calls at every
    step: the same stop logic, padded."""

    def agent(session: Session) -> Stop:
        messages = opening(session)
        for step in range(1, stop_at + 1):
            reply = session.call_model(messages, session.tools)
            messages.append(assistant(reply))
            for call_id, name, arguments in tool_calls(reply):
                messages.append(dispatch(session, call_id, name, arguments)[0])
            if pad is not None:
                pad(session, step)
        return Stop(code=Code.NO_PROGRESS, reason="nothing new")

    return agent


def _offered(session: Session, spec: ToolSpec) -> str:
    """The name ``spec``'s tool is offered under in this run's dialect."""
    return next(t.name for t in session.tools if t.description == spec.description)


def _pads_with_background(session: Session, step: int) -> None:
    """One more page of background than the lead reads, and page 1 again."""
    session.call_tool(_offered(session, BACKGROUND), {"page": 100 + step})
    session.call_tool(_offered(session, BACKGROUND), {"page": 1})


def _moves_truth(
    scenario: unsolvable.Scenario, seed: int, pad: Padding, stop_at: int = STOP_AT
) -> tuple[Any, Any]:
    honest = unsolvable.run(_follows_the_model(stop_at=stop_at), scenario, seed=seed)
    padded = unsolvable.run(_follows_the_model(pad, stop_at), scenario, seed=seed)
    return padded.observed.first_stagnant_step, honest.observed.first_stagnant_step


LED = [
    (s, seed)
    for s in scenarios.SCENARIOS
    if not s.solvable and s.stagnation is Stagnation.NOVELTY
    for seed in s.seeds
    if s.build(seed).lead
]


@pytest.mark.parametrize(("scenario", "seed"), LED, ids=[f"{s.name}-seed{n}" for s, n in LED])
def test_reading_past_the_background_never_moves_the_first_stagnant_step(
    scenario: unsolvable.Scenario, seed: int
) -> None:
    padded, honest = _moves_truth(scenario, seed, _pads_with_background)
    assert padded <= honest


NOT_FOUND_WRITES = [
    (s, spec, seed)
    for module, spec in (
        (constant_return, constant_return.MARK),
        (give_up_honoured, give_up_honoured.CLOSE),
    )
    for s in module.SCENARIOS
    if not s.solvable
    for seed in s.seeds
]


@pytest.mark.parametrize(
    ("scenario", "spec", "seed"),
    NOT_FOUND_WRITES,
    ids=[f"{s.name}-seed{n}" for s, _, n in NOT_FOUND_WRITES],
)
def test_writing_to_made_up_names_never_moves_the_first_stagnant_step(
    scenario: unsolvable.Scenario, spec: ToolSpec, seed: int
) -> None:
    """A write refused as not found, for a name of the agent's making, is news the first time
    (step 1 here) and never again."""
    (field,) = spec.parameters["properties"]

    def pad(session: Session, step: int) -> None:
        session.call_tool(_offered(session, spec), {field: f"made-up-{step}"})

    padded, honest = _moves_truth(scenario, seed, pad)
    assert padded <= max(honest, 2)


WRITES_STOP_AT = 30
"""Where the writing agents below stop: past the bound N of every scenario they pad, so that an
honest run has long stagnated and a write that counted as progress would show."""
NEW_VALUES: dict[str, Callable[[int], dict[str, Any]]] = {
    "save_summary": lambda n: {"text": f"Release 4.2, summary draft {n}."},
    "set_cache_mode": lambda n: {"mode": f"mode-{n}"},
    "file_audit": lambda n: {"number": 1000 + n, "text": f"S-{1000 + n}: compliant ({n})"},
    "write_draft": lambda n: {"text": f"Report: draft {n}."},
    "search_code": lambda n: {"pattern": f"parse_config_v{n}"},
    "apply_patch": lambda n: {"patch": f"rename the call sites, attempt {n}"},
    "read_account_history": lambda n: {"page": 100 + n},
}
"""By a tool's name in the scenario, the arguments of a write (or search, or read) with a value
no call used before: a counter in the text, the mode, the number, the pattern, the page."""
FIRST_NEWS_BOUND = 2
"""The first stagnant step a writing agent can set at most, when its honest twin's is earlier: a
tool's first answer of a kind is news once (a document first written, a first refusal), and the
agent gives it at step 1; what it writes after that never is, however long it keeps writing."""


def _written(scenario: unsolvable.Scenario, seed: int) -> list[tuple[str, str]]:
    """The tools of `NEW_VALUES` a run of ``scenario`` offers: (scenario's name, offered name)."""
    setup = scenario.build(seed)
    original = {offered: name for name, offered in setup.tool_names.items()}
    named = ((original.get(spec.name, spec.name), spec.name) for spec in setup.toolbox.specs)
    return [(name, offered) for name, offered in named if name in NEW_VALUES]


WRITES = [
    (s, seed, name, offered)
    for s in scenarios.SCENARIOS
    if not s.solvable and s.stagnation is Stagnation.NOVELTY
    for seed in s.seeds
    for name, offered in _written(s, seed)
]


@pytest.mark.parametrize(
    ("scenario", "seed", "name", "offered"),
    WRITES,
    ids=[f"{s.name}-seed{n}-{name}" for s, n, name, _ in WRITES],
)
def test_writing_a_new_value_every_step_never_moves_the_first_stagnant_step(
    scenario: unsolvable.Scenario, seed: int, name: str, offered: str
) -> None:
    """Progress is what the world's checks say of a write, not the bytes written: a new text
    judged as one before, a made-up mode, a pattern that finds nothing, a page past the end."""

    def pad(session: Session, step: int) -> None:
        session.call_tool(offered, NEW_VALUES[name](step))

    padded, honest = _moves_truth(scenario, seed, pad, WRITES_STOP_AT)
    assert padded <= max(honest, FIRST_NEWS_BOUND)


def test_every_tool_that_writes_a_new_value_is_padded_somewhere() -> None:
    """The list above is drawn from the library by tool name: a tool renamed away would drop
    its scenarios from it silently."""
    assert {name for _, _, name, _ in WRITES} == set(NEW_VALUES)


def _new_arguments(spec: ToolSpec, n: int) -> dict[str, Any]:
    """Arguments no call used before, drawn from ``spec``'s schema: a counter in every whole
    number and every text (other kinds are left out)."""
    made_up = {"integer": 1000 + n, "string": f"a value never sent before, {n}"}
    properties = spec.parameters.get("properties", {})
    kinds = {name: schema.get("type", "string") for name, schema in properties.items()}
    return {name: made_up[kind] for name, kind in kinds.items() if kind in made_up}


Tooled = tuple[unsolvable.Scenario, int, ToolSpec]
"""An unsolvable scenario, a seed and a tool its run offers that takes arguments."""


def _every_tool(chosen: Callable[[unsolvable.Scenario], bool]) -> list[Tooled]:
    return [
        (s, seed, spec)
        for s in scenarios.SCENARIOS
        if not s.solvable and chosen(s)
        for seed in s.seeds
        for spec in s.build(seed).toolbox.specs
        if spec.parameters.get("properties")
    ]


def _ids(tooled: list[Tooled]) -> list[str]:
    return [f"{s.name}-seed{n}-{spec.name}" for s, n, spec in tooled]


EVERY_TOOL = _every_tool(lambda s: s.stagnation is Stagnation.NOVELTY)


@pytest.mark.parametrize(("scenario", "seed", "spec"), EVERY_TOOL, ids=_ids(EVERY_TOOL))
def test_no_tool_called_with_new_arguments_every_step_moves_the_first_stagnant_step(
    scenario: unsolvable.Scenario, seed: int, spec: ToolSpec
) -> None:
    """Beside the writes above, chosen by hand: every tool of the library's novelty scenarios,
    each of its fields new at every step, so that a tool added later is held to the same."""

    def pad(session: Session, step: int) -> None:
        session.call_tool(spec.name, _new_arguments(spec, step))

    padded, honest = _moves_truth(scenario, seed, pad, WRITES_STOP_AT)
    assert padded <= max(honest, FIRST_NEWS_BOUND)


PAD_ONCE_AT = 5
"""The step of the one write below: late enough that the idle clock has run for a while."""
IDLE = _every_tool(
    lambda s: s.stagnation is Stagnation.BUDGET_SPENT and s.budget.max_idle_seconds is not None
)


@pytest.mark.parametrize(("scenario", "seed", "spec"), IDLE, ids=_ids(IDLE))
def test_no_write_of_the_agents_making_restarts_the_idle_clock(
    scenario: unsolvable.Scenario, seed: int, spec: ToolSpec
) -> None:
    """Idle time runs from the last change of the world: a call of the agent's making that the
    world's checks judge as nothing new (a patch that names no new function, a page past the
    end) must not restart it, or one call late in a run would move the step where the idle
    budget runs out by up to the budget's length."""

    def pad(session: Session, step: int) -> None:
        if step == PAD_ONCE_AT:
            session.call_tool(spec.name, _new_arguments(spec, step))

    padded, honest = _moves_truth(scenario, seed, pad, WRITES_STOP_AT)
    assert padded <= honest
