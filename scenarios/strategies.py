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

import dataclasses
from collections.abc import Callable, Sequence

try:
    from hypothesis import strategies as st
except ImportError as error:  # an extra: its pytest plugin costs every pytest run
    raise ImportError(
        "unsolvable: unsolvable.scenarios.strategies needs hypothesis, which is not installed; "
        "pip install 'pytest-unsolvable[strategies]'"
    ) from error

from unsolvable import Ceilings, Scenario
from unsolvable.scenarios.catalog import (
    constant_return,
    cost_runaway,
    dependency_unavailable,
    duplicate_dispatch,
    false_completion,
    fan_out,
    forced_final_answer,
    give_up_honoured,
    long_healthy,
    missing_permission,
    mixed_fan_out,
    nested_delegation,
    oscillation,
    poll_until_ready,
    reconfirm_as_progress,
    role_ping_pong,
    slow_dependency,
    task_graph,
    todo_spawn,
    tool_timeout,
)
from unsolvable.scenarios.catalog._common import LEADS

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

_Twins = Callable[[str], tuple[Scenario, ...]]
"""Makes a generated variant's twins, each variant named with the suffix it is given."""

MAX_SEED = 2**16 - 1
"""Seeds vary ids and names in the world; a 16-bit range is plenty and keeps names short."""
MAX_WARMUP = 3
"""Steps of real work before a model gets stuck: enough to move where stagnation starts."""
MAX_WAITING = 7
"""Pending polls or 503s before a control recovers; the contract's idle budget is 8."""


def seeds() -> st.SearchStrategy[tuple[int, ...]]:
    return st.tuples(st.integers(0, MAX_SEED))


@st.composite
def constant_return_scenarios(draw: st.DrawFn) -> Scenario:
    return _constant_return(
        draw,
        perturbations=st.none() | st.sampled_from(sorted(constant_return.PERTURBATIONS)),
        claims=st.none() | st.integers(1, 3),
    )[0]


def _constant_return(
    draw: st.DrawFn,
    *,
    perturbations: st.SearchStrategy[str | None],
    claims: st.SearchStrategy[int | None],
) -> tuple[Scenario, _Twins]:
    """A constant-return variant, and the maker of its twins with the same parameters."""
    perturbation = draw(perturbations)
    tool_name = draw(st.sampled_from(constant_return.TOOL_NAMES))
    prompt = draw(st.integers(0, len(constant_return.PROMPTS) - 1))
    warmup = draw(st.integers(0, MAX_WARMUP))
    claim_after = draw(claims)
    variant = f"generated-{perturbation or 'exact'}-{tool_name}-p{prompt}-w{warmup}-c{claim_after}"
    scenario = constant_return.make(
        variant,
        perturbation=perturbation,
        tool_name=tool_name,
        prompt=prompt,
        warmup=warmup,
        claim_after=claim_after,
        seeds=draw(seeds()),
    )
    return scenario, lambda suffix: constant_return.twins(
        scenario, tool_name=tool_name, warmup=warmup, suffix=suffix
    )


@st.composite
def missing_permission_scenarios(draw: st.DrawFn) -> Scenario:
    return _missing_permission(draw)[0]


def _missing_permission(draw: st.DrawFn) -> tuple[Scenario, _Twins]:
    """A missing-permission variant, and the maker of its twins with the same parameters."""
    permission = draw(st.sampled_from(missing_permission.PERMISSIONS))
    raises, new_ids = draw(st.booleans()), draw(st.booleans())
    variant = f"generated-{permission}-raises{int(raises)}-new-ids{int(new_ids)}"
    scenario = missing_permission.make(
        variant, permission=permission, raises=raises, new_ids=new_ids, seeds=draw(seeds())
    )
    return scenario, lambda suffix: missing_permission.twins(
        scenario, permission=permission, raises=raises, new_ids=new_ids, suffix=suffix
    )


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


def _constant_return_twinned(draw: st.DrawFn) -> tuple[Scenario, _Twins]:
    """Exact repeats that claim nothing: the variants `constant_return.twins` has twins for."""
    return _constant_return(draw, perturbations=st.none(), claims=st.none())


