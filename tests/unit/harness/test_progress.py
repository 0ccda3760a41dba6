"""Progress: one line rewritten in place on a terminal, a line per tenth elsewhere, none for
short runs."""

from __future__ import annotations

import io

from harness._progress import MIN_RUNS, Progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _run(total: int, stream: io.StringIO, **options: bool) -> str:
    progress = Progress(total, stream=stream, **options)
    for _ in range(total):
        progress.advance()
    progress.close()
    return stream.getvalue()


def test_off_a_terminal_at_most_a_line_per_tenth() -> None:
    lines = _run(1000, io.StringIO()).splitlines()
    assert len(lines) == 10
    assert lines[0] == "unsolvable: 100/1000 runs (10%)"
    assert lines[-1] == "unsolvable: 1000/1000 runs (100%)"


def test_on_a_terminal_one_line_rewritten_then_cleared() -> None:
    text = _run(1000, _Terminal())
    assert "\n" not in text and text.count("\r") == 100 + 1
    assert text.endswith("unsolvable: 1000/1000 runs (100%)\r\x1b[K")


def test_short_or_disabled_runs_show_nothing() -> None:
    assert _run(MIN_RUNS - 1, _Terminal()) == ""
    assert _run(1000, io.StringIO(), enabled=False) == ""
