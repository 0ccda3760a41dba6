"""Consumes a test's settings (marker over options over ini), produces judged runs of an agent.

This is the engine behind the ``unsolvable`` fixture and the generated suite. Every run lands in
the session's `RunLedger`, so the terminal summary and ``--unsolvable-json`` see fixture runs too,
and its key figures land in the test's ``user_properties``, so ``--junitxml`` shows them per test.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from unsolvable._batch import Job, WorkerPool
from unsolvable._ceilings import Ceilings
from unsolvable._errors import AdapterError, docs_page
from unsolvable._loading import AgentLike, load_agent
from unsolvable._record import TerminationRecord
from unsolvable._rules import Rule
from unsolvable._run import ceilings_for, run
from unsolvable._scenario import Scenario
from unsolvable.adapters.base import Adapter, as_adapter, own_name
from unsolvable.plugin._changes import describe_change
from unsolvable.plugin._marker import MarkerOptions
from unsolvable.plugin._options import (
    AGENT_OPTION,
    DOCS,
    LENIENT_OPTION,
    NO_SNAPSHOT_OPTION,
    STEP_BOUND_OPTION,
)
from unsolvable.plugin._settings import SNAPSHOT_PLUGIN, Settings
from unsolvable.reports._counted import counted_lags
from unsolvable.reports._table import explain

if TYPE_CHECKING:
    import pytest

    from unsolvable.plugin._ledger import RunLedger

__all__ = [
    "AgentLike",
    "Case",
    "SnapshotChanged",
    "SnapshotMissing",
    "UnsolvableRunner",
    "is_selected",
    "junit_properties",
    "make_cases",
]

CURRENT_TEST = "PYTEST_CURRENT_TEST"
"""Where pytest names the running test, whose id names its scenario and seed: kept from the
agent, which would read there which scenario it is in."""


@dataclass(frozen=True, kw_only=True)
class Case:
    """One scenario × seed (× agent): the value of the ``unsolvable_case`` fixture."""

    scenario: Scenario
    seed: int
    agent: AgentLike | None = None
    """``None``: the agent of the marker or of ``--unsolvable-agent``."""
    label: str = ""
    """The agent's part of the test id, when a test runs on several agents."""

    @property
    def id(self) -> str:
        """``family/variant-seedN``: readable, and selectable with ``-k``."""
        base = f"{self.scenario.name}-seed{self.seed}"
        return f"{base}-{self.label}" if self.label else base


@contextlib.contextmanager
def _test_unnamed() -> Iterator[None]:
    """The environment without `CURRENT_TEST` while an agent runs, then with it again."""
    named = os.environ.pop(CURRENT_TEST, None)
    try:
        yield
    finally:
        if named is not None:
            os.environ[CURRENT_TEST] = named


def agent_label(agent: AgentLike) -> str:
    """The label its runs get (`unsolvable._loading`), for test ids: a spec's, loaded; an
    object's own name."""
    if isinstance(agent, str):
        return load_agent(agent).name
    return own_name(agent) or str(getattr(agent, "__name__", type(agent).__name__))


def make_cases(
    settings: Settings, marker: MarkerOptions, *, agents: Sequence[AgentLike] | None = None
) -> list[Case]:
    """Every scenario × seed × agent a test is parametrized over (library order); a seed the
    marker gives twice is one case, as under ``unsolvable run``, or it would count twice in its
    scenario's pass^k."""
    if agents is None:
        agents = [marker.agent] if marker.agent is not None else list(settings.agents)
    chosen: Sequence[AgentLike | None] = agents or [None]
    return [
        Case(scenario=scenario, seed=seed, agent=agent, label=_label(agent, len(chosen)))
        for scenario in settings.library().select(marker.scenarios or ())
        for seed in dict.fromkeys(marker.seeds or scenario.seeds)
        for agent in chosen
    ]


def _label(agent: AgentLike | None, agents: int) -> str:
    return agent_label(agent) if agent is not None and agents > 1 else ""


