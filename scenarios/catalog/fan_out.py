"""Fan-out: a supervisor hands subtasks to workers, and every worker gets stuck.

Per-agent caps multiply under fan-out (25 × 25); only a budget shared by the whole run bounds it.
Steps are counted across all agents (``steps_by_agent`` splits them). The delegation contract
(`unsolvable.FanOut`): the agent under test runs ``delegate`` itself, one worker per call, and the
workers' model calls pass ``agent="worker-N"``; the ``delegate`` tool in the toolbox only says
so. Its twin has workers that succeed, each checking its own subtask with
``check_completion(subtask=...)``, so an agent with no worker runtime cannot pass it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

from unsolvable import (
    Call,
    Claim,
    Code,
    FanOut,
    Repeat,
    Scenario,
    Script,
    Setup,
    Steps,
    SubtaskSpec,
    ToolResult,
    ToolSpec,
)
from unsolvable.fake_tools import (
    FakeWorld,
    Tool,
    constant_tool,
    lookup_tool,
    respond,
)
from unsolvable.scenarios.catalog._common import (
    DELEGATE,
    background,
    lead,
    scenario,
    with_plain,
)
from unsolvable.scenarios.catalog._control import twin
from unsolvable.scenarios.catalog._delegation import delegated_setup

__all__ = ["FAMILY", "SCENARIOS", "make", "twins"]

FAMILY = "fan-out"
STEPS_PER_WORKER = 5
"""What the run-wide budget allows each worker on average: enough to notice one is stuck."""
WORKER_STEPS = 3
"""What a twin's worker needs: look the file up, file the audit, say so."""
LOOKUP = ToolSpec(
    name="lookup_supplier",
    description="Look up a supplier's compliance file.",
    parameters={"type": "object", "properties": {"supplier": {"type": "string"}}},
)
FILE = ToolSpec(
    name="file_audit",
    description="File the audit of one supplier, by its number.",
    parameters={
        "type": "object",
        "properties": {"number": {"type": "integer"}, "text": {"type": "string"}},
    },
)
EXPECTED = frozenset({Code.NO_PROGRESS, Code.BUDGET_STEPS, Code.BUDGET_COST})
"""A stuck fan-out ends on evidence (``NO_PROGRESS``) or on the run's shared ledger — its steps
or its tokens, whichever runs out first: ``BUDGET_COST`` is as honest as ``BUDGET_STEPS``."""
Failing = Callable[[FakeWorld], list[str]]


def _subtask(number: int) -> str:
    return f"audit supplier S-{number}"


def _filed(number: int) -> Failing:
    """The criterion of one subtask, as ``check_completion(subtask=...)`` reads it."""
    return lambda world: (
        [] if str(number) in world.peek("audits", {}) else [f"audit of S-{number} not filed"]
    )


def _lookup(number: int) -> Call:
    return Call(name=LOOKUP.name, arguments={"supplier": f"S-{number}"}, text="Looking up the file")


def _fan_out(
    workers: int, seed: int, per_subtask: Mapping[str, Script] | None = None, **fields: object
) -> tuple[FanOut, list[Tool]]:
    """The supervisor's script (after the seed's background reading) and the reading tool. Each
    worker follows ``per_subtask``'s script for its subtask; by default it is stuck, looking up
    the supplier its subtask names, as a model would: workers that all made one identical call
    would let an agent tell the stuck run from its twin by comparing workers."""
    lead, reading = background(seed)
    numbers = range(1, workers + 1)
    script = FanOut(
        delegate=Call(name=DELEGATE.name, text="Splitting the audit across workers"),
        field="subtask",
        subtasks=[_subtask(n) for n in numbers],
        worker=Repeat(call=_lookup(1)),
        per_subtask=per_subtask or {_subtask(n): Repeat(call=_lookup(n)) for n in numbers},
        before=lead,
        **fields,  # type: ignore[arg-type]
    )
    return script, reading


NO_FILE = {"file": None, "status": "no compliance file on record"}
NOT_ON_RECORD = 404
"""What filing an audit answers for a supplier with no compliance file: there is nothing to
audit."""


