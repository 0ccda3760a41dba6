"""Todo-spawn: every turn wraps its conclusion as a new to-do list and starts on its first item —
or, across agents, every worker hands its subtask back naming new subtasks, which its supervisor
dispatches, whose workers name more.

Artifacts appear at every step — the world changes, the observations are new — but no completion
criterion ever moves. Only a check of the criteria shows it.
"""

from __future__ import annotations

import random
import re
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

from unsolvable import (
    GIVE_UP_TOOL,
    Call,
    Ceilings,
    Claim,
    Code,
    ModelRequest,
    ModelResponse,
    Scenario,
    Setup,
    Stagnation,
    Steps,
    TodoSpawn,
    ToolResult,
    ToolSpec,
)
from unsolvable._moves import own_step, single_call
from unsolvable._scripts import todo_items
from unsolvable.fake_tools import (
    FakeWorld,
    Tool,
    append_tool,
    pages_tool,
    respond,
    sections_tool,
)
from unsolvable.scenarios.catalog._audits import (
    LOOKUP,
    WORKER_STEPS,
    audits,
    file_call,
    filing,
    in_words,
    lookup_call,
    subtask,
)
from unsolvable.scenarios.catalog._common import (
    budget,
    by_seed,
    give_up_tool,
    scenario,
    setup,
    with_plain,
)
from unsolvable.scenarios.catalog._control import SLACK, twin
from unsolvable.scenarios.catalog._delegation import Wave, Waves, delegated_setup

__all__ = ["FAMILY", "SCENARIOS", "across_twin", "make", "twins"]

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


AUDITS = 4
"""The audits the task across workers asks for: S-1's, S-2's, and those of S-3 and S-4, the two
sub-suppliers S-1's audit waits on."""
HANDED_BACK = 2
"""What a worker that hands its subtask back takes: the lookup, and its `give_up` naming the
audits its own waits on."""
ACROSS_BOUND = 1 + HANDED_BACK + WORKER_STEPS + 1 + HANDED_BACK + 3
"""The first wave (S-1's worker hands its audit back, S-2's files its own), the first spawned
subtask's dispatch and its worker's hand-back, the first evidence that the queue only grows,
and room for the stop."""
ACROSS_NEEDS = 1 + HANDED_BACK + WORKER_STEPS + 3 * (1 + WORKER_STEPS) + 1
"""The twin's work: the first wave, S-3's and S-4's audits, S-1's dispatched again, the claim."""
QUEUE = Ceilings.max_steps
"""Subtasks of the growing queue the supervisor's script holds, dispatched one a step: each takes
a step at least, so no run reaches the queue's end before the harness's default step ceiling,
even one without a cap of its own."""
Spawns = Callable[[int], tuple[int, ...]]
"""The sub-suppliers a supplier's audit waits on, by its number."""


def _sub_suppliers(number: int) -> tuple[int, ...]:
    """Every supplier's audit waits on two sub-suppliers', S-(2n+1)'s and S-(2n+2)'s, but
    S-2's, which waits on none: the queue grows by one with every subtask worked."""
    return () if number == 2 else (2 * number + 1, 2 * number + 2)


def _worked_off(number: int) -> tuple[int, ...]:
    """The twin's: only S-1's audit waits, on S-3's and S-4's, which wait on none."""
    return (3, 4) if number == 1 else ()


def _queue(length: int) -> tuple[int, ...]:
    """The suppliers whose audits the workers' reports name, in the order they are named: S-1's
    two, then each of theirs, breadth first."""
    waiting, named = deque(_sub_suppliers(1)), list[int]()
    while len(named) < length:
        number = waiting.popleft()
        named.append(number)
        waiting.extend(_sub_suppliers(number))
    return tuple(named)


def _registry(spawns: Spawns) -> Tool:
    """The supplier registry: every supplier's compliance file on record, with the audits it
    waits on (``spawns``) that are not filed yet."""

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        number = str(arguments.get("supplier", "")).removeprefix("S-")
        if not number.isdecimal() or int(number) < 1:
            return respond(world, {"file": None})
        filed = world.get("audits", {})
        waits = [f"S-{n}" for n in spawns(int(number)) if str(n) not in filed]
        record = {"file": f"CF-{number}", "status": "on record", "awaiting_audits": waits}
        return respond(world, record)

    return Tool(spec=LOOKUP, handler=handle)


class _HandsBack:
    """A worker that looks its supplier up, then files the audit, or, when the record names
    audits it waits on, hands its subtask back (`give_up`) naming them as subtasks to dispatch
    first; asked on, it says which of the two it did. It keeps nothing between steps, so one
    instance serves every worker of its supplier."""

    def __init__(self, number: int) -> None:
        self.number = number

    def reply(self, request: ModelRequest, rng: random.Random) -> ModelResponse:
        step, supplier = own_step(request), f"S-{self.number}"
        if step == 1:
            return single_call(lookup_call(self.number), request)
        if step == 2:  # its record, by its file's id: a check's answer names audits too
            records = [result for result in request.results if f'"CF-{self.number}"' in result]
            named = re.findall(r"\bS-\d+\b", " ".join(records))
            waits = list(dict.fromkeys(n for n in named if n != supplier))
            if not waits:
                return single_call(file_call(self.number), request)
            reason = (
                f"{supplier}'s audit waits on those of {' and '.join(waits)}: dispatch them first"
            )
            give_up = Call(name=GIVE_UP_TOOL, arguments={"reason": reason}, text="Handing it back")
            return single_call(give_up, request)
        if any('"saved"' in result for result in request.results):
            return ModelResponse(content=f"The audit of {supplier} is filed.")
        return ModelResponse(content=f"{supplier}'s audit waits on others: dispatch them first.")


