"""Consumes `Metrics` and a committed baseline file, produces the gate: every group whose
detection-lag p95 (in steps, and in dollars) or false-stop rate got worse than the baseline by
more than its margin. The baseline file itself is `unsolvable.reports._blessed`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from unsolvable._errors import BaselineError
from unsolvable._loading import agent_name
from unsolvable._numbers import counted, plain, written
from unsolvable.reports._blessed import (
    CLI_FLAGS,
    GATED,
    Baseline,
    BaselineFlags,
    Entry,
    Seeds,
    entry_of,
    key_of,
)
from unsolvable.reports._distribution import Number
from unsolvable.reports._metrics import GroupMetrics, Metrics, RunId, where

__all__ = [
    "GATED",
    "Baseline",
    "GateResult",
    "LostLag",
    "Margins",
    "Regression",
    "gate",
]


@dataclass(frozen=True, kw_only=True)
class Margins:
    """How much worse than the baseline a gated number may get before the gate fails."""

    lag_steps: int = 0
    """Steps of detection-lag p95 above the baseline that still pass."""
    false_stop_rate: float = 0.0
    """False-stop rate above the baseline that still passes (0.1 = ten points)."""
    lag_cost_usd: float = 0.0
    """Dollars of detection-lag p95 above the baseline that still pass."""

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if not (value >= 0 and math.isfinite(value)):
                raise BaselineError(
                    f"Margins({name}={value!r}): a margin must be a finite number, 0 or more"
                )
        if self.false_stop_rate > 1:  # a rate is at most 1: the gate would pass any rate
            raise BaselineError(
                f"Margins(false_stop_rate={self.false_stop_rate!r}): a rate's margin is a share, "
                "1 at most (0.05: five points above the baseline)"
            )

    def for_metric(self, metric: str) -> Number:
        margins = {
            "lag_steps_p95": self.lag_steps,
            "false_stop_rate": self.false_stop_rate,
            "lag_cost_usd_p95": self.lag_cost_usd,
        }
        return margins[metric]

    def __str__(self) -> str:
        """The margins given; the cost margin only when one is (a dollar margin of 0 is what a
        gate on steps and rates was always read with)."""
        lag = counted(self.lag_steps, "step")
        given = f"lag p95 +{lag}, false-stop rate +{plain(self.false_stop_rate)}"
        return f"{given}, lag cost p95 +${plain(self.lag_cost_usd)}" if self.lag_cost_usd else given


def _covers(group: GroupMetrics, entry: Entry, seeds: Seeds | None) -> bool:
    """Like with like: a run of three constant-return scenarios is no measure of the family the
    baseline blessed over seven, nor a run of one seed of the runs blessed over three (its p95
    is another rank of other runs), nor a run of seed 2 of the runs blessed on seed 0 (other
    runs, on which the same stop logic lags otherwise) — nor, for the same reasons, a run of
    more: every seed of runs blessed on seed 0, or a family that gained a scenario. A scenario
    group covers itself on the seeds it was blessed on."""
    covered, runs = entry.get("scenarios"), entry.get("runs")
    scenarios = covered is None or group.scenarios == covered
    blessed_seeds = seeds is None or set(group.seeds) == set(seeds)
    return scenarios and blessed_seeds and (runs is None or group.runs == runs)


def _falls_short(group: GroupMetrics, entry: Entry, seeds: Seeds | None) -> bool:
    """Whether the run covers the group only in part: fewer scenarios, seeds or runs than the
    baseline blessed (a narrowed run), rather than more."""
    covered, runs = entry.get("scenarios"), entry.get("runs")
    return (
        (covered is not None and group.scenarios < covered)
        or (seeds is not None and not set(group.seeds) >= set(seeds))
        or (runs is not None and group.runs < runs)
    )


@dataclass(frozen=True, kw_only=True)
class Regression:
    """One gated number of one group that got worse than the baseline allows."""

    agent: str
    level: str
    name: str
    metric: str
    """One of `GATED`."""
    baseline: Number
    now: Number
    margin: Number

    @property
    def allowed(self) -> Number:
        """The most the number could have been and passed (`_allowed`), a lag counted from 0
        (`_counted`)."""
        return float(_allowed(_counted(self.metric, self.baseline), self.margin))

    def __str__(self) -> str:
        unit = {"lag_steps_p95": " steps", "lag_cost_usd_p95": " USD"}.get(self.metric, "")
        return (
            f"{where(self.level, self.name)} × {self.agent}: {self.metric} "
            f"{plain(self.baseline)} → {plain(self.now)}{unit} "
            f"(allowed up to {plain(self.allowed)})"
        )


@dataclass(frozen=True, kw_only=True)
class LostLag:
    """A run whose lag the gate could not compare: its worker was lost before the run's first
    step in this run, in the baseline's, or in both, and such a run has no lag (`RunId`)."""

    run: RunId
    here: bool
    """Its worker was lost in this run."""
    blessed: bool
    """Its worker was lost in the run the baseline was blessed from."""

    def __str__(self) -> str:
        sides = {
            (True, False): "in this run",
            (False, True): "in the baseline's run",
            (True, True): "in this run and in the baseline's",
        }
        return (
            f"scenario {self.run.scenario} seed {self.run.seed} × {self.run.agent}: its lag "
            f"was not compared, its worker lost {sides[self.here, self.blessed]} (a run lost "
            "before its first step has no lag)"
        )


