"""Consumes records, their metrics and the baseline gate, produces one self-contained HTML page:
the lag distribution per family, the lag vs false-stop trade-off per agent, and each failing
run's trajectory.

Inline CSS and SVG only, no script; a Content-Security-Policy forbids every fetch, so the page
renders the same from a CI artifact, an e-mail or a laptop with no network.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from html import escape

from unsolvable._record import TerminationRecord
from unsolvable.reports._baseline import GateResult
from unsolvable.reports._cells import COLUMNS, cells, step_cap_lines
from unsolvable.reports._metrics import Distribution, GroupMetrics, Metrics, lag
from unsolvable.reports._table import INTERRUPTED, explain, pass_k_line, summary_line

__all__ = ["to_html"]

PALETTE = ("#c2410c", "#1d4ed8", "#15803d", "#7e22ce", "#b45309", "#0f766e")
"""One colour per agent, in the order agents first appear; dark enough to read on white."""
NICE_TICKS = (0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000)
"""Lag axis labels: a log scale (naive lags 200 steps, contract 3) needs round numbers."""
CHART_WIDTH = 760
LABEL_WIDTH = 210
"""Room left of the lag chart for ``family × agent`` labels."""
ROW_HEIGHT = 22
AXIS_HEIGHT = 40
"""Below a chart: tick labels, then the axis title."""
JITTER = (0, -4, 4, -2, 2)
"""Vertical offsets of runs with the same lag, so seeds that agree do not hide each other."""
RATE_TICKS = (0, 0.25, 0.5, 0.75, 1)

CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1f2937;margin:24px auto;
max-width:1180px;padding:0 16px}
h1{font-size:22px;margin:0 0 4px}
h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #e5e7eb}
.lead{color:#4b5563;margin:2px 0}.gate{padding:8px 12px;border-radius:6px;margin:12px 0}
.gate.pass{background:#ecfdf5;border:1px solid #6ee7b7}.gate.fail{background:#fef2f2;
border:1px solid #fca5a5}table{border-collapse:collapse;font-size:12.5px;margin:6px 0;width:100%}
th,td{border-bottom:1px solid #e5e7eb;padding:3px 8px;text-align:left;white-space:nowrap;
vertical-align:top}th{background:#f9fafb}td:last-child{white-space:normal}
svg{display:block;margin:6px 0}svg text{font:11px system-ui,sans-serif;fill:#374151}
.axis{stroke:#9ca3af}.grid{stroke:#f3f4f6}details{margin:4px 0}summary{cursor:pointer}
pre{background:#f9fafb;border:1px solid #e5e7eb;padding:8px;font-size:12px;overflow-x:auto;
white-space:pre-wrap}.fail-title{color:#991b1b}.note{color:#6b7280;font-size:12.5px}
"""
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def _colours(metrics: Metrics) -> dict[str, str]:
    agents = [group.agent for group in metrics.agents]
    return {agent: PALETTE[i % len(PALETTE)] for i, agent in enumerate(agents)}


@dataclass(frozen=True, kw_only=True)
class _LagAxis:
    """A signed log1p axis of lag in steps: 0 has a place, a lag of 3 and one of 200 both read,
    and a premature stop (negative lag) sits left of 0 instead of on it."""

    top: float
    left: float
    width: float
    bottom: float = 0
    """The smallest lag shown (0, or the most premature stop's negative lag)."""

    def x(self, lag: float) -> float:
        low, high = _signed_log(min(self.bottom, 0)), _signed_log(max(self.top, 1))
        return self.left + self.width * (_signed_log(lag) - low) / (high - low)

    def ticks(self) -> list[int]:
        below = [-tick for tick in reversed(NICE_TICKS) if 0 < tick <= -self.bottom]
        return [*below, *(tick for tick in NICE_TICKS if tick <= max(self.top, 1))]

    def svg(self, y: float, title: str) -> list[str]:
        """The axis line at ``y``, a grid line and a label per tick, the title below."""
        right = self.left + self.width
        parts = [f'<line class="axis" x1="{self.left}" x2="{right}" y1="{y}" y2="{y}"/>']
        for tick in self.ticks():
            x = self.x(tick)
            parts.append(f'<line class="grid" x1="{x:.1f}" x2="{x:.1f}" y1="0" y2="{y}"/>')
            parts.append(f'<text x="{x:.1f}" y="{y + 14}" text-anchor="middle">{tick}</text>')
        parts.append(f'<text x="{right}" y="{y + 32}" text-anchor="end">{escape(title)}</text>')
        return parts


def _signed_log(value: float) -> float:
    return math.copysign(math.log1p(abs(value)), value)


def _svg(height: float, body: Iterable[str], label: str) -> str:
    return (
        f'<svg width="{CHART_WIDTH}" height="{height:.0f}" viewBox="0 0 {CHART_WIDTH} '
        f'{height:.0f}" role="img" aria-label="{escape(label)}">' + "".join(body) + "</svg>"
    )