def is_selected(case: Case, settings: Settings) -> bool:
    """``--unsolvable-scenario`` and ``--unsolvable-family`` each take a scenario or a family
    name, as ``unsolvable run --scenario`` does: a family given where a scenario is expected
    must not deselect everything in silence."""
    if not settings.has_filters:
        return True
    names = {*settings.scenarios, *settings.families}
    return case.scenario.name in names or case.scenario.family in names


class UnsolvableRunner:
    """The ``unsolvable`` fixture: runs agents on scenarios with this test's settings.

    Exposed for type hints only; get one from the fixture. Usage::

        def test_stops(unsolvable):
            record = unsolvable.run("constant-return/repeat", agent="mypkg.agents:my_agent")
            unsolvable.assert_passed(record)
    """

    def __init__(
        self,
        request: pytest.FixtureRequest,
        *,
        settings: Settings,
        ledger: RunLedger,
        pool: Callable[[], WorkerPool],
    ) -> None:
        __tracebackhide__ = True
        self.request, self.settings, self.ledger, self.pool = request, settings, ledger, pool
        self.marker = MarkerOptions.from_node(request.node)

    def run(
        self,
        scenario: Case | Scenario | str,
        *,
        agent: AgentLike | None = None,
        seed: int | None = None,
        strict: bool | None = None,
        **overrides: Any,
    ) -> TerminationRecord:
        """Runs one scenario (a `Case`, a `Scenario` or its name) and returns the judged record.

        Unset arguments come from the marker, then the options; ``overrides`` replace the step
        bound or budget fields (``step_bound=8``, ``max_steps=20``).
        """
        __tracebackhide__ = True
        if isinstance(scenario, Case):
            case = scenario
            scenario, agent, seed = case.scenario, agent or case.agent, _first(seed, case.seed)
        adapter = self._adapter(agent)
        with _test_unnamed():
            record = run(
                adapter,
                self.settings.library().get(scenario) if isinstance(scenario, str) else scenario,
                seed=seed,
                strict=bool(_first(strict, self.marker.strict, self.settings.strict)),
                ceilings=self._ceilings(adapter),
                **{**self.settings.overrides, **self.marker.overrides, **overrides},
            )
        self._keep(record)
        return record

    def run_isolated(self, case: Case) -> TerminationRecord:
        """Runs a generated-suite case in a worker process (`unsolvable._batch.WorkerPool`): an
        agent that kills its process, or holds the interpreter past its ceiling, is recorded
        for this case, and the test session goes on."""
        __tracebackhide__ = True
        spec = case.agent if isinstance(case.agent, str) else None
        spec = spec or (self.settings.agents[0] if len(self.settings.agents) == 1 else None)
        if spec is None:
            return self.run(case)
        job = Job(
            agent=spec,
            scenario=case.scenario.name,
            seed=case.seed,
            strict=bool(_first(self.marker.strict, self.settings.strict)),
            ceilings=self._ceilings(self._adapter(spec)),
            overrides=tuple(sorted({**self.settings.overrides, **self.marker.overrides}.items())),
            isolate_network=self.settings.isolate_network,
        )
        with _test_unnamed():  # a worker starts from the environment of the moment
            (record,) = self.pool().run([job]).records
        self._keep(record)
        return record

    def _ceilings(self, agent: Adapter | Callable[..., Any]) -> Ceilings:
        """The run's harness ceilings: the marker's over the options', and each one neither sets
        the agent's own (`ceilings_for`), as under ``unsolvable run``: a coding agent's CLI gets
        the longer wall ceiling it needs."""
        marker, settings = self.marker, self.settings
        given = {
            "max_steps": _first(marker.ceiling_steps, settings.ceiling_steps),
            "max_tool_calls": _first(marker.ceiling_tool_calls, settings.ceiling_tool_calls),
        }
        return ceilings_for(
            as_adapter(agent),
            max_wall_seconds=_first(marker.ceiling_seconds, settings.ceiling_seconds),
            **{name: value for name, value in given.items() if value is not None},
        )

    def _keep(self, record: TerminationRecord) -> None:
        """Into the session's ledger, as this test's (`RunLedger.hold`), and onto the test's
        JUnit properties (what ``record_property`` does), one group per run in the order the
        runs ended."""
        self.ledger.hold(record)
        self.request.node.user_properties.extend(junit_properties(record))

    def _adapter(self, agent: AgentLike | None) -> Adapter | Callable[..., Any]:
        __tracebackhide__ = True
        agent = agent or self.marker.agent
        if agent is None and len(self.settings.agents) == 1:
            agent = self.settings.agents[0]
        if agent is None:
            raise AdapterError(
                "no agent to run: name one with unsolvable.run(..., agent=...), "
                f"@pytest.mark.unsolvable(agent=...), {AGENT_OPTION}=SPEC or the ini key "
                f"unsolvable_agent ({DOCS})"
            )
        if not isinstance(agent, str):
            return agent
        return load_agent(agent, isolate_network=self.settings.isolate_network)

    @property
    def snapshot(self) -> Any:
        """syrupy's ``snapshot`` fixture, bound to the termination-record extension."""
        __tracebackhide__ = True
        if not self.request.config.pluginmanager.has_plugin(SNAPSHOT_PLUGIN):
            raise AdapterError(
                "unsolvable_snapshot needs syrupy, whose pytest plugin is not loaded; "
                f"pip install 'pytest-unsolvable[snapshot]' ({DOCS})"
            )
        from unsolvable.plugin.snapshot import TerminationRecordExtension

        return self.request.getfixturevalue("snapshot").use_extension(TerminationRecordExtension)

    def assert_passed(self, record: TerminationRecord, *, snapshot: Any = None) -> None:
        """Fails the test unless the verdict passed (and the record matches ``snapshot``).

        The snapshot is compared first, so ``--snapshot-update`` records failing runs too; the
        verdict is reported first, because it says what the agent did wrong.
        """
        __tracebackhide__ = True
        matched = True if snapshot is None else bool(snapshot == record)
        if not record.verdict.passed:
            status = "" if matched else "none yet" if _is_new(snapshot) else _differs(snapshot)
            raise AssertionError(verdict_message(record, snapshot=status))
        if not matched:
            error = SnapshotMissing if _is_new(snapshot) else SnapshotChanged
            raise error(self._snapshot_message(record, snapshot))

    def _snapshot_message(self, record: TerminationRecord, snapshot: Any) -> str:
        last = snapshot.executions[snapshot.num_executions - 1]
        if _is_new(snapshot):
            return (
                f"unsolvable: {_title(record)} has no snapshot yet at {last.snapshot_location}\n"
                "Record it with pytest --snapshot-update (or turn snapshots of the generated "
                f"suite off with {NO_SNAPSHOT_OPTION})."
            )
        config = self.request.config
        explained = config.hook.pytest_assertrepr_compare(
            config=config, op="==", left=snapshot, right=record
        )
        diff: list[str] = next((lines for lines in explained if lines), [])
        words = describe_change(last.recalled_data, last.asserted_data)
        return "\n".join(
            [
                f"unsolvable: the termination record of {_title(record)} differs from its snapshot",
                *(f"  {line}" for line in words),
                *diff,
                "If the new stop behaviour is intended, accept it with pytest --snapshot-update.",
            ]
        )


