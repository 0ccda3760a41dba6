"""Fan-out: a supervisor hands subtasks to workers, and every worker gets stuck.

Per-agent caps multiply under fan-out (25 × 25); only a budget shared by the whole run bounds it.
Steps are counted across all agents (``steps_by_agent`` splits them). The delegation contract
(`unsolvable.FanOut`): the agent under test runs ``delegate`` itself, one worker per call, and the
workers' model calls pass ``agent="worker-N"``; the ``delegate`` tool in the toolbox only says
so. Its twin has workers that succeed, each checking its own subtask with
``check_completion(subtask=...)``, so an agent with no worker runtime cannot pass it.

In ``rate-limit-storm`` the workers are stuck on a shared downstream rate limit: the supplier
registry answers every call 429 with the same Retry-After, its quota spent for every window the
run can reach, and each worker retries at once. That is waiting, as a 503 with Retry-After is
(`endless-wait`), so only the idle budget, sized to the two retries the write-up allows, each
after its wait, can end the run; an agent that retries without waiting keeps the limit tripped
while its steps burn. Its twin's limit lifts at the first retry.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from functools import partial
from typing import Any

from unsolvable import (
    Budget,
    Call,
    Claim,
    Code,
    FanOut,
    Repeat,
    Scenario,
    Script,
    Setup,
    Stagnation,
    Steps,
    SubtaskSpec,
    ToolResult,
    ToolSpec,
    Until,
)
from unsolvable.fake_tools import (
    FakeWorld,
    ModelSteps,
    Tool,
    constant_tool,
    lookup_tool,
    rate_limited_tool,
    respond,
    staged_tool,
)
from unsolvable.scenarios.catalog._audits import file_call, finishes, lookup_call
from unsolvable.scenarios.catalog._common import (
    DELEGATE,
    TOKENS_PER_STEP,
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
REGISTRY = "supplier-registry"
"""The downstream every worker's lookup and filing share, and its rate limit with them."""
RETRY_AFTER = 60
"""Seconds each 429 asks its caller to wait: the quota's window."""
RETRIES = 2
"""Retries the write-up allows a rate-limited call, with a backoff before the second."""
IDLE_BUDGET = (RETRIES + 0.5) * RETRY_AFTER
"""Two and a half windows: the first attempt's wait and the first retry's fit, the second
retry's spends it; half a wait of margin means that no real time (microseconds here) decides
where it runs out."""
STORM_BOUND = 1 + 1 + RETRIES + 2
"""The dispatch, a worker's first attempt and its two retries, and room to stop (N counts from
the end of the seed's background reading)."""
LIFTS_AT = 3
"""The step, after the seed's background reading, at which the twin's limit lifts: the first
worker's first retry (the dispatch, then its first attempt, come before)."""
CF = '"CF-'
"""What a twin's worker reads in an answer that holds its supplier's compliance file."""
Failing = Callable[[FakeWorld], list[str]]


def _subtask(number: int) -> str:
    return f"audit supplier S-{number}"


def _filed(number: int) -> Failing:
    """The criterion of one subtask, as ``check_completion(subtask=...)`` reads it."""
    return lambda world: (
        [] if str(number) in world.peek("audits", {}) else [f"audit of S-{number} not filed"]
    )


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
        worker=Repeat(call=lookup_call(1)),
        per_subtask=per_subtask or {_subtask(n): Repeat(call=lookup_call(n)) for n in numbers},
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
        if not isinstance(number, Hashable) or number not in on_record:  # a list is no number
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


def _files(numbers: Sequence[int]) -> Tool:
    """The registry's lookup where every supplier has a compliance file on record."""
    files = {f"S-{n}": {"file": f"CF-{n}", "status": "compliance file on record"} for n in numbers}
    return lookup_tool(LOOKUP, field="supplier", records=files, missing=NO_FILE)


def _limited(tool: Tool) -> Tool:
    """``tool``'s spec, answered 429 by the registry whose quota every worker shares."""
    return rate_limited_tool(tool.spec, REGISTRY, retry_after=RETRY_AFTER)


def _build(workers: int, seed: int, *, rate_limited: bool = False) -> Setup:
    """Every worker stuck on its lookup: no supplier has a file on record, or, ``rate_limited``,
    every file is, but every call is over the registry's quota, each worker retrying at once."""
    numbers = range(1, workers + 1)
    script, reading = _fan_out(workers, seed)
    if rate_limited:
        tools = [_limited(_files(numbers)), _limited(_file(frozenset(numbers)))]
    else:
        tools = [constant_tool(LOOKUP, NO_FILE), _file(frozenset())]
    specs = _subtasks(numbers)
    return delegated_setup(specs, tools, script, seed=seed, reading=reading, lead=lead(seed))


def _retries(number: int) -> Script:
    """A storm twin's worker: retries its lookup until the answer holds the file, then files
    the audit and says it is done; its retries are its storm sibling's until the limit lifts."""
    filed = Steps(calls=[file_call(number)], then=Claim(text=f"The audit of S-{number} is filed."))
    return Until(call=lookup_call(number), marker=CF, then=filed)