def _lag_row(
    group: GroupMetrics, lags: Sequence[int], y: float, colour: str, axis: _LagAxis
) -> list[str]:
    """One family × agent: a band from p50 to p95, a bar at the max, a dot per run."""
    spread = Distribution.of(lags)
    p50, p95, most = axis.x(spread.p50), axis.x(spread.p95), axis.x(spread.max)
    parts = [
        f'<text x="{axis.left - 8}" y="{y + 4}" text-anchor="end">'
        f"{escape(group.name)} × {escape(group.agent)}</text>",
        f'<rect x="{p50:.1f}" y="{y - 6}" width="{max(p95 - p50, 2):.1f}" height="12" '
        f'fill="{colour}" fill-opacity="0.18" stroke="{colour}"/>',
        f'<line x1="{most:.1f}" x2="{most:.1f}" y1="{y - 7}" y2="{y + 7}" stroke="{colour}" '
        'stroke-width="2"/>',
    ]
    for i, value in enumerate(lags):
        parts.append(
            f'<circle cx="{axis.x(value):.1f}" cy="{y + JITTER[i % len(JITTER)]}" r="3" '
            f'fill="{colour}" fill-opacity="0.7"><title>{value} steps</title></circle>'
        )
    return parts


def _lags(records: Sequence[TerminationRecord]) -> dict[tuple[str, str], list[int]]:
    """Each unsolvable run's lag, by family × agent."""
    lags: dict[tuple[str, str], list[int]] = {}
    for record in records:
        if not record.solvable:
            key = (record.family, record.agent)
            lags.setdefault(key, []).append(lag(record))
    return lags


def _lag_chart(metrics: Metrics, records: Sequence[TerminationRecord]) -> str:
    lags = _lags(records)
    groups = [group for group in metrics.families if (group.name, group.agent) in lags]
    if not groups:
        return '<p class="note">No unsolvable runs: no lag to show.</p>'
    top = max(max(values) for values in lags.values())
    bottom = min(min(values) for values in lags.values())
    axis = _LagAxis(top=top, bottom=bottom, left=LABEL_WIDTH, width=CHART_WIDTH - LABEL_WIDTH - 20)
    colours, floor = _colours(metrics), ROW_HEIGHT * len(groups) + 8
    parts = axis.svg(floor, "detection lag, steps (log scale)")
    for i, group in enumerate(groups):
        members = lags[group.name, group.agent]
        parts += _lag_row(group, members, ROW_HEIGHT * i + 16, colours[group.agent], axis)
    return _svg(floor + AXIS_HEIGHT, parts, "detection lag per family and agent")


def _rate_axis(y_of: Callable[[float], float], x: float) -> list[str]:
    parts = [f'<line class="axis" x1="{x}" x2="{x}" y1="{y_of(1)}" y2="{y_of(0)}"/>']
    for rate in RATE_TICKS:
        parts.append(
            f'<text x="{x - 6}" y="{y_of(rate) + 4:.1f}" text-anchor="end">{rate:.0%}</text>'
        )
    middle = (y_of(0) + y_of(1)) / 2
    parts.append(
        f'<text transform="translate(14 {middle:.0f}) rotate(-90)" text-anchor="middle">'
        "false-stop rate on controls</text>"
    )
    return parts


def _point(group: GroupMetrics, axis: _LagAxis, y: float, colour: str) -> list[str]:
    """An agent's dot and name; the name goes left of a dot near the right edge."""
    x = axis.x(group.lag_steps.p95 if group.lag_steps else 0)
    near_edge = x > axis.left + axis.width * 0.8
    anchor, dx = ("end", -10) if near_edge else ("start", 10)
    return [
        f'<circle cx="{x:.1f}" cy="{y:.1f}" r="6" fill="{colour}"/>',
        f'<text x="{x + dx:.1f}" y="{y - 8:.1f}" text-anchor="{anchor}" '
        f'style="fill:{colour};font-weight:600">{escape(group.agent)}</text>',
    ]


def _tradeoff_chart(metrics: Metrics) -> str:
    """Each agent at (lag p95, false-stop rate): good stop logic sits in the lower left."""
    lags = [group.lag_steps.p95 for group in metrics.agents if group.lag_steps is not None]
    axis = _LagAxis(
        top=max(lags, default=1), bottom=min(lags, default=0), left=80, width=CHART_WIDTH - 120
    )
    floor, ceiling, colours = 190, 16, _colours(metrics)

    def y_of(rate: float) -> float:
        return floor - (floor - ceiling) * rate

    parts = [
        *axis.svg(floor, "detection lag p95, steps (log scale) — lower left is better"),
        *_rate_axis(y_of, axis.left),
    ]
    for group in metrics.agents:
        y = y_of(group.false_stop_rate or 0)
        parts += _point(group, axis, y, colours[group.agent])
    return _svg(floor + AXIS_HEIGHT, parts, "lag versus false-stop rate per agent")


