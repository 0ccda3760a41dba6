"""Every twin is its sibling until the step it declares: the same task and tools, the same words
and moves of the model, the same answers (request ids aside) and the same world — so that no
stop logic can tell them apart without evidence of progress, and no agent can read a tell."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

import unsolvable
from tests import _wrong_agents as wrong
from tests._explorer import explore, first_difference
from tests._twins import (
    AGENTS_OWN_MOVES,
    DELEGATES,
    LEAD,
    MOVES_PER_CALL,
    first_moves,
    shown,
    unlike_its_sibling,
    where_a_system_first_differs,
)
from unsolvable import (
    DELEGATE_TOOL,
    Rule,
    Scenario,
    Session,
    Setup,
    ToolSpec,
    scenarios,
)
from unsolvable.agents import ContractAgent, ContractThresholds, contract
from unsolvable.fake_tools import ToolRouter, constant_tool
from unsolvable.reports._counted import lag
from unsolvable.scenarios.catalog import missing_permission
from unsolvable.scenarios.catalog._billing import LOOKUP, invoice_of
from unsolvable.scenarios.catalog._control import is_ambiguous, twin
from unsolvable.scenarios.catalog._dialect import dialect

PAIRS = [
    (twin, scenarios.get(twin.twin_of), seed)
    for twin in scenarios.SCENARIOS
    if twin.twin_of is not None
    for seed in twin.seeds
]


@pytest.mark.parametrize(
    ("twin", "sibling", "seed"), PAIRS, ids=[f"{t.name}-seed{s}" for t, _, s in PAIRS]
)
def test_a_twin_is_its_sibling_until_the_step_it_declares(
    twin: Scenario, sibling: Scenario, seed: int
) -> None:
    assert unlike_its_sibling(twin, sibling, seed) is None


def _repeated(twin: Scenario, sibling: Scenario, seed: int) -> Any:
    reason = MOVES_PER_CALL.get(twin.family)
    marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
    return pytest.param(twin, sibling, seed, id=f"{twin.name}-seed{seed}", marks=marks)


REPEATED = [_repeated(*pair) for pair in PAIRS]


@pytest.mark.parametrize(("twin", "sibling", "seed"), REPEATED)
def test_a_call_the_agent_repeats_tells_no_twin_apart_before_the_step_it_declares(
    twin: Scenario, sibling: Scenario, seed: int
) -> None:
    """A twin's answers move with the run's steps, not with how often the agent asks: where an
    ambiguous twin's search found the invoice at its k-th call, an agent that made each call
    twice saw it a step before the divergence, and passed the twin with no lag on its sibling."""
    assert unlike_its_sibling(twin, sibling, seed, repeats=True) is None


def _waits_for_the_agent(twin: Scenario, seed: int) -> bool:
    """Whether ``twin`` is its sibling until the agent's own move (a hint, a compaction): a
    single agent's twin that declares no divergence step (`Scenario.diverges_at`). A system's
    twin that declares none differs in its workers' runs instead, which a single loop never
    sees."""
    assert twin.diverges_at is not None
    specs = twin.build(seed).toolbox.specs
    return twin.diverges_at(seed) is None and DELEGATE_TOOL not in {s.name for s in specs}


def _searches_again(twin: Scenario) -> bool:
    """Whether ``twin`` diverges in the answers to its sibling's own search, which an agent may
    make of its own accord before the model does (constant-return's twins, whose ledger is a
    read too): the whole world is the sibling's until then."""
    return twin.family == "constant-return"


UNTOLD_PAIRS = [
    (t, s, seed)
    for t, s, seed in PAIRS
    if is_ambiguous(t) or _waits_for_the_agent(t, seed) or _searches_again(t)
]


@pytest.mark.parametrize(
    ("twin", "sibling", "seed"),
    UNTOLD_PAIRS,
    ids=[f"{t.name}-seed{s}" for t, _, s in UNTOLD_PAIRS],
)
def test_no_tool_tells_a_twin_apart_before_it_diverges_where_no_answer_does(
    twin: Scenario, sibling: Scenario, seed: int
) -> None:
    """An ambiguous twin's whole world is its sibling's until its divergence step, not only what
    the model asks: while its ledger listed the invoice from the start, an agent that read the
    ledger once of its own accord passed it on every seed with no lag on its sibling. So is a
    twin's that is its sibling until the agent's own move, for an agent that never makes it:
    the hint-responsive twin's ledger listed the invoice before any hint, and an agent that read
    it first knew, without hinting, that the run was the twin. So is a moving twin's: its search
    made during a seed's lead or warm-up answered the first page or index figure already, where
    its sibling's answered nothing."""
    assert unlike_its_sibling(twin, sibling, seed, probes=True) is None


