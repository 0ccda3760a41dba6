"""Consumes SIGINT, SIGTERM and SIGHUP while a command runs, produces each as an exception in the
main thread (`KeyboardInterrupt` for SIGINT, as Python raises it; `Interrupted`, a kind of it,
for SIGTERM and SIGHUP) where no finished run's record is half read.

SIGTERM is how a CI service cancels a job, SIGHUP how a closed terminal or a lost SSH session
ends one: each ends the session as Ctrl-C does, its finished records written, not the process
killed with its reports unwritten. A signal that arrives while the harness reads a worker's
channel, judges what it read and keeps the record (`InterruptCatcher.held`) is raised once that
record is kept: raised where it landed, it would drop a record read off the channel and not yet
kept, though its run had ended before the interrupt. The hold lasts at most one look at the
channels (`unsolvable._batch`'s poll).

While an agent runs in-process, a SIGINT is noted as it is raised (`InterruptNoter`), so that
the run ends the caller's session as Ctrl-C would, not as the agent's crash. While an agent's
module is loaded, the signals that arrive are only watched for (`SignalArrivals`), each handled
as before, so that a `KeyboardInterrupt` the module raised itself is told from a person's."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType

from unsolvable._signal_names import signal_name

__all__ = [
    "InterruptCatcher",
    "InterruptNoter",
    "Interrupted",
    "SignalArrivals",
    "interrupting_signal",
]


class Interrupted(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised as Python raises SIGINT: whatever ends a session cleanly on
    Ctrl-C (the harness, pytest, pytest-xdist) ends it so on these too."""


def interrupting_signal(interrupt: KeyboardInterrupt) -> str:
    """The signal that raised ``interrupt``, as a message names it: ``SIGTERM``."""
    return str(interrupt) if isinstance(interrupt, Interrupted) else "SIGINT"


def _exception(signum: int) -> BaseException:
    if signum == signal.SIGINT:
        return KeyboardInterrupt()
    return Interrupted(signal_name(signum))


def _python_defaults() -> dict[int, object]:
    """Each signal caught, and the handler it has when nothing else took it: Python's own for
    SIGINT; the system's, which ends the process, for SIGTERM and SIGHUP (where there is one).
    A signal someone set otherwise is left to them: a command started in the background ignores
    SIGINT, one started under ``nohup`` SIGHUP, and still does."""
    defaults: dict[int, object] = {signal.SIGINT: signal.default_int_handler}
    defaults[signal.SIGTERM] = signal.SIG_DFL
    if hasattr(signal, "SIGHUP"):  # not on Windows
        defaults[signal.SIGHUP] = signal.SIG_DFL
    return defaults


def _is_catchers(handler: object) -> bool:
    """Whether ``handler`` is an `InterruptCatcher`'s: one within another (a batch within a
    command) catches what the outer one caught, and gives it back as it ends."""
    return isinstance(getattr(handler, "__self__", None), InterruptCatcher)


class InterruptCatcher:
    """Within it, SIGINT, SIGTERM and SIGHUP raise in the main thread, outside `held`; each only
    where Python's default had it (`_python_defaults`), SIGTERM always."""

    def __init__(self) -> None:
        self.holding = False
        self.pending: int | None = None
        """The signal that arrived during `held`, raised at its end."""
        self.previous: dict[int, object] = {}

    def __enter__(self) -> InterruptCatcher:
        if threading.current_thread() is not threading.main_thread():
            return self  # only the main thread may set a handler, and it alone runs them
        caught = [
            number
            for number, default in _python_defaults().items()
            if number == signal.SIGTERM
            or (handler := signal.getsignal(number)) is default
            or _is_catchers(handler)
        ]
        self.previous = {number: signal.signal(number, self._arrived) for number in caught}
        return self

    def __exit__(self, *raised: object) -> None:
        for number, handler in self.previous.items():
            signal.signal(number, handler)  # type: ignore[arg-type]
        self.previous = {}

    def _arrived(self, signum: int, frame: FrameType | None) -> None:
        if self.holding:
            self.pending = signum
            return
        raise _exception(signum)

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """An interrupt that arrives within it is raised as it ends, unless it ends by an
        exception of its own."""
        self.holding = True
        try:
            yield
        finally:
            self.holding = False
        signum, self.pending = self.pending, None
        if signum is not None:
            raise _exception(signum)


class InterruptNoter:
    """Within it, on the main thread where Python's own SIGINT handler is set, a SIGINT raises
    `KeyboardInterrupt` as that handler does, and is noted (`landed`): a Ctrl-C that lands in
    an agent run in-process (in a user's test, say) is the person's, who wants the session
    ended, though the agent catches it or the run would record it as the agent's crash."""

    def __init__(self) -> None:
        self.landed = False
        self.previous: object = None

    def __enter__(self) -> InterruptNoter:
        on_main = threading.current_thread() is threading.main_thread()
        if on_main and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            self.previous = signal.signal(signal.SIGINT, self._arrived)
        return self

    def __exit__(self, *raised: object) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)  # type: ignore[arg-type]
            self.previous = None

    def _arrived(self, signum: int, frame: FrameType | None) -> None:
        self.landed = True
        raise KeyboardInterrupt


class SignalArrivals:
    """Within it, on the main thread, whether SIGINT, SIGTERM or SIGHUP arrived (`arrived`), each
    still handled by the handler it had (Python's, an `InterruptCatcher`'s): a
    `KeyboardInterrupt` met within it when none arrived was raised by code (an agent's module, on
    import), not by a person or a CI service ending the session."""

    def __init__(self) -> None:
        self.arrived = False
        self.previous: dict[int, Callable[[int, FrameType | None], object]] = {}

    def __enter__(self) -> SignalArrivals:
        if threading.current_thread() is threading.main_thread():
            for number in _python_defaults():
                handler = signal.getsignal(number)
                if callable(handler):
                    self.previous[number] = handler
                    signal.signal(number, self._noted)
        return self

    def __exit__(self, *raised: object) -> None:
        for number, handler in self.previous.items():
            signal.signal(number, handler)
        self.previous = {}

    def _noted(self, signum: int, frame: FrameType | None) -> None:
        self.arrived = True
        self.previous[signum](signum, frame)
