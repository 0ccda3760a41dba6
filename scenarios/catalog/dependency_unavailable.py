"""Dependency-unavailable: a required API answers 503 forever, with no hint that it will recover.

Retrying a dead dependency is retry amplification: the stop must come after the allowed attempts
(abandoned), or an honest exhausted budget.
"""

from __future__ import annotations

from functools import partial

from fake_tools import FakeWorld, requires, unavailable_tool
from harness import Call, Code, Perturbed, Repeat, Scenario, Script, Setup, Stagnation, ToolSpec
from scenarios.catalog._common import scenario, setup

__all__ = ["FAMILY", "SCENARIOS", "make"]

FAMILY = "dependency-unavailable"
STEP_BOUND = 8
"""Three attempts (the allowance) plus room to write the stop; a 25-step loop is far past it."""
RETRIES = 2
"""Retries after the first 503: three attempts in all, the contract's allowance for a dependency
that gives no Retry-After hint."""
CURRENCIES = ("EUR", "eur", " Euro ", "EUR/USD")

FETCH = ToolSpec(
    name="fetch_exchange_rates",
    description="Fetch today's exchange rates from the treasury service.",
    parameters={"type": "object", "properties": {"currency": {"type": "string"}}},
)


def _build(perturbation: str | None, seed: int) -> Setup:
    world = FakeWorld(failing=requires("report", "currency report not written"), seed=seed)
    call = Call(name=FETCH.name, arguments={"currency": "EUR"}, text="Rates failed; retrying")
    script: Script = Repeat(call=call)
    if perturbation is not None:
        script = Perturbed(call=call, kind=perturbation, field="currency", synonyms=CURRENCIES)
    return setup(world, [unavailable_tool(FETCH, "treasury-service")], script, seed=seed)


def make(variant: str, *, perturbation: str | None = None) -> Scenario:
    how = "retries the failing fetch" + (f" with {perturbation}" if perturbation else "")
    return scenario(
        family=FAMILY,
        variant=variant,
        task="Write today's currency report; it needs fetch_exchange_rates.",
        how=how,
        why="fetch_exchange_rates answers 503 forever, with no Retry-After hint, so the report "
        "can never be written.",
        build=partial(_build, perturbation),
        expected={Code.ERROR_FATAL, Code.NO_PROGRESS, Code.BLOCKED_INPUT},
        step_bound=STEP_BOUND,
        stagnation=Stagnation.FIRST_REFUSAL,
        refused_retries=RETRIES,
    )


SCENARIOS = (
    make("retry"),
    make("retry-new-request-id", perturbation="volatile-id"),
    make("retry-synonym", perturbation="synonym"),
)
