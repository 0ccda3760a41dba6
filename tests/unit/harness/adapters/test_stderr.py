"""`StderrReader` reads Node's report of an uncaught error as stderr is written, in any pieces."""

from __future__ import annotations

import tracemalloc

from unsolvable._text import ELLIPSIS
from unsolvable.adapters._stderr import LINE_KEPT, StderrReader

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
