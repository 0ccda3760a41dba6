"""Consumes hypothesis's draws, produces variants of the single-agent families whose ``make`` takes
parameters (todo-spawn's loop across workers among them), each named after what was drawn, and
(``draw_*``) the maker of its twins with the same parameters."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import strategies as st

from unsolvable import Scenario
from unsolvable.scenarios._drawing import Twins, seeded, seeds
from unsolvable.scenarios.catalog import (
    constant_return,
    cost_runaway,
    dependency_unavailable,
    false_completion,
    forced_final_answer,
    give_up_honoured,
    missing_permission,
    oscillation,
    reconfirm_as_progress,
    todo_spawn,
    tool_timeout,
)

__all__ = [
    "CLAIM_AFTER",
    "COST_RUNAWAY_LINES",
    "COST_RUNAWAY_TOKENS",
    "COST_RUNAWAY_TWINNED",
    "DEPENDENCY_PERTURBATIONS",
    "FORCED_FINAL_MAX_STEPS",
    "FORCED_FINAL_TWINNED",
    "GIVE_UP_AFTER",
    "MAX_WARMUP",
    "OSCILLATION_MODES",
    "OSCILLATION_TWIN_MODES",
    "RECONFIRM_CHECKS",
    "RECONFIRM_PERTURBATIONS",
    "RECONFIRM_TWIN_CHECKS",
    "TODO_PICKS",
    "TODO_PROGRESS",
    "TOOL_TIMEOUTS",
    "TOOL_TIMEOUTS_TWINNED",
    "constant_return_scenarios",
    "cost_runaway_scenarios",
    "dependency_unavailable_scenarios",
    "draw_constant_return",
    "draw_cost_runaway",
    "draw_dependency_unavailable",
    "draw_false_completion",
    "draw_forced_final_answer",
    "draw_give_up_honoured",
    "draw_missing_permission",
    "draw_oscillation",
    "draw_reconfirm_as_progress",
    "draw_todo_spawn",
    "draw_tool_timeout",
    "false_completion_scenarios",
    "forced_final_answer_scenarios",
    "give_up_honoured_scenarios",
    "missing_permission_scenarios",
    "oscillation_scenarios",
    "reconfirm_as_progress_scenarios",
    "todo_spawn_scenarios",
    "tool_timeout_scenarios",
]

MAX_WARMUP = 3
"""Steps of real work before a model gets stuck: enough to move where stagnation starts."""


@st.composite
def constant_return_scenarios(draw: st.DrawFn) -> Scenario:
    return draw_constant_return(
        draw,
        perturbations=st.none() | st.sampled_from(sorted(constant_return.PERTURBATIONS)),
        claims=st.none() | st.integers(1, 3),
    )[0]


def draw_constant_return(
    draw: st.DrawFn,
    *,
    perturbations: st.SearchStrategy[str | None],
    claims: st.SearchStrategy[int | None],
) -> tuple[Scenario, Twins]:
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
    return draw_missing_permission(draw)[0]


def draw_missing_permission(draw: st.DrawFn) -> tuple[Scenario, Twins]:
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
    return draw_cost_runaway(draw, st.tuples(lines, st.sampled_from(COST_RUNAWAY_TOKENS)))[0]


def draw_cost_runaway(
    draw: st.DrawFn, drawn: st.SearchStrategy[tuple[int, int]]
) -> tuple[Scenario, Twins]:
    """A cost-runaway variant of ``drawn`` lines and budget, and the maker of its twins."""
    lines, max_tokens = draw(drawn)
    variant = f"generated-lines{lines}-tokens{max_tokens}"
    scenario = seeded(cost_runaway.make(variant, lines=lines, max_tokens=max_tokens), draw)
    return scenario, lambda suffix: cost_runaway.twins(scenario, lines=lines, suffix=suffix)


CLAIM_AFTER = range(0, false_completion.STEP_BOUND)
"""Deploys before the false claim: it comes claim_after + 1 steps after the background reading,
inside N (which counts from there), so the variant is about the claim and not a plain repeat."""


@st.composite
def false_completion_scenarios(draw: st.DrawFn) -> Scenario:
    """A success claimed after a drawn number of deploys that never go live."""
    return draw_false_completion(draw, CLAIM_AFTER)[0]


def draw_false_completion(draw: st.DrawFn, claims_after: Sequence[int]) -> tuple[Scenario, Twins]:
    """A false-completion variant, and the maker of its twins with the same deploys."""
    claim_after = draw(st.sampled_from(claims_after))
    variant = f"generated-claim-after{claim_after}"
    scenario = seeded(false_completion.make(variant, claim_after=claim_after), draw)
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
    return draw_forced_final_answer(draw, FORCED_FINAL_MAX_STEPS)[0]


def draw_forced_final_answer(draw: st.DrawFn, budgets: range) -> tuple[Scenario, Twins]:
    """A forced-final-answer variant, and the maker of its twins with the same budget."""
    max_steps = draw(st.sampled_from(budgets))
    variant = f"generated-max-steps{max_steps}"
    scenario = seeded(forced_final_answer.make(variant, max_steps=max_steps), draw)
    return scenario, lambda suffix: forced_final_answer.twins(scenario, suffix=suffix)


GIVE_UP_AFTER = range(0, give_up_honoured.STEP_BOUND)
"""Searches before the model gives up: its give_up comes at step after + 1, inside N, so the
variant is about honouring it and not a plain repeat."""


@st.composite
def give_up_honoured_scenarios(draw: st.DrawFn) -> Scenario:
    """A model that calls give_up after a drawn number of searches."""
    return draw_give_up_honoured(draw, GIVE_UP_AFTER)[0]


def draw_give_up_honoured(draw: st.DrawFn, afters: range) -> tuple[Scenario, Twins]:
    """A give-up-honoured variant, and the maker of its twins with the same searches."""
    after = draw(st.sampled_from(afters))
    scenario = seeded(give_up_honoured.make(f"generated-after{after}", after=after), draw)
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
    return draw_tool_timeout(draw, TOOL_TIMEOUTS)[0]


def draw_tool_timeout(draw: st.DrawFn, timeouts: range) -> tuple[Scenario, Twins]:
    """A tool-timeout variant, and the maker of its twins with the same timeout."""
    timeout = draw(st.sampled_from(timeouts))
    scenario = seeded(tool_timeout.make(f"generated-timeout{timeout}", timeout=timeout), draw)
    return scenario, lambda suffix: tool_timeout.twins(scenario, timeout=timeout, suffix=suffix)


RECONFIRM_CHECKS = range(1, len(reconfirm_as_progress.CHECKS) + 1)
RECONFIRM_PERTURBATIONS = (None, "case", "volatile-id")
"""Perturbations of a check's free-text note: an offset needs a number and a synonym a list of
synonyms, which the note has not."""


@st.composite
def reconfirm_as_progress_scenarios(draw: st.DrawFn) -> Scenario:
    """Re-confirmed preconditions, with how many checks and the perturbation drawn."""
    return draw_reconfirm_as_progress(draw, RECONFIRM_CHECKS, RECONFIRM_PERTURBATIONS)[0]


RECONFIRM_TWIN_CHECKS: range = RECONFIRM_CHECKS[-1:]
"""Checks with a twin, unperturbed (`reconfirm_as_progress.twins` says why), all three: with
fewer, its migration can come before three flat steps, so stop logic that reads only the
criteria, which the library's twin false-stops, would pass it."""