class SnapshotMissing(AssertionError):
    """The verdict passed, but the record has no snapshot to compare with yet: a first run."""

    __module__ = "unsolvable.plugin"  # how pytest names it in a failure: its public home


class SnapshotChanged(AssertionError):
    """The verdict passed, but the record differs from its snapshot: the stop behaviour changed,
    which a reviewer accepts (``--snapshot-update``) or fixes; counted apart from verdicts."""

    __module__ = "unsolvable.plugin"


def _differs(snapshot: Any) -> str:
    """``differs as well (stop changed: …)``, for a failed verdict whose snapshot changed too."""
    last = snapshot.executions[snapshot.num_executions - 1]
    return f"differs as well ({'; '.join(describe_change(last.recalled_data, last.asserted_data))})"


def _is_new(snapshot: Any) -> bool:
    """Whether syrupy found no stored snapshot for the last comparison."""
    return snapshot.executions[snapshot.num_executions - 1].recalled_data is None


def junit_properties(record: TerminationRecord) -> list[tuple[str, str]]:
    """A run's key figures as ``--junitxml`` properties; ``-`` where the run has no value (no
    exit or code from an agent that gave no structured stop), as the tables show it. The lag is
    the one every report counts (`counted_lags`): a stop the evidence or the budget chose is at
    0 at least, never a premature stop."""
    observed = record.observed
    lags = counted_lags(record)
    figures: dict[str, object] = {
        "scenario": record.scenario,
        "seed": record.seed,
        "agent": record.agent,
        "exit": record.exit,
        "code": record.code,
        "outcome": record.outcome,
        "stopped_step": observed.steps,
        "first_stagnant_step": observed.first_stagnant_step,
        "lag_steps": lags.steps,
        "lag_tokens": lags.tokens,
        "lag_cost_usd": lags.cost_usd,
        "verdict": "pass" if record.verdict.passed else "fail",
    }
    return [(f"unsolvable.{k}", "-" if v is None else str(v)) for k, v in figures.items()]


