"""Consumes report text and records as they finish, produces files that are never half-written,
never replaced by an emptier copy, and never written through a link the harness did not make.

A finished file is written to a temporary file beside it and renamed over the old one (a rename
replaces a symbolic link at the path; it never writes where the link points), so a reader sees
the old bytes or the new ones. A partial session's file (interrupted, a worker lost, no record
made) never replaces a larger one; it is written beside it instead. Records are also streamed,
one JSON line each, to ``<path>.jsonl`` as runs end, so a session killed outright still leaves
every finished record on disk: that file is made by the run itself, before anything runs, and
one that exists already — another run streaming to the same path, or records a killed run left
— is never truncated: the run is refused. A named pipe there (``mkfifo``) is the exception: a
consumer reading the records live, which the run writes to and leaves in place. A write that
fails (a full disk) is an `OutputError` naming the file and why; what was written stays.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import stat
from pathlib import Path
from typing import IO

from unsolvable._errors import OutputError
from unsolvable._interrupts import interrupting_signal
from unsolvable._numbers import counted
from unsolvable._record import TerminationRecord
from unsolvable._writable import missing_folders, remove_folders

__all__ = ["PARTIAL", "STREAM_SUFFIX", "RecordStream", "stream_path", "write_file"]

NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
"""Open flags of a file the harness makes itself: it must not exist, not even as a link."""


def _why(error: OSError) -> str:
    return error.strerror or str(error)


FILE_MODE = 0o666
"""What a report file is created with, less the process's umask, as ``open(path, "w")`` would
make it: a report is for the team and its CI to read (``tempfile.mkstemp`` makes 0600)."""


UNENCODABLE = "backslashreplace"
"""How a report writes a character UTF-8 has no bytes for (a lone surrogate: in a records file's
JSON, or in a label from a command line that is no UTF-8): as its escape, ``\\ud800``, visible
and inert as `unsolvable._text.printable` writes what does not print, not a crash."""


def _temporary(path: Path, made: list[Path]) -> int:
    """A new file beside ``path``, opened for writing, that nothing else can have opened. Its
    name is in ``made`` before it exists: an interrupt that lands as it is made, before this
    returns, leaves the caller the name of the file to remove."""
    while True:
        made[:] = [path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")]
        try:
            return os.open(made[0], os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
        except FileExistsError:
            made.clear()  # another's: not to be removed


def _replace(path: Path, text: str) -> None:
    made: list[Path] = []
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with os.fdopen(_temporary(path, made), "w", encoding="utf-8", errors=UNENCODABLE) as out:
            out.write(text)
        os.replace(made[0], path)
    except BaseException as error:  # a full disk, or an interrupt: no temporary file is left
        for temporary in made:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        if isinstance(error, OSError):
            raise OutputError(
                f"cannot write {str(path)!r} ({_why(error)}); the file there, if any, is unchanged"
            ) from None
        raise


def write_file(path: Path, text: str, *, partial: bool = False) -> Path:
    """Writes ``text`` to ``path`` atomically and returns where it went: beside ``path``
    (``name.partial.ext``) when a partial session would replace a larger file. An
    `OutputError` when it cannot be written."""
    if partial and path.is_file() and path.stat().st_size > len(text.encode("utf-8", UNENCODABLE)):
        path = path.with_name(f"{path.stem}{PARTIAL}{path.suffix}")
    _replace(path, text)
    return path


def _is_pipe(path: Path) -> bool:
    """Whether ``path`` is a named pipe itself, not a link to one."""
    try:
        return stat.S_ISFIFO(os.lstat(path).st_mode)
    except OSError:
        return False


PARTIAL = ".partial"
"""What the name of a partial session's file adds, where it would have replaced a larger one:
``records.partial.json``."""


STREAM_SUFFIX = ".jsonl"
"""What a record stream's name adds to its ``--json`` path's."""


def stream_path(path: Path) -> Path:
    """Where the records of a session headed for ``path`` are streamed as they finish."""
    return path.with_name(path.name + STREAM_SUFFIX)


class RecordStream:
    """Appends each finished record as one JSON line, flushed at once, to a file it made."""

    def __init__(self, path: Path | None) -> None:
        self.path = None if path is None else stream_path(path)
        self._out: IO[str] | None = None
        self.written = 0
        """Records on disk so far."""
        self.error: str | None = None
        """Why the stream stopped, if a write failed: the records before it are kept."""
        self.piped = False
        """The stream is a named pipe someone else made, and is left where it is."""
        self._made: list[Path] = []
        """The folders `open` made for the stream, which go with it when nothing else is in
        them."""

    def open(self, *, flag: str = "--json") -> None:
        """Makes the stream's file now, before anything runs. An `OutputError` (naming
        ``flag``) when it exists already or cannot be made."""
        if self.path is None:
            return
        self._made = missing_folders(self.path.parent)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            descriptor = os.open(self.path, NEW_FILE, 0o666)
        except FileExistsError:
            if _is_pipe(self.path):
                self._out = os.fdopen(self._pipe(flag), "w", encoding="utf-8")
                return
            raise OutputError(
                f"{flag}: {str(self.path)!r} exists: another run is streaming its records there, "
                "or a run that was killed left the records it finished in it; let that run end, "
                "or move the file away (keep it: it holds those records), then run again"
            ) from None
        except OSError as error:
            raise OutputError(f"{flag}: cannot make {str(self.path)!r} ({_why(error)})") from None
        self._out = os.fdopen(descriptor, "w", encoding="utf-8")

    def _pipe(self, flag: str) -> int:
        """The named pipe at the stream's path, opened for writing: a consumer reads the records
        as they finish. Refused at once when nobody reads it, rather than waiting for a reader."""
        assert self.path is not None
        try:
            descriptor = os.open(self.path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as error:
            raise OutputError(
                f"{flag}: {str(self.path)!r} is a named pipe nobody reads ({_why(error)}); "
                "start its reader first, or remove it"
            ) from None
        os.set_blocking(descriptor, True)  # a reader that is slow is waited for
        self.piped = True
        return descriptor

    def add(self, record: TerminationRecord) -> None:
        """Streams ``record``; after a failed write (a full disk), nothing more, and the run
        goes on: the error is reported when the run ends."""
        if self._out is None or self.error is not None:
            return
        line = json.dumps(record.to_dict(volatile=True), sort_keys=True, allow_nan=False)
        try:
            self._out.write(line + "\n")
            self._out.flush()
        except OSError as error:
            self.error = f"cannot write {str(self.path)!r} ({_why(error)})"
            return
        self.written += 1

    def kept(self) -> str:
        """What the stream keeps on disk, to say once it is closed and kept (the final files
        were not all written): ``the 3 records streamed to PATH are kept``; empty when it keeps
        none, or they went to a named pipe's reader."""
        if self.path is None or self.piped or not self.written:
            return ""
        verb = "is" if self.written == 1 else "are"
        return f"the {counted(self.written, 'record')} streamed to {self.path} {verb} kept"

    def interrupted_writing(self, interrupt: KeyboardInterrupt) -> str:
        """Closes the stream, kept, after ``interrupt`` (SIGINT, SIGTERM or SIGHUP) came as the
        reports were written, each whole or not at all: the line that says so, and which
        records the stream keeps, as both faces print it."""
        self.close(keep=True)
        said = (
            f"unsolvable: interrupted ({interrupting_signal(interrupt)}) while writing the reports"
        )
        return said + (
            f"; {self.kept()} (unsolvable report reads that file)" if self.kept() else ""
        )

    def close(self, *, keep: bool) -> None:
        """Closes the stream; removes it unless ``keep`` (the final file could not be written)
        and it holds records. Closing twice is harmless: the first close decides."""
        if self._out is None:
            return
        with contextlib.suppress(OSError):  # a last flush on a full disk: what is there stays
            self._out.close()
        self._out = None
        if self.path is not None and not self.piped and not (keep and self.written):
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
            remove_folders(self._made)  # a run refused after it opened leaves no folder
