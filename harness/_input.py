"""Consumes a path a user named as input — records, a baseline, a scenario file, a trace —
produces its text or its JSON, or an `InputError` saying why it cannot be read.

A path can name anything: a FIFO (reading it waits for a writer for ever), ``/dev/zero`` (it
never ends), a folder, a file of gigabytes, JSON nested deeper than any parser's stack, JSON with
``NaN`` in it. Each is refused here with its reason, before anything runs: only a regular file,
read up to `INPUT_LIMIT` bytes, as UTF-8, and JSON whose numbers are numbers.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from unsolvable._errors import InputError

__all__ = ["INPUT_LIMIT", "file_kind", "load_json", "no_path", "read_input"]

INPUT_LIMIT = 512 * 1024 * 1024
"""Bytes an input may hold: a record of 10,000 steps with its whole trajectory is about 7 MB, so
the records of a large session are tens to hundreds of megabytes; what is larger is no input of
ours, and reading it would only exhaust memory."""
CHUNK = 1024 * 1024
KINDS = {
    stat.S_IFDIR: "a folder",
    stat.S_IFIFO: "a FIFO (a named pipe)",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}


def file_kind(mode: int) -> str | None:
    """What a path of ``mode`` holds when it is no regular file (``"a folder"``, ``"a FIFO (a
    named pipe)"``); ``None`` for a regular file."""
    return None if stat.S_ISREG(mode) else KINDS.get(stat.S_IFMT(mode), "not a regular file")


def no_path(named: str, give: str) -> str:
    """What a path given empty is told, an input's or an output's: `Path` reads ``''`` as the
    current folder, whose files would be read or written unasked, and it is most often a
    variable left unset (``--json "$REPORT"``)."""
    return f"{named} '' names no path (is a variable unset?); give {give}"


def read_input(path: Path) -> str:
    """The text of the regular file at ``path``. Opened without waiting (a FIFO would wait for
    a writer) and checked before a byte is read."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError as error:
        raise InputError(f"{str(path)!r} cannot be read ({error.strerror})") from None
    try:
        if (kind := file_kind(os.fstat(descriptor).st_mode)) is not None:
            raise InputError(f"{str(path)!r} is {kind}, not a file; name a file")
        chunks, size = [], 0
        while size <= INPUT_LIMIT and (chunk := os.read(descriptor, CHUNK)):
            chunks.append(chunk)
            size += len(chunk)
    except OSError as error:
        raise InputError(f"{str(path)!r} cannot be read ({error.strerror})") from None
    finally:
        os.close(descriptor)
    if size > INPUT_LIMIT:
        raise InputError(f"{str(path)!r} holds more than {INPUT_LIMIT} bytes; it is no input")
    try:
        return b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(f"{str(path)!r} is not UTF-8 text ({error.reason})") from None


def _no_constant(name: str) -> Any:
    raise InputError(f"it holds {name}, which is not a number JSON allows")


def _no_repeated_key(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's members, a key given twice refused: JSON readers keep one of the two
    silently, and a hand-edited file's second ``"expected"`` would replace the first unseen."""
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise InputError(f"it gives the key {key!r} twice in one object; keep one")
        seen.add(key)
    return dict(pairs)


def load_json(text: str, *, what: str) -> Any:
    """``text`` read as JSON, ``what`` naming it in the `InputError` raised when it is not JSON,
    holds ``NaN`` or ``Infinity`` or a key twice in one object, or nests too deeply to be
    read."""
    if not text.strip():
        raise InputError(f"{what} is empty")
    try:
        return json.loads(text, parse_constant=_no_constant, object_pairs_hook=_no_repeated_key)
    except RecursionError:
        raise InputError(f"{what} nests too deeply to be read") from None
    except InputError as error:
        raise InputError(f"{what}: {error}") from None
    except json.JSONDecodeError as error:
        if _is_cut_short(text, error):
            raise InputError(
                f"{what} is not JSON ({error}): it is cut short, its JSON not closed where the "
                "text ends, as a copy, an upload or a download that did not finish leaves a file"
            ) from None
        raise InputError(f"{what} is not JSON ({error})") from None
    except ValueError as error:
        raise InputError(f"{what} is not JSON ({error})") from None


def _is_cut_short(text: str, error: json.JSONDecodeError) -> bool:
    """Whether ``text`` is JSON that stops before its end: it fails where the text ends, or on
    a string that the end of the text left open."""
    return error.pos >= len(text.rstrip()) or (
        error.msg.startswith("Unterminated string") and '"' not in text[error.pos + 1 :]
    )