def _across(seed: int, *, queue: Sequence[int], spawns: Spawns) -> Setup:
    """The supervisor delegates S-1's and S-2's audits, then the ``queue``, one a step; each
    worker does its audit or hands it back (`_HandsBack`), as its record (``spawns``) says."""
    first = Wave(subtasks=[subtask(1), subtask(2)], text="Splitting the first audits")
    waves = [Wave(subtasks=[subtask(n)], text=f"Dispatching the audit of S-{n}") for n in queue]
    script = Waves(
        waves=[first, *waves],
        workers={subtask(n): _HandsBack(n) for n in (1, 2, *queue)},
        then=Claim(text=f"All {in_words(AUDITS)} audits are filed."),
    )
    numbers = range(1, AUDITS + 1)
    tools = [_registry(spawns), filing(numbers), give_up_tool()]  # a worker hands back with it
    return delegated_setup(audits(numbers), tools, script, seed=seed)


def _across_workers(variant: str) -> Scenario:
    """The variant across workers (`make`'s ``across_workers``)."""
    return scenario(
        family=FAMILY,
        variant=variant,
        task=f"Audit the compliance files of {in_words(AUDITS)} suppliers; delegate one per "
        "worker.",
        how="as supervisor, delegates S-1's and S-2's audits; S-2's is filed, but S-1's worker "
        "hands its subtask back naming S-3's and S-4's audits to do first, and every worker "
        "it dispatches from that queue, one a step, hands its own back naming two more",
        why="The queue of subtasks grows with every report, and no audit after S-2's is ever "
        "filed: new subtasks and new records at every step, and no criterion moves.",
        build=partial(_across, queue=_queue(QUEUE), spawns=_sub_suppliers),
        expected={Code.NO_PROGRESS},
        step_bound=ACROSS_BOUND,
        budget=budget(ACROSS_NEEDS + SLACK),
        stagnation=Stagnation.CRITERIA,
    )


def make(
    variant: str, *, progress: tuple[int, ...] = (0,), across_workers: bool = False
) -> Scenario:
    """``progress``: sections written before the model starts spawning to-do lists, by seed —
    real work that moves a criterion, so the first stagnant step moves with the seed, and N
    with it (background reading would not: it moves no criterion, this family's ground
    truth).

    ``across_workers``: the loop runs across a supervisor's workers instead: each worker hands
    its subtask back naming two more, and the supervisor dispatches them. Its first stagnant
    step is the family's: the step after the last that moved a criterion — S-2's filing, the
    last audit ever filed, so the step of its worker's claim (step 6) — while every step after
    it brings a new subtask or a new record; the first spawned subtask's record, two steps on,
    is where the twin first differs. It has no background reading: reading moves no criterion,
    so it would move N and not the first stagnant step of a system that runs no worker of its
    own (where no audit is ever filed, and the first step is stagnant); its seeds vary the
    dialect."""
    if across_workers:
        if progress != (0,):
            raise ValueError(
                f"todo-spawn: progress={progress} counts sections a single agent writes, and "
                "across_workers writes none; give one or the other"
            )
        return _across_workers(variant)
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


def across_twin(sibling: Scenario, *, suffix: str = "") -> Scenario:
    """The twin of ``sibling``, a `make` ``across_workers`` variant, named with ``suffix`` at its
    end: S-3's and S-4's records name no audits they wait on, so their workers file them, and
    S-1's, dispatched again, is filed after them; the supervisor's fourth move is the first that
    differs."""
    return twin(
        sibling,
        variant=f"twin-subtasks-worked-off{suffix}",
        how="as supervisor, delegates S-1's and S-2's audits; S-1's worker hands its subtask "
        "back naming S-3's and S-4's audits, whose workers file them, then it dispatches S-1 "
        "again, which is filed",
        why="the spawned subtasks are worked off: S-3 and S-4 wait on no one, and S-1's audit "
        f"is filed after theirs. Identical to {sibling.name} until S-3's record, which names "
        "no audit it waits on.",
        build=partial(_across, queue=(*_worked_off(1), 1), spawns=_worked_off),
        needed=ACROSS_NEEDS,
        diverges_at=lambda seed: 4,
        lead=False,
    )


SPAWN = make("spawn", progress=SPAWN_PROGRESS)
SCENARIOS: tuple[Scenario, ...] = (
    SPAWN,
    make("spawn-after-progress", progress=(2,)),
    *twins(SPAWN),
)
SCENARIOS = with_plain(SCENARIOS, "spawn")

ACROSS = make("subtasks-spawned", across_workers=True)
SCENARIOS = (*SCENARIOS, ACROSS, across_twin(ACROSS))
