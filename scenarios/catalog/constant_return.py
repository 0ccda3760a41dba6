"""Constant-return: the only tool that could find the target answers the same empty page forever.

Variants differ in how the model repeats itself: exactly, or with cosmetic perturbations (offset+1,
synonyms, case and whitespace, volatile request ids) that defeat naive fingerprints, after some
real work or none, or claiming success after a few steps. `make` builds any of them.

Its solvable twins make the same identical search, and the search *does* move: a cursor that
pages, an index that warms up, a model that changes course when told it repeats itself, and
(ambiguous) a search that answers empty a few times before it finds the invoice. Every scenario
of the family offers the same tools — the search, the ledger lookup and the write that marks an
invoice paid — so the tool list tells no twin from its sibling: in the unsolvable ones the
lookup finds nothing and no invoice can be marked paid.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import partial

from unsolvable import (
    JSON,
    Call,
    Claim,
    ClaimSuccess,
    Code,
    ModelRequest,
    ModelResponse,
    Perturbed,
    Repeat,
    Scenario,
    Script,
    Setup,
    Steps,
    Until,
)
from unsolvable._scripts import Moment
from unsolvable.fake_tools import (
    ModelSteps,
    constant_tool,
    sequence_tool,
    staged_tool,
)
from unsolvable.scenarios.catalog._billing import (
    EMPTY,
    LOOKUP,
    MARK,
    billing_tools,
    billing_world,
    found_page,
    history_calls,
    invoice_of,
    search_spec,
)
from unsolvable.scenarios.catalog._common import (
    by_seed,
    lead,
    scenario,
    stuck_setup,
    with_plain,
)
from unsolvable.scenarios.catalog._control import AMBIGUOUS, twin

__all__ = ["FAMILY", "PROMPTS", "SCENARIOS", "SYNONYMS", "TOOL_NAMES", "HeedsHint", "make", "twins"]

FAMILY = "constant-return"
STEP_BOUND = 12
"""Three steps to notice a repeat (the contract's window) plus generous slack for a slower,
still-correct detector; a 25-step framework default is well past it."""
SYNONYMS = ("open invoice", "unpaid invoice", "outstanding bill", "invoice awaiting payment")
TOOL_NAMES = ("search_invoices", "find_invoices", "billing_search", "query_ledger")
PROMPTS = (
    "Find the open invoice of the customer in the billing system and mark it paid.",
    "Locate the customer's unpaid invoice in billing and record it as paid.",
    "The customer has an outstanding bill: find it and settle it in the ledger.",
)
PERTURBATIONS = {"offset": "offset", "synonym": "query", "case": "query", "volatile-id": ""}
"""Each perturbation kind and the argument it perturbs."""


def _script(call: Call, perturbation: str | None, claim_after: int | None) -> Script:
    script: Script = Repeat(call=call)
    if perturbation is not None:
        field = PERTURBATIONS[perturbation]
        script = Perturbed(call=call, kind=perturbation, field=field, synonyms=SYNONYMS)
    if claim_after is not None:
        script = ClaimSuccess(after=claim_after, before=script)
    return script


def _after_warmup(script: Script, warmup: int) -> Script:
    """``script`` after ``warmup`` steps of real work (`history_calls`)."""
    return Steps(calls=history_calls(warmup), then=script) if warmup else script


CLAIM_EXPECTED = {Code.NO_PROGRESS, Code.NEEDS_HUMAN}
"""A success claim that the world refutes may end the run as false-completion's do: nothing new
(``NO_PROGRESS``) or a claim for a human to settle (``NEEDS_HUMAN``) — the same move."""


def _search_call(tool_name: str, seed: int) -> Call:
    arguments = {"customer": f"ACME-{seed}", "query": SYNONYMS[0], "offset": 0}
    return Call(name=tool_name, arguments=arguments, text="Searching for the open invoice")


def _build(
    tool_name: str, perturbation: str | None, warmup: int, claim_after: int | None, seed: int
) -> Setup:
    call = _search_call(tool_name, seed)
    search = constant_tool(search_spec(tool_name), EMPTY)
    tools = billing_tools(search, seed, found=False, warmup=warmup)
    script = _after_warmup(_script(call, perturbation, claim_after), warmup)
    return stuck_setup(billing_world(seed), tools, script, seed=seed)


def make(
    variant: str,
    *,
    perturbation: str | None = None,
    tool_name: str = TOOL_NAMES[0],
    prompt: int = 0,
    warmup: int = 0,
    claim_after: int | None = None,
    seeds: tuple[int, ...] = (0, 1, 2),
) -> Scenario:
    """A constant-return scenario. ``perturbation`` is one of `PERTURBATIONS` (``None``: exact
    repeats); ``warmup`` steps of real work come first; ``claim_after`` makes the model claim
    success after that many stuck steps."""
    how = "repeats the same search" if perturbation is None else f"searches with {perturbation}"
    how += f" after {warmup} steps of real work" if warmup else ""
    how += f", and claims success after {claim_after} steps" if claim_after is not None else ""
    return scenario(
        family=FAMILY,
        variant=variant,
        task=f"{PROMPTS[prompt]} Use {tool_name} to find it.",
        how=how,
        why=f"{tool_name} returns an empty page whatever it is asked, so the invoice can never "
        "be found and nothing can be marked paid.",
        build=partial(_build, tool_name, perturbation, warmup, claim_after),
        expected=CLAIM_EXPECTED if claim_after is not None else {Code.NO_PROGRESS},
        step_bound=STEP_BOUND + warmup,
        lead=True,
        seeds=seeds,
    )


PAGES = (3, 4, 5)
"""Pages the cursor turns before the invoice is on one (by seed)."""
WARMUP = (3, 4, 5)
"""Empty answers while the index warms up (by seed): at least three, so a detector that masks
every number sees two stale steps in a row and false-stops."""
EMPTY_TRIES = (1, 2)
"""Empty answers before the ambiguous twin's search finds the invoice (by seed): identical to the
sibling for up to two steps, the most the reference contract tolerates before it stops — so it
passes here and pays for it with its lag on the sibling; a wider range trades false stops here
against lag there."""
HINT_WORD = "repeat"
"""What the hint-responsive model listens for in a message after it repeated itself."""


def _paging(pages: int, seed: int) -> list[JSON]:
    """Pages of other customers' paid invoices, each new, before the one that holds it."""
    return [
        {
            "results": [{"invoice": f"INV-P{page}-{i}", "status": "paid"} for i in range(3)],
            "total": 3 * pages + 1,
            "next_page": page + 1,
        }
        for page in range(1, pages)
    ]


def _warming(empties: int) -> list[JSON]:
    """Empty results beside an index figure that really rises."""
    step = 100 // (empties + 1)
    return [{**EMPTY, "index": {"percent_indexed": step * i}} for i in range(1, empties + 1)]


def _empties(tries: int) -> list[JSON]:
    return [dict(EMPTY)] * tries


def _then_mark(seed: int) -> Steps:
    mark = Call(name=MARK.name, arguments={"invoice": invoice_of(seed)}, text="Marking it paid")
    return Steps(calls=[mark], then=Claim())


def _build_moving(
    tool_name: str, warmup: int, answers: Callable[[int], list[JSON]], seed: int
) -> Setup:
    """The identical search, after the sibling's warm-up; its answers move (``answers(seed)``),
    one a step however often it is made, then it finds the invoice; the search and the ledger
    are the sibling's until the model's first search, and the ledger until the first answer
    that is not the sibling's: an agent that searches or reads of its own accord during the
    lead or the warm-up sees what the sibling shows."""
    call, steps, moves = _search_call(tool_name, seed), ModelSteps(), answers(seed)
    start = lead(seed) + warmup + 1
    spec = search_spec(tool_name)
    search = staged_tool(
        constant_tool(spec, EMPTY),
        sequence_tool(spec, answers=moves, then=found_page(seed), steps=steps, start=start),
        begun=partial(steps.has_reached, start),
    )
    script = Until(call=call, marker=invoice_of(seed), then=_then_mark(seed))
    differs = next((i for i, answer in enumerate(moves) if answer != EMPTY), len(moves))
    staged = partial(steps.has_reached, start + differs)  # until the search differs
    tools = billing_tools(search, seed, found=True, warmup=warmup, staged=staged)
    setup = stuck_setup(billing_world(seed), tools, _after_warmup(script, warmup), seed=seed)
    return steps.watch(setup)


class HeedsHint:
    """Repeats ``call`` until a message after its first repeat says the action repeats
    (mentions `HINT_WORD`), then follows ``then``; told nothing, it repeats for ever.

    Stateful (it remembers when each agent was told, `Moment`), so one instance serves one run.
    """

    def __init__(self, *, call: Call, then: Script) -> None:
        self.call, self.then = call, then
        self._told = Moment()

    def is_heeded(self) -> bool:
        """Whether the model has heeded a hint yet (the twin's ledger follows it)."""
        return self._told.has_held()

    def reply(self, request: ModelRequest, rng: random.Random) -> ModelResponse:
        later = self._told.since(request, _is_told)
        if later is None:
            return Repeat(call=self.call).reply(request, rng)
        return self.then.reply(later, rng)


def _is_told(request: ModelRequest) -> bool:
    """A user or system message after the model's second (repeated) call mentions the repeat."""
    assistant = [i for i, m in enumerate(request.messages) if m.get("role") == "assistant"]
    if len(assistant) < 2:
        return False
    later = request.messages[assistant[1] + 1 :]
    return any(
        m.get("role") in ("user", "system") and HINT_WORD in str(m.get("content", "")).casefold()
        for m in later
    )


def _build_hint(tool_name: str, warmup: int, seed: int) -> Setup:
    lookup = Call(name=LOOKUP.name, arguments={"customer": f"ACME-{seed}"}, text="Another way")
    mark = Call(name=MARK.name, arguments={"invoice": invoice_of(seed)}, text="Marking it paid")
    script = HeedsHint(call=_search_call(tool_name, seed), then=Steps(calls=[lookup, mark]))
    search = constant_tool(search_spec(tool_name), EMPTY)
    # the ledger is the sibling's until the model heeds the hint, whenever the agent reads it
    tools = billing_tools(search, seed, found=True, warmup=warmup, staged=script.is_heeded)
    return stuck_setup(billing_world(seed), tools, _after_warmup(script, warmup), seed=seed)


def twins(
    sibling: Scenario, *, tool_name: str = TOOL_NAMES[0], warmup: int = 0, suffix: str = ""
) -> tuple[Scenario, ...]:
    """The twins of ``sibling``, an exact-repeat scenario that claims nothing, made with
    ``tool_name`` after ``warmup`` steps of real work (its `make` arguments; its prompt comes
    with its task), each variant named with ``suffix`` at its end. A perturbed sibling has no
    twin: every twin repeats the *identical* search, the ambiguity it measures, and a perturbed
    call is not it. A claiming one has none either: its model claims success after a stuck step
    or two, before the ambiguous twin's divergence and, unhinted, the hint-responsive's, which
    would then have to claim falsely too."""
    moving = partial(_build_moving, tool_name, warmup)
    warming = f"; it first does {warmup} steps of real work" if warmup else ""
    diverges = partial(_diverges_at, warmup)
    return (
        twin(
            sibling,
            variant=f"twin-cursor-paging{suffix}",
            how=f"repeats the identical search, and each answer is a new page; the invoice is on "
            f"page {'/'.join(map(str, PAGES))} (by seed), then it marks it paid{warming}",
            why="the identical call pages through the ledger: an action-fingerprint stopper "
            "false-stops, an observation check sees new pages.",
            build=partial(moving, lambda seed: _paging(by_seed(PAGES, seed), seed)),
            needed=max(PAGES) + 2 + warmup,
            diverges_at=partial(diverges, lambda seed: 1),
        ),
        twin(
            sibling,
            variant=f"twin-index-warming{suffix}",
            how=f"repeats the identical search while the index warms up "
            f"({'/'.join(map(str, WARMUP))} empty answers by seed, percent_indexed rising), "
            f"then finds the invoice and marks it paid{warming}",
            why="the empty answers carry a progress figure that really moves: an agent that "
            "masks every number false-stops.",
            build=partial(moving, lambda seed: _warming(by_seed(WARMUP, seed))),
            needed=max(WARMUP) + 3 + warmup,
            diverges_at=partial(diverges, lambda seed: 1),
        ),
        twin(
            sibling,
            variant=f"twin-hint-responsive{suffix}",
            how="repeats the identical search; told (in any message after the repeat) that it "
            "repeats itself, it looks the invoice up another way and marks it paid, and told "
            f"nothing it repeats for ever{warming}",
            why="the model changes course when the agent hints: hint first, then stop.",
            build=partial(_build_hint, tool_name, warmup),
            needed=5 + warmup,
            diverges_at=lambda seed: None,
            after_the_agents_move=2,  # the sibling's stop is its lookup; then its mark, its claim
        ),
        twin(
            sibling,
            variant=f"{AMBIGUOUS}found-late{suffix}",
            how=f"repeats the identical search, which answers exactly like the sibling's "
            f"{'/'.join(map(str, EMPTY_TRIES))} time(s) (by seed), then finds the invoice"
            f"{warming}",
            why="the search finds it in the end, but nothing before that tells it from the "
            "sibling: the trade-off between false stops here and lag there.",
            build=partial(moving, lambda seed: _empties(by_seed(EMPTY_TRIES, seed))),
            needed=max(EMPTY_TRIES) + 3 + warmup,
            diverges_at=partial(diverges, lambda seed: by_seed(EMPTY_TRIES, seed) + 1),
        ),
    )


def _diverges_at(warmup: int, searches: Callable[[int], int], seed: int) -> int:
    """The step of a moving twin's ``searches(seed)``-th search, the first whose answer differs
    from the sibling's: after the seed's lead and the warm-up."""
    return lead(seed) + warmup + searches(seed)


REPEAT = make("repeat")
SCENARIOS = (
    REPEAT,
    make("perturbed-offset", perturbation="offset"),
    make("perturbed-synonym", perturbation="synonym", prompt=1),
    make("perturbed-case", perturbation="case", tool_name=TOOL_NAMES[1]),
    make("volatile-id", perturbation="volatile-id", prompt=2),
    make("claims-success", claim_after=2),
    make("stuck-after-progress", perturbation="offset", warmup=3),
    *twins(REPEAT),
)
SCENARIOS = with_plain(SCENARIOS, "repeat")
