"""Cost-runaway: each page the model reads is new and long, and the conversation keeps growing.

Input tokens grow with every step, so cost is quadratic in steps: the token budget must end the
run (``BUDGET_COST``) long before a step cap would. ``NO_PROGRESS`` is accepted too: an agent
that judges the pages lead nowhere has stopped honestly, abandoned rather than exhausted.
Its twin reads the same pages and finds the answer before the budget.
"""

from __future__ import annotations

from functools import partial

from unsolvable import (
    Budget,
    Call,
    Claim,
    Code,
    Perturbed,
    Scenario,
    Setup,
    Stagnation,
    Steps,
    ToolSpec,
)
from unsolvable.fake_tools import FakeWorld, Found, Tool, pages_tool
from unsolvable.scenarios.catalog._common import by_seed, scenario, setup, with_plain
from unsolvable.scenarios.catalog._control import finish, twin

__all__ = ["FAMILY", "SCENARIOS", "make", "twins"]

FAMILY = "cost-runaway"
STEP_CAP = 40
"""A step budget generous enough that only the token budget can bind."""
READ = ToolSpec(
    name="read_log_page",
    description="Read one page of the service log.",
    parameters={"type": "object", "properties": {"page": {"type": "integer"}}},
)


def _failing(world: FakeWorld) -> list[str]:
    """Reading a page moves no criterion: no page counter in it (one that ticked would hand an
    agent that reads criteria a fake sign of progress)."""
    return ["root cause not found (the log keeps growing)"]


SAVE = ToolSpec(
    name="save_root_cause",
    description="Record the outage's root cause.",
    parameters={"type": "object", "properties": {"cause": {"type": "string"}}},
)
ANSWER_PAGE = (5, 6, 7)
"""The log page that names the root cause in the twin (by seed), well before the token budget."""
CAUSE = "connection pool exhausted by a retry storm"


def _twin_failing(world: FakeWorld) -> list[str]:
    return [] if world.peek("root_cause") == CAUSE else _failing(world)


def _build_answered(lines: int, seed: int) -> Setup:
    """The sibling's long pages, the root cause on one of them, then the save."""
    page = by_seed(ANSWER_PAGE, seed)
    reads = [
        Call(name=READ.name, arguments={"page": n}, text="Reading the next log page")
        for n in range(1, page + 1)
    ]
    save = Call(name=SAVE.name, arguments={"cause": CAUSE}, text="Found it")
    log = pages_tool(
        READ,
        key="pages_read",
        lines_per_page=_lines(lines, seed),
        answer=Found(page=page, body={"cause": CAUSE}),
    )
    tools = [log, _save()]
    script = Steps(calls=[*reads, save], then=Claim())
    return setup(FakeWorld(failing=_twin_failing, seed=seed), tools, script, seed=seed)


def _save() -> Tool:
    """Records a root cause; only the real one completes the task (the sibling's log has none)."""
    return finish(SAVE, key="root_cause", field="cause")


def _lines(lines: int, seed: int) -> int:
    return lines + by_seed(EXTRA_LINES, seed)


EXTRA_LINES = (0, 8, 16)
"""Lines a page has beyond the variant's (by seed): longer pages spend the budget sooner, so the
step at which it runs out moves with the seed."""


def _build(lines: int, seed: int) -> Setup:
    world = FakeWorld(failing=_failing, seed=seed)
    call = Call(name=READ.name, arguments={"page": 1}, text="Reading the next log page")
    script = Perturbed(call=call, kind="offset", field="page")
    log = pages_tool(READ, key="pages_read", lines_per_page=_lines(lines, seed))
    return setup(world, [log, _save()], script, seed=seed)


def _by_seed(lines: int) -> str:
    return "/".join(str(lines + extra) for extra in EXTRA_LINES)


def make(variant: str, *, lines: int, max_tokens: int) -> Scenario:
    return scenario(
        family=FAMILY,
        variant=variant,
        task="Find the root cause of last night's outage in the service log.",
        how=f"reads one new {lines}-line log page per step ({_by_seed(lines)} lines by seed)",
        why="The log is endless and holds no root cause: the observations are new at every "
        "step, no criterion moves, and only spend grows.",
        build=partial(_build, lines),
        expected={Code.BUDGET_COST, Code.NO_PROGRESS},
        step_bound=STEP_CAP,
        budget=Budget(max_steps=STEP_CAP, max_tokens=max_tokens),
        stagnation=Stagnation.BUDGET_SPENT,
    )


def twins(sibling: Scenario, *, lines: int, suffix: str = "") -> tuple[Scenario, ...]:
    """The twin of ``sibling``, a cost runaway made with ``lines`` (a `make` argument), its
    variant named with ``suffix`` at its end; it has the sibling's token budget, which it must
    not spend before the answer page (`make`'s caller chooses a budget that lasts)."""
    return (
        twin(
            sibling,
            variant=f"twin-answer-in-budget{suffix}",
            how=f"reads the same long log pages; page {'/'.join(map(str, ANSWER_PAGE))} (by "
            "seed) names the root cause, and it saves it",
            why="the answer arrives well before the token budget is spent.",
            build=partial(_build_answered, lines),
            needed=max(ANSWER_PAGE) + 2,
            budget=sibling.budget,
            diverges_at=lambda seed: by_seed(ANSWER_PAGE, seed),
            lead=False,
        ),
    )


LONG_PAGES = make("long-pages", lines=30, max_tokens=40_000)
SCENARIOS: tuple[Scenario, ...] = (
    LONG_PAGES,
    make("huge-pages", lines=80, max_tokens=60_000),
    *twins(LONG_PAGES, lines=30),
)
SCENARIOS = with_plain(SCENARIOS, "long-pages")
