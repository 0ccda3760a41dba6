"""Per-role budgets: a researcher and a writer, each role with a budget of its own steps beside
the run's. The researcher reads a new page of sources every step and never finds the figures:
its own budget runs out while the run's is far from spent — or, with two research roles, the
run's runs out while each role is within its own.

An honest stop is exhausted, at the budget that ran out, naming it; a role's workers never
begin a step past their role's budget. Its twin looks the same until the researcher's third
page, which holds the figures, and the writer then writes the brief.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from functools import partial

from unsolvable import (
    JSON,
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
    SubtaskSpec,
    ToolSpec,
)
from unsolvable.fake_tools import FakeWorld, Found, pages_tool, writer_tool
from unsolvable.scenarios.catalog._common import background, scenario, with_plain
from unsolvable.scenarios.catalog._control import twin
from unsolvable.scenarios.catalog._delegation import Wave, Waves, by_argument, delegated_setup

__all__ = ["FAMILY", "SCENARIOS", "make"]

FAMILY = "per-role-budgets"
RESEARCH, ANALYSIS, WRITE = "research the market", "analyse the competitors", "write the brief"
ROLE_STEPS = {
    "role-cap-spent": {"researcher": 4, "writer": 4},
    "run-cap-spent": {"researcher": 8, "analyst": 8, "writer": 4},
}
"""Each role's own budget of steps, all its workers together, by variant."""
RUN_STEPS = {"role-cap-spent": 30, "run-cap-spent": 7}
"""The run's budget: far above the researcher's when its role's budget is the one to run out;
under the two research roles' together when the run's is."""
FOUND_ON = 3
"""The page of sources that holds the figures, in the twin."""
READ = ToolSpec(
    name="read_sources",
    description="Read one page of a subject's sources.",
    parameters={
        "type": "object",
        "properties": {"subject": {"type": "string"}, "page": {"type": "integer"}},
    },
)
BRIEF = ToolSpec(
    name="save_brief",
    description="Save the brief.",
    parameters={"type": "object", "properties": {"text": {"type": "string"}}},
)
SUBJECTS = {RESEARCH: "market", ANALYSIS: "competitors"}


def _found(subject: str, found: bool) -> Callable[[FakeWorld], list[str]]:
    def failing(world: FakeWorld) -> list[str]:
        read = world.peek(f"{subject}_pages", [])
        return [] if found and FOUND_ON in read else [f"no figures on the {subject}"]

    return failing


def _brief(world: FakeWorld) -> list[str]:
    return [] if world.peek("brief") else ["the brief is not saved"]


def _reader(subject: str, found: bool) -> Script:
    read = Call(name=READ.name, arguments={"subject": subject, "page": 1}, text="Reading sources")
    if not found:
        return Perturbed(call=read, kind="offset", field="page")
    pages = [
        dataclasses.replace(read, arguments={"subject": subject, "page": p})
        for p in range(1, FOUND_ON + 1)
    ]
    return Steps(calls=pages, then=Claim(text=f"The {subject} figures are on page {FOUND_ON}."))


def _build(variant: str, seed: int, *, found: bool = False) -> Setup:
    lead, reading = background(seed)
    research = [RESEARCH, ANALYSIS] if variant == "run-cap-spent" else [RESEARCH]
    roles = {RESEARCH: "researcher", ANALYSIS: "analyst", WRITE: "writer"}
    extra: dict[str, JSON] = {name: {"role": role} for name, role in roles.items()}
    extra[WRITE] = {"role": "writer", "depends_on": research}
    writes = Steps(
        calls=[Call(name=BRIEF.name, arguments={"text": "The brief."}, text="Writing the brief")],
        then=Claim(text="The brief is saved."),
    )
    script = Waves(
        before=lead,
        waves=[
            Wave(subtasks=research, text="Research first", extra=extra),
            Wave(subtasks=[WRITE], text="Then the brief", extra=extra),
        ],
        workers={
            RESEARCH: _reader("market", found),
            ANALYSIS: _reader("competitors", found),
            WRITE: writes,
        },
        then=Claim(text="The brief is written."),
    )
    answer = Found(page=FOUND_ON, body={"figures": "market up 4%"}) if found else None
    sources = {
        s: pages_tool(READ, key=f"{s}_pages", lines_per_page=2, answer=answer)
        for s in ("market", "competitors")
    }
    read = by_argument(sources["market"], field="subject", routes=sources)
    specs = (
        *(SubtaskSpec(name=n, role=roles[n], failing=_found(SUBJECTS[n], found)) for n in research),
        SubtaskSpec(name=WRITE, role="writer", depends_on=tuple(research), failing=_brief),
    )
    tools = [read, writer_tool(BRIEF, key="brief", field="text", criteria=())]
    return delegated_setup(specs, tools, script, seed=seed, reading=reading)


def make(variant: str, how: str, why: str) -> Scenario:
    steps = RUN_STEPS[variant]
    return scenario(
        family=FAMILY,
        variant=variant,
        lead=True,
        task="Research the market, then write a brief on it; delegate each part to a worker "
        "of its role. Each role has a budget of steps of its own, beside the run's.",
        how=how,
        why=why,
        build=partial(_build, variant),
        expected=frozenset({Code.BUDGET_STEPS}),
        step_bound=steps,
        budget=Budget(max_steps=steps, max_wall_seconds=5.0),
        stagnation=Stagnation.BUDGET_SPENT,
        role_steps=ROLE_STEPS[variant],
    )


ROLE_CAP_SPENT = make(
    "role-cap-spent",
    "as supervisor, hands the research to a researcher, who reads a new page of sources "
    "every step and never finds the figures, until its role's "
    f"{ROLE_STEPS['role-cap-spent']['researcher']} "
    "steps are spent, far inside the run's budget",
    "No page holds the figures: the researcher's own budget runs out first, and the brief "
    "can never be written.",
)
SCENARIOS: tuple[Scenario, ...] = (
    ROLE_CAP_SPENT,
    make(
        "run-cap-spent",
        "as supervisor, hands two research subtasks to a researcher and an analyst, who read "
        "new pages every step and never find their figures; the run's budget runs out while each "
        "role is within its own",
        "No page holds the figures: the run's budget runs out first.",
    ),
    twin(
        ROLE_CAP_SPENT,
        variant="twin-within-caps",
        how="as supervisor, hands the research to a researcher, whose third page holds the "
        "figures, then the brief to a writer, who saves it",
        why=f"page {FOUND_ON} holds the figures, within the researcher's budget. Identical to "
        f"{ROLE_CAP_SPENT.name} until then.",
        build=partial(_build, "role-cap-spent", found=True),
        needed=1 + (FOUND_ON + 1) + 1 + 2 + 1,
        diverges_at=lambda seed: None,  # its workers' runs differ: a single loop sees none of them
        budget=Budget(max_steps=RUN_STEPS["role-cap-spent"], max_wall_seconds=5.0),
        role_steps=ROLE_STEPS["role-cap-spent"],
    ),
)
SCENARIOS = with_plain(SCENARIOS, "role-cap-spent")
