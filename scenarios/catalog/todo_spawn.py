"""Todo-spawn: every turn wraps its conclusion as a new to-do list and starts on its first item.

Artifacts appear at every step — the world changes, the observations are new — but no completion
criterion ever moves. Only a check of the criteria shows it.
"""

from __future__ import annotations

from functools import partial

from fake_tools import FakeWorld, append_tool, sections_tool
from harness import Call, Code, Scenario, Setup, Stagnation, Steps, TodoSpawn, ToolSpec
from scenarios.catalog._common import scenario, setup

__all__ = ["FAMILY", "SCENARIOS", "make"]

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


def _build(progress: int, seed: int) -> Setup:
    world = FakeWorld(failing=_missing, seed=seed)
    tools = [
        append_tool(ADD_TODOS, key="todos", field="items"),
        sections_tool(WRITE, key="report", total=SECTIONS),
    ]
    sections = [
        Call(name=WRITE.name, arguments={"number": n, "text": f"Section {n}."}, text="Writing")
        for n in range(1, progress + 1)
    ]
    spawn = TodoSpawn(call=Call(name=ADD_TODOS.name, text="Next steps identified"), field="items")
    return setup(world, tools, Steps(calls=sections, then=spawn), seed=seed)


def make(variant: str, *, progress: int = 0) -> Scenario:
    if progress >= SECTIONS:
        raise ValueError(f"progress={progress} would finish the report; use < {SECTIONS}")
    return scenario(
        family=FAMILY,
        variant=variant,
        task=f"Write the {SECTIONS}-section final report with write_section.",
        how=(f"writes {progress} section(s), then " if progress else "")
        + "turns every conclusion into a new to-do list instead of the next section",
        why="The to-do lists are new artifacts at every step, but the report's missing sections "
        "never change.",
        build=partial(_build, progress),
        expected={Code.NO_PROGRESS},
        step_bound=STEP_BOUND + progress,
        stagnation=Stagnation.CRITERIA,
    )


SCENARIOS = (
    make("spawn"),
    make("spawn-after-progress", progress=2),
)
