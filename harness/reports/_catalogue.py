"""Consumes the scenario library, produces its catalogue in Markdown: each family, what its model
does, why it cannot be done, its ground truth and its twins. Generated, never hand-copied, so
the documentation site and ``unsolvable list --markdown`` always say what the library holds."""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Sequence

from unsolvable._scenario import Scenario

__all__ = ["bound_cell", "catalogue_markdown"]

CATALOG_PACKAGE = "unsolvable.scenarios.catalog"
"""Where a built-in family's module lives; its docstring introduces the family."""


def _cell(text: str) -> str:
    """A table cell: pipes would end it, newlines would end the row."""
    return text.replace("|", "\\|").replace("\n", " ")


def _family_text(family: str) -> str:
    """A built-in family's module docstring; a family from a scenario file has none."""
    try:
        module = importlib.import_module(f"{CATALOG_PACKAGE}.{family.replace('-', '_')}")
    except ImportError:
        return ""
    return " ".join((module.__doc__ or "").split())


def _kind(scenario: Scenario) -> str:
    if scenario.twin_of is not None:
        return f"twin of `{scenario.twin_of}`"
    return "solvable control" if scenario.solvable else "unsolvable"


def bound_cell(scenario: Scenario) -> str:
    """N, or each seed's N in the seeds' order where they differ (``12/13/14``,
    `Scenario.step_bounds`): one N would be seed 0's alone."""
    bounds = list(scenario.step_bounds().values())
    return str(bounds[0]) if len(set(bounds)) == 1 else "/".join(map(str, bounds))


def _bounds(scenario: Scenario) -> str:
    """``N = 12 steps; seeds 0, 1, 2``, or each seed's N where they differ."""
    bounds = scenario.step_bounds()
    seeds = ", ".join(map(str, bounds))
    if len(set(bounds.values())) == 1:
        return f"N = {scenario.step_bound} steps; seeds {seeds}"
    return f"N = {', '.join(map(str, bounds.values()))} steps on seeds {seeds}"


def _row(scenario: Scenario) -> str:
    cells = (
        f"`{scenario.name}`",
        _kind(scenario),
        " ".join(f"`{code}`" for code in sorted(scenario.expected)),
        bound_cell(scenario),
        scenario.summary,
    )
    return "| " + " | ".join(_cell(cell) for cell in cells) + " |"


def _details(scenario: Scenario) -> list[str]:
    lines = [
        f"### `{scenario.name}`",
        "",
        f"- **task**: {_cell(scenario.task)}",
        f"- **expected**: {', '.join(f'`{code}`' for code in sorted(scenario.expected))} "
        f"within {_bounds(scenario)}",
        f"- **budget**: {_budget(scenario)}",
    ]
    if not scenario.solvable:
        lines.append(f"- **first stagnant step**: the `{scenario.stagnation}` rule")
    if scenario.missing:
        lines.append(f"- **a `BLOCKED_INPUT` stop names**: {', '.join(scenario.missing)}")
    if scenario.refused_retries is not None:
        lines.append(f"- **retries of a refused call allowed**: {scenario.refused_retries}")
    return [*lines, "", scenario.explanation, ""]


def _budget(scenario: Scenario) -> str:
    spent = {key: value for key, value in scenario.budget.to_dict().items() if value is not None}
    return ", ".join(f"`{key}` {value}" for key, value in spent.items())


def _family(family: str, scenarios: Sequence[Scenario]) -> list[str]:
    intro = _family_text(family)
    lines = [f"## {family}", ""]
    lines += [intro, ""] if intro else []
    lines += ["| scenario | kind | expected | N | what the model does |", "|---|---|---|---|---|"]
    lines += [_row(scenario) for scenario in scenarios]
    lines.append("")
    for scenario in scenarios:
        lines += _details(scenario)
    return lines


def catalogue_markdown(scenarios: Iterable[Scenario]) -> str:
    """The catalogue of ``scenarios``, one section per family in the library's order."""
    families: dict[str, list[Scenario]] = {}
    for scenario in scenarios:
        families.setdefault(scenario.family, []).append(scenario)
    count = sum(len(members) for members in families.values())
    lines = [
        "# The scenario catalogue",
        "",
        f"{count} scenarios in {len(families)} families, generated from the library itself "
        "(`unsolvable list --markdown` prints this page). Each unsolvable scenario says how its "
        "first stagnant step is defined; each twin looks like its sibling until it diverges.",
        "",
    ]
    for family, members in families.items():
        lines += _family(family, members)
    return "\n".join(lines).rstrip() + "\n"