def _table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    head = "".join(f"<th>{escape(cell)}</th>" for cell in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>" for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _groups(first: str, groups: Sequence[GroupMetrics]) -> str:
    return _table((first, *COLUMNS), ((group.name, *cells(group)) for group in groups))


def _agents(metrics: Metrics) -> str:
    """One row per agent over all its runs: no name column to repeat "all"."""
    return _table(COLUMNS, (cells(group) for group in metrics.agents))


def _gate(gate: GateResult | None) -> str:
    if gate is None:
        return ""
    if gate.is_empty:
        text = " ".join(line.strip() for line in gate.lines())
        return f'<div class="gate {"pass" if gate.passed else "fail"}">{escape(text)}</div>'
    if gate.passed:
        text = f"Baseline gate passed: {gate.compared} groups compared ({gate.margins})."
        return f'<div class="gate pass">{escape(text)}</div>'
    items = "".join(f"<li>{escape(str(r))}</li>" for r in gate.regressions)
    title = f"Baseline gate FAILED: {len(gate.regressions)} regression(s) ({gate.margins})"
    return f'<div class="gate fail"><strong>{escape(title)}</strong><ul>{items}</ul></div>'


def _timeline(record: TerminationRecord) -> str:
    """Steps 0..end: progress possible (grey), lag (red) up to the stop, the bound N dashed.

    A control has no stagnant step: it is grey up to wherever the agent stopped it.
    """
    observed, bound = record.observed, record.step_bound
    stagnant_step = observed.first_stagnant_step
    if record.solvable or stagnant_step is None:
        stagnant_step = observed.steps
    end = max(observed.steps, bound, stagnant_step) + 1
    left, width = 60, CHART_WIDTH - 80

    def x_of(step: float) -> float:
        return left + width * step / end

    stagnant, stopped, n = (x_of(v) for v in (stagnant_step, observed.steps, bound))
    parts = [
        '<text x="0" y="24">steps</text>',
        f'<rect x="{left}" y="14" width="{stagnant - left:.1f}" height="14" fill="#d1d5db"/>',
        f'<rect x="{stagnant:.1f}" y="14" width="{max(stopped - stagnant, 0):.1f}" height="14" '
        'fill="#dc2626" fill-opacity="0.75"/>',
        f'<line x1="{n:.1f}" x2="{n:.1f}" y1="6" y2="36" stroke="#111827" stroke-dasharray="3 2"/>',
        f'<text x="{n + 4:.1f}" y="10">N={bound}</text>',
        f'<text x="{stopped:.1f}" y="48" text-anchor="middle">stopped {observed.steps}</text>',
    ]
    if not record.solvable:
        parts.append(
            f'<text x="{stagnant - 2:.1f}" y="10" text-anchor="end">stagnant from '
            f"{stagnant_step}</text>"
        )
    return _svg(52, parts, f"timeline of {record.scenario}")


def _failures(records: Sequence[TerminationRecord]) -> str:
    failed = [r for r in records if not r.verdict.passed]
    if not failed:
        return '<p class="note">Every verdict passed.</p>'
    items = []
    for i, record in enumerate(failed):
        verdict = record.verdict.summary
        title = f"{record.scenario} (seed {record.seed}) × {record.agent}"
        items.append(
            f"<details{' open' if i == 0 else ''}><summary><strong>{escape(title)}</strong> "
            f'<span class="fail-title">{escape(verdict)}</span></summary>'
            f"{_timeline(record)}<pre>{escape(explain(record))}</pre></details>"
        )
    return "".join(items)


def to_html(
    records: Sequence[TerminationRecord],
    metrics: Metrics,
    gate: GateResult | None = None,
    *,
    interrupted: bool = False,
) -> str:
    """The whole page; the same records give the same bytes."""
    failed = sum(1 for r in records if not r.verdict.passed)
    body = [
        "<h1>unsolvable report</h1>",
        f'<p class="lead"><strong>{escape(INTERRUPTED)}</strong></p>' if interrupted else "",
        f'<p class="lead">{escape(summary_line(records))}</p>',
        f'<p class="lead">{escape(pass_k_line(metrics))}</p>',
        _gate(gate),
        "<h2>Lag vs false stops, per agent</h2>",
        '<p class="note">Lag: steps past the first stagnant step on unsolvable tasks (p95), '
        "signed: below 0 is a premature stop. False stops: solvable controls and twins ended "
        "without completing them.</p>",
        _tradeoff_chart(metrics),
        _agents(metrics),
        *(f'<p class="lead">{escape(line)}</p>' for line in step_cap_lines(metrics)),
        "<h2>Detection lag per family</h2>",
        '<p class="note">A dot per run; the band spans p50 to p95, the bar marks the max.</p>',
        _lag_chart(metrics, records),
        "<h2>Per family</h2>",
        _groups("family", metrics.families),
        f"<details><summary>Per scenario ({len(metrics.scenarios)} rows)</summary>"
        f"{_groups('scenario', metrics.scenarios)}</details>",
        f"<h2>Failing runs ({failed})</h2>",
        '<p class="note">Grey: steps while progress was possible; red: the detection lag, from '
        "the first stagnant step to the stop; dashed: the bound N.</p>",
        _failures(records),
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>unsolvable report</title><style>{CSS}</style></head><body>"
        + "\n".join(part for part in body if part)
        + "</body></html>\n"
    )
