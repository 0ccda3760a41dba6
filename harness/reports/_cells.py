"""Consumes `Metrics`, produces the cells every report shares (terminal, Markdown, HTML), the
terminal metrics table, and the JSON of records beside their metrics.

One set of cells keeps the three reports saying the same thing in the same words.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from unsolvable._numbers import counted, dollars, plain, rounded
from unsolvable._record import SCHEMA_VERSION, TerminationRecord
from unsolvable._shard import ShardTag
from unsolvable._text import printable
from unsolvable.reports._distribution import Distribution
from unsolvable.reports._metrics import GroupMetrics, Metrics, measure

__all__ = [
    "COLUMNS",
    "align",
    "cells",
    "distribution",
    "false_stops",
    "format_metrics",
    "metrics_lines",
    "pass_k_line",
    "past_budget",
    "premature",
    "premature_count",
    "report_json",
    "should_summarise",
    "step_cap",
    "step_cap_lines",
    "step_cap_sentence",
]

COLUMNS = (
    "agent",
    "runs",
    "pass^k",
    "lag p50/p95/max",
    "premature",
    "lag tokens p50/p95",
    "lag $ p50/p95",
    "step/N p95",
    "past budget",
    "false stops",
    "finished, reported otherwise",
    "calibrated step cap",
    "false compl.",
    "did_not_stop",
    "ended",
)
"""The columns after the group's name, in every report."""
PREFIX = "unsolvable: "
"""What summary lines start with (STYLE §9)."""
NO_VALUE = "-"
"""A metric that does not apply: lag on controls, false stops on unsolvable tasks."""
RATIO_DIGITS = 2
"""step/N is shown to two digits (the JSON keeps `RATE_DIGITS`)."""


def distribution(values: Distribution | None) -> str:
    """``p50/p95/max``, or `NO_VALUE`."""
    if values is None:
        return NO_VALUE
    return f"{plain(values.p50)}/{plain(values.p95)}/{plain(values.max)}"


def false_stops(group: GroupMetrics) -> str:
    """``3/18 (16.7%)``: false stops over control runs, the share from the counts themselves
    (the stored rate is rounded already, and rounding it again can print the wrong digit)."""
    if not group.controls:
        return NO_VALUE
    return f"{group.false_stops}/{group.controls} ({_share(group.false_stops, group.controls)})"


def _share(part: int, whole: int) -> str:
    """``7.1%``: ``part`` of ``whole`` to a tenth of a percent, except that a share that is not
    none never reads ``0.0%`` (it is ``<0.1%``) and one short of the whole never reads
    ``100.0%`` (``>99.9%``)."""
    shown = f"{part / whole:.1%}"
    if part and shown == f"{0:.1%}":
        return "<0.1%"
    if part < whole and shown == f"{1:.1%}":
        return ">99.9%"
    return shown


def premature(group: GroupMetrics) -> str:
    """``2 (1 blind)``: unsolvable runs stopped before their first stagnant step, shown beside
    lag because a negative lag is a guess, not a fast detection; it applies to any group with
    unsolvable runs, even one whose runs all were lost and have no lag."""
    if group.runs == group.controls:
        return NO_VALUE
    return premature_count(group.premature_stops, group.blind_stops)


def premature_count(premature: int, blind: int) -> str:
    """``2 (1 blind)``, or ``2`` when none was blind: premature stops and the blind among them,
    as every table and headline writes them."""
    return f"{premature} ({blind} blind)" if blind else str(premature)


def past_budget(group: GroupMetrics) -> str:
    """``2, max 12700 tokens, max $0.0381``: runs past their token or dollar budget, the most
    any went past in tokens and the most any went past in dollars (two runs, it may be); ``0``
    when none did. A side no run went past is left out: runs past a dollar budget alone, with
    no token budget to pass, are ``2, max $0.0381``, never ``max 0 tokens``, which reads as a
    figure where there is none."""
    if not group.over_budget:
        return "0"
    tokens, cost = group.overshoot_tokens.max, group.overshoot_cost_usd.max
    sides = [
        f"max {plain(tokens)} tokens" if tokens else "",
        f"max {dollars(cost)}" if cost else "",
    ]
    return ", ".join([str(group.over_budget), *filter(None, sides)])