@pytest.mark.parametrize(
    ("twin", "sibling", "seed"), PAIRS, ids=[f"{t.name}-seed{s}" for t, _, s in PAIRS]
)
def test_a_twins_session_shows_what_its_siblings_shows_before_the_first_step(
    twin: Scenario, sibling: Scenario, seed: int
) -> None:
    """An agent reads its session before it calls the model: a twin whose budget, say, differs
    from its sibling's is told apart there, without any stop logic; so was one whose tools, as
    `ToolSpec`s, named a permission the sibling's lacked."""
    mine, theirs = shown(twin, seed), shown(sibling, seed)
    assert {k: v for k, v in mine.items() if v != theirs[k]} == {}


CLOCKS = frozenset({"clock", "elapsed"})
"""Session attributes that read the time: they differ between any two runs."""


def _public(session: Session) -> dict[str, str]:
    """Every public attribute of ``session`` that is not a method, as an agent's ``dir`` finds
    it, the clocks aside."""
    names = [name for name in dir(session) if not name.startswith("_") and name not in CLOCKS]
    values = {name: getattr(session, name) for name in names}
    return {name: repr(value) for name, value in values.items() if not callable(value)}


@pytest.mark.parametrize(
    ("twin", "sibling", "seed"), PAIRS, ids=[f"{t.name}-seed{s}" for t, _, s in PAIRS]
)
def test_no_public_attribute_of_a_twins_session_differs_from_its_siblings(
    twin: Scenario, sibling: Scenario, seed: int
) -> None:
    """An agent may read any public attribute of its session, not only the documented ones: one
    that held the scenario (its name, ``solvable``, ``twin_of``, step bound) told a twin from its
    sibling at once."""
    seen: list[dict[str, str]] = []

    def reader(session: Session) -> unsolvable.Stop:
        seen.append(_public(session))
        return unsolvable.Stop(code=unsolvable.Code.NO_PROGRESS)

    for scenario in (twin, sibling):
        unsolvable.run(reader, scenario, seed=seed)
    mine, theirs = seen
    assert {k: (v, theirs.get(k)) for k, v in mine.items() if v != theirs.get(k)} == {}


def _leaking(twin: Scenario) -> Scenario:
    """``twin`` with one more tool than its sibling offers: a tell."""
    extra = ToolSpec(name="finish_task", description="Finish the task.")

    def build(seed: int) -> Setup:
        setup = twin.build(seed)
        router = setup.toolbox
        assert isinstance(router, ToolRouter)
        tools = [*router.routes.values(), constant_tool(extra, {"done": False})]
        return dataclasses.replace(setup, toolbox=ToolRouter(router.world, tools))

    return dataclasses.replace(twin, build=build)


def test_a_twin_that_offers_a_tool_its_sibling_does_not_is_told_apart() -> None:
    twin = scenarios.get("constant-return/ambiguous-found-late")
    sibling = scenarios.get("constant-return/repeat")
    mine, theirs = explore(_leaking(twin), 0, 2), explore(sibling, 0, 2)
    difference = first_difference(mine, theirs, upto=2)
    assert difference is not None and difference.startswith("step 1: the tools offered")


def test_a_twin_that_answers_where_its_sibling_raises_is_told_apart() -> None:
    """A raised refusal carries the body of an answered one, so only what was raised tells a
    twin built without its sibling's ``raises`` from the sibling: an agent catches the one and
    reads the other."""
    sibling = missing_permission.make("retry-raises", raises=True)
    (answering,) = missing_permission.twins(sibling)
    difference = unlike_its_sibling(answering, sibling, seed=0)
    assert difference is not None and difference.startswith("step 1: raised")


AMBIGUOUS = [s.name for s in scenarios.SCENARIOS if is_ambiguous(s)]
TELLS = [
    *((wrong.reads_the_tool_list, name) for name in AMBIGUOUS),
    (wrong.reads_the_outage_wording, "dependency-unavailable/ambiguous-recovers-late"),
]
"""Each reader of a tell and the ambiguous twins it passed on every seed, with lag 0 on their
siblings, while only the twin offered its finishing tool and its 503s were worded apart."""


