"""Consumes a path a report, a baseline or snapshots will be written to, produces an
`OutputError` now, before anything runs, when that path cannot be written.

A typo'd or read-only output path should not cost a whole run and then end in a traceback. The
check never creates or truncates the target itself: it creates a missing parent folder, writes
a temporary file beside the target and removes both (the writing creates the folder, and a
command refused later leaves none behind), and opens an existing target for appending only —
never through a symbolic link, which the final write replaces. A path that
holds no regular file — a device (``/dev/null``), a named pipe, a socket, or a link to one
(``/dev/stdout``) — is refused: the final write would rename a file over it, which replaces even
``/dev/null`` for a run as root, and opening a pipe no one reads would wait for ever.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import NoReturn

from unsolvable._errors import OutputError
from unsolvable._input import file_kind, no_path

__all__ = [
    "check_writable",
    "check_writable_dir",
    "file_path",
    "folder_path",
    "missing_folders",
    "remove_folders",
]


def file_path(text: str, *, flag: str, example: str) -> Path:
    """``text``, a path given for a file to write, as a `Path`; one ending in a separator names
    a folder, which `Path` would forget, and the file would be written under the folder's name."""
    _check_given(text, flag=flag, example=example)
    if text.endswith(("/", os.sep)):
        raise OutputError(
            f"{flag} {text!r} names a folder (it ends in '/'); name a file in it, e.g. "
            f"{text}{example}"
        )
    return Path(text)


def folder_path(text: str, *, flag: str, example: str) -> Path:
    """``text``, a path given for a folder to write files in, as a `Path`."""
    _check_given(text, flag=flag, example=example)
    return Path(text)


def _check_given(text: str, *, flag: str, example: str) -> None:
    """An empty path is refused (`no_path`)."""
    if not text:
        raise OutputError(no_path(flag, f"one, e.g. {example}"))


def check_writable(path: Path, *, flag: str) -> None:
    """``path`` can be written as a file, or `OutputError` names ``flag``, the path and why."""
    if path.is_dir():
        _fail(path, flag, "it is a directory", f"name a file, e.g. {path / 'report'}")
    if (special := _special(path)) is not None:
        _fail(path, flag, f"it is {special}, not a file", "name a file, which is written whole")
    problem = _dir_error(path.parent)
    if problem is not None:
        why = f"cannot make files in {str(path.parent)!r}: {problem}"
        _fail(path, flag, why, "choose a path in a folder you can write to")
    if path.exists() and not path.is_symlink():  # a link is replaced, never written through
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0)))
        except OSError as error:
            _fail(path, flag, _why(error), "make it writable, or choose another path")


def _special(path: Path) -> str | None:
    """What ``path`` (or what a link there points to) is when it is no regular file."""
    try:
        mode = path.stat().st_mode
    except OSError:  # nothing there yet, or a link to nothing: a file will be made
        return None
    return file_kind(mode)


def check_writable_dir(folder: Path, *, flag: str) -> None:
    """Files can be made in ``folder`` (made to try one in, if missing, then removed again), or
    `OutputError`."""
    problem = _dir_error(folder)
    if problem is not None:
        _fail(folder, flag, problem, "choose a folder you can write to")


def _dir_error(folder: Path) -> str | None:
    """Why no file can be made in ``folder``, after creating it if missing; ``None`` if one can.
    What it created is removed again: the writing creates it."""
    made = missing_folders(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".unsolvable-", delete=True):
            pass
    except (FileExistsError, NotADirectoryError) as error:
        blocker = _file_in_the_way(folder)
        return _why(error) if blocker is None else f"{str(blocker)!r} is a file, not a folder"
    except OSError as error:
        return _why(error)
    finally:
        remove_folders(made)
    return None


def missing_folders(folder: Path) -> list[Path]:
    """``folder`` and the folders above it that do not exist yet, deepest first: what
    ``folder.mkdir(parents=True)`` makes, and `remove_folders` takes away again."""
    return list(itertools.takewhile(lambda place: not place.exists(), (folder, *folder.parents)))


def remove_folders(folders: Iterable[Path]) -> None:
    """Removes each of ``folders``, deepest first, that is empty: one a file was written to
    since stays."""
    for place in folders:
        with contextlib.suppress(OSError):
            place.rmdir()


def _file_in_the_way(folder: Path) -> Path | None:
    """The nearest of ``folder`` and the folders above it that exists and is no folder: what
    makes the folder impossible to make, said by name rather than as a bare 'File exists'."""
    for place in (folder, *folder.parents):
        if place.exists():
            return None if place.is_dir() else place
    return None


def _why(error: OSError) -> str:
    return f"{type(error).__name__}: {error.strerror or error}"


def _fail(path: Path, flag: str, why: str, fix: str) -> NoReturn:
    raise OutputError(f"{flag} {str(path)!r} cannot be written ({why}); {fix}")
