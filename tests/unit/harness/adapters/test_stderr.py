"""`StderrReader` reads Node's report of an uncaught error as stderr is written, in any pieces."""

from __future__ import annotations

import tracemalloc

from hypothesis import given
from hypothesis import strategies as st

from unsolvable._text import ELLIPSIS
from unsolvable.adapters._stderr import LINE_BYTES, LINE_KEPT, StderrReader

REPORT = (
    b"file:///agent.mjs:3\n  throw error;\n  ^\n\n"
    b"RetryError [AI_RetryError]: Failed after 3 attempts.\n    at main (file:///agent.mjs:3:3)\n"
    + b"  requestBodyValues: { input: 'x' },\n" * 400
    + b"}\n\nNode.js v20.20.2\n"
)


def _read(pieces: list[bytes]) -> str:
    report = StderrReader()
    for piece in pieces:
        report.write(piece)
    report.close()
    return report.named


def test_the_line_after_the_caret_is_named_however_the_stream_is_cut_into_pieces() -> None:
    whole = _read([REPORT])
    assert whole == "RetryError [AI_RetryError]: Failed after 3 attempts."
    assert _read([REPORT[i : i + 7] for i in range(0, len(REPORT), 7)]) == whole


def test_a_line_longer_than_kept_is_named_cut_where_the_cut_shows() -> None:
    """A cut may fall inside a secret: the ellipsis marks where, as the redactor expects."""
    line = b"Error: " + "é".encode() * (3 * LINE_KEPT)
    named = _read([b"file:///a.mjs:1\nthrow e\n^\n\n", line[:5000], line[5000:], b"\n"])
    assert len(named) == LINE_KEPT and named.endswith(ELLIPSIS) and named.startswith("Error: é")


def test_the_last_line_naming_an_error_is_kept_however_much_follows_it() -> None:
    """A CLI refusing its command line names the error, then prints its usage."""
    reader = StderrReader()
    for chunk in (
        b"Unknown arguments: such-flag\nUsage: gemini [options]\n",
        b"  -p  prompt\n" * 400,
    ):
        reader.write(chunk)
    reader.close()
    assert reader.error_line == "Unknown arguments: such-flag"


def test_blank_lines_after_a_version_line_are_read_in_bounded_memory() -> None:
    """Held until a line follows them, each blank line was kept: an agent that wrote 100 MB of
    them to stderr after a line that reads as Node's version made its worker hold 815 MB."""
    reader = StderrReader()
    tracemalloc.start()
    try:
        reader.write(b"file:///a.mjs:1\nthrow e\n^\n\nError: boom\n\nNode.js v20.20.2\n")
        for _ in range(256):
            reader.write(b"\n" * 4096)
        reader.write(b"after\n")
        held = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    reader.close()
    assert held < 1024 * 1024, held  # a million blank lines held took 8 MB
    assert (reader.named, reader.last) == ("Error: boom", "after")


class _Counting(StderrReader):
    """A reader that counts the lines it reads one at a time."""

    def __init__(self) -> None:
        super().__init__()
        self.fed = 0

    def _feed(self, line: str) -> None:
        self.fed += 1
        super()._feed(line)


def test_blank_lines_one_after_another_are_read_as_one() -> None:
    """Each was read one at a time: an agent that wrote 20 MB of them to stderr and then its stop
    kept the reader busy past the wall ceiling while it waited on the pipe (did_not_stop)."""
    reader = _Counting()
    reader.write(b"file:///a.mjs:1\nthrow e\n^\n\nError: boom\n")
    for _ in range(256):
        reader.write(b"\n \r\n\t\n" * 1024)
    reader.write(b"after\n")
    reader.close()
    assert reader.fed < 1024, reader.fed  # 786,439 before
    assert (reader.named, reader.last) == ("Error: boom", "after")


LINES = st.sampled_from(
    [b"", b" \r", b" " * (LINE_BYTES + 1), b"Node.js v20.20.2", b" ^", b"Error: boom", b"x" * 5]
)


def _state(pieces: list[bytes]) -> tuple[str, str, str | None]:
    reader = StderrReader()
    for piece in pieces:
        reader.write(piece)
    reader.close()
    return reader.named, reader.last, reader.error_line


@given(st.lists(LINES, max_size=12), st.data())
def test_a_stream_reads_the_same_whatever_pieces_it_comes_in(
    lines: list[bytes], data: st.DataObject
) -> None:
    """Blank lines are read as one when whole in a piece, and one at a time when cut: both read
    alike, a line of white space longer than is kept as blank as a short one."""
    stream = b"\n".join(lines)
    cuts = data.draw(st.lists(st.integers(min_value=0, max_value=len(stream)), max_size=8))
    at = sorted(set(cuts))
    pieces = [stream[a:b] for a, b in zip([0, *at], [*at, len(stream)], strict=True)]
    assert _state(pieces) == _state([stream])
