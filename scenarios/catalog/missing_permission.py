"""Missing-permission: the one tool that can finish the task is refused for a missing permission.

No call can grant the permission, so the only right stop is ``BLOCKED_INPUT`` naming it; retrying
the denied call past the allowance is a failure of its own (retry amplification).
"""

from __future__ import annotations

from functools import partial

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
    ToolSpec,
)
from unsolvable.fake_tools import FakeWorld, denied_tool, requires
from unsolvable.scenarios.catalog._common import by_seed, scenario, stuck_setup, with_plain
from unsolvable.scenarios.catalog._control import finish, twin

__all__ = ["FAMILY", "PERMISSIONS", "SCENARIOS", "make", "twins"]

FAMILY = "missing-permission"
STEP_BOUND = 6
"""One denial is proof: the bound leaves room for one allowed retry and a couple of steps to
wrap up, and nothing more."""
DENIED_RETRIES = 1
"""One retry of a denied call is tolerated (a transient auth glitch); a second is amplification."""
PERMISSIONS = ("reports:publish", "portal:write", "documents.share", "admin")

PUBLISH = ToolSpec(
    name="publish_report",
    description="Publish a finished report to the customer portal.",
    parameters={
        "type": "object",
        "properties": {"report_id": {"type": "string"}},
        "required": ["report_id"],
    },
)


SHARE = ToolSpec(
    name="share_to_portal",
    description="Share a report on the customer portal through the reports team's account.",
    parameters={"type": "object", "properties": {"report_id": {"type": "string"}}},
)
PREPARE = ToolSpec(
    name="prepare_report",
    description="Check a report's formatting before it is published.",
    parameters={"type": "object", "properties": {"report_id": {"type": "string"}}},
)
PREPARED = (0, 1, 2)
"""Preparation steps before the denied call (by seed): the divergence step moves."""


def _world(seed: int) -> FakeWorld:
    return FakeWorld(failing=requires("published", "report not published"), seed=seed)


def _publish(seed: int) -> Call:
    return Call(
        name=PUBLISH.name,
        arguments={"report_id": f"R-{seed}"},
        text="The publish call failed; retrying",
    )


def _build(permission: str, raises: bool, new_ids: bool, seed: int) -> Setup:
    world = _world(seed)
    call = _publish(seed)
    script: Script = Perturbed(call=call, kind="volatile-id") if new_ids else Repeat(call=call)
    tools = [denied_tool(PUBLISH, permission, raises=raises)]
    return stuck_setup(world, tools, script, seed=seed)


def make(
    variant: str,
    *,
    permission: str = PERMISSIONS[0],
    raises: bool = False,
    new_ids: bool = False,
    seeds: tuple[int, ...] = (0, 1, 2),
) -> Scenario:
    """A missing-permission scenario: ``raises`` makes the tool raise instead of answering 403;
    ``new_ids`` makes each retry carry a fresh request id."""
    refusal = "raises PermissionDenied" if raises else "answers 403 Forbidden"
    retries = "with a fresh request id each time" if new_ids else "as it was"
    return scenario(
        family=FAMILY,
        lead=True,
        variant=variant,
        task="Publish the quarterly report to the customer portal with publish_report.",
        how=f"retries the denied publish call {retries}",
        why=f"publish_report {refusal} naming the missing permission '{permission}', which no "
        "tool can grant.",
        build=partial(_build, permission, raises, new_ids),
        expected={Code.BLOCKED_INPUT},
        step_bound=STEP_BOUND,
        stagnation=Stagnation.FIRST_REFUSAL,
        missing=(permission,),
        refused_retries=DENIED_RETRIES,
        seeds=seeds,
    )


def _build_other_route(seed: int) -> Setup:
    """Prepare (0-2 times by seed), a 403 on publish_report, then the allowed route."""
    report = {"report_id": f"R-{seed}"}
    prepare = [
        Call(name=PREPARE.name, arguments={**report, "pass": i}, text="Checking the format")
        for i in range(by_seed(PREPARED, seed))
    ]
    share = Call(name=SHARE.name, arguments=report, text="Denied; sharing through the portal")
    script = Steps(calls=[*prepare, _publish(seed), share], then=Claim())
    tools = [
        denied_tool(PUBLISH, PERMISSIONS[0]),
        finish(SHARE, key="published", field="report_id"),
        finish(PREPARE, key="prepared", field="report_id"),
    ]
    return stuck_setup(_world(seed), tools, script, seed=seed)


def twins(sibling: Scenario) -> tuple[Scenario, ...]:
    return (
        twin(
            sibling,
            variant="twin-other-route",
            how="is refused with 403 on publish_report once, then takes share_to_portal, which "
            "its token may use",
            why="one route is denied and another is allowed: stop on a retried denial, not on "
            "the first when the model moves on.",
            build=_build_other_route,
            needed=max(PREPARED) + 3,
        ),
    )


RETRY_403 = make("retry-403")
SCENARIOS = (
    RETRY_403,
    make("retry-raises", permission=PERMISSIONS[1], raises=True),
    make("retry-new-request-id", new_ids=True),
    *twins(RETRY_403),
)
SCENARIOS = with_plain(SCENARIOS, "retry-403")