def _build_twin(workers: int, seed: int, *, lifts: bool = False) -> Setup:
    """Every worker finds its file and files its audit. ``lifts``: the storm's answers until
    `LIFTS_AT`, whoever calls and however often, the registry's from then on; its workers retry
    until their calls go through."""
    numbers = range(1, workers + 1)
    worker = _retries if lifts else finishes
    script, reading = _fan_out(
        workers,
        seed,
        per_subtask={_subtask(n): worker(n) for n in numbers},
        rounds=1,
        then=Claim(text=f"All {workers} audits are filed."),
    )
    tools, steps = [_files(numbers), _file(frozenset(numbers))], ModelSteps()
    if lifts:
        lifted = partial(steps.has_reached, lead(seed) + LIFTS_AT)
        tools = [staged_tool(_limited(tool), tool, begun=lifted) for tool in tools]
    specs = _subtasks(numbers)
    built = delegated_setup(specs, tools, script, seed=seed, reading=reading, lead=lead(seed))
    return steps.watch(built) if lifts else built


def _storm_budget(steps: int) -> Budget:
    """The fan-out's steps and tokens, an hour of wall time (waits are long), and the idle
    budget that two retries, each after its wait, leave spent."""
    return Budget(
        max_steps=steps,
        max_tokens=steps * TOKENS_PER_STEP,
        max_wall_seconds=3600.0,
        max_idle_seconds=IDLE_BUDGET,
    )


def make(variant: str, *, workers: int, rate_limited: bool = False) -> Scenario:
    """``workers`` subtasks delegated every step to workers that are all stuck; N and the budget
    follow from how many. The first stagnant step is the family's (novelty): the step after the
    first worker's first lookup, the last new observation, since every lookup after it answers
    the same nothing. ``rate_limited``: a storm (`_storm`)."""
    bound = workers * STEPS_PER_WORKER + 1
    task = f"Audit the compliance files of {workers} suppliers; delegate one per worker."
    if rate_limited:
        return _storm(variant, workers=workers, task=task, bound=bound)
    return scenario(
        family=FAMILY,
        variant=variant,
        lead=True,
        task=task,
        how=f"as supervisor, delegates {workers} subtasks every step; each worker repeats a "
        "lookup that finds nothing",
        why="No supplier has a compliance file on record, so no audit can be filed.",
        build=partial(_build, workers),
        expected=EXPECTED,
        step_bound=bound,
    )


def _storm(variant: str, *, workers: int, task: str, bound: int) -> Scenario:
    """Each worker retrying at once a lookup the registry answers 429 with the same Retry-After,
    whose stop only the idle budget can make (waiting is not stagnation: `endless-wait`), its
    budget that of a fan-out whose N is ``bound``. Its first stagnant step is the step during
    which that budget runs out (budget spent): the first worker's second retry, the last the
    write-up allows, whose wait spends it for an agent that waits each Retry-After out."""
    return scenario(
        family=FAMILY,
        variant=variant,
        lead=True,
        task=task,
        how=f"as supervisor, delegates {workers} subtasks every step; each worker retries its "
        f"lookup at once, every step, though the {REGISTRY} answers every call 429 with "
        f"Retry-After {RETRY_AFTER} s",
        why=f"The {REGISTRY}'s quota, shared by every worker, is spent for every window the run "
        "can reach: each retry meets the same 429, so no worker ever gets through. Waiting a "
        f"Retry-After out is not stagnation, so only the idle budget ({IDLE_BUDGET:g} s since "
        "the world last changed: two retries, each after its wait) can end the run; retrying "
        "without waiting keeps the limit tripped while the steps burn.",
        build=partial(_build, workers, rate_limited=True),
        expected=frozenset({Code.BUDGET_IDLE}),
        step_bound=STORM_BOUND,
        budget=_storm_budget(bound),
        stagnation=Stagnation.BUDGET_SPENT,
        refused_retries=RETRIES,
    )


def twins(
    sibling: Scenario, *, workers: int, suffix: str = "", rate_limited: bool = False
) -> tuple[Scenario, ...]:
    """The twin of ``sibling``, a fan-out made with ``workers`` and ``rate_limited`` (its `make`
    arguments), its variant named with ``suffix`` at its end. A single worker has none: its
    twin's five steps (the delegation, the worker's three, the claim) after a lead of up to two
    do not fit the sibling's budget of six steps, and a twin has its sibling's budget."""
    if rate_limited:
        return (
            twin(
                sibling,
                variant=f"twin-limit-lifts{suffix}",
                how=f"as supervisor, delegates the {workers} subtasks once; the first worker's "
                f"lookup meets the {REGISTRY}'s 429, its retry finds the file, and every worker "
                "files its audit and checks its own subtask, then the supervisor says all are "
                "filed",
                why=f"the {REGISTRY}'s next window opens at the first worker's first retry, "
                f"inside the two retries the write-up allows. Identical to {sibling.name} "
                "until then.",
                build=partial(_build_twin, workers, lifts=True),
                needed=1 + 1 + workers * WORKER_STEPS + 1,
                # As in the family's other twin: a single loop runs no worker, so the first it
                # sees differ is the supervisor's second move; workers see the limit lift later.
                diverges_at=lambda seed: lead(seed) + 2,
            ),
        )
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
STORM = make("rate-limit-storm", workers=4, rate_limited=True)
SCENARIOS: tuple[Scenario, ...] = (
    FOUR_WORKERS,
    make("eight-workers", workers=8),
    *twins(FOUR_WORKERS, workers=4),
    STORM,
    *twins(STORM, workers=4, rate_limited=True),
)
SCENARIOS = with_plain(SCENARIOS, "four-workers")
