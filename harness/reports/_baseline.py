"""Consumes `Metrics` and a committed baseline file, produces the gate: every group whose
detection-lag p95 (in steps, and in dollars) or false-stop rate got worse than the baseline by
more than its margin.

The baseline is plain JSON with sorted keys, written only on request (``--update-baseline``), so
a pull request that moves a number shows the move in its diff.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from unsolvable._errors import BaselineError, InputError, docs_page
from unsolvable._input import load_json, read_input
from unsolvable._loading import agent_name
from unsolvable._numbers import plain
from unsolvable.reports._distribution import Number
from unsolvable.reports._files import write_file
from unsolvable.reports._metrics import GroupMetrics, Metrics, RunId, where

__all__ = [
    "BASELINE_VERSION",
    "CLI_FLAGS",
    "GATED",
    "Baseline",
    "BaselineFlags",
    "GateResult",
    "LostLag",
    "Margins",
    "Regression",
    "gate",
    "write_baseline",
]

BASELINE_VERSION = 4
"""Bumped when the file's shape changes; an old file must then be rewritten.
2: each group records how many scenarios it covered (``scenarios``), so a narrowed run gates only
the groups it covers in full; agent names in one form (`agent_name`).
3: each group records the seeds it was blessed on (``seeds``), so a run of other seeds, as many
of them, is not compared with it.
4: each scenario group records the seeds of its runs whose worker was lost before their first
step (``lost_seeds``), which have no lag: the gate names each such run, on either side, rather
than compare fewer lags without a word."""
OLDEST_READ_VERSION = 3
"""Version 3 is still read, as naming no lost run: it differs only by the seeds it cannot list, so
a baseline committed before need not be rewritten to gate the next run."""
GATED = ("lag_steps_p95", "false_stop_rate", "lag_cost_usd_p95")
"""What the gate compares: how late unsolvable tasks are noticed, how often controls are cut,
and what the late notice costs (a baseline written before it was gated has no such entry, and
is compared on the other two)."""
DOCS = docs_page("metrics", "the-baseline-gate")

Entry = dict[str, Number | None]
Key = tuple[str, str, str]
Seeds = tuple[int, ...]
SEEDS = "seeds"
"""The entry's field that lists the seeds a group was blessed on: whole numbers, not gated."""
LOST_SEEDS = "lost_seeds"
"""A scenario entry's field that lists the seeds of its runs whose worker was lost before their
first step (`RunId`), which have no lag, when it has any: whole numbers, not gated."""
SCENARIO = "scenario"
"""The level of a baseline's groups of one scenario each."""


@dataclass(frozen=True, kw_only=True)
class BaselineFlags:
    """The options that name the baseline file and its rewrite on one face (the CLI, the pytest
    plugin), so that messages tell users what to type there."""

    prefix: str = "--"
    """``--`` for ``unsolvable``, ``--unsolvable-`` for pytest."""

    @property
    def baseline(self) -> str:
        return f"{self.prefix}baseline"

    @property
    def update(self) -> str:
        return f"{self.prefix}update-baseline"

    @property
    def allow_empty(self) -> str:
        return f"{self.prefix}allow-empty-gate"


CLI_FLAGS = BaselineFlags()


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
        given = f"lag p95 +{self.lag_steps} steps, false-stop rate +{plain(self.false_stop_rate)}"
        return f"{given}, lag cost p95 +${plain(self.lag_cost_usd)}" if self.lag_cost_usd else given


def _entry(group: GroupMetrics) -> Entry:
    """The gated numbers of one group, its run count for the reader of the diff, and how many
    scenarios it covered: what a later run must cover to be compared with it."""
    lag = group.lag_steps.p95 if group.lag_steps else None
    cost = group.lag_cost_usd.p95 if group.lag_cost_usd else None
    return {
        "runs": group.runs,
        "scenarios": group.scenarios,
        "lag_steps_p95": lag,
        "false_stop_rate": group.false_stop_rate,
        "lag_cost_usd_p95": cost,
    }


def _key(group: GroupMetrics) -> Key:
    """A group's key with its agent in one form, on both sides of the gate."""
    return (group.level, group.name, agent_name(group.agent))


