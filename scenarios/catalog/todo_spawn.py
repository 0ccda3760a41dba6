"""Todo-spawn: every turn wraps its conclusion as a new to-do list and starts on its first item.

Artifacts appear at every step — the world changes, the observations are new — but no completion
criterion ever moves. Only a check of the criteria shows it.
"""

from __future__ import annotations

from functools import partial

from unsolvable import Call, Claim, Code, Scenario, Setup, Stagnation, Steps, TodoSpawn, ToolSpec
from unsolvable.fake_tools import FakeWorld, Tool, append_tool, pages_tool, sections_tool
from unsolvable.scenarios.catalog._common import by_seed, scenario, setup, stuck_setup, with_plain
from unsolvable.scenarios.catalog._control import twin

__all__ = ["FAMILY", "SCENARIOS", "make", "twins"]

FAMILY = "todo-spawn"
STEP_BOUND = 12
"""A criteria-based detector needs a few steps of flat criteria; a 25-step loop is far past it."""
SECTIONS = 3
ADD_TODOS = ToolSpec(
    name="add_todos",
    description="Add items to the project's to-do list.",
    parameters={"type": "object", "properties": {"items": {"type": "array"}}},
)
WRITE = ToolSpec(
    name="write_section",
    description="Write one numbered section of the final report.",
    parameters={
        "type": "object",
        "properties": {"number": {"type": "integer"}, "text": {"type": "string"}},
    },
)


def _missing(world: FakeWorld) -> list[str]:
    written = world.peek("report", {})
    return [f"section {n} missing" for n in range(1, SECTIONS + 1) if str(n) not in written]


READ = ToolSpec(
    name="read_source",
    description="Read one page of the project's source material.",
    parameters={"type": "object", "properties": {"page": {"type": "integer"}}},
)
READS = (4, 5, 6)
"""Pages of research before the first section is written (by seed): at least four, so three
steps of flat criteria pass while new information keeps coming."""


def _tools() -> list[Tool]:
    return [
        append_tool(ADD_TODOS, key="todos", field="items"),
        sections_tool(WRITE, key="report", total=SECTIONS),
        pages_tool(READ, key="pages_read", lines_per_page=4),
    ]


def _sections(count: int) -> list[Call]:
    return [
        Call(name=WRITE.name, arguments={"number": n, "text": f"Section {n}."}, text="Writing")
        for n in range(1, count + 1)
    ]


def _build(progress: tuple[int, ...], seed: int) -> Setup:
    world = FakeWorld(failing=_missing, seed=seed)
    sections = _sections(by_seed(progress, seed))
    spawn = TodoSpawn(call=Call(name=ADD_TODOS.name, text="Next steps identified"), field="items")
    return setup(world, _tools(), Steps(calls=sections, then=spawn), seed=seed)


def make(variant: str, *, progress: tuple[int, ...] = (0,)) -> Scenario:
    """``progress``: sections written before the model starts spawning to-do lists, by seed —
    real work that moves a criterion, so the first stagnant step moves with the seed (background
    reading would not: it moves no criterion, which is this family's ground truth)."""
    if max(progress) >= SECTIONS:
        raise ValueError(f"progress={progress} would finish the report; use < {SECTIONS}")
    written = "/".join(map(str, progress))
    return scenario(
        family=FAMILY,
        variant=variant,
        task=f"Write the {SECTIONS}-section final report with write_section.",
        how=(f"writes {written} section(s) (by seed), then " if max(progress) else "")
        + "turns every conclusion into a new to-do list instead of the next section",
        why="The to-do lists are new artifacts at every step, but the report's missing sections "
        "never change.",
        build=partial(_build, progress),
        expected={Code.NO_PROGRESS},
        step_bound=STEP_BOUND + max(progress),
        stagnation=Stagnation.CRITERIA,
    )


def _build_worked_off(seed: int) -> Setup:
    """One to-do list naming the sections, then each section written: the list is worked off
    and every item moves a criterion."""
    todos = [f"write section {n}" for n in range(1, SECTIONS + 1)]
    plan = Call(name=ADD_TODOS.name, arguments={"items": todos}, text="Next steps identified")
    script = Steps(calls=[plan, *_sections(SECTIONS)], then=Claim())
    return stuck_setup(FakeWorld(failing=_missing, seed=seed), _tools(), script, seed=seed)


def _build_research(seed: int) -> Setup:
    """Pages of new source material, no criterion moving, then the sections."""
    reads = [
        Call(name=READ.name, arguments={"page": page}, text="Reading the sources")
        for page in range(1, by_seed(READS, seed) + 1)
    ]
    script = Steps(calls=[*reads, *_sections(SECTIONS)], then=Claim())
    return stuck_setup(FakeWorld(failing=_missing, seed=seed), _tools(), script, seed=seed)


def twins(sibling: Scenario) -> tuple[Scenario, ...]:
    return (
        twin(
            sibling,
            variant="twin-worked-off",
            how="writes a to-do list of the sections, then works it off, one section a step",
            why="the to-do list is a plan, and every item of it moves a criterion.",
            build=_build_worked_off,
            needed=SECTIONS + 2,
        ),
        twin(
            sibling,
            variant="twin-research",
            how=f"reads {'/'.join(map(str, READS))} pages of new source material (by seed) "
            "while no criterion moves, then writes the sections",
            why="the research phase brings new information at every step before the write: a "
            "criteria-stall-only stopper false-stops.",
            build=_build_research,
            needed=max(READS) + SECTIONS + 1,
        ),
    )


SPAWN = make("spawn", progress=(0, 1, 2))
SCENARIOS = (
    SPAWN,
    make("spawn-after-progress", progress=(2,)),
    *twins(SPAWN),
)
SCENARIOS = with_plain(SCENARIOS, "spawn")
