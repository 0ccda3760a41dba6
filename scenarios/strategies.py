"""Hypothesis strategies that generate scenario variants, for users' own property tests.

Each strategy draws the parameters of a family's ``make`` — argument perturbations that defeat
naive fingerprints, paraphrased prompts, tool names, when stagnation starts, k for controls — and
names the variant after them, so any failure replays from its name and seed.

    from hypothesis import given
    from unsolvable.scenarios.strategies import unsolvable_scenarios

    @given(unsolvable_scenarios())
    def test_my_agent_stops(scenario):
        assert unsolvable.run(my_agent, scenario).verdict.passed

Stop logic also fails the other way, stopping a task that was doable. ``sibling_and_twin()`` draws
a generated variant of a family in `TWINNED` with one of its solvable twins, built from the same
drawn parameters (each twin is its sibling until its declared divergence step), and
``twin_scenarios()`` the twins alone, each named after its kind and its sibling's variant:

    @given(sibling_and_twin())
    def test_my_agent_stops_only_when_stuck(pair):
        sibling, twin = pair
        assert unsolvable.run(my_agent, sibling).verdict.passed
        assert unsolvable.run(my_agent, twin).verdict.passed

Only variants that have a sound twin are drawn there: the ranges `TWINNED` draws from, and each
family's ``twins``, say which have none and why.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

try:
    from hypothesis import strategies as st
except ImportError as error:  # an extra: its pytest plugin costs every pytest run
    raise ImportError(
        "unsolvable: unsolvable.scenarios.strategies needs hypothesis, which is not installed; "
        "pip install 'pytest-unsolvable[strategies]'"
    ) from error

from unsolvable import Scenario
from unsolvable.scenarios._drawing import MAX_SEED, Twins, seeds
from unsolvable.scenarios._multi_agent import (
    FAN_OUT_TWIN_WORKERS,
    draw_fan_out,
    duplicate_dispatch_and_twin,
    duplicate_dispatch_scenarios,
    fan_out_scenarios,
    mixed_fan_out_scenarios,
    multi_agent_scenarios,
    nested_delegation_scenarios,
    role_ping_pong_scenarios,
    task_graph_scenarios,
)
from unsolvable.scenarios._single_agent import (
    COST_RUNAWAY_TWINNED,
    FORCED_FINAL_TWINNED,
    OSCILLATION_TWIN_MODES,
    RECONFIRM_TWIN_CHECKS,
    TOOL_TIMEOUTS_TWINNED,
    constant_return_scenarios,
    cost_runaway_scenarios,
    dependency_unavailable_scenarios,
    draw_constant_return,
    draw_cost_runaway,
    draw_dependency_unavailable,
    draw_false_completion,
    draw_forced_final_answer,
    draw_give_up_honoured,
    draw_missing_permission,
    draw_oscillation,
    draw_reconfirm_as_progress,
    draw_todo_spawn,
    draw_tool_timeout,
    false_completion_scenarios,
    forced_final_answer_scenarios,
    give_up_honoured_scenarios,
    missing_permission_scenarios,
    oscillation_scenarios,
    reconfirm_as_progress_scenarios,
    todo_spawn_scenarios,
    tool_timeout_scenarios,
)
from unsolvable.scenarios.catalog import (
    constant_return,
    cost_runaway,
    dependency_unavailable,
    false_completion,
    fan_out,
    forced_final_answer,
    give_up_honoured,
    long_healthy,
    missing_permission,
    oscillation,
    poll_until_ready,
    reconfirm_as_progress,
    slow_dependency,
    todo_spawn,
    tool_timeout,
)

__all__ = [
    "MAX_SEED",
    "TWINNED",
    "constant_return_scenarios",
    "control_scenarios",
    "cost_runaway_scenarios",
    "dependency_unavailable_scenarios",
    "duplicate_dispatch_and_twin",
    "duplicate_dispatch_scenarios",
    "false_completion_scenarios",
    "fan_out_scenarios",
    "forced_final_answer_scenarios",
    "give_up_honoured_scenarios",
    "missing_permission_scenarios",
    "mixed_fan_out_scenarios",
    "multi_agent_scenarios",
    "nested_delegation_scenarios",
    "oscillation_scenarios",
    "reconfirm_as_progress_scenarios",
    "role_ping_pong_scenarios",
    "seeds",
    "sibling_and_twin",
    "task_graph_scenarios",
    "todo_spawn_scenarios",
    "tool_timeout_scenarios",
    "twin_scenarios",
    "unsolvable_scenarios",
]

MAX_WAITING = 7
"""Pending polls or 503s before a control recovers; the contract's idle budget is 8."""


