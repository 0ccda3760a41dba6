"""Wire tests run offline (see `tests.frameworks._offline`) on a fresh session per test."""

from __future__ import annotations

from typing import Any

import pytest

import harness
import scenarios
from harness import Ceilings, Session
from tests.frameworks._offline import offline

__all__ = ["offline", "session", "start"]


def start(name: str = "constant-return/repeat", **ceilings: Any) -> Session:
    """A session on a library scenario, as `harness.run` would hand it to an agent."""
    scenario = scenarios.get(name)
    return harness.Session(scenario, scenario.build(0), seed=0, ceilings=Ceilings(**ceilings))


@pytest.fixture
def session() -> Session:
    return start()
