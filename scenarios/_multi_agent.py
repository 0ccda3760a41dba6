"""Consumes hypothesis's draws, produces variants of the multi-agent families whose ``make`` takes
parameters (fan-out, mixed fan-out, task graphs, nested delegation, duplicate dispatch, role
ping-pong), each named after what was drawn."""

from __future__ import annotations

from hypothesis import strategies as st

from unsolvable import Scenario
from unsolvable.scenarios._drawing import Twins, seeded, under_the_ceiling
from unsolvable.scenarios.catalog import (
    duplicate_dispatch,
    fan_out,
    mixed_fan_out,
    nested_delegation,
    role_ping_pong,
    task_graph,
)

__all__ = [
    "DUPLICATE_DISPATCH_SUPPLIERS",
    "DUPLICATE_DISPATCH_TWIN_SUPPLIERS",
    "FAN_OUT_STORM_WORKERS",
    "FAN_OUT_TWIN_WORKERS",
    "FAN_OUT_WORKERS",
    "MIXED_FAN_OUT_WORKERS",
    "NESTED_DELEGATION_SUPPLIERS",
    "ROLE_PING_PONG_CRITERIA",
    "TASK_GRAPH_CHAIN",
    "TASK_GRAPH_SWALLOWED_CHAIN",
    "draw_fan_out",
    "duplicate_dispatch_and_twin",
    "duplicate_dispatch_scenarios",
    "fan_out_scenarios",
    "mixed_fan_out_scenarios",
    "multi_agent_scenarios",
    "nested_delegation_scenarios",
    "role_ping_pong_scenarios",
    "task_graph_scenarios",
]

FAN_OUT_WORKERS = under_the_ceiling(
    lambda workers: fan_out.make("ceiling", workers=workers), start=1
)
"""Workers of a fan-out, 1 to 39: its N (five steps a worker, and one, after the longest
background reading) stays under the harness's 200-step ceiling, past which a run that never
stops is cut off before it overruns N."""


FAN_OUT_TWIN_WORKERS: range = FAN_OUT_WORKERS[1:]
"""Workers of a fan-out with a twin: a single worker has none (`fan_out.twins` says why)."""


FAN_OUT_STORM_WORKERS = under_the_ceiling(
    lambda workers: fan_out.make("ceiling", workers=workers, rate_limited=True), start=2
)
"""Workers of a rate-limit storm, 2 to 39: with one, the fan-out's budget of six steps is spent
at the step whose wait spends the idle budget on a seed whose background reading takes two, so
steps and not the idle budget end the run (and its twin does not fit that budget); its N is the
storm's whatever the workers, but its step budget is the fan-out's, which past 39 workers is over
the harness's 200-step ceiling. Every storm drawn has a twin."""


@st.composite
def fan_out_scenarios(draw: st.DrawFn) -> Scenario:
    """A supervisor whose workers all get stuck, with the number of workers drawn; drawn too,
    whether they look up files that are not on record or retry at once a registry that answers
    every call 429 (a rate-limit storm)."""
    return draw_fan_out(draw, FAN_OUT_WORKERS)[0]


def draw_fan_out(draw: st.DrawFn, workers_drawn: range) -> tuple[Scenario, Twins]:
    """A fan-out variant, of ``workers_drawn`` workers or a storm of `FAN_OUT_STORM_WORKERS`, and
    the maker of its twins with the same number of workers."""
    rate_limited = draw(st.booleans())
    workers = draw(st.sampled_from(FAN_OUT_STORM_WORKERS if rate_limited else workers_drawn))
    variant = f"generated-{'rate-limited-' if rate_limited else ''}workers{workers}"
    scenario = seeded(fan_out.make(variant, workers=workers, rate_limited=rate_limited), draw)
    return scenario, lambda suffix: fan_out.twins(
        scenario, workers=workers, suffix=suffix, rate_limited=rate_limited
    )


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


MIXED_FAN_OUT_WORKERS = under_the_ceiling(
    lambda workers: mixed_fan_out.make("ceiling", kind="denied", workers=workers), start=2
)
"""Workers of a mixed fan-out, 2 to 62: one audit at least finishes beside the blocked one, so
the stop has a partial result to list; and its N (three steps a worker, and nine) stays under
the harness's 200-step ceiling after the longest background reading."""


