"""Consumes metrics and records, produces the report's SVG charts: each run's timeline, detection
lag per family, and lag against false stops per agent — each beside the calibrated step cap, so
that an agent is always compared with something."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from unsolvable._numbers import counted, plain
from unsolvable._record import TerminationRecord
from unsolvable._stop import Outcome
from unsolvable._text import html_text
from unsolvable.reports._counted import has_lag, lag, stopped_step
from unsolvable.reports._distribution import Distribution, Number
from unsolvable.reports._marks import MARKERS, PALETTE, AgentMark, agent_marks, legend
from unsolvable.reports._metrics import GroupMetrics, Metrics
from unsolvable.reports._step_cap import StepCap

__all__ = ["lag_chart", "timeline", "tradeoff_chart"]

CAP_COLOUR = "#6b7280"
"""The calibrated step cap, drawn beside every agent as the thing to beat."""
NICE_TICKS = (0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000)
"""Lag axis labels: a log scale (naive lags 200 steps, contract 3) needs round numbers."""
CHART_WIDTH = 1000
"""User units of every chart's width; charts scale down with the window, text with them."""
CHAR_WIDTH = 6.6
"""An upper bound on the width of one character of 11 px chart text, so a label's room is
sized from its length and never cut."""
LABEL_GAP = 16
ROW_HEIGHT = 22
AXIS_HEIGHT = 40
"""Below a chart: tick labels, then the axis title."""
JITTER = (0, -4, 4, -2, 2)
"""Vertical offsets of runs with the same lag, so seeds that agree do not hide each other."""
RATE_TICKS = (0, 0.25, 0.5, 0.75, 1)
LABEL_ROOM = 28
"""Between the 0 % row and the lag axis: room for a step cap's name under its point."""


DOT_SIZE = 3
"""A run's dot in the lag chart, from its centre to its side."""
POINT_SIZE = 6
"""An agent's point in the trade-off chart."""
TOO_MANY = (
    f"More agents than the charts can draw apart ({len(PALETTE)} colours × {len(MARKERS)} "
    "markers): the tables above and below give every agent's figures."
)


def _marks(metrics: Metrics) -> dict[str, AgentMark] | None:
    """Each agent's colour and marker, the same in every chart (`agent_marks`)."""
    return agent_marks([group.agent for group in metrics.agents])


def _text_width(text: str) -> float:
    return CHAR_WIDTH * len(text)


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
        parts.append(f'<text x="{right}" y="{y + 32}" text-anchor="end">{html_text(title)}</text>')
        return parts


def _signed_log(value: float) -> float:
    return math.copysign(math.log1p(abs(value)), value)


def _svg(height: float, body: Iterable[str], label: str) -> str:
    return (
        f'<svg width="{CHART_WIDTH}" height="{height:.0f}" viewBox="0 0 {CHART_WIDTH} '
        f'{height:.0f}" role="img" aria-label="{html_text(label)}">' + "".join(body) + "</svg>"
    )


def timeline(record: TerminationRecord) -> str:
    """Steps 0..end: the steps made while progress was possible (grey), lag (red) up to the
    stop as every report counts it (`stopped_step`), the bound N dashed.

    A control has no stagnant step, nor has a run lost before its first step (`has_lag`): it
    is grey up to wherever the agent stopped it. A run a ceiling found before its bound never
    stopped: its lag runs on to the step past N it counts as stopped at, as in the tables.
    """
    observed, bound = record.observed, record.step_bound
    counted = stopped_step(record)
    stagnant_step = observed.first_stagnant_step
    if not has_lag(record) or stagnant_step is None:
        stagnant_step = observed.steps
    end = max(counted, bound, stagnant_step) + 1
    left = 60
    width = CHART_WIDTH - left - _text_width(f"N={bound}") - LABEL_GAP

    def x_of(step: float) -> float:
        return left + width * step / end

    stagnant, stopped, n = (x_of(v) for v in (stagnant_step, observed.steps, bound))
    counted_x = x_of(counted)
    # A control, or a run lost before its first step, has no lag to draw: red from its stop on.
    lag_end = counted_x if has_lag(record) else stagnant
    stopped_label = (
        f"ceiling at step {observed.steps}"
        + (f", counted {counted}" if counted > observed.steps else "")
        if record.outcome is Outcome.DID_NOT_STOP
        else f"stopped {observed.steps}"
    )
    half = _text_width(stopped_label) / 2
    stopped_x = min(max(counted_x, left + half), CHART_WIDTH - half)
    parts = [
        '<text x="0" y="24">steps</text>',
        # Grey up to the stop at most: a run that stopped before its stagnant step made no
        # step after it, progress possible or not.
        f'<rect x="{left}" y="14" width="{min(stagnant, stopped) - left:.1f}" height="14" '
        'fill="#d1d5db"/>',
        f'<rect x="{stagnant:.1f}" y="14" width="{max(lag_end - stagnant, 0):.1f}" height="14" '
        'fill="#dc2626" fill-opacity="0.75"/>',
        f'<line x1="{n:.1f}" x2="{n:.1f}" y1="6" y2="36" stroke="#111827" stroke-dasharray="3 2"/>',
        f'<text x="{n + 4:.1f}" y="10">N={bound}</text>',
        f'<text x="{stopped_x:.1f}" y="48" text-anchor="middle">{stopped_label}</text>',
    ]
    if has_lag(record):
        label = f"stagnant from {stagnant_step}"
        x = max(stagnant - 2, _text_width(label))
        parts.append(f'<text x="{x:.1f}" y="10" text-anchor="end">{label}</text>')
    return _svg(52, parts, f"timeline of {record.scenario}")