def draw_reconfirm_as_progress(
    draw: st.DrawFn, checks_drawn: Sequence[int], perturbations: Sequence[str | None]
) -> tuple[Scenario, Twins]:
    """A reconfirm-as-progress variant, and the maker of its twins with the same checks."""
    checks = draw(st.sampled_from(checks_drawn))
    perturbation = draw(st.sampled_from(perturbations))
    variant = f"generated-checks{checks}-{perturbation or 'exact'}"
    scenario = reconfirm_as_progress.make(variant, checks=checks, perturbation=perturbation)
    scenario = seeded(scenario, draw)
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
    """To-do lists instead of sections, after a drawn number of sections for each seed; or,
    drawn instead, the loop across workers, each handing its subtask back naming two more."""
    return draw_todo_spawn(draw)[0]


def draw_todo_spawn(draw: st.DrawFn) -> tuple[Scenario, Twins]:
    """A todo-spawn variant, and the maker of its twins with the same sections written, or the
    variant across workers (its only parameter is its seed: it writes no section, and ``make``
    refuses ``progress`` for it) and the maker of its twin."""
    if draw(st.booleans()):
        spawned = seeded(todo_spawn.make("generated-subtasks-spawned", across_workers=True), draw)
        return spawned, lambda suffix: (todo_spawn.across_twin(spawned, suffix=suffix),)
    picks = st.lists(st.sampled_from(TODO_PROGRESS), min_size=1, max_size=TODO_PICKS)
    progress = tuple(draw(picks))
    variant = f"generated-progress{'-'.join(map(str, progress))}"
    scenario = seeded(todo_spawn.make(variant, progress=progress), draw)
    return scenario, lambda suffix: todo_spawn.twins(scenario, progress=progress, suffix=suffix)


