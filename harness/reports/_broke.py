"""Consumes judged records and their metrics, produces what broke, in the order a reader should
see it: the verdict's counts, the headline, the failing runs worst first and the rules they
broke. The HTML page and the Markdown summary both lead with these, in the same words."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from unsolvable._record import TerminationRecord
from unsolvable._stop import Outcome
from unsolvable.reports._baseline import GateResult
from unsolvable.reports._cells import NO_VALUE, premature_count
from unsolvable.reports._counted import is_counted_false_stop, is_false_completion
from unsolvable.reports._metrics import GroupMetrics, Metrics

__all__ = ["Count", "broken_rules", "counts", "headline", "tag", "worst_first"]

NEUTRAL = ""
"""The tone of a figure that does not apply: neither a failure nor a pass."""

TAGS = ("false completion", "did not stop", "crashed", "false stop", "")
"""What a failing run is called, worst first; the last is every other broken rule."""


@dataclass(frozen=True, kw_only=True)
class Count:
    """One figure of the verdict: a count, what it counts, and how loud it is."""

    value: str
    label: str
    tone: str
    """``bad`` (a failure when not zero), ``warn`` (a doubt when not zero), ``good``, or
    `NEUTRAL` for a figure that does not apply (`NO_VALUE`: no control, no unsolvable run ran),
    as the tables show it."""


def counts(records: Sequence[TerminationRecord], metrics: Metrics) -> list[Count]:
    """The verdict's figures, from the same metrics every other report prints."""
    failed = sum(1 for r in records if not r.verdict.passed)
    crashed = sum(r.outcome is Outcome.CRASHED for r in records)

    def total(count: Callable[[GroupMetrics], int]) -> int:
        return sum(map(count, metrics.agents))

    false_completions = total(lambda group: group.false_completions)
    did_not_stop = total(lambda group: group.did_not_stop)
    false_stops, controls = total(lambda g: g.false_stops), total(lambda g: g.controls)
    premature = total(lambda group: group.premature_stops)
    blind = total(lambda group: group.blind_stops)
    unsolvable = len(records) - controls

    def tone(count: int, loud: str = "bad") -> str:
        return loud if count else "good"

    return [
        Count(value=f"{failed}/{len(records)}", label="runs failed", tone=tone(failed)),
        Count(
            value=str(false_completions), label="false completions", tone=tone(false_completions)
        ),
        Count(value=str(did_not_stop), label="did not stop", tone=tone(did_not_stop)),
        Count(value=str(crashed), label="crashed", tone=tone(crashed)),
        Count(
            value=f"{false_stops}/{controls}" if controls else NO_VALUE,
            label="false stops on controls",
            tone=tone(false_stops) if controls else NEUTRAL,
        ),
        Count(
            value=premature_count(premature, blind) if unsolvable else NO_VALUE,
            label="premature stops",
            tone=tone(premature, "warn") if unsolvable else NEUTRAL,
        ),
    ]


def headline(records: Sequence[TerminationRecord], gate: GateResult | None) -> tuple[bool, str]:
    """Whether the run passed, and why not in words."""
    failed = any(not r.verdict.passed for r in records)
    gate_failed = gate is not None and not gate.passed
    reasons = [
        reason
        for reason, broke in (
            ("verdicts failed", failed),
            ("the baseline gate failed", gate_failed),
        )
        if broke
    ]
    if reasons:
        return False, "FAIL: " + " and ".join(reasons)
    if not records:  # an empty shard of a CI matrix: it passes, but judged nothing
        return True, "PASS: no run was made, so no verdict was judged"
    return True, "PASS: every verdict passed"


def _severity(record: TerminationRecord) -> int:
    """Claims of success that are not true, runs that never stopped, crashes, false stops (as
    the metrics count them: a finish reported otherwise is its own rule), then every other
    broken rule: the index of its `TAGS`."""
    if is_false_completion(record):
        return 0
    if record.outcome is Outcome.DID_NOT_STOP:
        return 1
    if record.outcome is Outcome.CRASHED:
        return 2
    return 3 if is_counted_false_stop(record) else 4


def tag(record: TerminationRecord) -> str:
    """What a failing run is called, or ``""`` for a run that only broke some other rule."""
    return TAGS[_severity(record)]


def worst_first(records: Sequence[TerminationRecord]) -> list[TerminationRecord]:
    """The failing runs, worst first, in their order within a kind."""
    return sorted((r for r in records if not r.verdict.passed), key=_severity)


def broken_rules(failed: Sequence[TerminationRecord]) -> tuple[list[str], list[list[str]]]:
    """How many runs broke each rule, per agent: a header and rows, sorted."""
    agents = sorted({record.agent for record in failed})
    by_rule: dict[str, dict[str, int]] = {}
    for record in failed:
        for rule in {failure.rule.value for failure in record.verdict.failures}:
            by_agent = by_rule.setdefault(rule, {})
            by_agent[record.agent] = by_agent.get(record.agent, 0) + 1
    rows = [
        [rule, *(str(by_agent.get(agent, 0)) for agent in agents)]
        for rule, by_agent in sorted(by_rule.items())
    ]
    return ["rule broken", *agents], rows
