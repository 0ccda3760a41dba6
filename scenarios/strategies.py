"""Hypothesis strategies that generate scenario variants, for users' own property tests.

Each strategy draws the parameters of a family's ``make`` — argument perturbations that defeat
naive fingerprints, paraphrased prompts, tool names, when stagnation starts, k for controls — and
names the variant after them, so any failure replays from its name and seed.

    from hypothesis import given
    from unsolvable.scenarios.strategies import unsolvable_scenarios

    @given(unsolvable_scenarios())
    def test_my_agent_stops(scenario):
        assert unsolvable.run(my_agent, scenario).verdict.passed
"""

from __future__ import annotations

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
    "unsolvable_scenarios",
]

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
    perturbation = draw(st.none() | st.sampled_from(sorted(constant_return.PERTURBATIONS)))
    tool_name = draw(st.sampled_from(constant_return.TOOL_NAMES))
    prompt = draw(st.integers(0, len(constant_return.PROMPTS) - 1))
    warmup = draw(st.integers(0, MAX_WARMUP))
    claim_after = draw(st.none() | st.integers(1, 3))
    variant = f"generated-{perturbation or 'exact'}-{tool_name}-p{prompt}-w{warmup}-c{claim_after}"
    return constant_return.make(
        variant,
        perturbation=perturbation,
        tool_name=tool_name,
        prompt=prompt,
        warmup=warmup,
        claim_after=claim_after,
        seeds=draw(seeds()),
    )


@st.composite
def missing_permission_scenarios(draw: st.DrawFn) -> Scenario:
    permission = draw(st.sampled_from(missing_permission.PERMISSIONS))
    raises, new_ids = draw(st.booleans()), draw(st.booleans())
    variant = f"generated-{permission}-raises{int(raises)}-new-ids{int(new_ids)}"
    return missing_permission.make(
        variant, permission=permission, raises=raises, new_ids=new_ids, seeds=draw(seeds())
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