TWINNED: dict[str, Callable[[st.DrawFn], tuple[Scenario, _Twins]]] = {
    constant_return.FAMILY: _constant_return_twinned,
    missing_permission.FAMILY: _missing_permission,
    fan_out.FAMILY: lambda draw: _fan_out(draw, FAN_OUT_TWIN_WORKERS),
    cost_runaway.FAMILY: lambda draw: _cost_runaway(draw, st.sampled_from(COST_RUNAWAY_TWINNED)),
    false_completion.FAMILY: lambda draw: _false_completion(draw, (false_completion.TWINNED,)),
    give_up_honoured.FAMILY: lambda draw: _give_up_honoured(draw, give_up_honoured.TWINNED),
    tool_timeout.FAMILY: lambda draw: _tool_timeout(draw, TOOL_TIMEOUTS_TWINNED),
    forced_final_answer.FAMILY: lambda draw: _forced_final_answer(draw, FORCED_FINAL_TWINNED),
    # exact retries only: `dependency_unavailable.twins` says why
    dependency_unavailable.FAMILY: lambda draw: _dependency_unavailable(draw, (None,)),
    reconfirm_as_progress.FAMILY: lambda draw: _reconfirm_as_progress(
        draw, RECONFIRM_TWIN_CHECKS, (None,)
    ),
    oscillation.FAMILY: lambda draw: _oscillation(draw, OSCILLATION_TWIN_MODES, st.just(False)),
    todo_spawn.FAMILY: lambda draw: _todo_spawn(draw),
}
"""Family → what draws a variant of it that has twins, with the maker of its twins."""


def _seeded(scenario: Scenario, draw: st.DrawFn) -> Scenario:
    """``scenario`` on one drawn seed, as the other strategies draw theirs: the families below
    take no seeds in their ``make``, which gives every built-in scenario the library's three."""
    return dataclasses.replace(scenario, seeds=draw(seeds()))


def _under_the_ceiling(made: Callable[[int], Scenario], *, start: int) -> range:
    """The counts from ``start`` whose variant, ``made`` of the count, keeps its N after the
    longest background reading, and its step budget, under the harness's step ceiling: past it,
    a run that never stops is cut off before it overruns N, or before its budget runs out."""

    def fits(count: int) -> bool:
        scenario = made(count)
        ceiling = Ceilings.max_steps
        return scenario.step_bound + max(LEADS) < ceiling and scenario.budget.max_steps < ceiling

    return range(start, next(n for n in range(start, Ceilings.max_steps) if not fits(n)))


FAN_OUT_WORKERS = _under_the_ceiling(
    lambda workers: fan_out.make("ceiling", workers=workers), start=1
)
"""Workers of a fan-out, 1 to 39: its N (five steps a worker, and one, after the longest
background reading) stays under the harness's 200-step ceiling, past which a run that never
stops is cut off before it overruns N."""


FAN_OUT_TWIN_WORKERS: range = FAN_OUT_WORKERS[1:]
"""Workers of a fan-out with a twin: a single worker has none (`fan_out.twins` says why)."""


@st.composite
def fan_out_scenarios(draw: st.DrawFn) -> Scenario:
    """A supervisor whose workers all get stuck, with the number of workers drawn."""
    return _fan_out(draw, FAN_OUT_WORKERS)[0]


def _fan_out(draw: st.DrawFn, workers_drawn: range) -> tuple[Scenario, _Twins]:
    """A fan-out variant, and the maker of its twins with the same number of workers."""
    workers = draw(st.sampled_from(workers_drawn))
    scenario = _seeded(fan_out.make(f"generated-workers{workers}", workers=workers), draw)
    return scenario, lambda suffix: fan_out.twins(scenario, workers=workers, suffix=suffix)


COST_RUNAWAY_LINES = range(10, 121, 10)
COST_RUNAWAY_TOKENS = range(10_000, 60_001, 5_000)
"""Lines a log page has and the token budget: the fewest lines with the largest budget spend it
by step 20, half the step cap, so tokens and not steps end the run (a page of one line under a
100,000-token budget reaches the cap first); the most lines with the smallest budget still take
three steps, so the conversation is seen to grow."""


COST_RUNAWAY_TWINNED: tuple[tuple[int, int], ...] = tuple(
    (lines, tokens)
    for lines in COST_RUNAWAY_LINES
    for tokens in COST_RUNAWAY_TOKENS
    if tokens >= 20_000 + 600 * lines
)
"""Lines and budgets with a twin: it reads up to seven pages before the answer, then saves it,
nine steps of a growing conversation that cost about 20,000 tokens and 600 for each line a page
has; a smaller budget runs out first (so pages of 70 lines and more have no twin here)."""


