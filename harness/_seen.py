"""Consumes the steps, tool calls and tokens a worker's running job is admitted, and the ground
truth of stagnation as it stands after each call, produces what the harness saw of a run whose
worker it lost: they live in memory the worker shares with the harness, so they outlast a worker
that crashed, exited or had to be killed while its agent held the interpreter, when no message
about the run can come.
"""

from __future__ import annotations

import math
from multiprocessing.context import BaseContext
from typing import Any, NamedTuple

from unsolvable._truth import Truth

__all__ = ["Counts", "Seen"]

NO_JOB = -1
"""The job index a worker's cells hold before it begins its first job."""
UNKNOWN = math.nan
"""What a truth cell holds for ``None``: no truth yet, or none on a solvable control."""
_TRUTH_FIELDS = ("first_stagnant_step", "lag_tokens", "lag_cost_usd", "evidence_step")
"""The `Truth` fields in the order of the cells that hold them."""


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
    `Counts`; and its `Truth` as it stood after its last call, in cells of its own, as an end
    that may be a guess would have had it and as one that is none would (`StagnationProbe.truth`).
    The worker writes them; the harness reads them once the worker is gone."""

    __slots__ = ("_cells", "_truth")

    def __init__(self, cells: Any, truth: Any) -> None:
        self._cells = cells
        self._truth = truth

    @classmethod
    def shared(cls, context: BaseContext) -> Seen:
        """Cells a worker started from ``context`` shares with the harness."""
        cells = context.RawArray("q", 1 + len(Counts._fields))
        cells[0] = NO_JOB
        truth = context.RawArray("d", 2 * len(_TRUTH_FIELDS))
        truth[:] = [UNKNOWN] * len(truth)
        return cls(cells, truth)

    def begin(self, index: int) -> None:
        """Job ``index`` begins: nothing of it seen yet (the counts and the truth first, so that
        the index never names a job with another's)."""
        self.saw(Counts())
        self._truth[:] = [UNKNOWN] * len(self._truth)
        self._cells[0] = index

    def saw(self, counts: Counts) -> None:
        self._cells[1:] = counts

    def stood(self, truth: Truth, *, no_guess: Truth) -> None:
        """The run's truth as it stands: what its record would say if it ended now, by a stop
        that may be a guess (``truth``) or by an end that is none (``no_guess``)."""
        values = (getattr(t, name) for t in (truth, no_guess) for name in _TRUTH_FIELDS)
        self._truth[:] = [UNKNOWN if value is None else value for value in values]

    def began(self, index: int) -> bool:
        """Whether the worker has begun job ``index`` (the last it began)."""
        return bool(self._cells[0] == index)

    def of(self, index: int) -> Counts:
        """What was seen of job ``index``: nothing, if the worker had not begun it."""
        if not self.began(index):
            return Counts()
        return Counts(*self._cells[1:])

    def lost_truth(self, index: int, *, ceiling: bool) -> Truth:
        """The truth of job ``index`` for the record of a run lost where it was last seen: that
        of an end that is no guess for a run a ceiling ended (``ceiling``) or one that had the
        evidence by then, as `Observer` judges a run that ended in its worker; else that of a
        stop that may be a guess."""
        truth = self.truth_of(index)
        if ceiling or truth.had_the_evidence(self.of(index).steps):
            return self.truth_of(index, no_guess=True)
        return truth

    def truth_of(self, index: int, *, no_guess: bool = False) -> Truth:
        """The truth of job ``index`` as it stood when it was last seen, for a run that ended
        there by a stop that may be a guess or, ``no_guess``, by an end that is none: every
        field ``None`` if the worker had not begun it, or the run had made no model call yet."""
        known = self.began(index)
        start = len(_TRUTH_FIELDS) if no_guess else 0
        cells = self._truth[start : start + len(_TRUTH_FIELDS)]
        values = [value if known and not math.isnan(value) else None for value in cells]
        steps, tokens, cost, evidence = values
        return Truth(
            first_stagnant_step=None if steps is None else int(steps),
            lag_tokens=None if tokens is None else int(tokens),
            lag_cost_usd=cost,
            evidence_step=None if evidence is None else int(evidence),
        )
