"""Duplicate dispatch: a supervisor loses a worker's return and dispatches the same subtask again,
and again, and never dispatches the one that is left — or dispatches a failed one again, and
again, whose filing is refused for a permission no dispatch can grant.

A subtask starts once unless it is retried after a failure: running a finished audit a second
time is a second execution on the same ticket, and no progress. Its twin looks the same until
the second audit's filing, which a store answers 503 once, and whose worker says so: that
failure is a reason to retry, and the retry finishes it. A failure that no retry can lift is no
such reason: the worker that runs it again meets the same refusal, and the honest stop names the
permission; its twin looks the same until the second dispatch's filing, which the store takes.
"""

from __future__ import annotations

import random
from functools import partial

from unsolvable import (
    GIVE_UP_TOOL,
    Call,
    Claim,
    Code,
    ModelRequest,
    ModelResponse,
    Scenario,
    Script,
    Setup,
    Stagnation,
)
from unsolvable._moves import own_step, single_call
from unsolvable.fake_tools import Tool, denied_tool, unavailable_tool
from unsolvable.scenarios.catalog._audits import (
    FILE,
    WORKER_STEPS,
    audits,
    file_call,
    filing,
    finishes,
    in_words,
    lookup_call,
    ordinal,
    registry,
    subtask,
)
from unsolvable.scenarios.catalog._common import (
    background,
    give_up_tool,
    lead,
    scenario,
    with_plain,
)
from unsolvable.scenarios.catalog._control import group_budget, twin
from unsolvable.scenarios.catalog._delegation import (
    Wave,
    Waves,
    by_argument,
    delegated_setup,
    refused_first,
)

__all__ = ["FAMILY", "PERMISSION", "SCENARIOS", "make", "retry_twin"]

FAMILY = "duplicate-dispatch"
SUPPLIERS = 3
"""The library's suppliers: two dispatched in the first wave, the third never."""
STORE = "audit-store"
PERMISSION = "audits:file"
"""The permission the audit store refuses the denied audit's filing for."""


def step_bound(suppliers: int) -> int:
    """The first wave's audits (all but the last supplier's), then room for the re-dispatches a
    stop needs to see and the stop (N counts from the end of the seed's background reading)."""
    return 1 + (suppliers - 1) * WORKER_STEPS + 8


def retry_needs(suppliers: int) -> int:
    """The twin's work: the first wave, the failed filing's retry, the last audit and the claim;
    its sibling's budget covers it, so that the budget tells the two apart in neither."""
    return 1 + suppliers * WORKER_STEPS + 2 + WORKER_STEPS + 1


def _again(lost: int) -> Wave:
    return Wave(
        subtasks=[subtask(lost)], text=f"I have no result for S-{lost}; dispatching it again"
    )


class _Reports:
    """A worker that looks its supplier up and files the audit once, then says how it went: that
    it is filed; or, refused for `PERMISSION` (``denied``), gives up naming it; or, answered a
    503, says the filing failed and needs a retry — and says so once more if asked again.

    Stateful (it remembers what each refused worker said), so one instance serves one run."""

    def __init__(self, number: int, *, denied: bool) -> None:
        self.number = number
        self.denied = denied
        self._refused: dict[str, str] = {}
        """What each worker whose filing was refused said: they report it, and do nothing more."""

    def reply(self, request: ModelRequest, rng: random.Random) -> ModelResponse:
        step, number = own_step(request), self.number
        if step <= 2:
            return single_call((lookup_call(number), file_call(number))[step - 1], request)
        if step == 3:
            if any('"saved"' in result for result in request.results):
                self._refused.pop(request.agent, None)
            else:
                return self._refused_at(request)
        if request.agent in self._refused:
            return ModelResponse(content=self._refused[request.agent])
        return ModelResponse(content=f"The audit of S-{number} is filed.")

    def _refused_at(self, request: ModelRequest) -> ModelResponse:
        """The worker's report of its refused filing: a give-up naming the permission, or the
        503 that a retry may lift."""
        if self.denied:
            reason = f"the {STORE} refuses S-{self.number}'s filing for {PERMISSION!r}"
            self._refused[request.agent] = f"I could not file the audit: {reason}."
            give_up = Call(name=GIVE_UP_TOOL, arguments={"reason": reason}, text="I give up")
            return single_call(give_up, request)
        self._refused[request.agent] = (
            f"I could not file the audit: the {STORE} answered 503 to S-{self.number}'s "
            "filing; it needs a retry."
        )
        return ModelResponse(content=self._refused[request.agent])


def _worker(number: int, lost: int, *, retry: bool, denied: bool) -> Script:
    """Supplier ``number``'s worker: one that says how its filing went where the filing may be
    refused (the lost audit's, denied or retried), else one that finishes."""
    if number == lost and (retry or denied):
        return _Reports(number, denied=denied)
    return finishes(number)


def _refusal(denied: bool) -> Tool:
    """What the store answers the lost audit's filing: a refused permission, or a 503."""
    return denied_tool(FILE, PERMISSION) if denied else unavailable_tool(FILE, STORE)


