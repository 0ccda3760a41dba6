"""The platform probe of the openai and anthropic SDKs as a loaded machine answers it: each
async client probes on a worker thread at its first request, and here probes begun at once end
last first, so a test sees whether that order reaches the record."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

__all__ = ["LastFirst"]

FOLLOWER_SECONDS = 0.5
"""How long a probe waits for another to begin after it: first requests made at once begin
their probes within milliseconds of each other; a probe that nothing follows ends after this."""


class LastFirst:
    """Stands in for an SDK's ``get_platform``: a probe that another begins after ends only once
    that one has ended, so probes made at once end in the reverse of the order they began in."""

    def __init__(self, probe: Callable[[], Any]) -> None:
        self._probe = probe
        self._changed = threading.Condition()
        self._begun = 0
        self._ended: set[int] = set()

    def __call__(self) -> Any:
        with self._changed:
            mine = self._begun
            self._begun += 1
            self._changed.notify_all()
            if self._changed.wait_for(lambda: self._begun > mine + 1, FOLLOWER_SECONDS):
                self._changed.wait_for(lambda: mine + 1 in self._ended)
            self._ended.add(mine)
            self._changed.notify_all()
        return self._probe()
