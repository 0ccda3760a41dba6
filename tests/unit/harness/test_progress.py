"""Progress: one line rewritten in place on a terminal; in a log, nothing for a short command,
then a line per tenth at most."""

from __future__ import annotations

import io

from unsolvable.cli._progress import QUIET_SECONDS, Progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _run(total: int, stream: io.StringIO, *, seconds_per_run: float = 1.0, **options: bool) -> str:
    now = [0.0]
    progress = Progress(total, stream=stream, clock=lambda: now[0], **options)
    for _ in range(total):
        now[0] += seconds_per_run
        progress.advance()
    progress.close()
    return stream.getvalue()


def test_in_a_log_at_most_a_line_per_tenth() -> None:
    lines = _run(1000, io.StringIO()).splitlines()
    assert len(lines) == 10
    assert lines[0] == "unsolvable: 100/1000 runs (10%)"
    assert lines[-1] == "unsolvable: 1000/1000 runs (100%)"


def test_in_a_log_a_short_command_prints_nothing() -> None:
    quick = QUIET_SECONDS / 1000 / 2
    assert _run(999, io.StringIO(), seconds_per_run=quick) == ""


def test_on_a_terminal_one_line_rewritten_then_cleared() -> None:
    text = _run(1000, _Terminal(), seconds_per_run=0)
    assert "\n" not in text and text.count("\r") == 100 + 1
    assert text.endswith("unsolvable: 1000/1000 runs (100%)\r\x1b[K")


def test_disabled_shows_nothing() -> None:
    assert _run(1000, _Terminal(), enabled=False) == ""
    assert _run(1000, io.StringIO(), enabled=False) == ""


def test_in_a_log_each_line_gives_the_share_of_the_runs_it_counts() -> None:
    """A command that starts printing after its quiet seconds, 36 or 37 runs in, says 14 or 15 %
    of 246, not the tenth it passed."""
    lines = _run(246, io.StringIO(), seconds_per_run=QUIET_SECONDS / 36).splitlines()
    assert len(lines) == 10 and lines[-1] == "unsolvable: 246/246 runs (100%)"
    for line in lines:
        done, total = map(int, line.split()[1].split("/"))
        assert line.endswith(f"({done * 100 // total}%)"), line
