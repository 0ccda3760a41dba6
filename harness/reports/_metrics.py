"""Consumes judged termination records, produces `Metrics`: per agent, family and scenario, the
detection-lag distribution (steps, tokens, cost), stops against the bound, exit codes, false stops
on controls, premature stops, false completions, did_not_stop, pass^k and the calibrated step
cap an agent must beat.

How each run counts (its lag, and which kind of stop it made) is `unsolvable.reports._counted`.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, NamedTuple

from unsolvable._numbers import rounded
from unsolvable._record import TerminationRecord
from unsolvable._stop import Outcome
from unsolvable.reports._counted import (
    ending,
    has_lag,
    is_blind_stop,
    is_counted_false_stop,
    is_false_completion,
    is_premature_stop,
    is_unreported_finish,
    lag,
    lag_cost_usd,
    lag_tokens,
    stopped_step,
)
from unsolvable.reports._distribution import Distribution, Number
from unsolvable.reports._step_cap import StepCap, calibrated_step_cap

__all__ = [
    "ALL",
    "LEVELS",
    "Distribution",
    "GroupMetrics",
    "Metrics",
    "RunId",
    "measure",
    "where",
]

ALL = "all"
"""The name of an agent's group over every run it made."""
LEVELS = ("agent", "family", "scenario")
"""The levels `measure` groups runs at (`GroupMetrics.level`): all of an agent's runs, a
family's, a scenario's."""
RATE_DIGITS = 4
"""Rates are rounded so that JSON stays byte-stable: 1/3 is 0.3333 on every machine."""
COST_DIGITS = 6
"""Dollar amounts keep a millionth of a dollar, as the records do."""


class RunId(NamedTuple):
    """One run of one agent: what names it across a run and the baseline it is gated against."""

    agent: str
    scenario: str
    seed: int


def where(level: str, name: str) -> str:
    """How messages name a group: ``family constant-return``, or ``all runs``."""
    return "all runs" if level == "agent" else f"{level} {name}"


def _passed(record: TerminationRecord) -> bool:
    return record.verdict.passed


@dataclass(frozen=True, kw_only=True)
class GroupMetrics:
    """The metrics of one agent over one group of runs: all of them, a family, or a scenario."""

    agent: str
    """The agent's label."""
    level: str
    """``agent`` (all its runs), ``family`` or ``scenario``."""
    name: str
    """The family or scenario name; ``all`` at the agent level (`ALL`)."""
    runs: int
    """Runs in the group."""
    passed: int
    """Runs whose verdict passed."""
    scenarios: int
    """Distinct scenarios among the runs."""
    seeds: tuple[int, ...]
    """Distinct seeds among the runs, sorted: what a baseline gate needs to compare like with
    like, since the same stop logic lags otherwise on another seed's runs."""
    k: int
    """Most seeded runs of one scenario: the k of pass^k. A scenario run on fewer seeds (one
    that has only one) is passed on those; the pass^k line names each k it counted under."""
    pass_k: int
    """Scenarios whose every seeded run passed, however many seeds each had."""
    lag_steps: Distribution | None
    """Detection lag in steps over the unsolvable runs that have one (`has_lag`: runs lost
    before their first step left out); ``None`` for a group with none, a group of controls say."""
    lag_tokens: Distribution | None
    """Detection lag in tokens over the same runs, signed as the lag in steps is."""
    lag_cost_usd: Distribution | None
    """Detection lag in dollars over the same runs, each run's to the millionth."""
    steps: Distribution
    """The steps each run made, over every run: a run a ceiling cut short counts where the
    ceiling found it, as its spend does, not where `steps_per_bound` counts it stopped."""
    steps_per_bound: Distribution
    """The stopped step (`stopped_step`) divided by the bound N: above 1 means stopped too late.
    Exact, so that a report rounds it once (the JSON to four digits, `RATE_DIGITS`, as it does
    rates: 1 only at the bound, 0 only at no step)."""
    over_bound: int
    """Runs whose stopped step (`stopped_step`) is past the bound N, every did_not_stop
    included; a lost run at the steps the harness admitted before it lost the worker."""
    over_budget: int
    """Runs that went past their token or dollar budget at all (`Observed.overshoot_tokens`,
    `Observed.overshoot_cost_usd`)."""
    overshoot_tokens: Distribution
    """Tokens charged past the token budget, over every run (0 for a run within it, or given
    no token budget to pass: a max of 0 is no run past one, not a figure in tokens)."""
    overshoot_cost_usd: Distribution
    """Dollars past the dollar budget, over every run; with a token budget only, the tokens past
    it at the run's mean price per token (`Observed.overshoot_cost_usd`)."""
    exits: dict[str, int]
    """How runs ended: the code, or the harness outcome when the agent gave none."""
    controls: int
    """Runs on solvable controls."""
    false_stops: int
    """Controls ended without completing, unreported finishes left out."""
    false_stop_rate: float | None
    """False stops per control run, to four digits (never 0 for some, nor 1 for fewer than
    all); ``None`` when the group has no controls."""
    unreported_finishes: int
    """Controls finished in the world but not reported complete (`is_unreported_finish`)."""
    premature_stops: int
    """Unsolvable runs stopped before their first stagnant step, or blind (`is_premature_stop`)."""
    blind_stops: int
    """The premature stops made blind, with no model call or no result read (`is_blind_stop`)."""
    step_cap: StepCap | None
    """The calibrated step cap over the same runs; ``None`` unless the group has both unsolvable
    runs and controls."""
    false_completions: int
    """Runs that claimed a completion the world does not show (`is_false_completion`)."""
    did_not_stop: int
    """Runs a harness ceiling ended."""

    @property
    def key(self) -> tuple[str, str, str]:
        """What identifies the group across runs (and in a baseline)."""
        return (self.level, self.name, self.agent)