def unsolvable_scenarios() -> st.SearchStrategy[Scenario]:
    """Variants of every unsolvable family whose ``make`` takes parameters: constant-return,
    missing-permission, fan-out, cost-runaway, false-completion, forced-final-answer,
    give-up-honoured, tool-timeout, reconfirm-as-progress, todo-spawn, oscillation,
    dependency-unavailable, mixed-fan-out, task-graph, nested-delegation, duplicate-dispatch and
    role-ping-pong."""
    return st.one_of(
        constant_return_scenarios(),
        missing_permission_scenarios(),
        *_family_scenarios(),
    )


@st.composite
def control_scenarios(draw: st.DrawFn) -> Scenario:
    """Solvable controls with k drawn: chapters to write, polls pending, 503s before recovery."""
    kind = draw(st.sampled_from(("long-healthy", "poll-until-ready", "slow-dependency")))
    k = draw(st.integers(1, MAX_WAITING))
    if kind == "long-healthy":
        chapters = draw(st.integers(2, 24))
        return long_healthy.long_healthy(f"generated-{chapters}", chapters=chapters)
    if kind == "poll-until-ready":
        return poll_until_ready.poll_until_ready(f"generated-{k}", pending=k)
    return slow_dependency.slow_dependency(f"generated-{k}", failures=k)


@st.composite
def sibling_and_twin(draw: st.DrawFn, families: Sequence[str] = ()) -> tuple[Scenario, Scenario]:
    """A generated unsolvable variant of one of ``families`` (by default every family in
    `TWINNED`) and one of its solvable twins, drawn from the parameters that have one: the twin
    is named after the variant, its kind first."""
    pick = draw(st.sampled_from(tuple(families or TWINNED)))
    sibling, twins = TWINNED[pick](draw)
    return sibling, draw(st.sampled_from(twins(f"-{sibling.name.partition('/')[2]}")))


def twin_scenarios(families: Sequence[str] = ()) -> st.SearchStrategy[Scenario]:
    """The solvable twins of generated unsolvable variants (`sibling_and_twin`)."""
    return sibling_and_twin(families).map(lambda pair: pair[1])


def _constant_return_twinned(draw: st.DrawFn) -> tuple[Scenario, Twins]:
    """Exact repeats that claim nothing: the variants `constant_return.twins` has twins for."""
    return draw_constant_return(draw, perturbations=st.none(), claims=st.none())


TWINNED: dict[str, Callable[[st.DrawFn], tuple[Scenario, Twins]]] = {
    constant_return.FAMILY: _constant_return_twinned,
    missing_permission.FAMILY: draw_missing_permission,
    fan_out.FAMILY: lambda draw: draw_fan_out(draw, FAN_OUT_TWIN_WORKERS),
    cost_runaway.FAMILY: lambda draw: draw_cost_runaway(
        draw, st.sampled_from(COST_RUNAWAY_TWINNED)
    ),
    false_completion.FAMILY: lambda draw: draw_false_completion(draw, (false_completion.TWINNED,)),
    give_up_honoured.FAMILY: lambda draw: draw_give_up_honoured(draw, give_up_honoured.TWINNED),
    tool_timeout.FAMILY: lambda draw: draw_tool_timeout(draw, TOOL_TIMEOUTS_TWINNED),
    forced_final_answer.FAMILY: lambda draw: draw_forced_final_answer(draw, FORCED_FINAL_TWINNED),
    # exact retries only: `dependency_unavailable.twins` says why
    dependency_unavailable.FAMILY: lambda draw: draw_dependency_unavailable(draw, (None,)),
    reconfirm_as_progress.FAMILY: lambda draw: draw_reconfirm_as_progress(
        draw, RECONFIRM_TWIN_CHECKS, (None,)
    ),
    oscillation.FAMILY: lambda draw: draw_oscillation(draw, OSCILLATION_TWIN_MODES, st.just(False)),
    todo_spawn.FAMILY: lambda draw: draw_todo_spawn(draw),
}
"""Family → what draws a variant of it that has twins, with the maker of its twins."""


def _family_scenarios() -> tuple[st.SearchStrategy[Scenario], ...]:
    """The strategies of the families whose variants come from their ``make``'s parameters."""
    return (
        fan_out_scenarios(),
        cost_runaway_scenarios(),
        false_completion_scenarios(),
        forced_final_answer_scenarios(),
        give_up_honoured_scenarios(),
        tool_timeout_scenarios(),
        reconfirm_as_progress_scenarios(),
        todo_spawn_scenarios(),
        oscillation_scenarios(),
        dependency_unavailable_scenarios(),
        mixed_fan_out_scenarios(),
        task_graph_scenarios(),
        nested_delegation_scenarios(),
        duplicate_dispatch_scenarios(),
        role_ping_pong_scenarios(),
    )
