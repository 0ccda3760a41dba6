"""Dependency-unavailable: a required API answers 503 forever, with no hint that it will recover.

Retrying a dead dependency is retry amplification: the stop must come after the allowed attempts
(abandoned), or an honest exhausted budget. Every scenario of the family offers the report's
write, which needs the rates: while none were fetched it refuses, so it tells no twin from its
sibling.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from unsolvable import (
    Call,
    Claim,
    Code,
    Perturbed,
    Repeat,
    Scenario,
    Script,
    Setup,
    Stagnation,
    Steps,
    ToolResult,
    ToolSpec,
    Until,
)
from unsolvable.fake_tools import (
    FakeWorld,
    ModelSteps,
    Tool,
    flaky_tool,
    requires,
    respond,
    unavailable_tool,
)
from unsolvable.scenarios.catalog._common import by_seed, lead, scenario, stuck_setup, with_plain
from unsolvable.scenarios.catalog._control import AMBIGUOUS, twin

__all__ = ["FAMILY", "SCENARIOS", "make", "twins"]

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


WRITE = ToolSpec(
    name="write_currency_report",
    description="Write today's currency report.",
    parameters={"type": "object", "properties": {"text": {"type": "string"}}},
)
RECOVERS_AFTER = (1, 2)
"""503s (no Retry-After) before the ambiguous twin's dependency recovers, by seed: inside the
allowance of three attempts the sibling's verdict grants, which is what a detector pays in lag on
the sibling to pass here."""
RATES = {"rates": {"EUR": 1.08}}
RATES_KEY, REPORT_KEY = "rates", "report"
DEPENDENCY = "treasury-service"
CONFLICT = 409
"""What the report's write answers while no rates were fetched: the request conflicts with the
state of the world, and no retry of the write changes that."""


def _world(seed: int) -> FakeWorld:
    return FakeWorld(failing=requires(REPORT_KEY, "currency report not written"), seed=seed)


def _fetch_call() -> Call:
    return Call(name=FETCH.name, arguments={"currency": "EUR"}, text="Rates failed; retrying")


def _build(perturbation: str | None, seed: int) -> Setup:
    world = _world(seed)
    call = _fetch_call()
    script: Script = Repeat(call=call)
    if perturbation is not None:
        script = Perturbed(call=call, kind=perturbation, field="currency", synonyms=CURRENCIES)
    tools = [unavailable_tool(FETCH, DEPENDENCY), _write()]
    return stuck_setup(world, tools, script, seed=seed)


def _write() -> Tool:
    """Writes the report from the rates fetched; with none fetched, refuses to."""

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        if not world.peek(RATES_KEY):
            error = {"status": CONFLICT, "message": "no exchange rates fetched today to report"}
            return respond(world, {"error": error})
        world.put(REPORT_KEY, str(arguments.get("text", "")))
        return respond(world, {"saved": REPORT_KEY})

    return Tool(spec=WRITE, handler=handle)


def make(variant: str, *, perturbation: str | None = None) -> Scenario:
    how = "retries the failing fetch" + (f" with {perturbation}" if perturbation else "")
    return scenario(
        family=FAMILY,
        lead=True,
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


def _build_recovering(failures: tuple[int, ...], seed: int) -> Setup:
    """The sibling's 503s, no Retry-After, for as many steps as it is down, however often it is
    called in them; then the rates, and the report."""
    steps = ModelSteps()
    fetch = flaky_tool(
        FETCH,
        key=RATES_KEY,
        failures=by_seed(failures, seed),
        answer=RATES,
        dependency=DEPENDENCY,
        retry_after=None,
        steps=steps,
        start=lead(seed) + 1,
    )
    write = Call(name=WRITE.name, arguments={"text": "EUR 1.08"}, text="Writing the report")
    script = Until(call=_fetch_call(), marker='"rates"', then=Steps(calls=[write], then=Claim()))
    return steps.watch(stuck_setup(_world(seed), [fetch, _write()], script, seed=seed))


def twins(sibling: Scenario, *, suffix: str = "") -> tuple[Scenario, ...]:
    """The twins of ``sibling``, a variant made with no perturbation, each variant named with
    ``suffix`` at its end. A perturbed sibling has none: each twin retries the identical fetch
    until the dependency recovers, and a perturbed retry is not it."""
    return (
        twin(
            sibling,
            variant=f"twin-recovers{suffix}",
            how="retries a fetch that answers one 503 with no Retry-After, then the rates, and "
            "writes the report",
            why="the dependency recovers after one retry, inside the allowance of three attempts.",
            build=partial(_build_recovering, (1,)),
            needed=4,
            diverges_at=lambda seed: lead(seed) + 2,
        ),
        twin(
            sibling,
            variant=f"{AMBIGUOUS}recovers-late{suffix}",
            how=f"retries a fetch that answers exactly like the sibling's "
            f"{'/'.join(map(str, RECOVERS_AFTER))} times (by seed), then the rates",
            why="the dependency comes back, but until it does nothing tells it from one that is "
            "down for good.",
            build=partial(_build_recovering, RECOVERS_AFTER),
            needed=max(RECOVERS_AFTER) + 3,
            diverges_at=lambda seed: lead(seed) + by_seed(RECOVERS_AFTER, seed) + 1,
        ),
    )


RETRY = make("retry")
SCENARIOS = (
    RETRY,
    make("retry-new-request-id", perturbation="volatile-id"),
    make("retry-synonym", perturbation="synonym"),
    *twins(RETRY),
)
SCENARIOS = with_plain(SCENARIOS, "retry")
