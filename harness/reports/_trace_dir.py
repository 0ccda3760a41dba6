"""Consumes a session's records and its ``--trace-dir``, produces a folder that holds that
session's trajectories and no earlier run's.

Left there, the trajectories of an earlier run (a scenario since renamed, a seed no longer run,
an agent since dropped) would read as this run's, beside its own. A run's trajectories therefore
replace those earlier ones as a report replaces its file; only files the harness recognises as
its own trajectories are removed (ATIF JSON at ``AGENT/FAMILY/NAME.json`` carrying a record's
scenario, step bound and verdict), never anything else a user keeps there. A partial session
(interrupted, a worker lost, no record made) never replaces more trajectories than it writes: it
writes its own to ``DIR.partial`` beside them, as its reports go to ``NAME.partial.json``. A
shard removes none: its trajectories are a part of its whole run's, and the other shards may
write theirs to the same folder.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from unsolvable._record import TerminationRecord
from unsolvable.reports._atif import trace_files
from unsolvable.reports._files import PARTIAL, write_file

__all__ = ["Traced", "write_traces"]

ATIF_PREFIX = "ATIF-"
"""How the ``schema_version`` of a trajectory file begins, in any ATIF version."""
RECORD_KEYS = frozenset({"scenario", "step_bound", "verdict"})
"""What the ``extra`` of a trajectory the harness wrote holds (`unsolvable.reports._atif`), and
another tool's ATIF file does not."""
PATTERN = "*/*/*.json"
"""Where trajectories lie under their folder: ``AGENT/FAMILY/NAME.json``."""


@dataclass(frozen=True, kw_only=True)
class Traced:
    """What `write_traces` did."""

    folder: Path
    """Where the trajectories went: the ``--trace-dir``, or ``DIR.partial`` beside it."""
    written: int
    removed: int
    """Trajectories of an earlier run that were there and are gone."""
    kept_larger: bool
    """A partial session left the folder's larger set of trajectories as it was."""


def write_traces(
    records: Sequence[TerminationRecord], folder: Path, *, partial: bool, shard: bool
) -> Traced:
    """Writes each run's trajectory under ``folder`` (or, for a ``partial`` session that would
    replace more than it writes, under ``DIR.partial``), then, unless it is a ``shard``, removes
    the earlier runs' there. An `unsolvable.OutputError` when a file cannot be written."""
    earlier = set() if shard else _trajectories(folder)
    kept_larger = partial and len(earlier) > len(records)
    if kept_larger:
        folder = folder.with_name(folder.name + PARTIAL)
        earlier = _trajectories(folder)
    written = set()
    for path, text in trace_files(records, folder):
        written.add(write_file(path, text))
    stale = earlier - written
    for path in stale:
        _remove(path, folder)
    return Traced(folder=folder, written=len(written), removed=len(stale), kept_larger=kept_larger)


def _trajectories(folder: Path) -> set[Path]:
    """The harness's trajectory files under ``folder``, none followed through a link."""
    if not folder.is_dir():
        return set()
    return {path for path in folder.glob(PATTERN) if _is_trajectory(path)}


def _is_trajectory(path: Path) -> bool:
    """Whether ``path`` is a regular file holding a trajectory the harness wrote, reached
    through no link (a linked agent or family folder leads out of the trace folder)."""
    if any(part.is_symlink() for part in (path, path.parent, path.parent.parent)):
        return False
    if not path.is_file():
        return False
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if not isinstance(data, dict) or not isinstance(extra := data.get("extra"), dict):
        return False
    version = data.get("schema_version")
    is_atif = isinstance(version, str) and version.startswith(ATIF_PREFIX)
    return is_atif and extra.keys() >= RECORD_KEYS


def _remove(path: Path, folder: Path) -> None:
    """Removes ``path``, then its family's and agent's folders if that left them empty."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    for parent in (path.parent, path.parent.parent):
        if parent == folder:
            return
        with contextlib.suppress(OSError):  # not empty: something else is kept there
            parent.rmdir()