def _covers(group: GroupMetrics, entry: Entry, seeds: Seeds | None) -> bool:
    """Like with like: a run of three constant-return scenarios is no measure of the family the
    baseline blessed over seven, nor a run of one seed of the runs blessed over three (its p95
    is another rank of other runs), nor a run of seed 2 of the runs blessed on seed 0 (other
    runs, on which the same stop logic lags otherwise). A scenario group covers itself on the
    seeds it was blessed on."""
    covered, runs = entry.get("scenarios"), entry.get("runs")
    scenarios = covered is None or group.scenarios >= covered
    blessed_seeds = seeds is None or set(group.seeds) >= set(seeds)
    return scenarios and blessed_seeds and (runs is None or group.runs >= runs)


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
class Baseline:
    """The gated numbers of a blessed run, per agent × level × name."""

    entries: Mapping[Key, Entry]
    seeds: Mapping[Key, Seeds] = field(default_factory=dict)
    """The seeds each group was blessed on; a group without is compared on its counts alone."""
    lost: Mapping[Key, Seeds] = field(default_factory=dict)
    """The seeds of each scenario group's unsolvable runs whose worker was lost before their
    first step, which have no lag; a scenario with none is not listed."""
    path: Path | None = None

    @classmethod
    def from_metrics(cls, metrics: Metrics) -> Baseline:
        lost: dict[Key, Seeds] = {}
        for run in metrics.lost:
            key = (SCENARIO, run.scenario, agent_name(run.agent))
            lost[key] = tuple(sorted({*lost.get(key, ()), run.seed}))
        return cls(
            entries={_key(group): _entry(group) for group in metrics},
            seeds={_key(group): group.seeds for group in metrics},
            lost=lost,
        )

    @property
    def agents(self) -> tuple[str, ...]:
        return tuple(sorted({agent for _, _, agent in self.entries}))

    @classmethod
    def load(cls, path: Path, *, flags: BaselineFlags = CLI_FLAGS) -> Baseline:
        """Reads a file `write_baseline` wrote; anything else is a `BaselineError` saying why
        and what to type (``flags``) to make a good one."""
        if not path.exists():
            raise BaselineError(
                f"baseline {str(path)!r} does not exist; create it with "
                f"{flags.baseline} {path} {flags.update} and commit it ({DOCS})"
            )
        try:
            data = load_json(read_input(path), what=f"baseline {str(path)!r}")
        except InputError as error:
            raise BaselineError(f"{error}; rewrite it with {flags.update} ({DOCS})") from None
        entries = _entries(data, path, flags)
        seeds = {key: _seeds(key, entry, path, flags) for key, entry in entries.items()}
        lost = {key: _seeds(key, entry, path, flags, LOST_SEEDS) for key, entry in entries.items()}
        return cls(
            entries=entries,
            seeds={key: found for key, found in seeds.items() if found is not None},
            lost={key: found for key, found in lost.items() if found},
            path=path,
        )

    def to_json(self) -> str:
        """Sorted keys, one number per line: diffs stay readable."""
        nested: dict[str, dict[str, dict[str, object]]] = {}
        for key, entry in self.entries.items():
            level, name, agent = key
            seeds = {SEEDS: list(self.seeds[key])} if key in self.seeds else {}
            lost = {LOST_SEEDS: list(self.lost[key])} if key in self.lost else {}
            nested.setdefault(agent, {}).setdefault(level, {})[name] = {**entry, **seeds, **lost}
        data = {"baseline_version": BASELINE_VERSION, "agents": nested}
        return json.dumps(data, sort_keys=True, indent=2, allow_nan=False) + "\n"


def _entries(data: Any, path: Path, flags: BaselineFlags) -> dict[Key, Entry]:
    version = data.get("baseline_version") if isinstance(data, dict) else None
    if version not in range(OLDEST_READ_VERSION, BASELINE_VERSION + 1):
        raise BaselineError(
            f"baseline {str(path)!r} has baseline_version {version!r}, this harness reads "
            f"{OLDEST_READ_VERSION} to {BASELINE_VERSION}; rewrite it with {flags.update} ({DOCS})"
        )
    try:
        entries = {
            (level, name, agent_name(agent)): dict(entry)
            for agent, levels in data["agents"].items()
            for level, names in levels.items()
            for name, entry in names.items()
        }
    except (KeyError, AttributeError, TypeError, ValueError) as error:
        raise BaselineError(
            f"baseline {str(path)!r} is not a baseline file ({type(error).__name__}: {error}); "
            f"rewrite it with {flags.update} ({DOCS})"
        ) from None
    for key, entry in entries.items():
        _check_numbers(key, entry, path, flags)
    return entries


