"""False-completion: the model announces success early; only a check of the world reveals it.

The deploy it started was accepted but never goes live. An agent that believes the model exits
``complete``, which the harness, re-reading the world, calls a false completion.
"""

from __future__ import annotations

from functools import partial

from unsolvable import Call, Claim, ClaimSuccess, Code, Repeat, Scenario, Setup, ToolSpec
from unsolvable.fake_tools import FakeWorld, constant_tool, requires
from unsolvable.scenarios.catalog._common import lead, scenario, stuck_setup, with_plain
from unsolvable.scenarios.catalog._control import finish, twin

__all__ = ["FAMILY", "SCENARIOS", "TWINNED", "make", "twins"]

FAMILY = "false-completion"
STEP_BOUND = 10
"""A verifier catches the claim at once; the bound leaves room for a few re-checks."""
CLAIM = "Deployment complete: v2 is live and healthy."
DEPLOY = ToolSpec(
    name="start_deploy",
    description="Start deploying a version of the service.",
    parameters={"type": "object", "properties": {"version": {"type": "string"}}},
)


def _build(claim_after: int, seed: int, frozen: bool = True) -> Setup:
    world = FakeWorld(failing=requires("live_version", "v2 is not live"), seed=seed)
    deploy = constant_tool(DEPLOY, {"deploy": "accepted", "note": "rollout blocked by a freeze"})
    if not frozen:
        deploy = finish(DEPLOY, key="live_version", field="version")
    call = Call(name=DEPLOY.name, arguments={"version": "v2"}, text="Deploying v2")
    script = ClaimSuccess(after=claim_after, before=Repeat(call=call), claim=CLAIM)
    return stuck_setup(world, [deploy], script if claim_after else Claim(text=CLAIM), seed=seed)


def make(variant: str, *, claim_after: int) -> Scenario:
    return scenario(
        family=FAMILY,
        lead=True,
        variant=variant,
        task="Deploy version v2 of the service and make sure it is live.",
        how=f"starts the deploy {claim_after} time(s), then claims it is live"
        if claim_after
        else "claims the deploy is live without doing anything",
        why="A change freeze blocks every rollout: v2 never goes live, whatever the model says.",
        build=partial(_build, claim_after),
        expected={Code.NO_PROGRESS, Code.NEEDS_HUMAN},
        step_bound=STEP_BOUND,
    )


TWINNED = 1
"""The one number of deploys before the claim with a twin. None before it: no claim of a live v2
with no deploy can be true. Two or more: once the twin's first deploy is live, the sibling's
further deploys are steps of no news in it, which stop logic rightly ends before the claim."""


def twins(sibling: Scenario, *, claim_after: int, suffix: str = "") -> tuple[Scenario, ...]:
    """The twin of ``sibling``, made with ``claim_after`` (its `make` argument; `TWINNED` says
    which has one), its variant named with ``suffix`` at its end."""
    if claim_after != TWINNED:
        raise ValueError(f"only a claim after {TWINNED} deploy has a twin, not after {claim_after}")
    return (
        twin(
            sibling,
            variant=f"twin-true-claim{suffix}",
            how="starts the deploy once, then claims it is live — the same moves as its sibling",
            why="there is no freeze: the deploy goes live, and the world confirms the claim.",
            build=partial(_build, claim_after, frozen=False),
            needed=claim_after + 1,
            diverges_at=lambda seed: lead(seed) + 1,
        ),
    )


CLAIM_AFTER_1 = make("claim-after-1", claim_after=1)
SCENARIOS: tuple[Scenario, ...] = (
    make("claim-at-once", claim_after=0),
    CLAIM_AFTER_1,
    make("claim-after-3", claim_after=3),
    *twins(CLAIM_AFTER_1, claim_after=TWINNED),
)
SCENARIOS = with_plain(SCENARIOS, "claim-after-3")
