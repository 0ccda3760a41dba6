"""Consumes a stored snapshot of a termination record and the record a run made now (both in
the snapshot form), produces what changed, in words: the news a reviewer needs above the diff.

"stop changed: step 3 → 4, lag 1 → 2, code unchanged" says in one line what a thousand lines of
JSON diff hide: whether the agent stops elsewhere, for another reason, or claims success now.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from unsolvable._record import SCHEMA_VERSION, TerminationRecord
from unsolvable.reports._counted import counted_lags

__all__ = ["describe_change"]

OTHER_NAMES = 6
"""Other changed fields named after the stop, before the rest are only counted."""
ALREADY_SAID = frozenset(
    {
        "schema_version",
        "outcome",
        "reported.code",
        "reported.exit",
        "observed.steps",
        "observed.detection_lag",
        "observed.world_complete",
    }
)
"""What the schema's and the stop's lines already say; not named again among the others."""
UNJUDGED = {"passed": True, "strict": False, "failures": []}
"""A snapshot keeps no verdict (`behaviour`); the lag is counted without one."""


def describe_change(stored: str, now: str) -> list[str]:
    """Lines saying how the record ``now`` differs from the ``stored`` snapshot (both the JSON
    the snapshot extension writes): a word on an older schema, how the stop changed, what else
    did. A snapshot that is not a record's is described only as different."""
    try:
        old, new = json.loads(stored), json.loads(now)
    except ValueError:
        return ["the snapshot is not a termination record's JSON"]
    if not (isinstance(old, dict) and isinstance(new, dict)):
        return ["the snapshot is not a termination record's JSON"]
    lines = []
    if old.get("schema_version") != new.get("schema_version"):
        lines.append(
            f"the snapshot was written by an older version (schema {old.get('schema_version')} "
            f"→ {SCHEMA_VERSION}): regenerate it with --snapshot-update"
        )
    lines.append(_stop(old, new))
    if others := _others(old, new):
        lines.append(f"also changed: {others}")
    return lines


def _get(data: Mapping[str, Any], path: str) -> Any:
    for key in path.split("."):
        data = data.get(key) if isinstance(data, Mapping) else None  # type: ignore[assignment]
    return data


def _ended(data: Mapping[str, Any]) -> str:
    """The code the agent stopped with, else the harness's outcome (``crashed``, …)."""
    return str(_get(data, "reported.code") or data.get("outcome"))


def _counted_lag(data: Mapping[str, Any]) -> Any:
    """The lag every report counts (`counted_lags`): a run a ceiling cut short counts as
    stopped past its bound, a stop its evidence or its budget chose at 0 at least, where the
    record's own ``observed.detection_lag`` is the raw difference of its steps. A snapshot this
    version cannot read as a record (an older schema's), or whose stored lag is not the one its
    steps give (edited by hand), is told by the lag it stores."""
    stored = _get(data, "observed.detection_lag")
    try:
        record = TerminationRecord.from_dict({**data, "verdict": UNJUDGED})
    except (ValueError, TypeError, KeyError):
        return stored
    return counted_lags(record).steps if record.observed.detection_lag == stored else stored


def _is_false_completion(data: Mapping[str, Any]) -> bool:
    if _get(data, "reported.code") != "COMPLETED":
        return False
    return not data.get("solvable") or not _get(data, "observed.world_complete")


def _stop(old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    """``stop changed: step 3 → 4, lag 1 → 2, code unchanged`` or ``stop unchanged (…)``."""
    changed = (
        ("step", _get(old, "observed.steps"), _get(new, "observed.steps")),
        ("lag", _counted_lag(old), _counted_lag(new)),
    )
    parts = [f"{name} {_text(a)} → {_text(b)}" for name, a, b in changed if a != b]
    ended = (_ended(old), _ended(new))
    if ended[0] != ended[1]:
        parts.append(f"code {ended[0]} → {ended[1]}")
        exits = (_get(old, "reported.exit"), _get(new, "reported.exit"))
        if exits[0] != exits[1] and None not in exits:
            parts.append(f"exit {exits[0]} → {exits[1]}")
    elif parts:
        parts.append("code unchanged")
    falsely = (_is_false_completion(old), _is_false_completion(new))
    if falsely != (False, False) and falsely[0] != falsely[1]:
        parts.append("false completion appeared" if falsely[1] else "false completion gone")
    if not parts:
        return f"stop unchanged (step {_get(new, 'observed.steps')}, {ended[1]})"
    return "stop changed: " + ", ".join(parts)


def _others(old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    """The other fields that changed: a number or a word with its two values, anything else
    (the trajectory tail, a partial result) by name."""
    changed = [path for path in _differences(old, new, "") if path not in ALREADY_SAID]
    named = []
    for path in changed[:OTHER_NAMES]:
        before, after = _get(old, path), _get(new, path)
        if _is_scalar(before) and _is_scalar(after):
            named.append(f"{path} {_text(before)} → {_text(after)}")
        else:
            named.append(path)
    more = len(changed) - OTHER_NAMES
    return ", ".join(named) + (f" and {more} more" if more > 0 else "")


def _differences(old: Any, new: Any, path: str) -> Iterator[str]:
    """Dotted paths where ``old`` and ``new`` differ; a list that differs is one path."""
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        for key in sorted({*old, *new}):
            yield from _differences(old.get(key), new.get(key), f"{path}.{key}".lstrip("."))
    elif old != new:
        yield path


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _text(value: Any) -> str:
    """A value as it reads in a sentence: ``null`` as the record writes it (a figure a lost run
    did not see is unknown, and ``none`` would read as a count of zero), short strings as they
    are."""
    if value is None:
        return "null"
    text = value if isinstance(value, str) else json.dumps(value)
    return text if len(text) <= 40 else text[:39] + "…"