@pytest.mark.parametrize(("reader", "name"), TELLS, ids=[f"{r.__name__}-{n}" for r, n in TELLS])
def test_no_tell_lets_an_agent_pass_an_ambiguous_twin_at_no_cost_on_its_sibling(
    reader: Callable[[], object], name: str
) -> None:
    twin = scenarios.get(name)
    sibling = scenarios.get(twin.twin_of or "")
    twins = [unsolvable.run(reader(), twin, seed=seed) for seed in twin.seeds]  # type: ignore[arg-type]
    siblings = [unsolvable.run(reader(), sibling, seed=seed) for seed in twin.seeds]  # type: ignore[arg-type]
    free = all(r.verdict.passed for r in twins) and all(lag(r) <= 0 for r in siblings)
    assert not free, [(r.seed, r.verdict.summary, lag(r)) for r in (*twins, *siblings)]


@pytest.mark.parametrize("name", AMBIGUOUS)
def test_no_budget_lets_an_agent_pass_an_ambiguous_twin_at_no_cost_on_its_sibling(
    name: str,
) -> None:
    """The budget is part of what an agent reads: where an ambiguous twin's told it apart, the
    reader passed the twin on every seed and beat the contract's lag on every sibling."""
    twin = scenarios.get(name)
    sibling = scenarios.get(twin.twin_of or "")
    reader = wrong.reads_the_budget(twin.budget)
    twins = [unsolvable.run(reader, twin, seed=seed) for seed in twin.seeds]
    lags = [
        (
            lag(unsolvable.run(reader, sibling, seed=seed)),
            lag(unsolvable.run(contract, sibling, seed=seed)),
        )
        for seed in twin.seeds
    ]
    free = all(r.verdict.passed for r in twins) and all(mine < its for mine, its in lags)
    assert not free, ([r.verdict.summary for r in twins], lags)


MOVES_OTHERWISE = frozenset(
    {"role-ping-pong/twin-team-remote", "nested-delegation/twin-specialist-works"}
)
"""Twins whose divergence is the model's own move (a push to another remote, a specialist that
does the work): there the first difference is what the model says and does."""


@pytest.mark.parametrize(
    ("twin", "seed"), DELEGATES, ids=[f"{t.name}-seed{s}" for t, s in DELEGATES]
)
def test_a_twins_workers_meet_its_siblings_until_the_evidence_differs(
    twin: Scenario, seed: int
) -> None:
    """Explored with a worker for each delegate call, a twin and its sibling first differ in
    what a tool answers — the evidence of progress — never in the tools any agent is offered,
    and never in what the model says or does before an answer differed."""
    sibling = scenarios.get(twin.twin_of or "")
    first = where_a_system_first_differs(twin, sibling, seed, sibling.step_bound + LEAD)
    assert first.model_moved == (twin.name in MOVES_OTHERWISE), first.words


@pytest.mark.parametrize("move", AGENTS_OWN_MOVES)
@pytest.mark.parametrize(
    ("twin", "seed"), DELEGATES, ids=[f"{t.name}-seed{s}" for t, s in DELEGATES]
)
def test_no_move_of_a_systems_own_shows_a_twins_model_moving_before_the_evidence(
    twin: Scenario, seed: int, move: str
) -> None:
    """A system may call every tool after each step, make each call twice, or delegate every
    subtask once more to a fresh worker, of its own accord: it may meet the evidence of
    progress sooner so, but never a model, its own workers' or a fresh one's, that says or
    does otherwise before an answer differed."""
    sibling = scenarios.get(twin.twin_of or "")
    steps = sibling.step_bound + LEAD
    first = where_a_system_first_differs(twin, sibling, seed, steps, move=move)
    assert not first.model_moved or twin.name in MOVES_OTHERWISE, first.words


@pytest.mark.parametrize(
    ("twin", "seed"), DELEGATES, ids=[f"{t.name}-seed{s}" for t, s in DELEGATES]
)
def test_each_subtask_is_begun_as_its_sibling_begins_it(twin: Scenario, seed: int) -> None:
    """The model's first move on each subtask is the same in a twin and its sibling, for every
    worker, not only the first to run: workers of the stuck run that all made one call, where
    the twin's each made their own, would tell the two apart by comparing workers before any
    answer differed."""
    sibling = scenarios.get(twin.twin_of or "")
    mine, theirs = (first_moves(unsolvable.run(contract, s, seed=seed)) for s in (twin, sibling))
    shared = mine.keys() & theirs.keys()
    assert shared
    assert {name: mine[name] for name in shared} == {name: theirs[name] for name in shared}