@st.composite
def cost_runaway_scenarios(draw: st.DrawFn) -> Scenario:
    """Endless new log pages, with the page's length and the token budget drawn."""
    lines = st.sampled_from(COST_RUNAWAY_LINES)
    return _cost_runaway(draw, st.tuples(lines, st.sampled_from(COST_RUNAWAY_TOKENS)))[0]


def _cost_runaway(
    draw: st.DrawFn, drawn: st.SearchStrategy[tuple[int, int]]
) -> tuple[Scenario, _Twins]:
    """A cost-runaway variant of ``drawn`` lines and budget, and the maker of its twins."""
    lines, max_tokens = draw(drawn)
    variant = f"generated-lines{lines}-tokens{max_tokens}"
    scenario = _seeded(cost_runaway.make(variant, lines=lines, max_tokens=max_tokens), draw)
    return scenario, lambda suffix: cost_runaway.twins(scenario, lines=lines, suffix=suffix)


CLAIM_AFTER = range(0, false_completion.STEP_BOUND)
"""Deploys before the false claim: it comes claim_after + 1 steps after the background reading,
inside N (which counts from there), so the variant is about the claim and not a plain repeat."""


@st.composite
def false_completion_scenarios(draw: st.DrawFn) -> Scenario:
    """A success claimed after a drawn number of deploys that never go live."""
    return _false_completion(draw, CLAIM_AFTER)[0]


def _false_completion(draw: st.DrawFn, claims_after: Sequence[int]) -> tuple[Scenario, _Twins]:
    """A false-completion variant, and the maker of its twins with the same deploys."""
    claim_after = draw(st.sampled_from(claims_after))
    variant = f"generated-claim-after{claim_after}"
    scenario = _seeded(false_completion.make(variant, claim_after=claim_after), draw)
    return scenario, lambda suffix: false_completion.twins(
        scenario, claim_after=claim_after, suffix=suffix
    )


FORCED_FINAL_MAX_STEPS = range(1, 25)
"""The step budget at whose end the final answer is forced: up to 24 steps its token allowance
(2,000 a step) outlasts the growing conversation on every seed, so steps run out first as N and
the expected codes say; at 25, a seed whose pages run long spends its tokens a step earlier."""


FORCED_FINAL_TWINNED: range = range(forced_final_answer.NEEDED, FORCED_FINAL_MAX_STEPS.stop)
"""Step budgets with a twin, 6 to 24: a smaller one ends before its twin's duplicate is found and
refunded."""


@st.composite
def forced_final_answer_scenarios(draw: st.DrawFn) -> Scenario:
    """Pages of order history up to a drawn step budget, then a forced final answer."""
    return _forced_final_answer(draw, FORCED_FINAL_MAX_STEPS)[0]


def _forced_final_answer(draw: st.DrawFn, budgets: range) -> tuple[Scenario, _Twins]:
    """A forced-final-answer variant, and the maker of its twins with the same budget."""
    max_steps = draw(st.sampled_from(budgets))
    variant = f"generated-max-steps{max_steps}"
    scenario = _seeded(forced_final_answer.make(variant, max_steps=max_steps), draw)
    return scenario, lambda suffix: forced_final_answer.twins(scenario, suffix=suffix)


GIVE_UP_AFTER = range(0, give_up_honoured.STEP_BOUND)
"""Searches before the model gives up: its give_up comes at step after + 1, inside N, so the
variant is about honouring it and not a plain repeat."""


@st.composite
def give_up_honoured_scenarios(draw: st.DrawFn) -> Scenario:
    """A model that calls give_up after a drawn number of searches."""
    return _give_up_honoured(draw, GIVE_UP_AFTER)[0]


def _give_up_honoured(draw: st.DrawFn, afters: range) -> tuple[Scenario, _Twins]:
    """A give-up-honoured variant, and the maker of its twins with the same searches."""
    after = draw(st.sampled_from(afters))
    scenario = _seeded(give_up_honoured.make(f"generated-after{after}", after=after), draw)
    return scenario, lambda suffix: give_up_honoured.twins(scenario, after=after, suffix=suffix)


