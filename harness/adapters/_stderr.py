"""Consumes what an agent's process wrote to stderr before it failed, produces the line a crashed
record names: the last, or the one naming the error where the last names nothing."""

from __future__ import annotations

import re

__all__ = ["stderr_account"]

NODE_VERSION = re.compile(r"Node\.js v\d+\.\d+\.\d+\S*")
"""The line Node ends its report of an uncaught error with (since Node 18): its own version."""
CARET = re.compile(r"\s*\^+\s*")
"""The line of Node's report that points under the line of source that threw."""


def stderr_account(stderr: str) -> str:
    """``ends: <its last line>``, or ``says: <the error>`` when it ends with Node's report of an
    uncaught error (`_node_error`), whose last line, the runtime's version, names nothing."""
    lines = stderr.strip().splitlines()
    if lines and NODE_VERSION.fullmatch(lines[-1].strip()):
        return f"says: {_node_error(lines[:-1])}"
    return f"ends: {lines[-1] if lines else '(nothing)'}"


def _node_error(lines: list[str]) -> str:
    """The line of Node's report that names the error: the report shows where it was thrown (a
    file, its line of source, a caret under it), then the error as ``util.inspect`` writes it,
    its name and message first (``TypeError: fetch failed``), its stack and fields after; an error
    with no source to show has no caret, and begins the report's last paragraph."""
    body = "\n".join(lines).strip().splitlines() or ["(nothing)"]
    carets = [index for index, line in enumerate(body) if CARET.fullmatch(line)]
    blanks = [index for index, line in enumerate(body) if not line.strip()]
    start = (carets or blanks or [-1])[-1] + 1
    return next((line.strip() for line in body[start:] if line.strip()), body[-1].strip())