@st.composite
def mixed_fan_out_scenarios(draw: st.DrawFn) -> Scenario:
    """Workers that all finish but the last, blocked by a refusal, a dead registry, its 503
    swallowed or a registry that hangs, with the number of workers and the blocker drawn."""
    workers = draw(st.sampled_from(MIXED_FAN_OUT_WORKERS))
    kind = draw(st.sampled_from(mixed_fan_out.KINDS))
    variant = f"generated-{kind}-workers{workers}"
    return seeded(mixed_fan_out.make(variant, kind=kind, workers=workers), draw)


TASK_GRAPH_CHAIN = range(1, 22)
"""Links of a task graph's chain before the search, 1 to 21: each makes the supervisor's
conversation a wave longer, and past 21 it spends the token budget (N's steps' worth) before a
supervisor that runs every dispatch reaches the skipped answer (past 22, before the contract
stops on the failed search): the run ends on tokens, not on the failure it is about."""

TASK_GRAPH_SWALLOWED_CHAIN = range(1, 21)
"""Links of a task graph's chain before a search whose worker swallows the 503, 1 to 20: past
20, a supervisor that takes its worker's word spends the token budget before it dispatches the
answer on the sources that never came, as past 21 for the dead API."""


@st.composite
def task_graph_scenarios(draw: st.DrawFn) -> Scenario:
    """A task graph whose search meets a dead API after a chain of a drawn number of links, each
    on the one before, and whose answer joins the search; drawn too, whether the search's worker
    retries the API or swallows its 503 into an empty success."""
    swallows = draw(st.booleans())
    chain = draw(st.sampled_from(TASK_GRAPH_SWALLOWED_CHAIN if swallows else TASK_GRAPH_CHAIN))
    variant = f"generated-{'swallowed-' if swallows else ''}chain{chain}"
    return seeded(task_graph.make(variant, chain=chain, swallows=swallows), draw)


NESTED_DELEGATION_SUPPLIERS = under_the_ceiling(
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
    return seeded(nested_delegation.make(variant, suppliers=suppliers), draw)


DUPLICATE_DISPATCH_SUPPLIERS = under_the_ceiling(
    lambda suppliers: duplicate_dispatch.make("ceiling", suppliers=suppliers), start=2
)
"""Suppliers of a duplicate dispatch, 2 to 62: one at least in the first wave, whose return is
lost, and one never dispatched; and the budget (its twin's work, three steps an audit, and
room) stays under the harness's 200-step ceiling, as N does."""


@st.composite
def duplicate_dispatch_scenarios(draw: st.DrawFn) -> Scenario:
    """Audits of a drawn number of suppliers, all but the last dispatched at once, the last of
    those dispatched again and again, the last never; drawn too, whether that one's return is
    lost or its filing refused a permission."""
    suppliers = draw(st.sampled_from(DUPLICATE_DISPATCH_SUPPLIERS))
    denied = draw(st.booleans())
    variant = _duplicate_dispatch_variant(suppliers, denied)
    return seeded(duplicate_dispatch.make(variant, suppliers=suppliers, denied=denied), draw)


def _duplicate_dispatch_variant(suppliers: int, denied: bool) -> str:
    """A generated duplicate dispatch's name: its kind, if its filing is refused, and its
    suppliers."""
    return f"generated-{'denied-' if denied else ''}suppliers{suppliers}"


DUPLICATE_DISPATCH_TWIN_SUPPLIERS = range(3, DUPLICATE_DISPATCH_SUPPLIERS.stop)
"""Suppliers of a duplicate dispatch drawn with its twin, 3 to 62: an audit at least is filed
before the lost one's filing fails (with two, the failed filing is all the work there is, and
its worker's claim said again reads as no progress, so an honest stop logic stops the twin)."""


@st.composite
def duplicate_dispatch_and_twin(draw: st.DrawFn) -> tuple[Scenario, Scenario]:
    """A generated duplicate dispatch and its twin with the same suppliers, whose lost audit's
    filing meets one 503 (or, where the sibling's is refused a permission, that refusal, the
    permission granted before the second filing) and is dispatched again after it: a retry with
    a reason. The twin is named after the variant, its kind first, as `sibling_and_twin`'s
    are."""
    suppliers = draw(st.sampled_from(DUPLICATE_DISPATCH_TWIN_SUPPLIERS))
    denied = draw(st.booleans())
    variant = _duplicate_dispatch_variant(suppliers, denied)
    sibling = seeded(duplicate_dispatch.make(variant, suppliers=suppliers, denied=denied), draw)
    kind = "twin-permission-granted" if denied else "twin-retry-after-failure"
    return sibling, duplicate_dispatch.retry_twin(
        sibling, suppliers=suppliers, variant=f"{kind}-{variant}", denied=denied
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
    return seeded(role_ping_pong.make(variant, criteria=criteria), draw)