TOOL_TIMEOUTS = range(
    int(tool_timeout.WALL_BUDGET) // (tool_timeout.RETRIES + 2), int(tool_timeout.WALL_BUDGET) + 1
)
"""Seconds a sensor read hangs: from 25, four attempts spend the wall budget, so a loop that
retries past the allowance starts a step with the time spent (shorter timeouts let it give up on
its count before time runs out, and the variant no longer tells time from attempts); up to the
wall budget itself, past which the first attempt spends it and there is no retry to judge."""


TOOL_TIMEOUTS_TWINNED: range = range(
    TOOL_TIMEOUTS.start, int(tool_timeout.WALL_BUDGET) // tool_timeout.COLD_START
)
"""Timeouts with a twin, 25 to 49 seconds: its sensor times out twice before it answers, and from
50 seconds on those two spend the whole wall budget before the answer."""


@st.composite
def tool_timeout_scenarios(draw: st.DrawFn) -> Scenario:
    """A sensor that never answers, each read hanging for a drawn timeout."""
    return _tool_timeout(draw, TOOL_TIMEOUTS)[0]


def _tool_timeout(draw: st.DrawFn, timeouts: range) -> tuple[Scenario, _Twins]:
    """A tool-timeout variant, and the maker of its twins with the same timeout."""
    timeout = draw(st.sampled_from(timeouts))
    scenario = _seeded(tool_timeout.make(f"generated-timeout{timeout}", timeout=timeout), draw)
    return scenario, lambda suffix: tool_timeout.twins(scenario, timeout=timeout, suffix=suffix)


RECONFIRM_CHECKS = range(1, len(reconfirm_as_progress.CHECKS) + 1)
RECONFIRM_PERTURBATIONS = (None, "case", "volatile-id")
"""Perturbations of a check's free-text note: an offset needs a number and a synonym a list of
synonyms, which the note has not."""


@st.composite
def reconfirm_as_progress_scenarios(draw: st.DrawFn) -> Scenario:
    """Re-confirmed preconditions, with how many checks and the perturbation drawn."""
    return _reconfirm_as_progress(draw, RECONFIRM_CHECKS, RECONFIRM_PERTURBATIONS)[0]


RECONFIRM_TWIN_CHECKS: range = RECONFIRM_CHECKS[-1:]
"""Checks with a twin, unperturbed (`reconfirm_as_progress.twins` says why), all three: with
fewer, its migration can come before three flat steps, so stop logic that reads only the
criteria, which the library's twin false-stops, would pass it."""


def _reconfirm_as_progress(
    draw: st.DrawFn, checks_drawn: Sequence[int], perturbations: Sequence[str | None]
) -> tuple[Scenario, _Twins]:
    """A reconfirm-as-progress variant, and the maker of its twins with the same checks."""
    checks = draw(st.sampled_from(checks_drawn))
    perturbation = draw(st.sampled_from(perturbations))
    variant = f"generated-checks{checks}-{perturbation or 'exact'}"
    scenario = reconfirm_as_progress.make(variant, checks=checks, perturbation=perturbation)
    scenario = _seeded(scenario, draw)
    return scenario, lambda suffix: reconfirm_as_progress.twins(
        scenario, checks=checks, suffix=suffix
    )


TODO_PROGRESS = range(0, todo_spawn.SECTIONS)
"""Sections written before the to-do lists start, by seed: writing them all would finish the
report (and ``make`` refuses it)."""
TODO_PICKS = len(todo_spawn.SPAWN_PROGRESS)
"""Picks by seed, at most as many as the library's own spawning variant has."""


@st.composite
def todo_spawn_scenarios(draw: st.DrawFn) -> Scenario:
    """To-do lists instead of sections, after a drawn number of sections for each seed."""
    return _todo_spawn(draw)[0]


def _todo_spawn(draw: st.DrawFn) -> tuple[Scenario, _Twins]:
    """A todo-spawn variant, and the maker of its twins with the same sections written."""
    picks = st.lists(st.sampled_from(TODO_PROGRESS), min_size=1, max_size=TODO_PICKS)
    progress = tuple(draw(picks))
    variant = f"generated-progress{'-'.join(map(str, progress))}"
    scenario = _seeded(todo_spawn.make(variant, progress=progress), draw)
    return scenario, lambda suffix: todo_spawn.twins(scenario, progress=progress, suffix=suffix)


