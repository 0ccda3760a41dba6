"""Consumes the exception that crashed an agent, produces its traceback as a record keeps it: the
agent's own frames and the line that raised, the harness's frames left out, bounded in size.

A crash is a bug in the agent, not a stop decision: what its author needs is where it raised.
"""

from __future__ import annotations

import itertools
import os
import re
import sys
import traceback
from types import FrameType

from unsolvable._text import ERROR_CUT, cut, described

__all__ = [
    "GROUP_WIDTH",
    "TRACEBACK_CUT",
    "agent_traceback",
    "error_text",
    "relative_files",
    "source_roots",
]

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
GROUP_WIDTH = 15
"""Sub-exceptions of a group shown, as Python's own traceback shows them (``max_group_width``);
the rest are counted."""
GROUP_DEPTH = 10
"""Groups nested in groups shown, as Python shows them (``max_group_depth``)."""
GROUP_INDENT = "| "
PYTHON_FILE = ".py"
"""How the name of a Python source file ends, which every path `_python_files` finds holds."""
PATH_END = r"\s\"'`:,;()<>\[\]{}|"
"""What ends a path in a text: a space, a quote, the ``:`` before a line number, punctuation."""


def agent_traceback(error: BaseException) -> str:
    """``error`` as Python prints it, with its chain (``raise … from``, and an exception raised
    while handling another), each stack without the harness's frames and each file named as
    the agent's author knows it (`_display`); the last `TRACEBACK_CUT` characters, cut at a
    line."""
    return _bounded("".join(_parts(error, depth=0)))


def error_text(error: BaseException) -> str:
    """``Type: message``, at most `ERROR_CUT` characters; for a group (an agent's task group),
    its members' after its own message, which names none of them."""
    text = _line(error)
    if isinstance(error, BaseExceptionGroup):
        members = _leaves(error)
        shown = "; ".join(_line(member) for member in members[:GROUP_WIDTH])
        more = len(members) - GROUP_WIDTH
        text += f": {shown}" + (f"; and {more} more" if more > 0 else "")
    return cut(text, ERROR_CUT)


def _line(error: BaseException) -> str:
    try:
        return f"{type(error).__name__}: {error}"
    except Exception:  # an exception whose __str__ raises
        return f"{type(error).__name__}: {described(error)}"


def _leaves(error: BaseException, depth: int = 0) -> list[BaseException]:
    """The exceptions a group holds, its nested groups' included as deep as a traceback shows
    them (`GROUP_DEPTH`), in order; an exception that is no group is its own leaf."""
    if not isinstance(error, BaseExceptionGroup) or depth == GROUP_DEPTH:
        return [error]
    return [leaf for inner in error.exceptions for leaf in _leaves(inner, depth + 1)]


def _parts(error: BaseException, *, depth: int) -> list[str]:
    chain = _chain(error)
    parts: list[str] = []
    for older, newer in itertools.pairwise(chain):
        parts += [*_one(older, depth=depth), CAUSE if newer.__cause__ is older else CONTEXT]
    return parts + _one(chain[-1], depth=depth)


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


def _one(error: BaseException, *, depth: int) -> list[str]:
    frames = traceback.walk_tb(error.__traceback__)
    kept = ((frame, line) for frame, line in frames if not _is_harness(frame))
    stack = traceback.StackSummary.extract(kept, lookup_lines=True)
    for frame in stack:  # made here for this traceback alone: renamed in place
        frame.filename = _display(frame.filename)
    head = ["Traceback (most recent call last):\n", *stack.format()] if stack else []
    lines = [*head, _message(error)]
    if isinstance(error, BaseExceptionGroup):
        lines += _members(error, depth=depth + 1)
    return lines


def _message(error: BaseException) -> str:
    """The lines Python ends ``error``'s traceback with (its type and message, its notes), at
    most `ERROR_CUT` characters: a message of megabytes would push every frame out of the
    traceback's `TRACEBACK_CUT`."""
    text = "".join(traceback.format_exception_only(type(error), error))
    return text if len(text) <= ERROR_CUT else cut(text.rstrip("\n"), ERROR_CUT) + "\n"


def _members(group: BaseExceptionGroup[BaseException], *, depth: int) -> list[str]:
    """Each exception of ``group`` with its own traceback, indented below it as Python shows a
    group's members, as many and as deep as Python shows them."""
    members = group.exceptions
    if depth > GROUP_DEPTH:
        return [f"{GROUP_INDENT}... (max_group_depth is {GROUP_DEPTH})\n"]
    lines: list[str] = []
    for number, member in enumerate(members[:GROUP_WIDTH], 1):
        lines.append(f"+-- sub-exception {number} of {len(members)}:\n")
        text = "".join(_parts(member, depth=depth))
        lines += [GROUP_INDENT + line for line in text.splitlines(keepends=True)]
    if len(members) > GROUP_WIDTH:
        lines.append(f"+-- and {len(members) - GROUP_WIDTH} more exceptions\n")
    return lines


def _is_harness(frame: FrameType) -> bool:
    module = str(frame.f_globals.get("__name__", ""))
    return module == HARNESS or module.startswith(HARNESS + ".")


def source_roots() -> list[str]:
    """The folders an agent's files are named relative to, deepest first: the current directory
    and the ``sys.path`` entries, whose place differs by machine and checkout."""
    roots = {os.path.abspath(path or ".") for path in (os.getcwd(), *sys.path)}
    return sorted(roots, key=len, reverse=True)


def _display(filename: str) -> str:
    """A file named relative to the deepest of `source_roots` that holds it (``myagent.py``,
    ``langgraph/pregel/main.py``), else as it is."""
    for root in source_roots():
        if filename.startswith(root + os.sep):
            return os.path.relpath(filename, root)
    return filename


def _python_files(roots: list[str]) -> re.Pattern[str] | None:
    """Where a run's output names a Python source file under one of ``roots`` (deepest first)
    by its absolute path, wherever in a line: a traceback's (``File "/home/ci/project/agent.py"``,
    an ``exec:`` agent's, under its venv's ``site-packages`` too), a warning's, a log line's
    ``%(pathname)s``, a printed ``__file__``. The match is the root, which removed leaves the
    file named as `_display` names it. A path that names no Python file (a scenario's
    ``/tmp/q3.md``) is data, the same wherever the command runs, and is not found. ``None`` for
    no root but the file system's, under which every path lies."""
    folders = [os.path.join(root, "") for root in roots if os.path.dirname(root) != root]
    if not folders:
        return None
    either, source = "|".join(map(re.escape, folders)), re.escape(PYTHON_FILE)
    return re.compile(rf"(?<![\w.~/\\-])(?:{either})(?=[^{PATH_END}]*?{source}(?!\w))")


def relative_files(text: str) -> str:
    """``text`` with every Python file under `source_roots` named relative (`_python_files`)."""
    found = _python_files(source_roots()) if PYTHON_FILE in text else None
    return text if found is None else found.sub("", text)


def _bounded(text: str) -> str:
    """The end of ``text`` within `TRACEBACK_CUT` characters, from a line's start."""
    if len(text) <= TRACEBACK_CUT:
        return text
    kept = text[-(TRACEBACK_CUT - len(CUT_MARK)) :]
    return CUT_MARK + kept[kept.find("\n") + 1 :]