@dataclass(frozen=True, kw_only=True)
class GateResult:
    """What the gate found: the regressions, and how many groups it could compare."""

    regressions: tuple[Regression, ...]
    compared: int
    """Groups present both in this run and in the baseline, and covered in full by this run."""
    margins: Margins
    path: Path | None = None
    partial: int = 0
    """Groups both sides have that this run covers only in part (a narrowed run, fewer seeds):
    not compared."""
    beyond: int = 0
    """Groups both sides have that this run covers beyond the baseline (more seeds, a family
    that gained a scenario): runs the baseline never measured, not compared."""
    baseline_agents: tuple[str, ...] = ()
    run_agents: tuple[str, ...] = ()
    allow_empty: bool = False
    """A gate that compares nothing passes (``--allow-empty-gate``) instead of failing."""
    lost: tuple[LostLag, ...] = ()
    """The runs of the compared agents whose lag neither side could give, a worker being lost:
    named beside the verdict, as groups not compared are counted, and not read as no
    regression."""

    @property
    def is_empty(self) -> bool:
        return self.compared == 0

    @property
    def passed(self) -> bool:
        return not self.regressions and (self.allow_empty or not self.is_empty)

    def lines(self, flags: BaselineFlags = CLI_FLAGS) -> list[str]:
        """The terminal lines: a verdict, then one bullet per regression and the way out (with
        the ``flags`` of the face that prints them)."""
        against = f"against {self.path}" if self.path else "against the baseline"
        if self.is_empty:
            return self._empty_lines(against, flags)
        lost = [f"  - {run}" for run in self.lost]
        if lost:
            lost.append(
                "  a lost run's lag is compared once the run finishes on both sides: run it "
                f"again, and rewrite a baseline blessed on a lost run with {flags.update}"
            )
        if self.passed:
            return [
                f"unsolvable: baseline gate passed: {counted(self.compared, 'group')} compared "
                f"{against} ({self.margins}){self.partial_note()}{self.lost_note()}"
                f"{':' if lost else ''}",
                *lost,
            ]
        return [
            f"unsolvable: baseline gate FAILED: {len(self.regressions)} regression(s) {against} "
            f"({self.margins}){self.partial_note()}{self.lost_note()}:",
            *(f"  - {regression}" for regression in self.regressions),
            *lost,
            f"  fix the stop logic, or accept the new numbers with {flags.update}",
        ]

    def lost_note(self) -> str:
        """``; the lag of 2 runs was not compared, a worker lost``, or nothing: what every
        face's line of a gate that compared some group says of the runs it names (`lost`)."""
        if not self.lost:
            return ""
        return f"; the lag of {counted(len(self.lost), 'run')} was not compared, a worker lost"

    def partial_note(self) -> str:
        """``; 2 groups this run covers only in part were not compared``, and the groups it
        covers beyond the baseline, or nothing: what every face's line of a gate that compared
        some group says it left out."""
        part = (
            f"; {counted(self.partial, 'group')} this run covers only in part "
            f"{_were(self.partial)} not compared"
        )
        beyond = (
            f"; {counted(self.beyond, 'group')} this run covers beyond the baseline, on runs it "
            f"never measured, {_were(self.beyond)} not compared"
        )
        return (part if self.partial else "") + (beyond if self.beyond else "")

    def _empty_lines(self, against: str, flags: BaselineFlags) -> list[str]:
        """A gate that compares nothing is no gate: say why, so a renamed agent or a run of
        other scenarios does not pass CI unnoticed."""
        verdict = "passed (allowed empty)" if self.allow_empty else "FAILED"
        return [
            f"unsolvable: baseline gate {verdict}: compared no group {against}"
            f"{self.partial_note()}",
            f"  - the baseline has agents: {', '.join(self.baseline_agents) or '(none)'}",
            f"  - this run has agents: {', '.join(self.run_agents) or '(none)'}",
            f"  run the agents, scenarios and seeds the baseline has, rewrite it with "
            f"{flags.update}, or allow this with {flags.allow_empty}",
        ]