OSCILLATION_MODES = tuple(oscillation.SYMPTOMS)
"""The cache modes the setting can cycle through; each fails, so no cycle of them settles."""


@st.composite
def oscillation_scenarios(draw: st.DrawFn) -> Scenario:
    """A setting cycled through two to four distinct modes (a mode twice in a row would be a
    repeat, not an oscillation); restyled only with two, the one cycle that restyles."""
    return draw_oscillation(draw, OSCILLATION_MODES, st.booleans())[0]


OSCILLATION_TWIN_MODES: tuple[str, ...] = tuple(
    m for m in OSCILLATION_MODES if m != oscillation.SETTLED
)
"""Modes of an oscillation with a twin, which is never restyled: `oscillation.twins` says why."""


def draw_oscillation(
    draw: st.DrawFn, modes_drawn: Sequence[str], restyles: st.SearchStrategy[bool]
) -> tuple[Scenario, Twins]:
    """An oscillation variant, and the maker of its twins through the same modes."""
    modes = tuple(draw(st.lists(st.sampled_from(modes_drawn), min_size=2, unique=True)))
    restyled = len(modes) == 2 and draw(restyles)
    variant = f"generated-{'+'.join(modes)}" + ("-restyled" if restyled else "")
    scenario = seeded(oscillation.make(variant, modes=modes, restyled=restyled), draw)
    return scenario, lambda suffix: oscillation.twins(scenario, modes=modes, suffix=suffix)


DEPENDENCY_PERTURBATIONS = (None, "synonym", "case", "volatile-id")
"""Perturbations of the fetch's currency: an offset needs a number, which a currency is not."""


@st.composite
def dependency_unavailable_scenarios(draw: st.DrawFn) -> Scenario:
    """A dependency down for good, retried with a drawn perturbation."""
    return draw_dependency_unavailable(draw, DEPENDENCY_PERTURBATIONS)[0]


def draw_dependency_unavailable(
    draw: st.DrawFn, perturbations: Sequence[str | None]
) -> tuple[Scenario, Twins]:
    """A dependency-unavailable variant, and the maker of its twins."""
    perturbation = draw(st.sampled_from(perturbations))
    variant = f"generated-{perturbation or 'exact'}"
    scenario = seeded(dependency_unavailable.make(variant, perturbation=perturbation), draw)
    return scenario, lambda suffix: dependency_unavailable.twins(scenario, suffix=suffix)
