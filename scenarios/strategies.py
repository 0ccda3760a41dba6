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
a generated constant-return or missing-permission variant with one of its solvable twins, built
from the same drawn parameters (each twin is its sibling until its declared divergence step),
and ``twin_scenarios()`` the twins alone, each named after its kind and its sibling's variant:

    @given(sibling_and_twin())
    def test_my_agent_stops_only_when_stuck(pair):
        sibling, twin = pair
        assert unsolvable.run(my_agent, sibling).verdict.passed
        assert unsolvable.run(my_agent, twin).verdict.passed

Only variants that have a twin are drawn there: exact repeats that claim nothing
(`constant_return.twins` says why), and every missing-permission variant.
"""

from __future__ import annotations

from collections.abc import Callable

try:
    from hypothesis import strategies as st
except ImportError as error:  # an extra: its pytest plugin costs every pytest run
    raise ImportError(
        "unsolvable: unsolvable.scenarios.strategies needs hypothesis, which is not installed; "
        "pip install 'pytest-unsolvable[strategies]'"
    ) from error

from unsolvable import Scenario
from unsolvable.scenarios.catalog import (
    constant_return,
    long_healthy,
    missing_permission,
    poll_until_ready,
    slow_dependency,
)

__all__ = [
    "MAX_SEED",
    "constant_return_scenarios",
    "control_scenarios",
    "missing_permission_scenarios",
    "seeds",
    "sibling_and_twin",
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
    return constant_return_scenarios() | missing_permission_scenarios()


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
def sibling_and_twin(draw: st.DrawFn) -> tuple[Scenario, Scenario]:
    """A generated unsolvable variant and one of its solvable twins, drawn from the parameters
    that have one (`constant_return.twins`, `missing_permission.twins`): the twin is named
    after the variant, its kind first."""
    family = draw(st.sampled_from((constant_return.FAMILY, missing_permission.FAMILY)))
    if family == constant_return.FAMILY:
        sibling, twins = _constant_return(draw, perturbations=st.none(), claims=st.none())
    else:
        sibling, twins = _missing_permission(draw)
    return sibling, draw(st.sampled_from(twins(f"-{sibling.name.partition('/')[2]}")))


def twin_scenarios() -> st.SearchStrategy[Scenario]:
    """The solvable twins of generated unsolvable variants (`sibling_and_twin`)."""
    return sibling_and_twin().map(lambda pair: pair[1])
