"""Todo-spawn: every turn wraps its conclusion as a new to-do list and starts on its first item.

Artifacts appear at every step — the world changes, the observations are new — but no completion
criterion ever moves. Only a check of the criteria shows it.
"""

from __future__ import annotations

from functools import partial

from unsolvable import Call, Code, Scenario, Setup, Stagnation, Steps, TodoSpawn, ToolSpec
from unsolvable._scripts import todo_items
from unsolvable.fake_tools import FakeWorld, Tool, append_tool, pages_tool, sections_tool
from unsolvable.scenarios.catalog._common import budget, by_seed, scenario, setup, with_plain
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
SPAWN_PROGRESS = (0, 1, 2)
"""Sections the spawning sibling of the twins writes first (by seed); its twins write them too."""
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


SPAWN_CALL = Call(name=ADD_TODOS.name, text="Next steps identified")


def _build(progress: tuple[int, ...], seed: int) -> Setup:
    world = FakeWorld(failing=_missing, seed=seed)
    sections = _sections(by_seed(progress, seed))
    spawn = TodoSpawn(call=SPAWN_CALL, field="items")
    script = Steps(calls=sections, then=spawn)
    return setup(world, _tools(), script, seed=seed, lead=len(sections))


def make(variant: str, *, progress: tuple[int, ...] = (0,)) -> Scenario:
    """``progress``: sections written before the model starts spawning to-do lists, by seed —
    real work that moves a criterion, so the first stagnant step moves with the seed, and N
    with it (background reading would not: it moves no criterion, this family's ground
    truth)."""
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
        step_bound=STEP_BOUND,
        budget=budget(STEP_BOUND + max(progress)),
        stagnation=Stagnation.CRITERIA,
    )


def _build_worked_off(progress: tuple[int, ...], seed: int) -> Setup:
    """The sibling's sections and its first to-do list, then the rest of the sections: the list
    is worked off, and every step after it moves a criterion."""
    written = by_seed(progress, seed)
    plan = Call(name=ADD_TODOS.name, arguments={"items": todo_items(1)}, text=SPAWN_CALL.text)
    script = Steps(calls=[*_sections(SECTIONS)[:written], plan, *_sections(SECTIONS)[written:]])
    return setup(FakeWorld(failing=_missing, seed=seed), _tools(), script, seed=seed)


def _build_research(progress: tuple[int, ...], seed: int) -> Setup:
    """The sibling's sections, then pages of new source material with no criterion moving,
    then the rest of the sections."""
    written = by_seed(progress, seed)
    reads = [
        Call(name=READ.name, arguments={"page": page}, text="Reading the sources")
        for page in range(1, by_seed(READS, seed) + 1)
    ]
    script = Steps(calls=[*_sections(SECTIONS)[:written], *reads, *_sections(SECTIONS)[written:]])
    return setup(FakeWorld(failing=_missing, seed=seed), _tools(), script, seed=seed)


def twins(
    sibling: Scenario, *, progress: tuple[int, ...] = SPAWN_PROGRESS, suffix: str = ""
) -> tuple[Scenario, ...]:
    """The twins of ``sibling``, made with ``progress`` (its `make` argument), each variant named
    with ``suffix`` at its end: each writes the sections its sibling writes on that seed."""
    return (
        twin(
            sibling,
            variant=f"twin-worked-off{suffix}",
            how="writes its sibling's sections and first to-do list, then works on: the rest of "
            "the sections, one a step",
            why="the to-do list is a plan that is worked off, and every step after it moves a "
            "criterion.",
            build=partial(_build_worked_off, progress),
            needed=SECTIONS + 2,
            diverges_at=lambda seed: by_seed(progress, seed) + 2,
            lead=False,
        ),
        twin(
            sibling,
            variant=f"twin-research{suffix}",
            how=f"writes its sibling's sections, then reads {'/'.join(map(str, READS))} pages "
            "of new source material (by seed) while no criterion moves, then writes the rest",
            why="the research phase brings new information at every step before the write: a "
            "criteria-stall-only stopper false-stops.",
            build=partial(_build_research, progress),
            needed=max(READS) + SECTIONS + 1,
            diverges_at=lambda seed: by_seed(progress, seed) + 1,
            lead=False,
        ),
    )


SPAWN = make("spawn", progress=SPAWN_PROGRESS)
SCENARIOS = (
    SPAWN,
    make("spawn-after-progress", progress=(2,)),
    *twins(SPAWN),
)
SCENARIOS = with_plain(SCENARIOS, "spawn")
