"""Consumes the number of a signal that ended a process, produces its name for a message: a
process may be ended by any signal its agent sends, the real-time ones included, which Python's
`signal.Signals` does not name (it has only their first and last)."""

from __future__ import annotations

import signal

__all__ = ["signal_name"]


def signal_name(number: int) -> str:
    """``SIGTERM``; a real-time signal by its place from ``SIGRTMIN`` (``SIGRTMIN+6``), as
    ``kill -l`` names it, and the two the C library keeps for itself before it (``SIGRTMIN-2``)."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"SIGRTMIN{number - signal.SIGRTMIN:+d}"