def _first(*values: Any) -> Any:
    """The first value that is set: call argument, then marker, then option."""
    return next((value for value in values if value is not None), None)


def _title(record: TerminationRecord) -> str:
    return f"{record.scenario} (seed {record.seed}) × {record.agent}"


def verdict_message(record: TerminationRecord, *, snapshot: str = "") -> str:
    """Expected vs observed and the trajectory tail (`explain`), then what to do."""
    lines = [explain(record)]
    if snapshot:
        lines.append(f"  snapshot: {snapshot}")
    return "\n".join([*lines, _advice(record)])


RAISES = docs_page("plain-face", "put-your-agent-under-test-the-plain-python-face")
"""What the session's calls raise and which of it an agent catches: a crash's fix is there."""
LOST = docs_page("plain-face", "ceilings-the-harness-never-hangs")
"""How a run's worker process is lost, and what the record keeps of it."""
RULES = docs_page("scenarios", "the-verdict-rules")
"""What each rule a failure names asks of a stop."""


def _advice(record: TerminationRecord) -> str:
    """What to do next, and the page that says how: the session's calls for a crash, the
    verdict rules for a stop, or the flag or keyword that loosens the check when loosening it
    is all it takes (`Rule.is_loosened_by_flag`)."""
    verdict = record.verdict
    if verdict.broke(Rule.CRASHED) and record.observed.traceback:
        return (
            "  the agent raised an exception (its traceback is above): a bug in the agent, "
            f"not a verdict on its stop logic; fix it and run again; see {RAISES}"
        )
    if verdict.broke(Rule.CRASHED):  # a worker process lost, or a return the harness misread
        return (
            "  the run crashed and left no traceback (its error is on the first line): not a "
            f"verdict on its stop logic; fix what ended it and run again; see {LOST}"
        )
    if not verdict.failures or not all(f.rule.is_loosened_by_flag for f in verdict.failures):
        return (
            f"  the agent's stop logic needs fixing; the verdict rules say what each asks: {RULES}"
        )
    ways = []
    if verdict.broke(Rule.UNEXPECTED_CODE):
        ways.append(f"strict=False or {LENIENT_OPTION}")
    if verdict.broke(Rule.PAST_BOUND):
        ways.append(f"a larger step_bound= or {STEP_BOUND_OPTION}")
    return f"  if this stop is acceptable, loosen the check: {'; '.join(ways)}; see {DOCS}"