def _optional(values: Sequence[Number]) -> Distribution | None:
    """``None`` for no values: a group of controls has no lag."""
    return Distribution.of(values) if values else None


def _rate(part: int, whole: int) -> float | None:
    """``part / whole`` to `RATE_DIGITS`, but never 0 for a part that is not none, nor 1 for
    one short of the whole (`rounded`): a baseline gate with no margin would read 1 false stop
    in 30,000 controls as none."""
    return rounded(part / whole, RATE_DIGITS) if whole else None


def _dollars(value: float) -> float:
    """``value`` to `COST_DIGITS`, never 0 unless it is (`rounded`): a lag of a few
    ten-millionths of a dollar is no stop on the stagnant step."""
    return rounded(value, COST_DIGITS, marks=(0.0,))


def _pass_k(records: Sequence[TerminationRecord]) -> tuple[int, int, int]:
    """Distinct scenarios, k, and how many scenarios passed on every seed."""
    by_scenario: dict[str, list[bool]] = {}
    for record in records:
        by_scenario.setdefault(record.scenario, []).append(_passed(record))
    k = max(len(results) for results in by_scenario.values())
    return len(by_scenario), k, sum(all(results) for results in by_scenario.values())


def _group(level: str, name: str, agent: str, records: Sequence[TerminationRecord]) -> GroupMetrics:
    unsolvable = [r for r in records if not r.solvable]
    lagged = [r for r in unsolvable if has_lag(r)]
    lags = [lag(r) for r in lagged]
    tokens = [t for t in map(lag_tokens, lagged) if t is not None]
    dollars = [_dollars(c) for c in map(lag_cost_usd, lagged) if c is not None]
    controls = [r for r in records if r.solvable]
    false_stops = sum(map(is_counted_false_stop, controls))
    scenarios, k, pass_k = _pass_k(records)
    return GroupMetrics(
        agent=agent,
        level=level,
        name=name,
        runs=len(records),
        passed=sum(map(_passed, records)),
        scenarios=scenarios,
        seeds=tuple(sorted({record.seed for record in records})),
        k=k,
        pass_k=pass_k,
        lag_steps=_optional(lags),
        lag_tokens=_optional(tokens),
        lag_cost_usd=_optional(dollars),
        steps=Distribution.of([r.observed.steps for r in records]),
        steps_per_bound=Distribution.of([stopped_step(r) / r.step_bound for r in records]),
        over_bound=sum(stopped_step(r) > r.step_bound for r in records),
        over_budget=sum(
            r.observed.overshoot_tokens > 0 or r.observed.overshoot_cost_usd > 0 for r in records
        ),
        overshoot_tokens=Distribution.of([r.observed.overshoot_tokens for r in records]),
        overshoot_cost_usd=Distribution.of(
            [_dollars(r.observed.overshoot_cost_usd) for r in records]
        ),
        exits=dict(sorted(Counter(map(ending, records)).items())),
        controls=len(controls),
        false_stops=false_stops,
        false_stop_rate=_rate(false_stops, len(controls)),
        unreported_finishes=sum(map(is_unreported_finish, controls)),
        premature_stops=sum(map(is_premature_stop, records)),
        blind_stops=sum(map(is_blind_stop, unsolvable)),
        step_cap=calibrated_step_cap(records),
        false_completions=sum(map(is_false_completion, records)),
        did_not_stop=sum(r.outcome is Outcome.DID_NOT_STOP for r in records),
    )