LAGS = ("lag_steps_p95", "lag_cost_usd_p95")
"""The gated lags: signed, so a p95 below 0 is a group of premature stops."""


def _were(count: int) -> str:
    """The verb a count of groups takes."""
    return "was" if count == 1 else "were"


def _counted(metric: str, value: Number) -> Number:
    """A gated number as the gate compares it: a lag p95 counted from 0, as the calibrated step
    cap comparison counts it — a stop before the stagnant step is a premature stop, counted
    apart, never a shorter lag — so that an agent that stops guessing (-3 → 0) is no
    regression, as one that starts guessing (3 → -3) is none."""
    return max(value, 0) if metric in LAGS else value


def _allowed(before: Number, margin: Number) -> Decimal:
    """``before`` plus ``margin``, added as the numbers are written (`written`): in binary
    0.006264 + 0.0012 falls short of 0.007464, and the gate failed a number it said was
    allowed."""
    return written(before) + written(margin)


def _exceeds(after: Number, before: Number, margin: Number) -> bool:
    """``after`` is above what ``before`` and ``margin`` allow (`_allowed`)."""
    return written(after) > _allowed(before, margin)


def _regressions(group: GroupMetrics, entry: Entry, margins: Margins) -> list[Regression]:
    now = entry_of(group)
    found = []
    for metric in GATED:
        before, after, margin = entry.get(metric), now[metric], margins.for_metric(metric)
        if (
            before is not None
            and after is not None
            and _exceeds(_counted(metric, after), _counted(metric, before), margin)
        ):
            found.append(
                Regression(
                    agent=group.agent,
                    level=group.level,
                    name=group.name,
                    metric=metric,
                    baseline=before,
                    now=after,
                    margin=margin,
                )
            )
    return found


def _lost(metrics: Metrics, baseline: Baseline, compared: set[str]) -> tuple[LostLag, ...]:
    """The runs of the ``compared`` agents that this run made and that one side or both lost:
    a baseline's lost run of a scenario or seed this run did not make is compared with nothing
    anyway, as a missing scenario is."""
    ran = {
        RunId(agent=agent_name(group.agent), scenario=group.name, seed=seed)
        for group in metrics.scenarios
        for seed in group.seeds
    }
    here = {run._replace(agent=agent_name(run.agent)) for run in metrics.lost}
    blessed = {
        RunId(agent=agent, scenario=name, seed=seed)
        for (_, name, agent), seeds in baseline.lost.items()
        for seed in seeds
    }
    either = sorted(run for run in (here | blessed) & ran if run.agent in compared)
    return tuple(LostLag(run=run, here=run in here, blessed=run in blessed) for run in either)


def gate(
    metrics: Metrics,
    baseline: Baseline,
    margins: Margins | None = None,
    *,
    allow_empty: bool = False,
) -> GateResult:
    """Compares every group of this run that the baseline knows and that this run covers in
    full (`_covers`); groups only one side has are skipped (a run of a few scenarios gates just
    those). Comparing nothing fails unless ``allow_empty``."""
    margins = margins or Margins()
    known = [group for group in metrics if key_of(group) in baseline.entries]
    shared = [
        group
        for group in known
        if _covers(group, baseline.entries[key_of(group)], baseline.seeds.get(key_of(group)))
    ]
    regressions = [
        regression
        for group in shared
        for regression in _regressions(group, baseline.entries[key_of(group)], margins)
    ]
    compared = {key_of(group) for group in shared}
    short = sum(
        _falls_short(group, baseline.entries[key_of(group)], baseline.seeds.get(key_of(group)))
        for group in known
        if key_of(group) not in compared
    )
    return GateResult(
        lost=_lost(metrics, baseline, {agent for _, _, agent in map(key_of, shared)}),
        regressions=tuple(regressions),
        compared=len(shared),
        margins=margins,
        path=baseline.path,
        partial=short,
        beyond=len(known) - len(shared) - short,
        baseline_agents=baseline.agents,
        run_agents=tuple(sorted({agent_name(group.agent) for group in metrics.agents})),
        allow_empty=allow_empty,
    )
