"""Calls begun at once that end last first, as a loaded machine may end them: an SDK's
platform probe, which each async openai or anthropic client makes on a worker thread at its first
request, or a tool call that a framework runs on the loop's executor. A test sees whether that
order reaches the record."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from unsolvable import Session

__all__ = ["LastFirst", "last_first_session"]

FOLLOWER_SECONDS = 0.25
"""How long a call waits for another to begin after it: calls made at once begin within
milliseconds of each other; a call that nothing follows goes on after this."""


class LastFirst:
    """Stands in for ``call``: a call that another begins after ends only once that one has
    ended, so calls made at once end in the reverse of the order they began in."""

    def __init__(self, call: Callable[..., Any]) -> None:
        self._call = call
        self._changed = threading.Condition()
        self._begun = 0
        self._ended: set[int] = set()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        with self._changed:
            mine = self._begun
            self._begun += 1
            self._changed.notify_all()
            if self._changed.wait_for(lambda: self._begun > mine + 1, FOLLOWER_SECONDS):
                self._changed.wait_for(lambda: mine + 1 in self._ended)
            self._ended.add(mine)
            self._changed.notify_all()
        return self._call(*args, **kwargs)


def last_first_session(monkeypatch: pytest.MonkeyPatch, method: str) -> None:
    """Every session's ``method`` (``call_model``, ``call_tool``) made `LastFirst` for the test,
    through a function, which binds to each session as the method did (an instance does not)."""
    held = LastFirst(getattr(Session, method))
    monkeypatch.setattr(Session, method, lambda *args, **kwargs: held(*args, **kwargs))
