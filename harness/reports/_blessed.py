"""Consumes a run's `Metrics`, produces the baseline file of its gated numbers, per agent × level
× name, and reads one back, every field checked.

The baseline is plain JSON with sorted keys, written only on request (``--update-baseline``), so
a pull request that moves a number shows the move in its diff.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from unsolvable._errors import BaselineError, InputError, docs_page
from unsolvable._input import load_json, read_input
from unsolvable._loading import agent_name
from unsolvable.reports._distribution import Number
from unsolvable.reports._files import write_file
from unsolvable.reports._metrics import LEVELS, GroupMetrics, Metrics

__all__ = [
    "BASELINE_VERSION",
    "CLI_FLAGS",
    "DOCS",
    "GATED",
    "Baseline",
    "BaselineFlags",
    "Entry",
    "Key",
    "Seeds",
    "entry_of",
    "key_of",
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
DOCS = docs_page("metrics", "the-baseline-gate")

Entry = dict[str, Number | None]
Key = tuple[str, str, str]
Seeds = tuple[int, ...]
SEEDS = "seeds"
"""The entry's field that lists the seeds a group was blessed on: whole numbers, not gated."""
LOST_SEEDS = "lost_seeds"
"""A scenario entry's field that lists the seeds of its runs whose worker was lost before their
first step (`RunId`), which have no lag, when it has any: whole numbers, not gated."""
RATE = "false_stop_rate"
"""The entry's field that is a share of its control runs, 0 to 1: the false-stop rate."""
GATED = ("lag_steps_p95", RATE, "lag_cost_usd_p95")
"""What the gate compares: how late unsolvable tasks are noticed, how often controls are cut,
and what the late notice costs. Every entry of a file has each, ``null`` where the group has
none (no unsolvable run, no control)."""
COUNTS = ("runs", "scenarios")
"""What an entry counts of its group, whole numbers above 0: what a run must cover to be
compared with it."""
FIELDS = (*COUNTS, *GATED, SEEDS)
"""The fields every entry of a file has (`entry_of`, the seeds beside them); a scenario entry
may list `LOST_SEEDS` too. Every baseline the harness has read since version 3 has them all."""
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


def entry_of(group: GroupMetrics) -> Entry:
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


def key_of(group: GroupMetrics) -> Key:
    """A group's key with its agent in one form, on both sides of the gate."""
    return (group.level, group.name, agent_name(group.agent))


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
            entries={key_of(group): entry_of(group) for group in metrics},
            seeds={key_of(group): group.seeds for group in metrics},
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
        _check_fields(key, entry, path, flags)
        _check_numbers(key, entry, path, flags)
    return entries


def _check_fields(key: Key, entry: Entry, path: Path, flags: BaselineFlags) -> None:
    """A hand-edited entry that lost a field (`FIELDS`), or holds one of another name
    (``false_stop_rat``), is an error now: the gate skipped a missing figure without a word,
    and compared a group whose counts were missing with any run of it."""
    level, name, agent = key
    where = f"baseline {str(path)!r}: agents.{agent}.{level}.{name}"
    rewrite = f"or rewrite the file with {flags.update} ({DOCS})"
    if level not in LEVELS:
        raise BaselineError(
            f"{where}: {level!r} is no level of a baseline ({', '.join(LEVELS)}), so the gate "
            f"would compare none of its groups; correct it, {rewrite}"
        )
    known = (*FIELDS, LOST_SEEDS) if level == SCENARIO else FIELDS
    if unknown := sorted(set(entry) - set(known)):
        raise BaselineError(
            f"{where} has {_listed(unknown)}, no field of a baseline entry ({', '.join(known)}); "
            f"correct the name, {rewrite}"
        )
    if missing := [field for field in FIELDS if field not in entry]:
        raise BaselineError(
            f"{where} has no {_listed(missing)}, which every entry has (null where the group "
            f"has no such figure), so the gate would skip it; restore it, {rewrite}"
        )


def _listed(names: list[str]) -> str:
    """``runs`` or ``runs and seeds`` or ``runs, scenarios and seeds``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _check_numbers(key: Key, entry: Entry, path: Path, flags: BaselineFlags) -> None:
    """A hand-edited ``"lag_steps_p95": "three"`` is an error now, not a traceback after the run,
    and so is a ``false_stop_rate`` that is no share (`RATE`): above 1 it passes every rate, and
    below 0 it fails every one."""
    level, name, agent = key
    for name_of_field, value in entry.items():
        if name_of_field in (SEEDS, LOST_SEEDS) or (value is None and name_of_field in GATED):
            continue
        if name_of_field in COUNTS and not _is_count(value):
            what = "is not a whole number above 0"
        elif isinstance(value, bool) or not isinstance(value, int | float):
            what = f"is a {type(value).__name__}, not a number or null"
        elif not math.isfinite(value):
            what = "is not finite, not a number or null"
        elif name_of_field == RATE and not 0 <= value <= 1:
            what = "is not a share of the control runs, 0 to 1, or null"
        else:
            continue
        raise BaselineError(
            f"baseline {str(path)!r}: agents.{agent}.{level}.{name}.{name_of_field} = {value!r} "
            f"{what}; correct it, or rewrite the file with {flags.update} ({DOCS})"
        )


def _is_count(value: object) -> bool:
    """A group's count of runs or scenarios: a whole number, at least one."""
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


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
