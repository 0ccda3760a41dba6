"""Consumes the steps, tool calls and tokens a worker's running job is admitted, produces what the
harness saw of a run whose worker it lost: the counts live in memory the worker shares with the
harness, so they outlast a worker that crashed, exited or had to be killed while its agent held
the interpreter, when no message about the run can come.
"""

from __future__ import annotations

from multiprocessing.context import BaseContext
from typing import Any, NamedTuple

__all__ = ["Counts", "Seen"]

NO_JOB = -1
"""The job index a worker's cells hold before it begins its first job."""


class Counts(NamedTuple):
    """What the harness admitted of one run: its model calls, tool calls and tokens."""

    steps: int = 0
    tool_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    uncharged_tokens: int = 0
    """What the agents' own prompts took of ``input_tokens``, charged to no budget."""


class Seen:
    """The counts of one worker's current job, in shared cells: the job's index, then its
    `Counts`. The worker writes them; the harness reads them once the worker is gone."""

    __slots__ = ("_cells",)

    def __init__(self, cells: Any) -> None:
        self._cells = cells

    @classmethod
    def shared(cls, context: BaseContext) -> Seen:
        """Cells a worker started from ``context`` shares with the harness."""
        cells = context.RawArray("q", 1 + len(Counts._fields))
        cells[0] = NO_JOB
        return cls(cells)

    def begin(self, index: int) -> None:
        """Job ``index`` begins: nothing of it seen yet (the counts first, so that the index
        never names a job with another's counts)."""
        self.saw(Counts())
        self._cells[0] = index

    def saw(self, counts: Counts) -> None:
        self._cells[1:] = counts

    def of(self, index: int) -> Counts:
        """What was seen of job ``index``: nothing, if the worker had not begun it."""
        if self._cells[0] != index:
            return Counts()
        return Counts(*self._cells[1:])