class _OneWorkerName:
    """A session whose workers all call under one agent name, as a runtime that runs one worker
    agent for every subtask (agents-as-tools) calls: each subtask a fresh conversation."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)

    def call_model(self, messages: Any, tools: Any = None, *, agent: str = "main") -> Any:
        return self._session.call_model(messages, tools, agent=_one_worker(agent))

    def call_tool(self, name: str, arguments: Any = None, *, agent: str = "main") -> str:
        return self._session.call_tool(name, arguments, agent=_one_worker(agent))


def _one_worker(agent: str) -> str:
    return agent if agent == "main" else "worker"


@pytest.mark.parametrize(
    ("twin", "seed"), DELEGATES, ids=[f"{t.name}-seed{s}" for t, s in DELEGATES]
)
def test_a_twin_does_not_depend_on_what_the_workers_are_named(twin: Scenario, seed: int) -> None:
    """The model follows each worker by its conversation, never by its name: the contract with
    its workers under one name passes every twin it passes with a name for each."""
    record = unsolvable.run(lambda session: contract(_OneWorkerName(session)), twin, seed=seed)  # type: ignore[arg-type]
    assert record.verdict.passed, record.verdict.summary


def test_a_twin_its_siblings_budget_leaves_no_room_to_finish_is_refused() -> None:
    """A twin shows its sibling's budget: one that could not finish in it would fail every agent
    that respects its budget, so the library refuses to build it and says what to give."""
    sibling = scenarios.get("missing-permission/retry-403")
    tight = dataclasses.replace(sibling, budget=dataclasses.replace(sibling.budget, max_steps=4))
    with pytest.raises(ValueError, match=r"needs 5 steps .* group_budget\(5\)"):
        twin(
            tight,
            variant="twin-too-long",
            how="finishes on another route",
            why="another route is open",
            build=sibling.build,
            needed=5,
            diverges_at=lambda seed: 1,
        )


def test_a_twin_finished_by_the_agents_own_hint_leaves_room_for_every_hint_its_sibling_does() -> (
    None
):
    """The hint-responsive twin's model finishes only once the agent hints, so when it finishes
    is the stop logic's: a detector that hints later, and still stops the sibling within its N,
    must be able to finish the twin within the twin's N — else the same detection passes the
    one and fails the other."""
    twin = scenarios.get("constant-return/twin-hint-responsive")
    sibling = scenarios.get(twin.twin_of or "")
    at_the_bound, failed = [], []
    for repeats in range(3, sibling.step_bound + 1):  # the contract's own 3, and later
        thresholds = ContractThresholds(
            repeated_action=repeats, stalled_steps=repeats, criteria_steps=repeats
        )
        for seed in twin.seeds:
            stuck = unsolvable.run(ContractAgent(thresholds), sibling, seed=seed, strict=True)
            if not stuck.verdict.passed:
                continue
            at_the_bound.append(stuck.observed.steps == stuck.step_bound)
            done = unsolvable.run(ContractAgent(thresholds), twin, seed=seed, strict=True)
            if done.verdict.broke(Rule.PAST_BOUND):  # the budget, which it shows, may end first
                failed.append((repeats, seed, done.verdict.summary))
    assert any(at_the_bound), "some detector stops the sibling at its bound"
    assert failed == []


class _ReadsTheLedgerFirst:
    """A session whose agent reads the ledger before each model call, as one that looks for
    another way of its own accord; what it read, in order."""

    def __init__(self, session: Session, lookup: str) -> None:
        self._session, self._lookup, self.read = session, lookup, list[str]()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)

    def call_model(self, messages: Any, tools: Any = None, *, agent: str = "main") -> Any:
        self.read.append(self._session.call_tool(self._lookup, {}, agent=agent))
        return self._session.call_model(messages, tools, agent=agent)


@pytest.mark.parametrize("seed", scenarios.get("constant-return/twin-hint-responsive").seeds)
def test_the_hint_responsive_twins_ledger_lists_the_invoice_from_the_models_heeding_on(
    seed: int,
) -> None:
    """The ledger is the sibling's until the model heeds the hint, and the found one from then,
    whoever reads it: the contract, reading the ledger before each of its model calls, still
    finishes the twin, and its reads list the invoice from the step after the model's lookup."""
    twin = scenarios.get("constant-return/twin-hint-responsive")
    lookup = dialect(seed).tool_name(LOOKUP.name)  # as the seed's API spells it
    reader: list[_ReadsTheLedgerFirst] = []

    def agent(session: Session) -> unsolvable.Stop:
        reader.append(_ReadsTheLedgerFirst(session, lookup))
        return contract(reader[0])  # type: ignore[arg-type]

    record = unsolvable.run(agent, twin, seed=seed)
    assert record.verdict.passed, record.verdict.summary
    trajectory = record.observed.trajectory
    heeded = next(s.step for s in trajectory if any(c.name == lookup for c in s.calls))
    listed = [invoice_of(seed) in read for read in reader[0].read]
    assert listed == [False] * heeded + [True] * (len(listed) - heeded)
