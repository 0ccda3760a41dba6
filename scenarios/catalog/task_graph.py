"""Task graph: four subtasks with dependencies — normalise the question; then search the sources
and outline the answer, in parallel; then write the answer from both. The sources API is down
for good, so the search fails, and the answer, which joins on it, must be skipped — also when
the search's worker swallows the 503 and reports the sources in, an empty success.

The run must end abandoned with the graph's state (what succeeded, what failed and why, what was
skipped), not wait for a join that can never happen, and never run a subtask whose dependency
failed, however its worker reported it. Its twin looks the same until the search's second fetch,
which the API answers; the swallowed error's, until the search's fetch, which the API answers,
and its worker's same words are true.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from itertools import pairwise

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

__all__ = ["FAMILY", "SCENARIOS", "SOURCES", "make"]

FAMILY = "task-graph"
SOURCES = "sources-api"
QUESTION, SEARCH, OUTLINE, ANSWER = (
    "normalise the question",
    "search the sources",
    "outline the answer",
    "write the answer",
)
KEYS = {QUESTION: "question", SEARCH: "sources", OUTLINE: "outline", ANSWER: "answer"}
RETRIES = 2
"""Retries of the dead sources API: three attempts, the allowance for a dependency that gives
no Retry-After hint."""


def step_bound(chain: int) -> int:
    """A wave for each link of the chain and two more, two steps a node (its write, its claim),
    and room for the search's retries and the stop (N counts from the end of the seed's
    background reading)."""
    return (chain + 2) + (chain + 3) * 2 + 8


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


def _refinement(n: int) -> str:
    return f"refine the question, pass {n}"


def _chain(chain: int) -> tuple[str, ...]:
    """The links that prepare the question, each on the one before: normalising it, then
    ``chain - 1`` refinements; the search and the outline wait on the last."""
    return (QUESTION, *(_refinement(n) for n in range(2, chain + 1)))


def _depends(chain: int) -> dict[str, list[str]]:
    links = _chain(chain)
    return {
        **{link: [before] for before, link in pairwise(links)},
        SEARCH: [links[-1]],
        OUTLINE: [links[-1]],
        ANSWER: [SEARCH, OUTLINE],
    }


def _writes(chain: int) -> dict[str, tuple[ToolSpec, str]]:
    """The tool each writing node saves its work with, and the world key it saves it under."""
    refinements = {
        _refinement(n): (
            ToolSpec(
                name=f"save_refinement_{n}",
                description=f"Save pass {n} of the question's refinement.",
                parameters={"type": "object", "properties": {"text": {"type": "string"}}},
            ),
            f"refinement {n}",
        )
        for n in range(2, chain + 1)
    }
    return {QUESTION: (WRITE[QUESTION], KEYS[QUESTION]), **refinements} | {
        node: (WRITE[node], KEYS[node]) for node in (OUTLINE, ANSWER)
    }


def _done(node: str, key: str) -> Callable[[FakeWorld], list[str]]:
    return lambda world: [] if world.peek(key) else [f"{node}: not done"]


def _search(fetches: int) -> Script:
    """The search's worker: fetches ``fetches`` times and says the sources are in, whatever the
    fetches answered; fetches for ever with none."""
    fetch = Call(name=FETCH.name, arguments={"query": "the question"}, text="Fetching sources")
    if fetches == 0:
        return Repeat(call=fetch)
    return Steps(calls=[fetch] * fetches, then=Claim(text="The sources are in."))


def _worker(node: str, spec: ToolSpec, key: str) -> Script:
    write = Call(name=spec.name, arguments={"text": f"The {key}."}, text="Writing")
    return Steps(calls=[write], then=Claim(text=f"Done: {node}."))


def _build(seed: int, *, chain: int = 1, fetches: int = 0, refusals: int | None = None) -> Setup:
    """The graph whose search fetches ``fetches`` times (for ever with 0) from a sources API
    that refuses the first ``refusals`` fetches (every one with ``None``)."""
    lead, reading = background(seed)
    depends, writes = _depends(chain), _writes(chain)
    nodes = (*_chain(chain), SEARCH, OUTLINE, ANSWER)
    extra = {node: {"depends_on": deps} for node, deps in depends.items()}
    links = [
        Wave(subtasks=[link], text="First the question" if n == 1 else f"Then {link}", extra=extra)
        for n, link in enumerate(_chain(chain), start=1)
    ]
    script = Waves(
        before=lead,
        waves=[
            *links,
            Wave(subtasks=[OUTLINE, SEARCH], text="Searching and outlining", extra=extra),
            Wave(subtasks=[ANSWER], text="Joining them into the answer", extra=extra),
        ],
        workers={
            node: _search(fetches) if node == SEARCH else _worker(node, *writes[node])
            for node in nodes
        },
        then=Claim(text="The answer is written."),
    )
    fetched = writer_tool(FETCH, key=KEYS[SEARCH], field="query", criteria=())
    down: Tool = unavailable_tool(FETCH, SOURCES)
    fetch = down if refusals is None else refused_first(down, fetched, times=refusals)
    writers = [
        writer_tool(spec, key=key, field="text", criteria=()) for spec, key in writes.values()
    ]
    keys = {node: key for node, (_, key) in writes.items()} | {SEARCH: KEYS[SEARCH]}
    specs = [
        SubtaskSpec(name=n, depends_on=tuple(depends.get(n, ())), failing=_done(n, keys[n]))
        for n in nodes
    ]
    tools = [fetch, *writers]
    return delegated_setup(specs, tools, script, seed=seed, reading=reading, lead=len(lead))


def _searching(swallows: bool) -> str:
    """What the search's worker does."""
    if swallows:
        return (
            "meets a sources API that answers 503 and says the sources are in, its error "
            "swallowed into an empty success"
        )
    return "retries a sources API that answers 503"