def step_cap(group: GroupMetrics) -> str:
    """``cap 7: lag 0/5/6, 0 false, beaten``: the calibrated step cap's own lag and false stops,
    and whether the group's agent beats it."""
    cap = group.step_cap
    if cap is None:
        return NO_VALUE
    beaten = "beaten" if cap.beaten else "not beaten"
    return f"cap {cap.cap}: lag {distribution(cap.lag_steps)}, {cap.false_stops} false, {beaten}"


def step_cap_sentence(group: GroupMetrics) -> str | None:
    """Whether the agent beats the calibrated step cap over all its runs, in words, and why not
    when it does not."""
    cap = group.step_cap
    if cap is None:
        return None
    figures = (
        f"lag p95 {plain(cap.agent_lag_p95)} vs {plain(cap.lag_p95)}, premature stops "
        f"{group.premature_stops} vs {cap.premature_stops}, false stops {group.false_stops} "
        f"vs {cap.false_stops}"
    )
    head = f"{group.agent} {'beats' if cap.beaten else 'does not beat'} the calibrated step cap"
    why = "" if cap.beaten else f" Why not: {'; '.join(cap.shortfalls)}."
    return f"{head} ({counted(cap.cap, 'step')}): {figures}.{why}"


def step_cap_lines(metrics: Metrics) -> list[str]:
    """One `step_cap_sentence` per agent that has one."""
    sentences = (step_cap_sentence(group) for group in metrics.agents)
    return [sentence for sentence in sentences if sentence is not None]


def _p50_p95(values: Distribution | None) -> str:
    """Lag in tokens or dollars: signed, so p50 shows the guesses (negative) that p95 hides."""
    if values is None:
        return NO_VALUE
    return f"{plain(values.p50)}/{plain(values.p95)}"


def cells(group: GroupMetrics) -> tuple[str, ...]:
    """The `COLUMNS` of one group, as text."""
    return (
        group.agent,
        str(group.runs),
        f"{group.pass_k}/{group.scenarios}",
        distribution(group.lag_steps),
        premature(group),
        _p50_p95(group.lag_tokens),
        _p50_p95(group.lag_cost_usd),
        _step_ratio(group.steps_per_bound.p95),
        past_budget(group),
        false_stops(group),
        NO_VALUE if group.false_stop_rate is None else str(group.unreported_finishes),
        step_cap(group),
        str(group.false_completions),
        str(group.did_not_stop),
        ", ".join(f"{ending} {count}" for ending, count in group.exits.items()),
    )


def pass_k_line(metrics: Metrics) -> str:
    """pass^k per agent: the scenarios whose every seeded run passed (a stochastic agent must
    stop correctly every time, not on average). Each agent's label is made `printable`: it
    comes from the command line or a records file, and is shown, never obeyed."""
    parts = [f"{printable(g.agent)} {_pass_k(metrics, g)} scenarios" for g in metrics.agents]
    # A session that made no record (every test errored) says so rather than print an empty line.
    return "unsolvable: " + ("; ".join(parts) or "no runs, so no pass^k")


def _pass_k(metrics: Metrics, agent: GroupMetrics) -> str:
    """``pass^3 37/125 and pass^1 1/1``: a scenario's k is the seeded runs it had, so scenarios
    run on fewer seeds than the others (one that has only one) are counted under their own k,
    never under the group's largest (`GroupMetrics.k`)."""
    by_k: dict[int, tuple[int, int]] = {}
    for scenario in metrics.scenarios:
        if scenario.agent == agent.agent:
            passed, scenarios = by_k.get(scenario.k, (0, 0))
            by_k[scenario.k] = (passed + scenario.pass_k, scenarios + 1)
    counts = sorted(by_k.items(), reverse=True)
    return " and ".join(f"pass^{k} {passed}/{scenarios}" for k, (passed, scenarios) in counts)


