"""Consumes `Metrics` and a committed baseline file, produces the gate: every group whose
detection-lag p95 or false-stop rate got worse than the baseline by more than its margin.

The baseline is plain JSON with sorted keys, written only on request (``--update-baseline``), so
a pull request that moves a number shows the move in its diff.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness._errors import BaselineError
from harness.reports._files import write_file
from harness.reports._metrics import GroupMetrics, Metrics, Number, where

__all__ = [
    "BASELINE_VERSION",
    "CLI_FLAGS",
    "GATED",
    "Baseline",
    "BaselineFlags",
    "GateResult",
    "Margins",
    "Regression",
    "gate",
    "write_baseline",
]

BASELINE_VERSION = 1
"""Bumped when the file's shape changes; an old file must then be rewritten."""
GATED = ("lag_steps_p95", "false_stop_rate")
"""What the gate compares: how late unsolvable tasks are noticed, how often controls are cut."""
DOCS = "https://github.com/pytest-unsolvable/pytest-unsolvable#metrics-baselines-and-reports"

Entry = dict[str, Number | None]
Key = tuple[str, str, str]


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


CLI_FLAGS = BaselineFlags()


@dataclass(frozen=True, kw_only=True)
class Margins:
    """How much worse than the baseline a gated number may get before the gate fails."""

    lag_steps: int = 0
    """Steps of detection-lag p95 above the baseline that still pass."""
    false_stop_rate: float = 0.0
    """False-stop rate above the baseline that still passes (0.1 = ten points)."""

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if not value >= 0:
                raise BaselineError(f"Margins({name}={value!r}): a margin must be 0 or more")

    def for_metric(self, metric: str) -> Number:
        return self.lag_steps if metric == "lag_steps_p95" else self.false_stop_rate

    def __str__(self) -> str:
        return f"lag p95 +{self.lag_steps} steps, false-stop rate +{self.false_stop_rate:g}"


def _entry(group: GroupMetrics) -> Entry:
    """The gated numbers of one group, plus its run count for the reader of the diff."""
    lag = group.lag_steps.p95 if group.lag_steps else None
    return {"runs": group.runs, "lag_steps_p95": lag, "false_stop_rate": group.false_stop_rate}


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

    def __str__(self) -> str:
        unit = " steps" if self.metric == "lag_steps_p95" else ""
        allowed = self.baseline + self.margin
        return (
            f"{where(self.level, self.name)} × {self.agent}: {self.metric} "
            f"{self.baseline:g} → {self.now:g}{unit} (allowed up to {allowed:g})"
        )


@dataclass(frozen=True, kw_only=True)
class Baseline:
    """The gated numbers of a blessed run, per agent × level × name."""

    entries: Mapping[Key, Entry]
    path: Path | None = None

    @classmethod
    def from_metrics(cls, metrics: Metrics) -> Baseline:
        return cls(entries={group.key: _entry(group) for group in metrics})

    @classmethod
    def load(cls, path: Path, *, flags: BaselineFlags = CLI_FLAGS) -> Baseline:
        """Reads a file `write_baseline` wrote; anything else is a `BaselineError` saying why
        and what to type (``flags``) to make a good one."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise BaselineError(
                f"baseline {str(path)!r} does not exist; create it with "
                f"{flags.baseline} {path} {flags.update} and commit it ({DOCS})"
            ) from None
        except (OSError, ValueError) as error:
            raise BaselineError(f"baseline {str(path)!r} is not readable JSON: {error}") from None
        return cls(entries=_entries(data, path, flags), path=path)

    def to_json(self) -> str:
        """Sorted keys, one number per line: diffs stay readable."""
        nested: dict[str, dict[str, dict[str, Entry]]] = {}
        for (level, name, agent), entry in self.entries.items():
            nested.setdefault(agent, {}).setdefault(level, {})[name] = entry
        data = {"baseline_version": BASELINE_VERSION, "agents": nested}
        return json.dumps(data, sort_keys=True, indent=2) + "\n"


def _entries(data: Any, path: Path, flags: BaselineFlags) -> dict[Key, Entry]:
    version = data.get("baseline_version") if isinstance(data, dict) else None
    if version != BASELINE_VERSION:
        raise BaselineError(
            f"baseline {str(path)!r} has baseline_version {version!r}, this harness reads "
            f"{BASELINE_VERSION}; rewrite it with {flags.update} ({DOCS})"
        )
    try:
        return {
            (level, name, agent): dict(entry)
            for agent, levels in data["agents"].items()
            for level, names in levels.items()
            for name, entry in names.items()
        }
    except (KeyError, AttributeError, TypeError, ValueError) as error:
        raise BaselineError(
            f"baseline {str(path)!r} is not a baseline file ({type(error).__name__}: {error}); "
            f"rewrite it with {flags.update} ({DOCS})"
        ) from None


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
    """Groups present both in this run and in the baseline."""
    margins: Margins
    path: Path | None = None

    @property
    def passed(self) -> bool:
        return not self.regressions

    def lines(self, flags: BaselineFlags = CLI_FLAGS) -> list[str]:
        """The terminal lines: a verdict, then one bullet per regression and the way out (with
        the ``flags`` of the face that prints them)."""
        against = f"against {self.path}" if self.path else "against the baseline"
        if self.passed:
            return [
                f"unsolvable: baseline gate passed: {self.compared} groups compared {against} "
                f"({self.margins})"
            ]
        return [
            f"unsolvable: baseline gate FAILED: {len(self.regressions)} regression(s) {against} "
            f"({self.margins}):",
            *(f"  - {regression}" for regression in self.regressions),
            f"  fix the stop logic, or accept the new numbers with {flags.update}",
        ]


def _regressions(group: GroupMetrics, entry: Entry, margins: Margins) -> list[Regression]:
    now = _entry(group)
    found = []
    for metric in GATED:
        before, after, margin = entry.get(metric), now[metric], margins.for_metric(metric)
        if before is not None and after is not None and after > before + margin:
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


def gate(metrics: Metrics, baseline: Baseline, margins: Margins | None = None) -> GateResult:
    """Compares every group of this run that the baseline knows; groups only one side has are
    skipped (a run of a few scenarios gates just those)."""
    margins = margins or Margins()
    shared = [group for group in metrics if group.key in baseline.entries]
    regressions = [
        regression
        for group in shared
        for regression in _regressions(group, baseline.entries[group.key], margins)
    ]
    return GateResult(
        regressions=tuple(regressions), compared=len(shared), margins=margins, path=baseline.path
    )
