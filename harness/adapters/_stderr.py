"""Consumes what an agent's process wrote to stderr before it failed, produces the line a crashed
record names: the last, or the one naming the error where the last names nothing."""

from __future__ import annotations

import re

from unsolvable._text import ELLIPSIS

__all__ = ["ERROR_LINE", "StderrReader", "ends_node_report", "stderr_account"]

NODE_VERSION = re.compile(r"Node\.js v\d+\.\d+\.\d+\S*")
"""The line Node ends its report of an uncaught error with (since Node 18): its own version."""
CARET = re.compile(r"\s*\^+\s*")
"""The line of Node's report that points under the line of source that threw."""
ERROR_LINE = re.compile(r"\b(error|unknown|unexpected|invalid)\b", re.IGNORECASE)
"""A line that names what went wrong: a CLI refusing its command line prints that line and then
its usage (Codex: "error: unexpected argument", Gemini CLI: "Unknown arguments"), so the last
line alone names nothing, and the usage may outrun the end of stderr a record keeps."""
LINE_KEPT = 4_000
"""Characters of a line kept to be named, as many as the end of stderr a record keeps: one line
of a report can be an error's whole message, a request body's string among its fields."""
LINE_BYTES = 4 * LINE_KEPT
"""Bytes of a line written in pieces (`NodeReport.write`) kept: `LINE_KEPT` characters of UTF-8."""
BLANK_RUN = re.compile(rb"\n[ \t\r\x0b\x0c\n]*\n")
"""Blank lines one after another, whole in a piece of the stream: any number of them reads as one
does (a paragraph ended), so they are read as one, and a child that writes blank lines without
end costs a search of each piece rather than the reading of each line."""


def stderr_account(stderr: str, named: str) -> str:
    """``ends: <its last line>``, or ``says: <named>`` when it ends with Node's report of an
    uncaught error, whose last line, the runtime's version, names nothing: ``named`` is the line
    that names the error, which `NodeReport` read as the stream was written, since the start of a
    long report is no longer in the end of ``stderr`` kept."""
    if ends_node_report(stderr):
        return f"says: {named}"
    lines = stderr.strip().splitlines()
    return f"ends: {lines[-1] if lines else '(nothing)'}"


def ends_node_report(stderr: str) -> bool:
    """Whether ``stderr`` ends with Node's report of an uncaught error: its last line is Node's
    version."""
    lines = stderr.strip().splitlines()
    return bool(lines) and NODE_VERSION.fullmatch(lines[-1].strip()) is not None


class StderrReader:
    """Consumes stderr a line at a time, as it is written, produces the lines a crashed record
    may name: the line of Node's report of an uncaught error that names the error (`named`), and
    the last line that names an error (`error_line`, `ERROR_LINE`). Node's report shows where it
    was thrown (a file, its line of source, a caret under it), then the error as
    ``util.inspect`` writes it, its name and message first (``TypeError: fetch failed``), its
    stack and fields after; an error with no source to show has no caret, and begins the
    report's last paragraph. Read as it streams because both may come long before the end of
    stderr a record keeps: the line naming the error opens the report, which an error carrying
    its request (the Vercel AI SDK's ``APICallError``, a ``RetryError`` of three of them) makes
    far longer, and a CLI's error comes before its usage (Gemini CLI's is longer)."""

    def __init__(self) -> None:
        self.last = ""
        """The last line that is not blank, stripped."""
        self.error_line: str | None = None
        """The last line that names an error (`ERROR_LINE`), stripped."""
        self.after_caret: str | None = None
        """The first line that is not blank after the last caret, once one was seen."""
        self.opening: str | None = None
        """The first line that is not blank of the last paragraph."""
        self.caret = self.waiting_after_caret = self.paragraph_ended = False
        self.held: list[str] = []
        """A version line and a blank line after it, if any: read only once a line follows
        them, since while they end the stderr they are the report's end, not part of it. One
        blank line reads as any number do (a paragraph ended), so no more is held: a child
        that wrote blank lines without end after one would fill the harness's memory."""
        self.line = bytearray()
        """The start of the line being written (`write`), `LINE_BYTES` of it at most."""
        self.line_cut = False
        """Whether bytes of the line were left out (past `LINE_BYTES`): it ends in an ellipsis."""
        self.line_blank = True
        """Whether the line is white space alone so far: blank however long, as `BLANK_RUN`
        reads it, so that a line reads the same whatever pieces the stream came in."""

    def write(self, chunk: bytes) -> None:
        """Reads a piece of the stream as it comes, whole lines or not."""
        *ended, rest = BLANK_RUN.sub(b"\n\n", chunk).split(b"\n")
        for piece in ended:
            self._add(piece)
            self.close()
        self._add(rest)

    def close(self) -> None:
        """Reads the line being written: at each newline, and once at the stream's end."""
        text = self.line.decode("utf-8", "replace")
        if self.line_cut and not self.line_blank:
            text = text[: LINE_KEPT - len(ELLIPSIS)] + ELLIPSIS
        self._feed(text)
        self.line, self.line_cut, self.line_blank = bytearray(), False, True

    def _add(self, piece: bytes) -> None:
        room = LINE_BYTES - len(self.line)
        self.line += piece[:room]
        self.line_cut = self.line_cut or len(piece) > room
        self.line_blank = self.line_blank and not piece.strip()

    def _feed(self, line: str) -> None:
        if self.held and not line.strip():
            self.held[1:] = [line]
            return
        held, self.held = self.held, []
        for earlier in held:
            self._read(earlier)
        if NODE_VERSION.fullmatch(line.strip()):
            self.held = [line]
        else:
            self._read(line)

    @property
    def named(self) -> str:
        """The first line after the last caret, or with none the first of the last paragraph."""
        if self.caret:
            return self.after_caret or self.last
        return self.opening or "(nothing)"

    def _read(self, line: str) -> None:
        stripped = line.strip()
        if not stripped:
            self.paragraph_ended = True
            return
        if self.waiting_after_caret:
            self.after_caret, self.waiting_after_caret = stripped, False
        if self.paragraph_ended or self.opening is None:
            self.opening, self.paragraph_ended = stripped, False
        if CARET.fullmatch(line):
            self.caret, self.waiting_after_caret, self.after_caret = True, True, None
        if ERROR_LINE.search(stripped):
            self.error_line = stripped
        self.last = stripped
