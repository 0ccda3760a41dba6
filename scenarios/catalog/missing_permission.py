"""Missing-permission: the one tool that can finish the task is refused for a missing permission.

No call can grant the permission, so the only right stop is ``BLOCKED_INPUT`` naming it; retrying
the denied call past the allowance is a failure of its own (retry amplification). Every scenario
of the family offers two routes to the portal — the publish call and the team's own upload — and
a task that names neither: in the unsolvable ones both are refused for the same permission, in
the twin the upload is allowed, so neither the task nor the tool list tells them apart.
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
from unsolvable._scripts import FirstThen
from unsolvable.fake_tools import FakeWorld, denied_tool, requires
from unsolvable.scenarios.catalog._common import lead, scenario, stuck_setup, with_plain
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


UPLOAD = ToolSpec(
    name="upload_report",
    description="Upload a finished report to the customer portal from your team's own workspace.",
    parameters={"type": "object", "properties": {"report_id": {"type": "string"}}},
)
TASK = "Publish the quarterly report to the customer portal."
"""Names no tool: which route the model takes is the model's move, not the task's."""


def _world(seed: int) -> FakeWorld:
    return FakeWorld(failing=requires("published", "report not published"), seed=seed)


def _publish(seed: int) -> Call:
    return Call(
        name=PUBLISH.name,
        arguments={"report_id": f"R-{seed}"},
        text="The publish call failed; retrying",
    )


def _retries(seed: int, new_ids: bool) -> Script:
    """The sibling's model: the publish call again and again, each time with a fresh request id
    or as it was."""
    call = _publish(seed)
    return Perturbed(call=call, kind="volatile-id") if new_ids else Repeat(call=call)


def _build(permission: str, raises: bool, new_ids: bool, seed: int) -> Setup:
    world = _world(seed)
    script = _retries(seed, new_ids)
    tools = [
        denied_tool(PUBLISH, permission, raises=raises),
        denied_tool(UPLOAD, permission, raises=raises),
    ]
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
        task=TASK,
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


def _build_other_route(permission: str, raises: bool, new_ids: bool, seed: int) -> Setup:
    """The sibling's denied publish call, then the team's own upload, which is allowed."""
    upload = Call(
        name=UPLOAD.name, arguments={"report_id": f"R-{seed}"}, text="Denied; uploading instead"
    )
    script: Script = Steps(calls=[_publish(seed), upload], then=Claim())
    if new_ids:  # the fresh id is the model's draw: only the sibling's own script makes it
        script = FirstThen(first=_retries(seed, new_ids), then=Steps(calls=[upload], then=Claim()))
    tools = [
        denied_tool(PUBLISH, permission, raises=raises),
        finish(UPLOAD, key="published", field="report_id"),
    ]
    return stuck_setup(_world(seed), tools, script, seed=seed)


def twins(
    sibling: Scenario,
    *,
    permission: str = PERMISSIONS[0],
    raises: bool = False,
    new_ids: bool = False,
    suffix: str = "",
) -> tuple[Scenario, ...]:
    """The twins of ``sibling``, made with its `make` arguments, each variant named with
    ``suffix`` at its end."""
    refusal = "meets a raised PermissionDenied" if raises else "is refused with 403"
    return (
        twin(
            sibling,
            variant=f"twin-other-route{suffix}",
            how=f"{refusal} on publish_report once — as its sibling is — then uploads "
            "the report from the team's own workspace, which its token may do",
            why="one route is denied and another, inside the same team, is allowed: stop on a "
            "retried denial, not on the first when the model moves on.",
            build=partial(_build_other_route, permission, raises, new_ids),
            needed=3,
            diverges_at=lambda seed: lead(seed) + 2,
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