OSCILLATION_MODES = tuple(oscillation.SYMPTOMS)
"""The cache modes the setting can cycle through; each fails, so no cycle of them settles."""


@st.composite
def oscillation_scenarios(draw: st.DrawFn) -> Scenario:
    """A setting cycled through two to four distinct modes (a mode twice in a row would be a
    repeat, not an oscillation); restyled only with two, the one cycle that restyles."""
    return _oscillation(draw, OSCILLATION_MODES, st.booleans())[0]


OSCILLATION_TWIN_MODES: tuple[str, ...] = tuple(
    m for m in OSCILLATION_MODES if m != oscillation.SETTLED
)
"""Modes of an oscillation with a twin, which is never restyled: `oscillation.twins` says why."""


def _oscillation(
    draw: st.DrawFn, modes_drawn: Sequence[str], restyles: st.SearchStrategy[bool]
) -> tuple[Scenario, _Twins]:
    """An oscillation variant, and the maker of its twins through the same modes."""
    modes = tuple(draw(st.lists(st.sampled_from(modes_drawn), min_size=2, unique=True)))
    restyled = len(modes) == 2 and draw(restyles)
    variant = f"generated-{'+'.join(modes)}" + ("-restyled" if restyled else "")
    scenario = _seeded(oscillation.make(variant, modes=modes, restyled=restyled), draw)
    return scenario, lambda suffix: oscillation.twins(scenario, modes=modes, suffix=suffix)


DEPENDENCY_PERTURBATIONS = (None, "synonym", "case", "volatile-id")
"""Perturbations of the fetch's currency: an offset needs a number, which a currency is not."""


@st.composite
def dependency_unavailable_scenarios(draw: st.DrawFn) -> Scenario:
    """A dependency down for good, retried with a drawn perturbation."""
    return _dependency_unavailable(draw, DEPENDENCY_PERTURBATIONS)[0]


def _dependency_unavailable(
    draw: st.DrawFn, perturbations: Sequence[str | None]
) -> tuple[Scenario, _Twins]:
    """A dependency-unavailable variant, and the maker of its twins."""
    perturbation = draw(st.sampled_from(perturbations))
    variant = f"generated-{perturbation or 'exact'}"
    scenario = _seeded(dependency_unavailable.make(variant, perturbation=perturbation), draw)
    return scenario, lambda suffix: dependency_unavailable.twins(scenario, suffix=suffix)


def multi_agent_scenarios() -> st.SearchStrategy[Scenario]:
    """Variants of the multi-agent families whose ``make`` takes parameters: fan-out, mixed
    fan-out, task graphs, nested delegation, duplicate dispatch and role ping-pong."""
    return st.one_of(
        fan_out_scenarios(),
        mixed_fan_out_scenarios(),
        task_graph_scenarios(),
        nested_delegation_scenarios(),
        duplicate_dispatch_scenarios(),
        role_ping_pong_scenarios(),
    )


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


MIXED_FAN_OUT_WORKERS = _under_the_ceiling(
    lambda workers: mixed_fan_out.make("ceiling", kind="denied", workers=workers), start=2
)
"""Workers of a mixed fan-out, 2 to 62: one audit at least finishes beside the blocked one, so
the stop has a partial result to list; and its N (three steps a worker, and nine) stays under
the harness's 200-step ceiling after the longest background reading."""


@st.composite
def mixed_fan_out_scenarios(draw: st.DrawFn) -> Scenario:
    """Workers that all finish but the last, blocked by a refusal, a dead registry or its 503
    swallowed, with the number of workers and the blocker drawn."""
    workers = draw(st.sampled_from(MIXED_FAN_OUT_WORKERS))
    kind = draw(st.sampled_from(mixed_fan_out.KINDS))
    variant = f"generated-{kind}-workers{workers}"
    return _seeded(mixed_fan_out.make(variant, kind=kind, workers=workers), draw)


TASK_GRAPH_CHAIN = range(1, 22)
"""Links of a task graph's chain before the search, 1 to 21: each makes the supervisor's
conversation a wave longer, and past 21 it spends the token budget (N's steps' worth) before a
supervisor that runs every dispatch reaches the skipped answer (past 22, before the contract
stops on the failed search): the run ends on tokens, not on the failure it is about."""


