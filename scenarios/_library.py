"""Consumes scenario names, produces the scenarios of the built-in library (or a clear error)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence

from unsolvable import Scenario, ScenarioError
from unsolvable.scenarios.catalog import (
    budget_edge,
    busy_idle,
    call_budget,
    constant_return,
    context_overflow,
    contradictory_criteria,
    cost_runaway,
    denial_sprawl,
    dependency_unavailable,
    dollar_budget,
    duplicate_dispatch,
    endless_wait,
    false_completion,
    false_premise,
    fan_out,
    forced_final_answer,
    give_up_honoured,
    human_gate,
    long_healthy,
    missing_permission,
    mixed_fan_out,
    nested_delegation,
    oscillation,
    per_role_budgets,
    poll_until_ready,
    reconfirm_as_progress,
    role_ping_pong,
    slow_dependency,
    task_graph,
    todo_spawn,
    tool_timeout,
)

__all__ = ["SCENARIOS", "get", "select"]

SCENARIOS: tuple[Scenario, ...] = (
    *contradictory_criteria.SCENARIOS,
    *constant_return.SCENARIOS,
    *missing_permission.SCENARIOS,
    *dependency_unavailable.SCENARIOS,
    *oscillation.SCENARIOS,
    *reconfirm_as_progress.SCENARIOS,
    *todo_spawn.SCENARIOS,
    *false_completion.SCENARIOS,
    *forced_final_answer.SCENARIOS,
    *fan_out.SCENARIOS,
    *mixed_fan_out.SCENARIOS,
    *duplicate_dispatch.SCENARIOS,
    *task_graph.SCENARIOS,
    *role_ping_pong.SCENARIOS,
    *nested_delegation.SCENARIOS,
    *budget_edge.SCENARIOS,
    *per_role_budgets.SCENARIOS,
    *cost_runaway.SCENARIOS,
    *give_up_honoured.SCENARIOS,
    *endless_wait.SCENARIOS,
    *busy_idle.SCENARIOS,
    *tool_timeout.SCENARIOS,
    *call_budget.SCENARIOS,
    *dollar_budget.SCENARIOS,
    *context_overflow.SCENARIOS,
    *denial_sprawl.SCENARIOS,
    *human_gate.SCENARIOS,
    *false_premise.SCENARIOS,
    *long_healthy.SCENARIOS,
    *poll_until_ready.SCENARIOS,
    *slow_dependency.SCENARIOS,
)
_BY_NAME = {scenario.name: scenario for scenario in SCENARIOS}
_FAMILIES = {scenario.family for scenario in SCENARIOS}


def get(name: str) -> Scenario:
    """The scenario called ``name``; an unknown name lists the closest ones."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise unknown(name, SCENARIOS, families=False) from None


def unknown(name: str, scenarios: Sequence[Scenario], *, families: bool) -> ScenarioError:
    """The error for a name that is none of ``scenarios``, with the closest ones: family names
    too where a family is accepted (``constant_return`` → ``constant-return``). Where one scenario
    is wanted, a family's name is no typo, so that error names the family's scenarios instead."""
    members = [s.name for s in scenarios if s.family == name]
    if members and not families:
        return ScenarioError(
            f"{name!r} is a family of {len(members)} scenarios, and one scenario is wanted here; "
            f"name one of them: {', '.join(members)}"
        )
    kinds = dict.fromkeys((s.name for s in scenarios), "")
    if families:
        kinds.update((s.family, " (family)") for s in scenarios)
    close = difflib.get_close_matches(name, list(kinds), n=3, cutoff=0.5)
    hint = f"did you mean {', '.join(c + kinds[c] for c in close)}? " if close else ""
    return ScenarioError(
        f"unknown scenario {name!r}; {hint}`unsolvable list` shows all {len(scenarios)}"
    )


def select(names: Iterable[str] = ()) -> tuple[Scenario, ...]:
    """Scenarios by name or by family (every scenario when ``names`` is empty), in library order."""
    names = list(names)
    if not names:
        return SCENARIOS
    chosen: dict[str, Scenario] = {}
    for name in names:
        members = [s for s in SCENARIOS if s.family == name] if name in _FAMILIES else [get(name)]
        chosen.update((s.name, s) for s in members)
    return tuple(chosen.values())
