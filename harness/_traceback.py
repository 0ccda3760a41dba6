"""Consumes the exception that crashed an agent, produces its traceback as a record keeps it: the
agent's own frames and the line that raised, the harness's frames left out, bounded in size.

A crash is a bug in the agent, not a stop decision: what its author needs is where it raised.
"""

from __future__ import annotations

import itertools
import os
import sys
import traceback
from types import FrameType

__all__ = ["TRACEBACK_CUT", "agent_traceback"]

TRACEBACK_CUT = 4000
"""Characters of a traceback a record keeps: its end, where the raising line is (a recursion
error's thousand frames would otherwise weigh more than the rest of the record)."""
HARNESS = "unsolvable"
"""The package whose frames are the harness's own (the run, the session, the adapters, the fake
tools): known by the module a frame runs in, wherever the package is installed."""
CAUSE = "\nThe above exception was the direct cause of the following exception:\n\n"
CONTEXT = "\nDuring handling of the above exception, another exception occurred:\n\n"
"""Python's own words between two exceptions of a chain."""
CUT_MARK = "…\n"


def agent_traceback(error: BaseException) -> str:
    """``error`` as Python prints it, with its chain (``raise … from``, and an exception raised
    while handling another), each stack without the harness's frames and each file named as
    the agent's author knows it (`_display`); the last `TRACEBACK_CUT` characters, cut at a
    line."""
    chain = _chain(error)
    parts: list[str] = []
    for older, newer in itertools.pairwise(chain):
        parts += [*_one(older), CAUSE if newer.__cause__ is older else CONTEXT]
    parts += _one(chain[-1])
    return _bounded("".join(parts))


def _chain(error: BaseException) -> list[BaseException]:
    """The exceptions that led to ``error``, oldest first; each once, as Python shows them."""
    chain: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and not any(current is seen for seen in chain):
        chain.append(current)
        cause = current.__cause__
        current = (
            cause if cause is not None or current.__suppress_context__ else current.__context__
        )
    return chain[::-1]


def _one(error: BaseException) -> list[str]:
    frames = traceback.walk_tb(error.__traceback__)
    kept = ((frame, line) for frame, line in frames if not _is_harness(frame))
    stack = traceback.StackSummary.extract(kept, lookup_lines=True)
    for frame in stack:  # made here for this traceback alone: renamed in place
        frame.filename = _display(frame.filename)
    head = ["Traceback (most recent call last):\n", *stack.format()] if stack else []
    return [*head, *traceback.format_exception_only(type(error), error)]


def _is_harness(frame: FrameType) -> bool:
    module = str(frame.f_globals.get("__name__", ""))
    return module == HARNESS or module.startswith(HARNESS + ".")


def _display(filename: str) -> str:
    """A file named relative to the deepest of the current directory and the ``sys.path``
    entries that holds it (``myagent.py``, ``langgraph/pregel/main.py``), else as it is."""
    roots = sorted({os.path.abspath(path or ".") for path in (os.getcwd(), *sys.path)}, key=len)
    for root in reversed(roots):
        if filename.startswith(root + os.sep):
            return os.path.relpath(filename, root)
    return filename


def _bounded(text: str) -> str:
    """The end of ``text`` within `TRACEBACK_CUT` characters, from a line's start."""
    if len(text) <= TRACEBACK_CUT:
        return text
    kept = text[-(TRACEBACK_CUT - len(CUT_MARK)) :]
    return CUT_MARK + kept[kept.find("\n") + 1 :]
