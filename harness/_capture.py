"""Consumes the file a worker captures a run's stdout and stderr in, produces the end of what the
agent wrote there, for the record of a failing run, while keeping the file's use of the disk
bounded however much the agent writes (`Keeper`).

The end is read from the file's last `KEPT_BYTES` at most, and only blocks before them are ever
freed: what the record keeps is a function of what the agent wrote, never of when the keeper
looked.
"""

from __future__ import annotations

import errno
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

from unsolvable._text import kept_end
from unsolvable._traceback import relative_files

__all__ = ["KEPT_BYTES", "OUTPUT_CUT", "Keeper", "output_end"]

OUTPUT_CUT = 2000
"""Characters of an agent's own stdout/stderr kept in the record of a failing run."""
KEPT_BYTES = 1 << 20
"""Bytes at the end of a run's capture file that are always there to be read: the end of the
output is read from them alone, and the disk holds little more of the file."""
KEEP_EVERY = 0.05
"""Seconds between the keeper's looks at the file of a run in progress: an agent writing as fast
as a disk takes it (a few GB a second) puts some hundreds of MB there before a look frees them."""
PUNCH_HOLE = 0x01 | 0x02
"""``FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE`` (``linux/falloc.h``): the blocks of a range are
freed, and the file's size and every offset in it stay as they were."""

Punch = Callable[[int, int, int], int]
"""Frees ``length`` bytes at ``offset`` of the file open as ``fd``: 0, or the error number."""


def output_end(sink: IO[bytes]) -> str:
    """The last `OUTPUT_CUT` characters of a run's output, its Python files named relative
    before the cut (`relative_files`): the end kept is then the same from any checkout, however
    long its path. Read from the end, as much as that takes and no more than `KEPT_BYTES`; a
    first line read in part is left out, as it may hold part of a path."""
    size = sink.seek(0, os.SEEK_END)
    window = 4 * OUTPUT_CUT  # a UTF-8 character takes up to 4 bytes
    while True:
        start = sink.seek(max(0, size - min(window, KEPT_BYTES)))
        text = relative_files(sink.read().decode("utf-8", "replace"))
        whole = text if start == 0 else text[text.find("\n") + 1 :]
        if start == 0 or len(whole) >= OUTPUT_CUT or window >= KEPT_BYTES:
            return kept_end(whole, OUTPUT_CUT)
        window *= 4


class Keeper(threading.Thread):
    """Keeps the capture file of the run in progress to about its last `KEPT_BYTES` on disk:
    every `KEEP_EVERY` seconds it looks, and the blocks before them are freed by punching a hole
    in the file. The agent and the processes it started, which write on through the same file,
    see nothing: its size and their offsets are as they were. Where a hole cannot be punched (no
    ``fallocate``, as on macOS, or a file system without holes) the file grows as the agent
    writes, as any capture file would. It looks on a clock of its own, never woken by a run's
    start or end, so that neither costs the run a switch of threads."""

    def __init__(self) -> None:
        super().__init__(name="unsolvable-output-keeper", daemon=True)
        self._lock = threading.Lock()
        self._kept: _Kept | None = None
        self._punch: Punch | None = None
        self._looked_for_punch = False
        self._never = threading.Event()
        """Waited on between looks, never set: the keeper ends with its process."""

    def keep(self, fd: int | None) -> None:
        """Keeps the file open as ``fd`` from now on, or none (the run is over). Once this has
        returned the keeper no longer touches the file it kept before, whose descriptor may be
        closed and its number reused."""
        kept = None if fd is None else _kept(fd)
        with self._lock:
            self._kept = kept

    def run(self) -> None:
        while not self._never.wait(KEEP_EVERY):
            with self._lock:
                if self._kept is not None:
                    self._free(self._kept)

    def _free(self, kept: _Kept) -> None:
        """Frees the whole blocks before the file's last `KEPT_BYTES`, if there are new ones;
        lets the file go if its descriptor no longer names it (the agent closed it, and its
        number may name a file of the agent's now)."""
        try:
            status = os.fstat(kept.fd)
        except OSError:
            status = None
        if status is None or (status.st_dev, status.st_ino) != kept.file:
            self._kept = None
            return
        block = status.st_blksize or 4096
        end = (status.st_size - KEPT_BYTES) // block * block
        if end <= kept.freed:
            return
        punch = self._puncher()
        failed = errno.EOPNOTSUPP if punch is None else punch(kept.fd, kept.freed, end - kept.freed)
        if not failed:
            kept.freed = end
        elif failed in (errno.EOPNOTSUPP, errno.ENOSYS):
            self._kept = None  # no holes here: the file grows, as any capture file would

    def _puncher(self) -> Punch | None:
        """libc's ``fallocate``, looked up the first time a file needs it; None without one."""
        if not self._looked_for_punch:
            self._looked_for_punch = True
            self._punch = _fallocate()
        return self._punch


@dataclass
class _Kept:
    """The file a `Keeper` keeps."""

    fd: int
    file: tuple[int, int]
    """The device and inode ``fd`` named when it was given."""
    freed: int = 0
    """Bytes at its start already freed."""


def _kept(fd: int) -> _Kept:
    status = os.fstat(fd)
    return _Kept(fd=fd, file=(status.st_dev, status.st_ino))


def _fallocate() -> Punch | None:
    """Frees a range of a file's blocks with libc's ``fallocate``, which Python's `os` does not
    offer; None where libc has none. Imported only when a run's output grows past
    `KEPT_BYTES`."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    found = getattr(libc, "fallocate64", None) or getattr(libc, "fallocate", None)
    if found is None:
        return None
    found.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64]
    found.restype = ctypes.c_int

    def punch(fd: int, offset: int, length: int) -> int:
        return 0 if found(fd, PUNCH_HOLE, offset, length) == 0 else ctypes.get_errno() or -1

    return punch