def _lag_row(
    group: GroupMetrics, label: str, lags: Sequence[int], y: float, mark: AgentMark, axis: _LagAxis
) -> list[str]:
    """One family × agent: a band from p50 to p95, a bar at the max, a dot per run in the
    agent's marker."""
    spread = Distribution.of(lags)
    p50, p95, most = axis.x(spread.p50), axis.x(spread.p95), axis.x(spread.max)
    colour = mark.colour
    parts = [
        f'<g data-agent="{html_text(group.agent)}">',
        f'<text x="{axis.left - 8}" y="{y + 4}" text-anchor="end">{html_text(label)}</text>',
        f'<rect x="{p50:.1f}" y="{y - 6}" width="{max(p95 - p50, 2):.1f}" height="12" '
        f'fill="{colour}" fill-opacity="0.18" stroke="{colour}"/>',
        f'<line x1="{most:.1f}" x2="{most:.1f}" y1="{y - 7}" y2="{y + 7}" stroke="{colour}" '
        'stroke-width="2"/>',
    ]
    for i, value in enumerate(lags):
        title = f"<title>{counted(value, 'step')}</title>"
        y_dot = y + JITTER[i % len(JITTER)]
        parts.append(mark.svg(axis.x(value), y_dot, DOT_SIZE, 'fill-opacity="0.7"', title))
    return [*parts, "</g>"]


def _cap_mark(cap: StepCap | None, y: float, axis: _LagAxis) -> list[str]:
    """The calibrated step cap's lag p95 on the same row, signed as the dots' lags are (the JSON's
    ``step_cap.lag_p95`` counts from 0, another figure when the cap stops early): a hollow grey
    diamond."""
    if cap is None:
        return []
    x = axis.x(cap.lag_steps.p95)
    return [
        f'<path d="M{x:.1f} {y - 6}l6 6l-6 6l-6 -6z" fill="none" stroke="{CAP_COLOUR}" '
        f'stroke-width="1.5"><title>step cap {cap.cap}: signed lag p95 '
        f"{plain(cap.lag_steps.p95)}</title></path>"
    ]


def _lags(records: Sequence[TerminationRecord]) -> dict[tuple[str, str], list[int]]:
    """Each unsolvable run's lag, by family × agent (runs lost before their first step have none:
    `has_lag`)."""
    lags: dict[tuple[str, str], list[int]] = {}
    for record in records:
        if has_lag(record):
            lags.setdefault((record.family, record.agent), []).append(lag(record))
    return lags


def lag_chart(metrics: Metrics, records: Sequence[TerminationRecord]) -> str:
    lags = _lags(records)
    groups = [group for group in metrics.families if (group.name, group.agent) in lags]
    if not groups:
        return '<p class="note">No unsolvable runs: no lag to show.</p>'
    caps = [g.step_cap.lag_steps.p95 for g in groups if g.step_cap is not None]
    top = max(max(max(values) for values in lags.values()), *caps, 1)
    bottom = min([*(min(values) for values in lags.values()), *caps])  # a cap may stop early too
    marks = _marks(metrics)
    if marks is None:
        return f'<p class="note">{TOO_MANY}</p>'
    labels = {(g.name, g.agent): f"{g.name} × {g.agent}" for g in groups}
    left = max(map(_text_width, labels.values())) + LABEL_GAP
    axis = _LagAxis(top=top, bottom=bottom, left=left, width=CHART_WIDTH - left - 24)
    floor = ROW_HEIGHT * len(groups) + 8
    parts = axis.svg(floor, "detection lag, steps (log scale)")
    for i, group in enumerate(groups):
        key, y = (group.name, group.agent), ROW_HEIGHT * i + 16
        parts += _lag_row(group, labels[key], lags[key], y, marks[group.agent], axis)
        parts += _cap_mark(group.step_cap, y, axis)
    drawn = list(dict.fromkeys(group.agent for group in groups))
    chart = _svg(floor + AXIS_HEIGHT, parts, "detection lag per family and agent")
    return legend(marks, drawn) + chart


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


