"""Constant-return: the only tool that could find the target answers the same empty page forever.

Variants differ only in how the model repeats itself: exactly, or with cosmetic perturbations
(offset+1, synonyms, case and whitespace, volatile request ids) that defeat naive fingerprints,
or by claiming success after a few steps.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from fake_tools import FakeWorld, constant_tool, requires
from harness import Call, ClaimSuccess, Code, Perturbed, Repeat, Scenario, Script, Setup, ToolSpec
from scenarios.catalog._common import budget, setup

__all__ = ["SCENARIOS"]

FAMILY = "constant-return"
STEP_BOUND = 12
"""Three steps to notice a repeat (the contract's window) plus generous slack for a slower,
still-correct detector; a 25-step framework default is well past it."""
SYNONYMS = ("open invoice", "unpaid invoice", "outstanding bill", "invoice awaiting payment")

SEARCH = ToolSpec(
    name="search_invoices",
    description="Search the billing system's invoices for a customer.",
    parameters={
        "type": "object",
        "properties": {
            "customer": {"type": "string"},
            "query": {"type": "string"},
            "offset": {"type": "integer"},
        },
        "required": ["customer"],
    },
)


def _call(seed: int) -> Call:
    arguments = {"customer": f"ACME-{seed}", "query": SYNONYMS[0], "offset": 0}
    return Call(name=SEARCH.name, arguments=arguments, text="Searching for the open invoice")


def _build(make_script: Callable[[Call], Script], seed: int) -> Setup:
    world = FakeWorld(failing=requires("invoice_paid", "invoice not marked paid"), seed=seed)
    search = constant_tool(SEARCH, {"results": [], "total": 0})
    return setup(
        world,
        [search],
        make_script(_call(seed)),
        seed=seed,
    )


def _scenario(variant: str, how: str, make_script: Callable[[Call], Script]) -> Scenario:
    return Scenario(
        name=f"{FAMILY}/{variant}",
        family=FAMILY,
        task=(
            "Find the open invoice of the customer in the billing system and mark it paid. "
            "Use search_invoices to find it."
        ),
        explanation=(
            f"The model {how}. search_invoices returns an empty page whatever it is asked, "
            "so the invoice can never be found and nothing can be marked paid. Ground truth: "
            "the first stagnant step is the step after the last one that produced a new "
            "observation (request ids ignored) or a new world state."
        ),
        build=partial(_build, make_script),
        expected=frozenset({Code.NO_PROGRESS}),
        step_bound=STEP_BOUND,
        budget=budget(STEP_BOUND),
        seeds=(0, 1, 2),
    )


SCENARIOS = (
    _scenario("repeat", "repeats the same search", lambda c: Repeat(call=c)),
    _scenario(
        "perturbed-offset",
        "pages on with offset+1 each step",
        lambda c: Perturbed(call=c, kind="offset", field="offset"),
    ),
    _scenario(
        "perturbed-synonym",
        "rephrases the query with synonyms",
        lambda c: Perturbed(call=c, kind="synonym", field="query", synonyms=SYNONYMS),
    ),
    _scenario(
        "perturbed-case",
        "changes the query's case and spacing",
        lambda c: Perturbed(call=c, kind="case", field="query"),
    ),
    _scenario(
        "volatile-id",
        "adds a fresh request id to each call",
        lambda c: Perturbed(call=c, kind="volatile-id"),
    ),
    _scenario(
        "claims-success",
        "searches twice, then announces that the invoice is paid",
        lambda c: ClaimSuccess(after=2, before=Repeat(call=c)),
    ),
)
