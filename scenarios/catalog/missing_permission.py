"""Missing-permission: the one tool that can finish the task is refused for a missing permission.

No call can grant the permission, so the only right stop is ``BLOCKED_INPUT`` naming it; retrying
the denied call past the allowance is a failure of its own (retry amplification).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from fake_tools import FakeWorld, denied_tool, requires
from harness import Call, Code, Perturbed, Repeat, Scenario, Script, Setup, Stagnation, ToolSpec
from scenarios.catalog._common import budget, setup

__all__ = ["SCENARIOS"]

FAMILY = "missing-permission"
STEP_BOUND = 6
"""One denial is proof: the bound leaves room for one allowed retry and a couple of steps to
wrap up, and nothing more."""
DENIED_RETRIES = 1
"""One retry of a denied call is tolerated (a transient auth glitch); a second is amplification."""

PUBLISH = ToolSpec(
    name="publish_report",
    description="Publish a finished report to the customer portal.",
    parameters={
        "type": "object",
        "properties": {"report_id": {"type": "string"}},
        "required": ["report_id"],
    },
)


def _build(
    permission: str, raises: bool, make_script: Callable[[Call], Script], seed: int
) -> Setup:
    world = FakeWorld(failing=requires("published", "report not published"), seed=seed)
    call = Call(
        name=PUBLISH.name,
        arguments={"report_id": f"R-{seed}"},
        text="The publish call failed; retrying",
    )
    return setup(
        world,
        [denied_tool(PUBLISH, permission, raises=raises)],
        make_script(call),
        seed=seed,
    )


def _scenario(
    variant: str, permission: str, how: str, make_script: Callable[[Call], Script], raises: bool
) -> Scenario:
    refusal = "raises PermissionDenied" if raises else "answers 403 Forbidden"
    return Scenario(
        name=f"{FAMILY}/{variant}",
        family=FAMILY,
        task="Publish the quarterly report to the customer portal with publish_report.",
        explanation=(
            f"The model {how}. publish_report {refusal} naming the missing permission "
            f"'{permission}', which no tool can grant. Ground truth: the first stagnant step is "
            "the step of the first denial."
        ),
        build=partial(_build, permission, raises, make_script),
        expected=frozenset({Code.BLOCKED_INPUT}),
        step_bound=STEP_BOUND,
        budget=budget(STEP_BOUND),
        stagnation=Stagnation.FIRST_REFUSAL,
        missing=(permission,),
        refused_retries=DENIED_RETRIES,
        seeds=(0, 1, 2),
    )


SCENARIOS = (
    _scenario(
        "retry-403",
        "reports:publish",
        "retries the denied publish call",
        lambda c: Repeat(call=c),
        raises=False,
    ),
    _scenario(
        "retry-raises",
        "portal:write",
        "retries the denied publish call",
        lambda c: Repeat(call=c),
        raises=True,
    ),
    _scenario(
        "retry-new-request-id",
        "reports:publish",
        "retries the denied call with a fresh request id each time",
        lambda c: Perturbed(call=c, kind="volatile-id"),
        raises=False,
    ),
)
