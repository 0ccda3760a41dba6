"""Consumes the harness's own process while an agent's module is loaded in it, produces the
refusal of ``os._exit`` there (`exit_refused`): a module that ends the process as it is imported
would end the command with the status it gave, and 0 reads in CI as a run that passed."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator
from typing import NoReturn

__all__ = ["ExitedAtLoad", "exit_refused"]


class ExitedAtLoad(BaseException):
    """Raised in place of ``os._exit(status)`` by the loading thread: a `BaseException`, so that
    the module's own ``except Exception`` does not swallow it."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class _Refusal:
    """``os._exit`` while ``active``: it raises `ExitedAtLoad` on the loading thread of the
    loading process, and ends the process as it always does anywhere else (a process the module
    forked, a thread it started, a call once the load is over through a name bound to it)."""

    def __init__(self, exit: Callable[[int], NoReturn]) -> None:
        self.exit, self.active = exit, True
        self.pid, self.thread = os.getpid(), threading.get_ident()

    def __call__(self, status: int) -> NoReturn:
        loading = os.getpid() == self.pid and threading.get_ident() == self.thread
        if self.active and loading:
            raise ExitedAtLoad(status)
        self.exit(status)


@contextlib.contextmanager
def exit_refused() -> Iterator[None]:
    """``os._exit`` refused on this thread while the block runs (`_Refusal`)."""
    real = os._exit
    refusal = _Refusal(real)
    os._exit = refusal
    try:
        yield
    finally:
        refusal.active = False
        os._exit = real