def _check_numbers(key: Key, entry: Entry, path: Path, flags: BaselineFlags) -> None:
    """A hand-edited ``"lag_steps_p95": "three"`` is an error now, not a traceback after the run."""
    level, name, agent = key
    for name_of_field, value in entry.items():
        if name_of_field in (SEEDS, LOST_SEEDS) or (
            value is None
            or (
                isinstance(value, int | float)
                and not isinstance(value, bool)
                and math.isfinite(value)
            )
        ):
            continue
        what = "not finite" if isinstance(value, float) else f"a {type(value).__name__}"
        raise BaselineError(
            f"baseline {str(path)!r}: agents.{agent}.{level}.{name}.{name_of_field} = {value!r} "
            f"is {what}, not a number or null; correct it, or rewrite the file with "
            f"{flags.update} ({DOCS})"
        )


def _seeds(
    key: Key, entry: Entry, path: Path, flags: BaselineFlags, listed: str = SEEDS
) -> Seeds | None:
    """The seeds an entry lists under ``listed`` (those it was blessed on, or `LOST_SEEDS`), taken
    out of its numbers; ``None`` where it names none. A hand-edited ``"seeds": "0"`` is an error
    now, as a number of the wrong type is."""
    seeds: object = entry.pop(listed, None)
    if seeds is None:
        return None
    if isinstance(seeds, list) and all(
        isinstance(seed, int) and not isinstance(seed, bool) for seed in seeds
    ):
        return tuple(seeds)
    level, name, agent = key
    raise BaselineError(
        f"baseline {str(path)!r}: agents.{agent}.{level}.{name}.{listed} = {seeds!r} is not a "
        f"list of whole numbers; correct it, or rewrite the file with {flags.update} ({DOCS})"
    )


def write_baseline(metrics: Metrics, path: Path) -> Baseline:
    """Replaces the file at ``path`` with this run's numbers (the whole file, on purpose: the
    baseline is exactly the last run someone blessed)."""
    baseline = Baseline.from_metrics(metrics)
    write_file(path, baseline.to_json())
    return baseline


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
                f"unsolvable: baseline gate passed: {self.compared} groups compared {against} "
                f"({self.margins}){self.partial_note()}{self.lost_note()}{':' if lost else ''}",
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
        runs = "1 run" if len(self.lost) == 1 else f"{len(self.lost)} runs"
        return f"; the lag of {runs} was not compared, a worker lost"

    def partial_note(self) -> str:
        """``; 2 groups this run covers only in part were not compared``, or nothing: what every
        face's line of a gate that compared some group says it left out."""
        if not self.partial:
            return ""
        return f"; {self.partial} groups this run covers only in part were not compared"

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


def _counted(metric: str, value: Number) -> Number:
    """A gated number as the gate compares it: a lag p95 counted from 0, as the calibrated step
    cap comparison counts it — a stop before the stagnant step is a premature stop, counted
    apart, never a shorter lag — so that an agent that stops guessing (-3 → 0) is no
    regression, as one that starts guessing (3 → -3) is none."""
    return max(value, 0) if metric in LAGS else value


def _allowed(before: Number, margin: Number) -> Decimal:
    """``before`` plus ``margin``, added as the numbers are written: in binary 0.006264 + 0.0012
    falls short of 0.007464, and the gate failed a number it said was allowed."""
    return Decimal(repr(before)) + Decimal(repr(margin))


def _exceeds(after: Number, before: Number, margin: Number) -> bool:
    """``after`` is above what ``before`` and ``margin`` allow (`_allowed`)."""
    return Decimal(repr(after)) > _allowed(before, margin)


def _regressions(group: GroupMetrics, entry: Entry, margins: Margins) -> list[Regression]:
    now = _entry(group)
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
    known = [group for group in metrics if _key(group) in baseline.entries]
    shared = [
        group
        for group in known
        if _covers(group, baseline.entries[_key(group)], baseline.seeds.get(_key(group)))
    ]
    regressions = [
        regression
        for group in shared
        for regression in _regressions(group, baseline.entries[_key(group)], margins)
    ]
    return GateResult(
        lost=_lost(metrics, baseline, {agent for _, _, agent in map(_key, shared)}),
        regressions=tuple(regressions),
        compared=len(shared),
        margins=margins,
        path=baseline.path,
        partial=len(known) - len(shared),
        baseline_agents=baseline.agents,
        run_agents=tuple(sorted({agent_name(group.agent) for group in metrics.agents})),
        allow_empty=allow_empty,
    )
