"""A run's capture file keeps its size while the disk holds only its end, and the end a record
keeps is read from that end alone, so it is the same whenever the keeper looked."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import threading
from collections.abc import Iterator
from typing import IO

import pytest

from unsolvable._capture import KEPT_BYTES, Keeper, output_end

pytestmark = pytest.mark.skipif(
    sys.platform != "linux", reason="holes are punched with Linux's fallocate"
)

MIB = 1 << 20


def _on_disk(fd: int) -> int:
    return os.fstat(fd).st_blocks * 512


@contextlib.contextmanager
def _flooded(mib: int) -> Iterator[IO[bytes]]:
    """A capture file of one line, ``mib`` MiB long, between two short ones."""
    with tempfile.TemporaryFile() as sink:
        sink.write(b"first\n" + b"y" * (mib * MIB) + b"\nlast\n")
        sink.flush()
        yield sink


def test_the_keeper_frees_all_but_the_end_and_the_size_stays() -> None:
    keeper = Keeper()
    keeper.start()
    with _flooded(8) as sink:
        size, end = os.fstat(sink.fileno()).st_size, output_end(sink)
        keeper.keep(sink.fileno())
        looked = threading.Event()
        for _ in range(6000):  # a minute at most, for a keeper that looks every 50 ms
            if _on_disk(sink.fileno()) <= KEPT_BYTES + MIB or looked.wait(0.01):
                break
        keeper.keep(None)
        assert _on_disk(sink.fileno()) <= KEPT_BYTES + MIB
        assert os.fstat(sink.fileno()).st_size == size
        assert output_end(sink) == end == "last\n"


def test_the_end_is_read_from_the_last_kept_bytes_alone() -> None:
    """A line longer than `KEPT_BYTES` is read in part, as a cut line, and left out: the end is
    what follows it, whether or not the file's head is still on the disk."""
    with _flooded(3) as sink:
        assert output_end(sink) == "last\n"


def test_a_file_whose_descriptor_names_another_file_now_is_let_go_untouched() -> None:
    """An agent may close the capture file's descriptor and open a file of its own under the
    same number: the keeper sees another file there and never frees any of it."""
    keeper = Keeper()
    with _flooded(8) as sink, _flooded(8) as theirs:
        keeper.keep(sink.fileno())
        kept = keeper._kept
        assert kept is not None
        os.dup2(theirs.fileno(), sink.fileno())
        before = _on_disk(theirs.fileno())
        keeper._free(kept)
        assert keeper._kept is None and _on_disk(theirs.fileno()) == before
