"""Consumes each HTTP request a wire answered, refused or failed to answer, produces the log of
its attempts and, after the run, `HarnessFailure` or `StrayRequest` for what went wrong.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from unsolvable.wire._errors import WIRE_DOCS, HarnessFailure, StrayRequest
from unsolvable.wire._exchange import WireRequest, WireResponse
from unsolvable.wire._strays import stray_fixes

__all__ = ["Attempt", "AttemptLog"]


@dataclass(frozen=True, kw_only=True)
class Attempt:
    """One HTTP request the wire answered (or refused), as the harness keeps it."""

    kind: str
    """``model``, ``count`` (a token count: no step, no transport attempt), ``tool``, ``clock``
    (a reading of the session clock or a wait on it) or ``stray``."""
    method: str
    url: str
    """Redacted: no credentials, no query values."""
    status: int
    """The status answered; ``0`` for a request never answered in-process: a stray one, a
    model request a ceiling or a failure of the harness ended, or a count a ceiling or a call
    after the agent returned ended (`handle`)."""
    route: str = ""
    """The wire format, the token count, the tool name or the clock's path that answered; for a
    stray, why nothing did (``no tool 'x'``, `UNSERVED`), or nothing when it was for another
    host."""

    def __str__(self) -> str:
        how = f"{self.kind} {self.route}".rstrip()
        return f"{self.method} {self.url} -> {self.status or 'refused'} ({how})"


class _Failure(NamedTuple):
    """A request the harness failed to answer (`HarnessFailure`), and why."""

    request: str
    """Its method and redacted URL."""
    error: Exception


class AttemptLog:
    """The attempts of one wire and the requests it failed to answer, in order, guarded by its
    own lock, since transports and the loopback server log from several threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._attempts: list[Attempt] = []
        self._failures: list[_Failure] = []

    def log(
        self, kind: str, request: WireRequest, response: WireResponse | None, route: str
    ) -> WireResponse:
        """Keeps the attempt (redacted URL, never headers) and passes the response through."""
        status = 0 if response is None else response.status
        attempt = Attempt(
            kind=kind, method=request.method, url=request.safe_url, status=status, route=route
        )
        with self._lock:
            self._attempts.append(attempt)
        return response or WireResponse.text("", status=0)

    def failed(self, request: WireRequest, error: Exception) -> None:
        """Keeps a request the harness failed to answer, and why, for `check` to raise."""
        with self._lock:
            self._failures.append(
                _Failure(request=f"{request.method} {request.safe_url}", error=error)
            )

    def attempts(self) -> list[Attempt]:
        """Every request logged, in order (model, count, tool and stray)."""
        with self._lock:
            return list(self._attempts)

    def stray(self) -> list[Attempt]:
        """Requests that matched no route (each already failed the call that made it)."""
        return [a for a in self.attempts() if a.kind == "stray"]

    def check(self, tools: Iterable[str]) -> None:
        """Raises `HarnessFailure` if the harness failed to answer a request, then
        `StrayRequest` if any request went unmatched, even if the agent swallowed either;
        ``tools`` are the scenario's tool names, which the fixes of a stray one suggest."""
        with self._lock:
            failures = list(self._failures)
        if failures:
            lines = "\n".join(
                f"  - {failed.request}: {type(failed.error).__name__}: {failed.error}"
                for failed in failures
            )
            raise HarnessFailure(
                f"unsolvable: the harness failed to answer {len(failures)} request(s), each "
                f"answered 500, so what the agent did next answered no scenario:\n{lines}\nFix "
                "the scenario's model or tool that raised (the traceback shows where). See "
                f"{WIRE_DOCS}"
            ) from failures[0].error
        stray = self.stray()
        if stray:
            lines = "\n".join(f"  - {a}" for a in stray)
            raise StrayRequest(
                f"unsolvable: {len(stray)} request(s) matched no fake route during the "
                f"scenario:\n{lines}\n{stray_fixes((a.route for a in stray), tools)}. "
                f"See {WIRE_DOCS}"
            )
