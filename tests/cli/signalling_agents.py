"""An agent whose module signals the harness as it begins to write its first report: imported
by the harness as it checks that the agent loads, it wraps how a report's temporary file is
made, and sends ``SIGNALLING_AT_WRITE`` (a signal's name) to its own process once that file
exists. That is the moment a CI job cancelled late, or a second Ctrl-C, reaches a session
whose runs are all over."""

from __future__ import annotations

import os
import signal
from typing import Any

from unsolvable import Code, Session, Stop
from unsolvable.reports import _files

_made = _files._temporary


def _signalled(*args: Any) -> Any:
    made = _made(*args)
    os.kill(os.getpid(), signal.Signals[os.environ["SIGNALLING_AT_WRITE"]])
    return made


if "SIGNALLING_AT_WRITE" in os.environ:
    _files._temporary = _signalled  # type: ignore[assignment]


def stops(session: Session) -> Stop:
    session.call_model([], session.tools)
    return Stop(code=Code.NO_PROGRESS, reason="nothing new")