def _why(swallows: bool) -> str:
    """Why the run cannot finish."""
    if swallows:
        return (
            f"The {SOURCES} never answers, so the search fails however its worker reports it: "
            "only the search's own check shows it. The answer, which needs it, must be skipped, "
            f"and the stop must name the {SOURCES}."
        )
    return (
        f"The {SOURCES} never answers, so the search fails and the answer, which needs it, can "
        "never run: it must be skipped, and the run must end with the graph's state."
    )


def make(variant: str, *, chain: int = 1, swallows: bool = False) -> Scenario:
    """The graph with ``chain`` links before the search and the outline (the library's has one,
    the question), whose search's worker retries the dead API or, with ``swallows``, reports the
    sources in after its first 503; N follows from its waves and nodes, the first stagnant step
    from the search's first refusal, which comes after every link's work."""
    if chain < 1:
        raise ValueError(f"task-graph: a chain of {chain} links has no question to search for")
    refined = f" and refine it in {chain - 1} passes, one on another" if chain > 1 else ""
    links = f"; {chain - 1} refinements of it, one a wave" if chain > 1 else ""
    return scenario(
        family=FAMILY,
        variant=variant,
        lead=True,
        task=f"Answer the customer's question: put it in standard form{refined}, gather sources "
        "and an outline, then join both into a reply; delegate each part to a worker.",
        how=f"as supervisor, dispatches the graph wave by wave — the question{links}; the search "
        f"and the outline; the answer, which joins both — while the search's worker "
        f"{_searching(swallows)}",
        why=_why(swallows),
        build=partial(_build, chain=chain, fetches=1 if swallows else 0),
        expected=ABANDONED - {Code.NEEDS_HUMAN},
        step_bound=step_bound(chain),
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
        build=partial(_build, fetches=2, refusals=1),
        needed=3 + 2 + 3 + 2 + 2 + 1,
        diverges_at=lambda seed: None,  # its workers' runs differ: a single loop sees none of them
    ),
)
SCENARIOS = with_plain(SCENARIOS, "upstream-down")

SWALLOWED_ERROR = make("swallowed-error", swallows=True)
SCENARIOS = (
    *SCENARIOS,
    SWALLOWED_ERROR,
    twin(
        SWALLOWED_ERROR,
        variant="twin-sources-answer",
        how="dispatches the graph wave by wave; the search's fetch gets the sources, its worker "
        "says the sources are in, and the answer joins the search and the outline",
        why=f"the {SOURCES} answers the fetch, and the search's worker says what its sibling's "
        f"says, true here. Identical to {SWALLOWED_ERROR.name} until the search's fetch.",
        build=partial(_build, fetches=1, refusals=0),
        needed=3 + 3 + 2 + 3 + 1,  # the question, the outline, the fetch, the answer, the claim
        diverges_at=lambda seed: None,  # its workers' runs differ: a single loop sees none of them
    ),
)
