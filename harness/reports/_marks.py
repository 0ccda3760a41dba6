"""Consumes the agents of a report, produces how its charts draw each one: a colour and a marker
of its own, the same in every chart, and the legend that says which agent each one is."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from unsolvable._text import html_text

__all__ = ["MARKERS", "PALETTE", "AgentMark", "agent_marks", "legend"]

PALETTE = ("#c2410c", "#1d4ed8", "#15803d", "#7e22ce", "#b45309", "#0f766e")
"""Colours dark enough to read on white, in the order agents first appear."""
MARKERS = ("circle", "square", "triangle", "diamond", "down")
"""Shapes told apart at a dot's size: the first six agents are circles, each of its own colour,
the next six squares, and so on; the step cap's hollow grey circle and diamond are not among
them, as no agent's marker is hollow or grey."""
LEGEND_SIZE = 14
"""Width and height of a legend entry's marker, in pixels."""


@dataclass(frozen=True, kw_only=True)
class AgentMark:
    """How the charts draw one agent."""

    colour: str
    """Its colour, from `PALETTE`."""
    marker: str
    """Its shape, from `MARKERS`."""

    def svg(self, x: float, y: float, size: float, attributes: str = "", inner: str = "") -> str:
        """The marker centred on ``x``, ``y``, ``size`` from its centre to its side, filled with
        the agent's colour; ``attributes`` and ``inner`` (a ``<title>``) go into the element."""
        head = f'fill="{self.colour}" class="mark" {attributes}'.rstrip()
        if self.marker == "circle":
            return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{size}" {head}>{inner}</circle>'
        if self.marker == "square":
            side = size * 0.9
            return (
                f'<rect x="{x - side:.1f}" y="{y - side:.1f}" width="{2 * side:.1f}" '
                f'height="{2 * side:.1f}" {head}>{inner}</rect>'
            )
        return f'<path d="{_outline(self.marker, x, y, size)}" {head}>{inner}</path>'


def _outline(marker: str, x: float, y: float, size: float) -> str:
    """The path of a triangle (pointing up or ``down``) or a diamond, each of about the area of
    a circle of radius ``size``; its moves are relative, so the shape reads the same anywhere."""
    if marker == "diamond":
        half = size * 1.3
        return f"M{x:.1f} {y - half:.1f}l{half:.1f} {half:.1f}l{-half:.1f} {half:.1f}" + (
            f"l{-half:.1f} {-half:.1f}z"
        )
    side, height = size * 1.35, size * 1.2
    tip = -height if marker == "triangle" else height
    return f"M{x:.1f} {y + tip:.1f}l{side:.1f} {-2 * tip:.1f}h{-2 * side:.1f}z"


def agent_marks(agents: Sequence[str]) -> dict[str, AgentMark] | None:
    """Each of ``agents`` (in the order they first appear) its own colour and marker, or
    ``None`` when they are more than `PALETTE` × `MARKERS` can tell apart: a chart that drew two
    agents alike would say one's dots are the other's."""
    if len(agents) > len(PALETTE) * len(MARKERS):
        return None
    return {
        agent: AgentMark(colour=PALETTE[i % len(PALETTE)], marker=MARKERS[i // len(PALETTE)])
        for i, agent in enumerate(agents)
    }


def legend(marks: dict[str, AgentMark], agents: Sequence[str]) -> str:
    """A line naming each of ``agents`` beside its marker, as the chart under it draws it."""
    middle = LEGEND_SIZE / 2
    keys = "".join(
        f'<span class="key" data-agent="{html_text(agent)}"><svg width="{LEGEND_SIZE}" '
        f'height="{LEGEND_SIZE}" viewBox="0 0 {LEGEND_SIZE} {LEGEND_SIZE}" aria-hidden="true">'
        f"{marks[agent].svg(middle, middle, middle - 2)}</svg>{html_text(agent)}</span>"
        for agent in agents
    )
    return f'<p class="legend">{keys}</p>'
