"""What the plugin's tests share: the scratch project, and ways to read a run's output."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from unsolvable import scenarios

QUIET = ("-W", "error", *(f"-pno:{name}" for name in ("langsmith_plugin", "hypothesispytest",
                                                        "respx", "anyio", "timeout",
                                                        "rerunfailures", "repeat",
                                                        "randomly")))  # fmt: skip
"""``-W error`` turns any warning of ours (or syrupy's, about snapshot locations) into a failure.
The autoloaded plugins switched off have no hook in common with ours and cost most of each
process's start-up here: langsmith's ~0.6 s (DESIGN.md), hypothesis's ~0.7 s (it imports all of
hypothesis in its terminal summary), respx's and anyio's ~0.1 s each; pytest-timeout's,
pytest-rerunfailures' and pytest-repeat's ~25 ms together, which the tests of the plugin beside
them turn on again (``-p timeout``: a later ``-p`` lifts a ``-p no:``). pytest-randomly is off
as it is in a project that does not install it, its shuffled order on only where a test asks."""

XDIST_ENVIRONMENT = ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID")

PYTEST_SECONDS = 600
"""How long a test lets a pytest it starts run before it kills it and fails: a guard against a
hung session, far above what the largest one here takes on a loaded machine."""

Run = Callable[..., pytest.RunResult]


def cases(*names: str) -> int:
    """How many tests the generated suite has for these scenario or family names."""
    return sum(len(scenario.seeds) for scenario in scenarios.select(names))


USER_AGENTS = """
from unsolvable import agents


def contract(session):
    return agents.contract(session)


def naive(session):
    return agents.naive(session)
"""
"""A user's agents as users write them: functions with no name of their own, so their runs are
labelled by the spec as given (``pkg:contract``)."""


def agent_module(pytester: pytest.Pytester) -> None:
    """``pkg:contract`` and ``pkg:naive``: a user's agents, importable from the project root."""
    pytester.makepyfile(pkg=USER_AGENTS)


def snapshot_files(root: Path) -> dict[str, bytes]:
    """Every snapshot file under ``root``, by relative path."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*.json")}


def summary_section(result: pytest.RunResult) -> list[str]:
    """The plugin's terminal summary: from its header up to syrupy's or pytest's next one."""
    lines = result.outlines
    start = next(i for i, line in enumerate(lines) if re.match(r"=+ unsolvable =+$", line))
    end = next(i for i in range(start + 1, len(lines)) if re.match(r"^[=-]{3,} ", lines[i]))
    return lines[start:end]


def outcomes(result: pytest.RunResult) -> dict[str, int]:
    """Outcome counts without ``deselected``, which xdist does not report: same in both modes."""
    return {k: v for k, v in result.parseoutcomes().items() if k != "deselected"}
