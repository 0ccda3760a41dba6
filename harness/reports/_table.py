"""Consumes termination records, produces what people read: a table, failure explanations, JSON."""

from __future__ import annotations

from collections.abc import Sequence

from unsolvable._numbers import counted, dollars
from unsolvable._record import TerminationRecord
from unsolvable._shard import Shard
from unsolvable._stop import Outcome
from unsolvable._text import printable
from unsolvable.reports._cells import align
from unsolvable.reports._counted import has_lag, is_false_completion, lag, lag_cost_usd, lag_tokens

__all__ = ["INTERRUPTED", "explain", "format_table", "part_of_a_run", "summary_line"]

INTERRUPTED = (
    "Interrupted: the session was stopped before every run finished; these are the runs that "
    "did, and the baseline gate was skipped."
)
"""The headline every report of an interrupted session carries."""


def part_of_a_run(shard: Shard) -> str:
    """The headline every report of one shard carries: its runs, its counts and its pass^k
    (over the seeds it was given) are a part of the whole run's, and read like a whole run's."""
    return (
        f"Shard {shard} of a run: every figure here is over this shard's runs alone; unsolvable "
        "merge makes the whole run's reports from every shard's JSON file."
    )


COLUMNS = ("scenario", "agent", "exit/code", "step/N", "stagnant", "lag", "tokens", "verdict")


def _ended(record: TerminationRecord) -> str:
    if record.reported is not None:
        return f"{record.reported.exit}/{record.reported.code}"
    return str(record.outcome)


NO_VALUE = "-"
"""A control has no stagnant step and no lag: progress stays possible until it is done. Nor
has a lost run whose worker showed the harness no stagnant step (`has_lag`): one lost before
its first step."""


def _stagnant_and_lag(record: TerminationRecord) -> tuple[str, str]:
    observed = record.observed
    if not has_lag(record):
        return (NO_VALUE, NO_VALUE)
    return (str(observed.first_stagnant_step), str(lag(record)))


def _row(record: TerminationRecord) -> tuple[str, ...]:
    observed = record.observed
    tokens_allowed = record.budget.get("max_tokens")
    verdict = record.verdict.summary
    return (
        f"{record.scenario}" + (f" #{record.seed}" if record.seed else ""),
        record.agent,
        _ended(record),
        f"{observed.steps}/{record.step_bound}",
        *_stagnant_and_lag(record),
        # Charged tokens on every row, a token budget or not: one unit down the column.
        f"{observed.charged_tokens}/{tokens_allowed}"
        if tokens_allowed
        else str(observed.charged_tokens),
        verdict,
    )


def format_table(records: Sequence[TerminationRecord]) -> str:
    """One row per record; the verdict column is last and never cut, so reasons stay whole."""
    return align([COLUMNS, *(_row(r) for r in records)])


def summary_line(records: Sequence[TerminationRecord]) -> str:
    passed = sum(1 for r in records if r.verdict.passed)
    did_not_stop = sum(1 for r in records if r.outcome is Outcome.DID_NOT_STOP)
    false_completions = sum(map(is_false_completion, records))
    return (
        f"unsolvable: {counted(len(records), 'run')}, {passed} passed, "
        f"{len(records) - passed} failed ({did_not_stop} did_not_stop, "
        f"{counted(false_completions, 'false completion')})"
    )


def _lag_text(record: TerminationRecord) -> str:
    observed = record.observed
    if record.solvable:
        return "solvable: no stagnant step"
    if not has_lag(record):
        return "no stagnant step and no lag: its worker was lost before it showed one"
    # The three lags as the metrics count them (`lag`): steps, tokens and dollars alike.
    tokens, cost = lag_tokens(record), lag_cost_usd(record)
    return (
        f"first stagnant step {observed.first_stagnant_step}; lag "
        f"{counted(lag(record), 'step')}, {counted(0 if tokens is None else tokens, 'token')}, "
        f"{dollars(0.0 if cost is None else cost)}"
    )


def _no_tail(steps: int) -> str:
    """What an empty tail says: no step, or steps whose answers the record does not hold (a
    run whose worker process was lost, which the harness counted but did not see)."""
    if not steps:
        return "(no steps)"
    return f"(none of its {steps} step(s) recorded: the harness counted them, not what they said)"


def explain(record: TerminationRecord) -> str:
    """Expected vs observed, the trajectory tail, and where a crashed agent raised: what a
    failing test, ``--explain`` and the reports' failure entries show."""
    observed = record.observed
    lines = [
        f"{record.scenario} (seed {record.seed}) × {record.agent}: " + (record.verdict.summary),
        f"  ended:    {_ended(record)}"
        + (f" — {record.reported.reason}" if record.reported and record.reported.reason else ""),
        f"  stopped:  step {observed.steps} (bound N={record.step_bound}); " + _lag_text(record),
        "  trajectory tail:",
    ]
    for step in observed.tail:
        by = "" if step.agent == "main" else f" ({step.agent})"
        lines.append(f"    step {step.step}{by}: {step.said or '(no text)'}")
        for tool in step.tools:
            lines.append(f"      → {tool.name}({tool.arguments}) = {tool.result}")
    if not observed.tail:
        lines.append(f"    {_no_tail(observed.steps)}")
    if observed.traceback:
        lines.append("  the agent raised (its own frames; the harness's are left out):")
        lines.extend(f"    {line}" for line in observed.traceback.rstrip("\n").splitlines())
    if observed.subtasks:
        lines.append("  subtasks:")
    for subtask in observed.subtasks or ():
        workers = f"; worked by {', '.join(subtask.workers)}" if subtask.workers else ""
        lines.append(f"    {subtask.name}: {subtask.state} — {subtask.why}{workers}")
    return "\n".join(map(printable, lines))  # what the agent wrote, shown, never obeyed