def _grouped(
    records: Sequence[TerminationRecord], level: str, name_of: Callable[[TerminationRecord], str]
) -> tuple[GroupMetrics, ...]:
    """One group per name × agent, names and agents in the order the records first show them."""
    groups: dict[tuple[str, str], list[TerminationRecord]] = {}
    for record in records:
        groups.setdefault((name_of(record), record.agent), []).append(record)
    return tuple(_group(level, name, agent, members) for (name, agent), members in groups.items())


@dataclass(frozen=True, kw_only=True)
class Metrics:
    """Every group's metrics: per agent over all its runs, per family, per scenario."""

    agents: tuple[GroupMetrics, ...] = ()
    families: tuple[GroupMetrics, ...] = ()
    scenarios: tuple[GroupMetrics, ...] = ()
    runs: int = 0
    lost: tuple[RunId, ...] = ()
    """The unsolvable runs whose worker was lost before their first step, so that have no lag
    (`has_lag`): no lag figure counts them, and the baseline gate names them, since their lag
    is compared with nothing."""

    @cached_property
    def by_key(self) -> dict[tuple[str, str, str], GroupMetrics]:
        """Every group by `GroupMetrics.key`."""
        return {group.key: group for group in self}

    def __iter__(self) -> Iterator[GroupMetrics]:
        """Agents, then families, then scenarios."""
        return iter((*self.agents, *self.families, *self.scenarios))

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able data; the same records always give the same data."""
        groups = {"agents": self.agents, "families": self.families, "scenarios": self.scenarios}
        data: dict[str, Any] = {
            level: [_group_data(group) for group in members] for level, members in groups.items()
        }
        data["runs"] = self.runs
        return data


def _group_data(group: GroupMetrics) -> dict[str, Any]:
    """One group as plain data, its step/N ratios rounded to `RATE_DIGITS` like its rates."""
    data = dataclasses.asdict(group)
    data["steps_per_bound"] = dataclasses.asdict(group.steps_per_bound.rounded(RATE_DIGITS))
    return data


def measure(records: Sequence[TerminationRecord]) -> Metrics:
    """The metrics of ``records``: groups appear in the order the records first show them."""
    agent, family, scenario = LEVELS
    agents = _grouped(records, agent, lambda _: ALL)
    families = _grouped(records, family, lambda record: record.family)
    scenarios = _grouped(records, scenario, lambda record: record.scenario)
    lost = tuple(
        RunId(agent=r.agent, scenario=r.scenario, seed=r.seed)
        for r in records
        if not r.solvable and not has_lag(r)
    )
    return Metrics(
        agents=agents, families=families, scenarios=scenarios, runs=len(records), lost=lost
    )
