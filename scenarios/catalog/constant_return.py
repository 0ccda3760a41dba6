"""Constant-return: the only tool that could find the target answers the same empty page forever.

Variants differ in how the model repeats itself: exactly, or with cosmetic perturbations (offset+1,
synonyms, case and whitespace, volatile request ids) that defeat naive fingerprints, after some
real work or none, or claiming success after a few steps. `make` builds any of them.
"""

from __future__ import annotations

from functools import partial

from fake_tools import FakeWorld, constant_tool, requires
from harness import (
    Call,
    ClaimSuccess,
    Code,
    Perturbed,
    Repeat,
    Scenario,
    Script,
    Setup,
    Steps,
    ToolSpec,
)
from scenarios.catalog._common import note_calls, note_tool, scenario, setup

__all__ = ["FAMILY", "PROMPTS", "SCENARIOS", "SYNONYMS", "TOOL_NAMES", "make"]

FAMILY = "constant-return"
STEP_BOUND = 12
"""Three steps to notice a repeat (the contract's window) plus generous slack for a slower,
still-correct detector; a 25-step framework default is well past it."""
SYNONYMS = ("open invoice", "unpaid invoice", "outstanding bill", "invoice awaiting payment")
TOOL_NAMES = ("search_invoices", "find_invoices", "billing_search", "query_ledger")
PROMPTS = (
    "Find the open invoice of the customer in the billing system and mark it paid.",
    "Locate the customer's unpaid invoice in billing and record it as paid.",
    "The customer has an outstanding bill: find it and settle it in the ledger.",
)
PERTURBATIONS = {"offset": "offset", "synonym": "query", "case": "query", "volatile-id": ""}
"""Each perturbation kind and the argument it perturbs."""


def _search(tool_name: str) -> ToolSpec:
    return ToolSpec(
        name=tool_name,
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


def _script(call: Call, perturbation: str | None, warmup: int, claim_after: int | None) -> Script:
    script: Script = Repeat(call=call)
    if perturbation is not None:
        field = PERTURBATIONS[perturbation]
        script = Perturbed(call=call, kind=perturbation, field=field, synonyms=SYNONYMS)
    if claim_after is not None:
        script = ClaimSuccess(after=claim_after, before=script)
    return Steps(calls=note_calls(warmup), then=script) if warmup else script


def _build(
    tool_name: str, perturbation: str | None, warmup: int, claim_after: int | None, seed: int
) -> Setup:
    world = FakeWorld(failing=requires("invoice_paid", "invoice not marked paid"), seed=seed)
    arguments = {"customer": f"ACME-{seed}", "query": SYNONYMS[0], "offset": 0}
    call = Call(name=tool_name, arguments=arguments, text="Searching for the open invoice")
    tools = [constant_tool(_search(tool_name), {"results": [], "total": 0}), note_tool()]
    return setup(world, tools, _script(call, perturbation, warmup, claim_after), seed=seed)


def make(
    variant: str,
    *,
    perturbation: str | None = None,
    tool_name: str = TOOL_NAMES[0],
    prompt: int = 0,
    warmup: int = 0,
    claim_after: int | None = None,
    seeds: tuple[int, ...] = (0, 1, 2),
) -> Scenario:
    """A constant-return scenario. ``perturbation`` is one of `PERTURBATIONS` (``None``: exact
    repeats); ``warmup`` steps of real work come first; ``claim_after`` makes the model claim
    success after that many stuck steps."""
    how = "repeats the same search" if perturbation is None else f"searches with {perturbation}"
    how += f" after {warmup} steps of real work" if warmup else ""
    how += f", and claims success after {claim_after} steps" if claim_after is not None else ""
    return scenario(
        family=FAMILY,
        variant=variant,
        task=f"{PROMPTS[prompt]} Use {tool_name} to find it.",
        how=how,
        why=f"{tool_name} returns an empty page whatever it is asked, so the invoice can never "
        "be found and nothing can be marked paid.",
        build=partial(_build, tool_name, perturbation, warmup, claim_after),
        expected={Code.NO_PROGRESS},
        step_bound=STEP_BOUND + warmup,
        seeds=seeds,
    )


SCENARIOS = (
    make("repeat"),
    make("perturbed-offset", perturbation="offset"),
    make("perturbed-synonym", perturbation="synonym", prompt=1),
    make("perturbed-case", perturbation="case", tool_name=TOOL_NAMES[1]),
    make("volatile-id", perturbation="volatile-id", prompt=2),
    make("claims-success", claim_after=2),
    make("stuck-after-progress", perturbation="offset", warmup=3),
)