def _point(
    x: float, y: float, label: str, colour: str, marker: str, *, below: bool, axis: _LagAxis
) -> list[str]:
    """A ``marker`` and its name: above an agent's, below its step cap's (an agent and its step
    cap may share a height), left of a point in the right half."""
    right_half = x > axis.left + axis.width / 2
    anchor, dx = ("end", -10) if right_half else ("start", 10)
    dy = 18 if below else -8
    return [
        marker,
        f'<text x="{x + dx:.1f}" y="{y + dy:.1f}" text-anchor="{anchor}" '
        f'style="fill:{colour};font-weight:600">{html_text(label)}</text>',
    ]


def _cap_point(x: float, y: float) -> str:
    """A step cap's point: a hollow grey circle, unlike any agent's marker."""
    return (
        f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{POINT_SIZE}" fill="none" stroke="{CAP_COLOUR}" '
        'stroke-width="2"/>'
    )


def _cap_rate(group: GroupMetrics) -> float:
    cap = group.step_cap
    return cap.false_stops / group.controls if cap is not None and group.controls else 0.0


def _counted_p95(lags: Distribution) -> Number:
    """Lag p95 counted from 0, as the step cap comparison counts it (`StepCap.lag_p95`): a
    stop before the stagnant step is a premature stop, counted apart, never a shorter lag. The
    nearest-rank p95 of lags clipped at 0 is their p95 clipped at 0."""
    return max(lags.p95, 0)


def tradeoff_chart(metrics: Metrics) -> str:
    """Each agent at (lag p95 counted from 0, false-stop rate), beside its calibrated step cap
    (hollow): good stop logic sits in the lower left, and left of its cap. Counted from 0, an
    agent that guesses is not drawn left of one that detects."""
    lagged = [group for group in metrics.agents if group.lag_steps is not None]
    if not lagged:
        return '<p class="note">No unsolvable runs: no trade-off to show.</p>'
    # An agent with no control run has no false-stop rate: drawn on the 0 % row it would read
    # as one measured, the best there is.
    agents = [group for group in lagged if group.controls]
    unmeasured = [group.agent for group in lagged if not group.controls]
    if not agents:
        return '<p class="note">No control run: no false-stop rate to set lag against.</p>'
    lags = [_counted_p95(group.lag_steps) for group in agents if group.lag_steps is not None]
    lags += [_counted_p95(g.step_cap.lag_steps) for g in agents if g.step_cap is not None]
    marks = _marks(metrics)
    if marks is None:
        return f'<p class="note">{TOO_MANY}</p>'
    axis = _LagAxis(top=max(lags), left=80, width=CHART_WIDTH - 120)
    floor, ceiling = 220, 24
    zero = floor - LABEL_ROOM

    def y_of(rate: float) -> float:
        return zero - (zero - ceiling) * rate

    title = "detection lag p95 counted from 0, steps (log scale) — lower left is better"
    parts = [*axis.svg(floor, title), *_rate_axis(y_of, axis.left)]
    for group in agents:
        mark = marks[group.agent]
        if group.step_cap is not None:
            x, y = axis.x(_counted_p95(group.step_cap.lag_steps)), y_of(_cap_rate(group))
            label = f"{group.agent}'s step cap ({group.step_cap.cap})"
            parts += _point(x, y, label, CAP_COLOUR, _cap_point(x, y), below=True, axis=axis)
        p95 = _counted_p95(group.lag_steps) if group.lag_steps is not None else 0
        x, y = axis.x(p95), y_of(group.false_stops / group.controls)
        parts += [
            f'<g data-agent="{html_text(group.agent)}">',
            *_point(
                x, y, group.agent, mark.colour, mark.svg(x, y, POINT_SIZE), below=False, axis=axis
            ),
            "</g>",
        ]
    chart = _svg(floor + AXIS_HEIGHT, parts, "lag versus false-stop rate per agent and step cap")
    drawn = legend(marks, [group.agent for group in agents]) + chart
    if not unmeasured:
        return drawn
    names = html_text(", ".join(unmeasured))
    left_out = f"Not drawn, with no control run to give them a false-stop rate: {names}."
    return f'{drawn}<p class="note">{left_out}</p>'
