"""Task graph: four subtasks with dependencies — normalise the question; then search the sources
and outline the answer, in parallel; then write the answer from both. The sources API is down
for good, so the search fails, and the answer, which joins on it, must be skipped.

The run must end abandoned with the graph's state (what succeeded, what failed and why, what was
skipped), not wait for a join that can never happen, and never run a subtask whose dependency
failed. Its twin looks the same until the search's second fetch, which the API answers.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from unsolvable import (
    Call,
    Claim,
    Code,
    Repeat,
    Scenario,
    Script,
    Setup,
    Stagnation,
    Steps,
    SubtaskSpec,
    ToolSpec,
)
from unsolvable.fake_tools import (
    FakeWorld,
    Tool,
    unavailable_tool,
    writer_tool,
)
from unsolvable.scenarios.catalog._common import (
    ABANDONED,
    background,
    scenario,
    with_plain,
)
from unsolvable.scenarios.catalog._control import twin
from unsolvable.scenarios.catalog._delegation import Wave, Waves, delegated_setup, refused_first

__all__ = ["FAMILY", "NODES", "SCENARIOS", "SOURCES", "make"]

FAMILY = "task-graph"
SOURCES = "sources-api"
QUESTION, SEARCH, OUTLINE, ANSWER = (
    "normalise the question",
    "search the sources",
    "outline the answer",
    "write the answer",
)
DEPENDS = {SEARCH: [QUESTION], OUTLINE: [QUESTION], ANSWER: [SEARCH, OUTLINE]}
NODES = (QUESTION, SEARCH, OUTLINE, ANSWER)
KEYS = {QUESTION: "question", SEARCH: "sources", OUTLINE: "outline", ANSWER: "answer"}
RETRIES = 2
"""Retries of the dead sources API: three attempts, the allowance for a dependency that gives
no Retry-After hint."""
STEP_BOUND = 3 + 4 * 2 + 8
"""Three waves, two steps a node (its write, its claim), and room for the search's retries and the
stop (N counts from the end of the seed's background reading)."""

WRITE = {
    QUESTION: ToolSpec(name="save_question", description="Save the normalised question."),
    OUTLINE: ToolSpec(name="save_outline", description="Save the outline of the answer."),
    ANSWER: ToolSpec(name="save_answer", description="Save the answer."),
}
for _spec in WRITE.values():
    _spec.parameters.update({"properties": {"text": {"type": "string"}}})
FETCH = ToolSpec(
    name="fetch_sources",
    description="Fetch the sources for a query from the sources API.",
    parameters={"type": "object", "properties": {"query": {"type": "string"}}},
)


def _done(node: str) -> Callable[[FakeWorld], list[str]]:
    return lambda world: [] if world.peek(KEYS[node]) else [f"{node}: not done"]


def _worker(node: str, *, fetches: int = 1) -> Script:
    if node == SEARCH:
        fetch = Call(name=FETCH.name, arguments={"query": "the question"}, text="Fetching sources")
        if fetches == 0:
            return Repeat(call=fetch)
        return Steps(calls=[fetch] * fetches, then=Claim(text="The sources are in."))
    write = Call(name=WRITE[node].name, arguments={"text": f"The {KEYS[node]}."}, text="Writing")
    return Steps(calls=[write], then=Claim(text=f"Done: {node}."))


def _build(seed: int, *, recovers: bool = False) -> Setup:
    lead, reading = background(seed)
    extra = {node: {"depends_on": deps} for node, deps in DEPENDS.items()}
    script = Waves(
        before=lead,
        waves=[
            Wave(subtasks=[QUESTION], text="First the question", extra=extra),
            Wave(subtasks=[OUTLINE, SEARCH], text="Searching and outlining", extra=extra),
            Wave(subtasks=[ANSWER], text="Joining them into the answer", extra=extra),
        ],
        workers={n: _worker(n, fetches=2 if recovers else 0) for n in NODES},
        then=Claim(text="The answer is written."),
    )
    fetched = writer_tool(FETCH, key=KEYS[SEARCH], field="query", criteria=())
    down: Tool = unavailable_tool(FETCH, SOURCES)
    fetch = refused_first(down, fetched, times=1) if recovers else down
    writers = [
        writer_tool(spec, key=KEYS[n], field="text", criteria=()) for n, spec in WRITE.items()
    ]
    specs = [
        SubtaskSpec(name=n, depends_on=tuple(DEPENDS.get(n, ())), failing=_done(n)) for n in NODES
    ]
    tools = [fetch, *writers]
    return delegated_setup(specs, tools, script, seed=seed, reading=reading, lead=len(lead))


def make(variant: str) -> Scenario:
    return scenario(
        family=FAMILY,
        variant=variant,
        lead=True,
        task="Answer the customer's question: put it in standard form, gather sources and an "
        "outline, then join both into a reply; delegate each part to a worker.",
        how="as supervisor, dispatches the graph wave by wave — the question; the search and the "
        "outline; the answer, which joins both — while the search's worker retries a sources API "
        "that answers 503",
        why=f"The {SOURCES} never answers, so the search fails and the answer, which needs it, "
        "can never run: it must be skipped, and the run must end with the graph's state.",
        build=_build,
        expected=ABANDONED - {Code.NEEDS_HUMAN},
        step_bound=STEP_BOUND,
        stagnation=Stagnation.FIRST_REFUSAL,
        refused_retries=RETRIES,
    )


UPSTREAM_DOWN = make("upstream-down")
SCENARIOS: tuple[Scenario, ...] = (
    UPSTREAM_DOWN,
    twin(
        UPSTREAM_DOWN,
        variant="twin-upstream-recovers",
        how="dispatches the graph wave by wave; the search's first fetch meets the 503, its "
        "second gets the sources, and the answer joins the search and the outline",
        why=f"the {SOURCES} answers the second fetch. Identical to {UPSTREAM_DOWN.name} until "
        "then.",
        build=partial(_build, recovers=True),
        needed=3 + 2 + 3 + 2 + 2 + 1,
        diverges_at=lambda seed: None,  # its workers' runs differ: a single loop sees none of them
    ),
)
SCENARIOS = with_plain(SCENARIOS, "upstream-down")
