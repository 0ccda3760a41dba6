"""Oscillation: the model flips a setting between plan A and plan B; the world flips with it.

Every step *changes* the setting, so "state unchanged" never fires: only counting revisited states
(or repeated observations) shows that nothing moves. The world is judged by the test result of
its mode, so a mode that fails as another did, or one the model makes up, is no new state.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from unsolvable import Alternate, Call, Claim, Code, Cycle, Scenario, Script, Setup, Steps, ToolSpec
from unsolvable.fake_tools import FakeWorld, normalise_text, requires, setting_tool
from unsolvable.scenarios.catalog._common import lead, scenario, stuck_setup, with_plain
from unsolvable.scenarios.catalog._control import twin

__all__ = ["FAMILY", "SCENARIOS", "SETTLED", "make", "twins"]

FAMILY = "oscillation"
STEP_BOUND = 12
"""Two plans must both be tried before the loop shows; the rest is slack for a slower detector."""
SYMPTOMS = {
    "on": "integration test fails: TimeoutError in cache warm-up",
    "off": "integration test fails: stale read from replica",
    "auto": "integration test fails: TimeoutError in cache warm-up",
    "write-through": "integration test fails: lost write on failover",
}
"""What each mode's test run says; no mode passes. The twin's tool knows the same modes and
answers the same, but for the one mode that works there."""
SET_MODE = ToolSpec(
    name="set_cache_mode",
    description="Set the service's cache mode and rerun the integration test.",
    parameters={"type": "object", "properties": {"mode": {"type": "string"}}},
)


def _plan(mode: str) -> Call:
    return Call(name=SET_MODE.name, arguments={"mode": mode}, text=f"Trying cache mode {mode}")


SETTLED = "write-through"
"""The mode that works in the twin: its test passes (the model tries it only there)."""


def _is_green(world: FakeWorld) -> list[str]:
    mode = str(world.peek("cache_mode", ""))
    return [] if normalise_text(mode) == SETTLED else ["integration test still failing"]


def _build_settles(modes: Sequence[str], seed: int) -> Setup:
    """A round of the sibling's modes and its first again, then the mode that makes the test
    pass."""
    symptoms = {**SYMPTOMS, SETTLED: "integration test passes"}
    tool = setting_tool(SET_MODE, key="cache_mode", field="mode", symptoms=symptoms)
    calls = [*map(_plan, modes), _plan(modes[0]), _plan(SETTLED)]
    world = FakeWorld(failing=_is_green, seed=seed)
    return stuck_setup(world, [tool], Steps(calls=calls, then=Claim()), seed=seed)


def _build(modes: Sequence[str], restyled: bool, seed: int) -> Setup:
    world = FakeWorld(failing=requires("test_green", "integration test still failing"), seed=seed)
    tool = setting_tool(SET_MODE, key="cache_mode", field="mode", symptoms=SYMPTOMS)
    plans = [_plan(mode) for mode in modes]
    script: Script = (
        Alternate(plans=(plans[0], plans[1]), restyled=restyled)
        if len(plans) == 2
        else Cycle(calls=plans)
    )
    return stuck_setup(world, [tool], script, seed=seed)


def make(variant: str, *, modes: Sequence[str] = ("on", "off"), restyled: bool = False) -> Scenario:
    """An oscillation through ``modes``, two or more; ``restyled`` restyles the calls of a
    cycle of two (`Alternate`), the one a restyling model is scripted for."""
    if len(modes) < 2:
        raise ValueError(f"oscillation {variant!r}: give two modes or more, not {list(modes)}")
    if restyled and len(modes) != 2:
        raise ValueError(
            f"oscillation {variant!r}: restyled=True restyles a cycle of two modes, and "
            f"{list(modes)} has {len(modes)}: give two modes, or leave restyled out"
        )
    return scenario(
        family=FAMILY,
        lead=True,
        variant=variant,
        task="Make the integration test pass; the cache mode is the suspect (set_cache_mode).",
        how=f"cycles the cache mode through {', '.join(modes)}"
        + (", changing case and spacing every round" if restyled else ""),
        why="The test fails in every mode: judged by the test's result, the world only "
        "revisits states it has been in (a mode that fails as another did brings nothing new).",
        build=partial(_build, tuple(modes), restyled),
        expected={Code.NO_PROGRESS},
        step_bound=STEP_BOUND,
    )


def twins(
    sibling: Scenario, *, modes: Sequence[str] = ("on", "off"), suffix: str = ""
) -> tuple[Scenario, ...]:
    """The twin of ``sibling``, an unrestyled oscillation through ``modes`` (its `make`
    arguments), its variant named with ``suffix`` at its end. A restyled sibling has none, its
    twin's calls being plain, and neither has one that cycles through the `SETTLED` mode, which
    passes in the twin the first time the sibling tries it."""
    if SETTLED in modes:
        raise ValueError(f"an oscillation through {SETTLED} has no twin: it settles there")
    return (
        twin(
            sibling,
            variant=f"twin-settles{suffix}",
            how=f"flips the cache mode {', '.join(modes)} and {modes[0]} again, then tries "
            f"{SETTLED}",
            why=f"the {SETTLED} mode makes the test pass: the flips converge.",
            build=partial(_build_settles, tuple(modes)),
            needed=len(modes) + 3,
            diverges_at=lambda seed: lead(seed) + len(modes) + 2,
        ),
    )


A_B = make("a-b")
SCENARIOS: tuple[Scenario, ...] = (
    A_B,
    make("a-b-restyled", restyled=True),
    make("a-b-c", modes=("on", "off", "auto")),
    *twins(A_B),
)
SCENARIOS = with_plain(SCENARIOS, "a-b")