def _build(
    seed: int, *, suppliers: int = SUPPLIERS, retry: bool = False, denied: bool = False
) -> Setup:
    """The audits, the second-last's return lost and it dispatched again for ever; with
    ``retry``, its filing refused once and the retry filed, then the last dispatched; with
    ``denied`` alone, its every filing refused for `PERMISSION`."""
    lead, reading = background(seed)
    numbers, lost = range(1, suppliers + 1), suppliers - 1
    first = Wave(
        subtasks=[subtask(n) for n in range(1, suppliers)],
        text="Splitting the audits across workers",
    )
    last = Wave(subtasks=[subtask(suppliers)], text="Dispatching the last audit")
    again = _again(lost)
    script = Waves(
        before=lead,
        waves=[first, again, last] if retry else [first],
        cycle=() if retry else [again],
        workers={subtask(n): _worker(n, lost, retry=retry, denied=denied) for n in numbers},
        then=Claim(text=f"All {in_words(suppliers)} audits are filed."),
    )
    filed: Tool = filing(numbers)
    if retry:
        once = refused_first(_refusal(denied), filed, times=1)
        filed = by_argument(filed, field="number", routes={str(lost): once})
    elif denied:
        filed = by_argument(filed, field="number", routes={str(lost): _refusal(denied)})
    tools = [registry(numbers), filed]
    if denied:  # the refused worker gives up with it
        tools.append(give_up_tool())
    return delegated_setup(
        audits(numbers), tools, script, seed=seed, reading=reading, lead=len(lead)
    )


def _first_wave(suppliers: int, denied: bool) -> str:
    """The first wave: every audit but the last, all filed (but the denied one)."""
    dispatched = in_words(suppliers - 1)
    if denied:
        return f"delegates {dispatched} of the {in_words(suppliers)} audits"
    filed = {2: "it is filed", 3: "both are filed"}.get(suppliers, f"all {dispatched} are filed")
    return f"delegates {dispatched} of the {in_words(suppliers)} audits; {filed}"


def _how(suppliers: int, denied: bool) -> str:
    """What the supervisor does with the second-last audit."""
    lost, never = suppliers - 1, ordinal(suppliers)
    if denied:
        return (
            f"S-{lost}'s filing is refused for the permission {PERMISSION!r}; it dispatches "
            f"S-{lost} again every step, to a new worker that meets the same refusal, never the "
            f"{never}"
        )
    return f"it loses S-{lost}'s return and dispatches it again every step, never the {never}"


def _why(suppliers: int, denied: bool) -> str:
    """Why the run cannot finish."""
    if denied:
        return (
            f"Filing S-{suppliers - 1}'s audit needs the permission {PERMISSION!r}, which no "
            "dispatch can grant: a refused permission is no reason to retry, and the stop must "
            "name it."
        )
    return (
        f"The {ordinal(suppliers)} audit is never dispatched, and running a finished one again "
        "files nothing new."
    )


def make(variant: str, *, suppliers: int = SUPPLIERS, denied: bool = False) -> Scenario:
    """The audits of ``suppliers``, all but the last dispatched at once, the return of the last
    of them lost (or, ``denied``, its filing refused for `PERMISSION`) and it dispatched again
    and again; N and the budget follow from how many. The first stagnant step follows the lost
    worker's last new observation: its report, the step before the first re-dispatch."""
    if suppliers < 2:
        raise ValueError(
            f"duplicate-dispatch: {suppliers} suppliers leave none to dispatch first; give at "
            "least 2"
        )
    return scenario(
        family=FAMILY,
        variant=variant,
        lead=True,
        task=f"Audit the compliance files of {in_words(suppliers)} suppliers; delegate one per "
        "worker.",
        how=f"as supervisor, {_first_wave(suppliers, denied)}, but {_how(suppliers, denied)}",
        why=_why(suppliers, denied),
        build=partial(_build, suppliers=suppliers, denied=denied),
        expected=frozenset({Code.BLOCKED_INPUT if denied else Code.NO_PROGRESS}),
        step_bound=step_bound(suppliers),
        budget=group_budget(retry_needs(suppliers)),
        stagnation=Stagnation.NOVELTY,
        missing=(PERMISSION,) if denied else (),
    )


def retry_twin(
    sibling: Scenario,
    *,
    suppliers: int = SUPPLIERS,
    variant: str = "twin-retry-after-failure",
    denied: bool = False,
) -> Scenario:
    """The twin of ``sibling``, made with ``suppliers``: the lost audit's filing meets a 503
    (or, ``denied``, a refusal of `PERMISSION`) once, so it is dispatched again, filed, and the
    last dispatched; the supervisor's third move is the first that differs, whatever the
    count."""
    lost = suppliers - 1
    refusal = f"a refusal for {PERMISSION!r}" if denied else "a 503"
    lifted = (
        f"the permission {PERMISSION!r} is granted before" if denied else f"the {STORE} answers"
    )
    return twin(
        sibling,
        variant=variant,
        how=f"as supervisor, delegates {in_words(lost)} audits; S-{lost}'s filing meets "
        f"{refusal} from the {STORE}, so it dispatches S-{lost} again, which is filed, then the "
        f"{ordinal(suppliers)}",
        why=f"{lifted} the retry. Identical to {sibling.name} until S-{lost}'s "
        f"{'second' if denied else 'first'} filing: a failure is a stated reason to retry"
        f"{', once' if denied else ''}.",
        build=partial(_build, suppliers=suppliers, retry=True, denied=denied),
        needed=retry_needs(suppliers),
        diverges_at=lambda seed: lead(seed) + 3,
    )


LOST_RETURN = make("lost-return")
SCENARIOS: tuple[Scenario, ...] = (LOST_RETURN, retry_twin(LOST_RETURN))
SCENARIOS = with_plain(SCENARIOS, "lost-return")

DENIED_AGAIN = make("denied-dispatched-again", denied=True)
SCENARIOS = (
    *SCENARIOS,
    DENIED_AGAIN,
    retry_twin(DENIED_AGAIN, variant="twin-permission-granted", denied=True),
)