def _step_ratio(value: float) -> str:
    """step/N to `RATIO_DIGITS`, rounded once from the exact ratio (`rounded`); only a stop at
    the bound reads as 1.00 (1.004 is 1.01, 0.9975 is 0.99) and only a stop at no step 0.00."""
    return f"{rounded(value, RATIO_DIGITS):.{RATIO_DIGITS}f}"


def should_summarise(metrics: Metrics) -> bool:
    """Whether the metrics add anything to the record table: some family × agent has several
    runs. Otherwise each group is one row the table already shows."""
    return any(group.runs > 1 for group in metrics.families)


def align(rows: Sequence[Sequence[str]]) -> str:
    """Left-aligned columns, two spaces apart; the last one is never padded or cut, so verdicts
    and long lists of codes stay whole. Every terminal table is made by this, so every cell is
    made `printable` here: what an agent wrote (a verdict's reason, its name) cannot move the
    cursor or recolour the table."""
    rows = [[printable(cell) for cell in row] for row in rows]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    lines = (
        "  ".join([*(cell.ljust(width) for cell, width in zip(row, widths, strict=False)), row[-1]])
        for row in rows
    )
    return "\n".join(line.rstrip() for line in lines)


def format_metrics(metrics: Metrics) -> str:
    """Per family × agent, then each agent over all its runs: the terminal metrics table."""
    header = ("family", *COLUMNS)
    rows = [(group.name, *cells(group)) for group in (*metrics.families, *metrics.agents)]
    return "\n".join([align([header, *rows]), *map(PREFIX.__add__, step_cap_lines(metrics))])


def metrics_lines(records: Sequence[TerminationRecord]) -> list[str]:
    """The terminal metrics table after a blank line and the `pass_k_line` that names each k
    its pass^k column counts together, or nothing when the table would only repeat the record
    table (`should_summarise`); what the pytest plugin adds to its summary."""
    metrics = measure(records)
    if not should_summarise(metrics):
        return []
    return ["", *format_metrics(metrics).splitlines(), pass_k_line(metrics)]


def report_json(
    records: Sequence[TerminationRecord],
    metrics: Metrics,
    *,
    volatile: bool = False,
    interrupted: bool = False,
    shard: ShardTag | None = None,
) -> str:
    """The records in their stable form beside their metrics: no wall times unless
    ``volatile``, so the same run gives the same bytes; ``"interrupted": true`` on top when the
    session was cut short and holds only the runs that finished; a shard's place in the whole
    run (`ShardTag`) under ``"shard"``, which ``unsolvable merge`` reads."""
    data: dict[str, object] = {
        "schema_version": SCHEMA_VERSION,
        "records": _Encoded(_indented(record.to_dict(volatile=volatile), 2) for record in records),
        "metrics": metrics.to_dict(),
    }
    if interrupted:
        data["interrupted"] = True
    if shard is not None:
        data["shard"] = shard.to_dict()
    return _indented(data, 0) + "\n"


class _Encoded(list[str]):
    """A JSON array whose items are already written, at the depth they sit at."""


INDENT = "  "


def _indented(value: object, depth: int) -> str:
    """``json.dumps(value, sort_keys=True, indent=2)`` as it reads at ``depth`` inside a larger
    document, byte for byte; an `_Encoded` array's items go in as written. Each record is
    encoded on its own, so that writing the report never holds the whole document's pieces at
    once: with every record's trajectory, one ``json.dumps`` of 420 records held 54 MB of them.
    JSON text holds no raw newline inside a string, so indenting its lines is safe."""
    if isinstance(value, _Encoded):
        if not value:
            return "[]"
        inner = "\n" + INDENT * (depth + 1)
        return "[" + inner + ("," + inner).join(value) + "\n" + INDENT * depth + "]"
    if isinstance(value, dict) and any(isinstance(v, _Encoded) for v in value.values()):
        inner = "\n" + INDENT * (depth + 1)
        items = [f"{json.dumps(key)}: {_indented(value[key], depth + 1)}" for key in sorted(value)]
        return "{" + inner + ("," + inner).join(items) + "\n" + INDENT * depth + "}"
    text = json.dumps(value, sort_keys=True, indent=2, allow_nan=False)
    return text.replace("\n", "\n" + INDENT * depth) if depth else text
