"""Wire tests run offline (see `tests.frameworks._offline`) on a fresh session per test."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# The SDKs are imported when the tests are collected, not by the first test that builds a client:
# an import of seconds on a loaded machine would spend that test's wall ceiling (10 s), which
# starts with its session.
import anthropic  # noqa: F401
import httpx2  # noqa: F401
import openai  # noqa: F401
import pytest

import unsolvable
from tests.frameworks._offline import offline
from unsolvable import Ceilings, Session, scenarios
from unsolvable.adapters.kit import reply_usage
from unsolvable.wire._exchange import WireResponse
from unsolvable.wire._turn import Turn, WireFormat

__all__ = ["offline", "render", "session", "start"]


def start(name: str = "constant-return/repeat", **ceilings: Any) -> Session:
    """A session on a library scenario, as `unsolvable.run` would hand it to an agent."""
    scenario = scenarios.get(name)
    return unsolvable.Session(scenario, scenario.build(0), seed=0, ceilings=Ceilings(**ceilings))


@pytest.fixture
def session() -> Session:
    return start()


def render(fmt: WireFormat, reply: Mapping[str, Any], turn: Turn, *, step: int) -> WireResponse:
    """``fmt``'s answer to ``turn`` for a reply as `Session.call_model` returns it: the wire
    hands a format the message and its usage apart (`Session.answer`)."""
    message = {key: value for key, value in reply.items() if key != "usage"}
    return fmt.render(message, reply_usage(reply), turn, step=step)