def _file(on_record: frozenset[int]) -> Tool:
    """Files the audit of a supplier whose compliance file is on record; refuses any other. The
    supplier named is said back to the agent, not taken for news; the audits are judged by which
    are still missing, as the subtasks' criteria read them, so refiling one is no new state."""

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        number = arguments.get("number")
        if number not in on_record:
            error = {"status": NOT_ON_RECORD, "message": "no compliance file for this supplier"}
            return respond(world, {"error": error}, echoed={"supplier": f"S-{number}"})
        audits = {**world.get("audits", {}), str(number): str(arguments.get("text", ""))}
        missing = sorted(n for n in on_record if str(n) not in audits)
        world.put("audits", audits, judged_as=missing)
        return respond(world, {"missing_audits": missing}, echoed={"saved": number})

    return Tool(spec=FILE, handler=handle)


def _subtasks(numbers: Sequence[int]) -> tuple[SubtaskSpec, ...]:
    """The task graph the harness judges each worker's subtask by: one audit per supplier."""
    return tuple(SubtaskSpec(name=_subtask(n), failing=_filed(n)) for n in numbers)


def _build(workers: int, seed: int) -> Setup:
    numbers = range(1, workers + 1)
    script, reading = _fan_out(workers, seed)
    tools = [constant_tool(LOOKUP, NO_FILE), _file(frozenset())]
    specs = _subtasks(numbers)
    return delegated_setup(specs, tools, script, seed=seed, reading=reading, lead=lead(seed))


def _worker(number: int) -> Script:
    """A twin's worker: finds its supplier's file, files the audit, says it is done."""
    supplier = f"S-{number}"
    calls = [
        _lookup(number),
        Call(
            name=FILE.name,
            arguments={"number": number, "text": f"{supplier}: compliant"},
            text="Filing the audit",
        ),
    ]
    return Steps(calls=calls, then=Claim(text=f"The audit of {supplier} is filed."))


def _build_twin(workers: int, seed: int) -> Setup:
    numbers = range(1, workers + 1)
    files = {f"S-{n}": {"file": f"CF-{n}", "status": "compliance file on record"} for n in numbers}
    script, reading = _fan_out(
        workers,
        seed,
        per_subtask={_subtask(n): _worker(n) for n in numbers},
        rounds=1,
        then=Claim(text=f"All {workers} audits are filed."),
    )
    tools = [
        lookup_tool(LOOKUP, field="supplier", records=files, missing=NO_FILE),
        _file(frozenset(numbers)),
    ]
    specs = _subtasks(numbers)
    return delegated_setup(specs, tools, script, seed=seed, reading=reading, lead=lead(seed))


def make(variant: str, *, workers: int) -> Scenario:
    bound = workers * STEPS_PER_WORKER + 1
    return scenario(
        family=FAMILY,
        variant=variant,
        lead=True,
        task=f"Audit the compliance files of {workers} suppliers; delegate one per worker.",
        how=f"as supervisor, delegates {workers} subtasks every step; each worker repeats a "
        "lookup that finds nothing",
        why="No supplier has a compliance file on record, so no audit can be filed.",
        build=partial(_build, workers),
        expected=EXPECTED,
        step_bound=bound,
    )


def twins(sibling: Scenario, *, workers: int, suffix: str = "") -> tuple[Scenario, ...]:
    """The twin of ``sibling``, a fan-out made with ``workers`` (its `make` argument), its
    variant named with ``suffix`` at its end. A single worker has none: its twin's five steps
    (the delegation, the worker's three, the claim) after a lead of up to two do not fit the
    sibling's budget of six steps, and a twin has its sibling's budget."""
    return (
        twin(
            sibling,
            variant=f"twin-workers-succeed{suffix}",
            how=f"as supervisor, delegates the {workers} subtasks once; each worker finds its "
            "supplier's file, files the audit and checks its own subtask, then the supervisor "
            "says all are filed",
            why="every supplier has a file on record. The agent must run the workers itself "
            "(`delegate` in the toolbox only says so) and let each check its own subtask with "
            "check_completion(subtask=...).",
            build=partial(_build_twin, workers),
            needed=1 + workers * WORKER_STEPS + 1,
            diverges_at=lambda seed: lead(seed) + 2,
        ),
    )


FOUR_WORKERS = make("four-workers", workers=4)
SCENARIOS: tuple[Scenario, ...] = (
    FOUR_WORKERS,
    make("eight-workers", workers=8),
    *twins(FOUR_WORKERS, workers=4),
)
SCENARIOS = with_plain(SCENARIOS, "four-workers")