@st.composite
def task_graph_scenarios(draw: st.DrawFn) -> Scenario:
    """A task graph whose search meets a dead API after a chain of a drawn number of links, each
    on the one before, and whose answer joins the search."""
    chain = draw(st.sampled_from(TASK_GRAPH_CHAIN))
    return _seeded(task_graph.make(f"generated-chain{chain}", chain=chain), draw)


NESTED_DELEGATION_SUPPLIERS = _under_the_ceiling(
    lambda suppliers: nested_delegation.make("ceiling", suppliers=suppliers), start=2
)
"""Suppliers of a nested delegation, 2 to 62: one audit at least is filed beside the brief
passed on (with that brief alone no tool ever answers, and any stop is blind by the harness's
measure); and N (three steps an audit, and nine) stays under the harness's 200-step ceiling
after the longest background reading."""


@st.composite
def nested_delegation_scenarios(draw: st.DrawFn) -> Scenario:
    """Audits of a drawn number of suppliers, all filed but the last, whose brief is passed on
    level after level."""
    suppliers = draw(st.sampled_from(NESTED_DELEGATION_SUPPLIERS))
    variant = f"generated-suppliers{suppliers}"
    return _seeded(nested_delegation.make(variant, suppliers=suppliers), draw)


DUPLICATE_DISPATCH_SUPPLIERS = _under_the_ceiling(
    lambda suppliers: duplicate_dispatch.make("ceiling", suppliers=suppliers), start=2
)
"""Suppliers of a duplicate dispatch, 2 to 62: one at least in the first wave, whose return is
lost, and one never dispatched; and the budget (its twin's work, three steps an audit, and
room) stays under the harness's 200-step ceiling, as N does."""


@st.composite
def duplicate_dispatch_scenarios(draw: st.DrawFn) -> Scenario:
    """Audits of a drawn number of suppliers, all but the last dispatched at once, the last of
    those dispatched again and again, the last never."""
    suppliers = draw(st.sampled_from(DUPLICATE_DISPATCH_SUPPLIERS))
    variant = f"generated-suppliers{suppliers}"
    return _seeded(duplicate_dispatch.make(variant, suppliers=suppliers), draw)


DUPLICATE_DISPATCH_TWIN_SUPPLIERS = range(3, DUPLICATE_DISPATCH_SUPPLIERS.stop)
"""Suppliers of a duplicate dispatch drawn with its twin, 3 to 62: an audit at least is filed
before the lost one's filing fails (with two, the failed filing is all the work there is, and
its worker's claim said again reads as no progress, so an honest stop logic stops the twin)."""


@st.composite
def duplicate_dispatch_and_twin(draw: st.DrawFn) -> tuple[Scenario, Scenario]:
    """A generated duplicate dispatch and its twin with the same suppliers, whose lost audit's
    filing meets one 503 and is dispatched again after it: a retry with a reason. The twin is
    named after the variant, its kind first, as `sibling_and_twin`'s are."""
    suppliers = draw(st.sampled_from(DUPLICATE_DISPATCH_TWIN_SUPPLIERS))
    variant = f"generated-suppliers{suppliers}"
    sibling = _seeded(duplicate_dispatch.make(variant, suppliers=suppliers), draw)
    twin_variant = f"twin-retry-after-failure-{variant}"
    return sibling, duplicate_dispatch.retry_twin(
        sibling, suppliers=suppliers, variant=twin_variant
    )


ROLE_PING_PONG_CRITERIA = range(2, len(role_ping_pong.DRIFTS) + 3)
"""Criteria a reviewer drifts between, 2 to 6: two at least, one to revise towards and one to
drift back from, and brevity, citations and the four further ones `role_ping_pong.DRIFTS` has
at most."""


@st.composite
def role_ping_pong_scenarios(draw: st.DrawFn) -> Scenario:
    """A reviewer that never accepts, drifting between a drawn number of criteria, and a
    producer that meets only the one asked for."""
    criteria = draw(st.sampled_from(ROLE_PING_PONG_CRITERIA))
    variant = f"generated-criteria{criteria}"
    return _seeded(role_ping_pong.make(variant, criteria=criteria), draw)
