"""Consumes an agent's requests to the session clock's URL, produces the clock's reading or a wait
on it: an agent in another process has no `Session.sleep`, and a Retry-After it waited out in
real time would spend the run's wall ceiling and none of its idle or time budget.

``GET {clock_url}`` answers ``{"clock": seconds}``; ``POST {clock_url}/sleep`` with
``{"seconds": 60}`` waits that long on the session clock, at once, and answers the same.
"""

from __future__ import annotations

import math

from unsolvable._session import Session
from unsolvable.wire._errors import WireFormatError, json_object
from unsolvable.wire._exchange import WireRequest, WireResponse

__all__ = ["CLOCK_PATH", "SLEEP_PATH", "answer_clock"]

CLOCK_PATH = "/clock"
SLEEP_PATH = "/clock/sleep"
USAGE = (
    f"GET {CLOCK_PATH} reads the session clock; "
    f'POST {SLEEP_PATH} with {{"seconds": 60}} waits on it'
)


def _error(status: int, message: str, **headers: str) -> WireResponse:
    body = {"error": {"status": status, "message": f"unsolvable: {message}"}}
    return WireResponse.json(body, status=status, headers=headers)


def _seconds(request: WireRequest) -> float | str:
    """The wait a sleep request asks for, or why it cannot be read."""
    try:
        data = json_object(request.json())
    except (ValueError, WireFormatError) as error:
        return f"the body is not a JSON object ({error})"
    seconds = data.get("seconds")
    if isinstance(seconds, bool) or not isinstance(seconds, int | float):
        return f"give the wait as a number of seconds, not {seconds!r}"
    if not math.isfinite(seconds) or seconds < 0:
        return f"give a finite number of seconds, 0 or more, not {seconds!r}"
    return float(seconds)


def answer_clock(session: Session, request: WireRequest, path: str) -> WireResponse:
    """The answer to ``request`` at ``path`` (`CLOCK_PATH` or `SLEEP_PATH`): the clock after the
    wait it asks for, if any; a 405 for another method, a 400 for a wait that is no number."""
    allowed = ("GET", "HEAD") if path == CLOCK_PATH else ("POST",)
    if request.method not in allowed:
        why = f"{request.method} {path} is not served; {USAGE}"
        return _error(405, why, allow=", ".join(allowed))
    if path == SLEEP_PATH:
        seconds = _seconds(request)
        if isinstance(seconds, str):
            return _error(400, f"{SLEEP_PATH}: {seconds}; {USAGE}")
        session.sleep(seconds)
    return WireResponse.json({"clock": session.clock})
