"""Busy-idle: the model searches a codebase for a function that was renamed upstream, pattern
after pattern. Every search is work, every answer looks new (it echoes its pattern), and nothing
in the world ever changes: a watchdog on activity never fires, because every turn is active. The
harness judges an answer without its echo: a search that finds nothing is no news.

Idle time must be measured from the last change of state, not the last call: the budget of
``max_idle_seconds`` runs out while the agent is as busy as ever. Its twin's search finds the
renamed function after a few misses, and the patch moves the task.
"""

from __future__ import annotations

from functools import partial

from unsolvable import (
    Alternate,
    Budget,
    Call,
    Claim,
    Code,
    Perturbed,
    Scenario,
    Script,
    Setup,
    Stagnation,
    Steps,
    ToolSpec,
)
from unsolvable.fake_tools import Criterion, FakeWorld, Tool, failing, search_tool, writer_tool
from unsolvable.scenarios.catalog._common import by_seed, lead, scenario, stuck_setup
from unsolvable.scenarios.catalog._control import twin

__all__ = ["FAMILY", "SCENARIOS"]

FAMILY = "busy-idle"
SEARCH_SECONDS = 40.0
"""What one search of the monorepo takes on the session clock."""
IDLE_BUDGET = 630.0
"""Ten and a half minutes since the last change: sixteen searches spend it, with a quarter of a
search of margin, so real time (microseconds) never decides where it runs out."""
STEP_CAP = 40
STEP_BOUND = 20
"""Sixteen searches, the longest background reading (2), and two steps of room."""
SCANNED = 18_412
PATTERNS = (
    "parse_config", "parseConfig", "load_config", "read_config", "config_parse", "ConfigParser",
    "parse_cfg", "get_config", "parse_settings", "load_conf", "cfg_load", "read_cfg",
    "config.load", "parse_yaml_config", "ConfigLoader", "from_config", "config_from_file",
    "load_cfg", "read_settings", "settings_load", "init_config", "configure_from", "conf_parse",
    "parseCfg",
)  # fmt: skip
"""What the model tries, one a search: more than the idle budget lets an agent make."""
RENAMED = "load_settings"
PATCHED = "patched"
HITS = (
    "src/app/main.py:14: settings = load_settings(path)",
    "src/app/worker.py:9: load_settings(os.environ['CONFIG'])",
)
MISSES_FIRST = (3, 4, 5)
"""Patterns the twin's model misses before it tries the new name (by seed)."""

SEARCH = ToolSpec(
    name="search_code",
    description="Search the monorepo for a pattern (takes about 40 s).",
    parameters={"type": "object", "properties": {"pattern": {"type": "string"}}},
)
PATCH = ToolSpec(
    name="apply_patch",
    description="Apply a patch that updates the call sites.",
    parameters={"type": "object", "properties": {"patch": {"type": "string"}}},
)


def _budget() -> Budget:
    return Budget(max_steps=STEP_CAP, max_tokens=STEP_CAP * 2_000, max_idle_seconds=IDLE_BUDGET)


UPDATED = Criterion(name="call sites not updated", holds=lambda patch: RENAMED in patch)
"""A patch updates the call sites when it calls the function by its new name: one that does not
leaves them as they were, so it neither completes the task nor changes the world."""


def _world(seed: int) -> FakeWorld:
    """The call sites as they are, judged as a patch that does not name the new function is: a
    blind patch is then no change of state, and restarts no idle clock."""
    world = FakeWorld(failing=lambda w: failing((UPDATED,), w.peek(PATCHED)), seed=seed)
    world.put(PATCHED, "", judged_as=failing((UPDATED,), ""))
    return world


def _tools() -> list[Tool]:
    found = {RENAMED: HITS}
    search = search_tool(
        SEARCH, field="pattern", found=found, scanned=SCANNED, seconds=SEARCH_SECONDS
    )
    return [search, writer_tool(PATCH, key=PATCHED, field="patch", criteria=(UPDATED,))]


def _search(pattern: str) -> Call:
    return Call(name=SEARCH.name, arguments={"pattern": pattern}, text="Searching for it")


def _build(script: Script, seed: int) -> Setup:
    return stuck_setup(_world(seed), _tools(), script, seed=seed)


def _build_found(seed: int) -> Setup:
    """The sibling's first patterns, then the new name found, then the patch."""
    misses = [_search(p) for p in PATTERNS[: by_seed(MISSES_FIRST, seed)]]
    patch = Call(
        name=PATCH.name, arguments={"patch": f"use {RENAMED}"}, text="Updating the call sites"
    )
    script = Steps(calls=[*misses, _search(RENAMED), patch], then=Claim())
    return stuck_setup(_world(seed), _tools(), script, seed=seed)


NEW_PATTERNS = Perturbed(call=_search(PATTERNS[0]), kind="synonym", field="pattern",
                         synonyms=PATTERNS)  # fmt: skip
TWO_PATTERNS = Alternate(plans=(_search(PATTERNS[0]), _search(PATTERNS[2])))
TASK = "Update every call site of parse_config: its signature changed upstream."


def make(variant: str, *, script: Script, how: str, stagnation: Stagnation) -> Scenario:
    return scenario(
        family=FAMILY,
        lead=True,
        variant=variant,
        task=TASK,
        how=how,
        why="The function was renamed upstream and the model never tries the new name: every "
        "search takes 40 s, finds nothing, and changes nothing, so the time since the last "
        "change of state grows while the agent stays busy.",
        build=partial(_build, script),
        expected={Code.BUDGET_IDLE, Code.NO_PROGRESS},
        step_bound=STEP_BOUND,
        budget=_budget(),
        stagnation=stagnation,
    )


NEW_PATTERN = make(
    "new-pattern-each-time",
    script=NEW_PATTERNS,
    how=f"searches for a new spelling of the function every step ({len(PATTERNS)} of them), "
    "each answer empty and new only in the pattern it echoes",
    stagnation=Stagnation.BUDGET_SPENT,
)
SCENARIOS: tuple[Scenario, ...] = (
    NEW_PATTERN,
    make(
        "alternating-searches",
        script=TWO_PATTERNS,
        how="alternates two near-identical searches for 40 s each, as an agent did for 50 "
        "minutes on a file deleted upstream",
        stagnation=Stagnation.NOVELTY,
    ),
    twin(
        NEW_PATTERN,
        variant="twin-finds-the-rename",
        how=f"misses {'/'.join(map(str, MISSES_FIRST))} spellings (by seed), as the sibling "
        f"does, then searches for {RENAMED}, finds the call sites and patches them",
        why="the new name is found after a few minutes of misses, well inside the idle "
        "budget, and the patch moves the task.",
        build=_build_found,
        needed=max(MISSES_FIRST) + 3,
        diverges_at=lambda seed: lead(seed) + by_seed(MISSES_FIRST, seed) + 1,
        budget=_budget(),
    ),
)
