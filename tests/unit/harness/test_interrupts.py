"""Which signals `InterruptCatcher` takes, and what it gives back."""

from __future__ import annotations

import signal

from unsolvable._interrupts import InterruptCatcher, Interrupted, interrupting_signal


def test_a_signal_ignored_before_stays_ignored() -> None:
    """A command started under ``nohup`` ignores SIGHUP, and a terminal closed leaves it be."""
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        with InterruptCatcher():
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, previous)


def test_a_catcher_within_another_takes_what_the_outer_took_and_gives_it_back() -> None:
    """A batch runs within a command that catches its interrupts: the batch's catcher must hold
    a record's interrupt, so it takes SIGINT and SIGHUP from the command's, as from Python."""
    with InterruptCatcher() as outer:
        with InterruptCatcher() as inner:
            for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                assert signal.getsignal(number) == inner._arrived
        for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            assert signal.getsignal(number) == outer._arrived
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_sigterm_and_sighup_are_raised_as_ctrl_c_is_and_named() -> None:
    assert isinstance(Interrupted("SIGTERM"), KeyboardInterrupt)
    assert interrupting_signal(Interrupted("SIGHUP")) == "SIGHUP"
    assert interrupting_signal(KeyboardInterrupt()) == "SIGINT"
