"""Consumes report text and records as they finish, produces files that are never half-written
and never replaced by an emptier copy.

A finished file is written to a temporary file beside it and renamed over the old one, so a
reader sees the old bytes or the new ones. A partial session's file (interrupted, or a worker
lost) never replaces a larger one; it is written beside it instead. Records are also streamed, one
JSON line each, to ``<path>.jsonl`` as runs end, so a session killed outright still leaves every
finished record on disk; the stream is removed once the final file is in place.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
from pathlib import Path
from typing import IO

from unsolvable._record import TerminationRecord

__all__ = ["RecordStream", "stream_path", "write_file"]


FILE_MODE = 0o666
"""What a report file is created with, less the process's umask, as ``open(path, "w")`` would
make it: a report is for the team and its CI to read (``tempfile.mkstemp`` makes 0600)."""


def _temporary(path: Path) -> tuple[int, Path]:
    """A new file beside ``path``, opened for writing, that nothing else can have opened."""
    while True:
        temporary = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
        try:
            return os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE), temporary
        except FileExistsError:
            continue


def _replace(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = _temporary(path)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def write_file(path: Path, text: str, *, partial: bool = False) -> Path:
    """Writes ``text`` to ``path`` atomically and returns where it went: beside ``path``
    (``name.partial.ext``) when a partial session would replace a larger file."""
    if partial and path.is_file() and path.stat().st_size > len(text.encode("utf-8")):
        path = path.with_name(f"{path.stem}.partial{path.suffix}")
    _replace(path, text)
    return path


def stream_path(path: Path) -> Path:
    """Where the records of a session headed for ``path`` are streamed as they finish."""
    return path.with_name(path.name + ".jsonl")


class RecordStream:
    """Appends each finished record as one JSON line, flushed at once."""

    def __init__(self, path: Path | None) -> None:
        self.path = None if path is None else stream_path(path)
        self._out: IO[str] | None = None

    def add(self, record: TerminationRecord) -> None:
        if self.path is None:
            return
        if self._out is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._out = self.path.open("w", encoding="utf-8")
        self._out.write(json.dumps(record.to_dict(volatile=True), sort_keys=True) + "\n")
        self._out.flush()

    def close(self, *, keep: bool) -> None:
        """Closes the stream; removes it unless ``keep`` (the final file could not be written).
        Closing twice is harmless: the first close decides."""
        if self._out is not None:
            self._out.close()
            self._out = None
        if self.path is not None and not keep:
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
