"""Consumes ``unsolvable list`` and ``unsolvable show NAME``, produces the library's listing (a
table, JSON or the Markdown catalogue) or one scenario's description; and the library of built-in
scenarios and ``--scenario-file`` files that every command reads."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

from unsolvable._numbers import dollars, plain
from unsolvable._scenario import Budget, Pricing, Scenario
from unsolvable._text import printable
from unsolvable.reports._cells import align

__all__ = [
    "add_scenario_commands",
    "add_scenario_files",
    "library_of",
    "list_scenarios",
    "show_scenario",
]


def add_scenario_commands(commands: Any) -> None:
    """Declares ``unsolvable list`` and ``unsolvable show``."""
    listing = commands.add_parser("list", help="list the scenarios")
    add_scenario_files(listing)
    form = listing.add_mutually_exclusive_group()
    form.add_argument(
        "--json",
        action="store_true",
        help="print them as JSON: name, family, solvable, twin_of, expected, step_bound, "
        "step_bounds (each seed's N), seeds",
    )
    form.add_argument(
        "--markdown",
        action="store_true",
        help="print the catalogue in Markdown: each family, its scenarios, ground truth and twins",
    )
    show = commands.add_parser("show", help="explain one scenario")
    show.add_argument(
        "name", metavar="NAME", help="one scenario, e.g. constant-return/repeat (list names them)"
    )
    add_scenario_files(show)


def add_scenario_files(command: argparse.ArgumentParser, *, selects: bool = False) -> None:
    """Scenario files join the library for this command; for one that ``selects`` scenarios
    (``run``), its files' scenarios are the selection when none is named."""
    more = " With no --scenario, run selects the files' scenarios." if selects else ""
    command.add_argument(
        "--scenario-file",
        action="append",
        default=[],
        metavar="FILE",
        help="a scenario file (written by unsolvable import) or a folder of them; repeatable."
        + more,
    )


def library_of(args: argparse.Namespace) -> Any:
    """The built-in scenarios and those of ``--scenario-file``; a bad file is a usage error
    now, before anything runs."""
    from unsolvable.imports._library import ScenarioLibrary

    library = ScenarioLibrary.of(args.scenario_file)
    library.from_files  # noqa: B018 - read and check every file now
    return library


def _listing(scenario: Scenario) -> dict[str, Any]:
    """What a script needs to pick scenarios: the list's JSON form, one object per scenario;
    ``step_bound`` is N from the end of a seed's lead, ``step_bounds`` each seed's N, in the
    order of ``seeds``."""
    return {
        "name": scenario.name,
        "family": scenario.family,
        "solvable": scenario.solvable,
        "twin_of": scenario.twin_of,
        "expected": sorted(scenario.expected),
        "step_bound": scenario.step_bound,
        "step_bounds": list(scenario.step_bounds().values()),
        "seeds": list(scenario.seeds),
    }


def list_scenarios(library: Any, *, as_json: bool = False, as_markdown: bool = False) -> int:
    from unsolvable.reports._catalogue import bound_cell, catalogue_markdown

    SCENARIOS = library.scenarios
    if as_markdown:
        print(catalogue_markdown(SCENARIOS), end="")
        return 0
    if as_json:
        print(json.dumps([_listing(s) for s in SCENARIOS], indent=2))
        return 0
    rows = [("family", "scenario", "expected", "N", "what the model does")]
    rows += [
        (s.family, s.name, "|".join(sorted(s.expected)), bound_cell(s), s.summary)
        for s in SCENARIOS
    ]
    print(align(rows))
    return 0


def _describe(scenario: Scenario, twins: Sequence[str] = ()) -> str:
    """What `show` prints: the scenario's data, its twins or sibling, the subtasks of its task
    graph, and its explanation."""
    lines = [
        scenario.name,
        f"  family:     {scenario.family}",
        f"  task:       {scenario.task}",
        f"  expected:   {'|'.join(sorted(scenario.expected))} within {_bounds(scenario)}",
        f"  budget:     {_budget_text(scenario.budget)}",
        f"  stagnation: {scenario.stagnation}",
        f"  seeds:      {', '.join(map(str, scenario.seeds))}",
    ]
    if scenario.missing:
        lines.append(f"  missing:    {', '.join(scenario.missing)}")
    if scenario.refused_retries is not None:
        lines.append(f"  retries of a refused call allowed: {scenario.refused_retries}")
    if scenario.context_window is not None:
        lines.append(f"  context window: {scenario.context_window} tokens")
    if scenario.role_steps:
        roles = ", ".join(f"{role} {steps} steps" for role, steps in scenario.role_steps.items())
        lines.append(f"  role budgets: {roles}")
    if scenario.pricing != Pricing():
        prices = scenario.pricing
        lines.append(
            f"  prices:     {dollars(prices.usd_per_million_input)} in, "
            f"{dollars(prices.usd_per_million_output)} out, per million tokens"
        )
    if scenario.twin_of is not None:
        lines.append(f"  twin of:    {scenario.twin_of}")
    if twins:
        lines.append(f"  twins:      {', '.join(twins)}")
    for subtask in scenario.build(scenario.seeds[0]).subtasks:
        after = f" (after {', '.join(subtask.depends_on)})" if subtask.depends_on else ""
        lines.append(f"  subtask:    {subtask.name}{after}")
    lines.append("")
    lines.append(scenario.explanation)
    return "\n".join(map(printable, lines))  # a scenario file's text is shown, never obeyed


def _bounds(scenario: Scenario) -> str:
    """``N=12 steps``, or each seed's N where they differ (`Scenario.step_bounds`)."""
    bounds = scenario.step_bounds()
    if len(set(bounds.values())) == 1:
        return f"N={scenario.step_bound} steps"
    return "N steps: " + ", ".join(f"{bound} on seed {seed}" for seed, bound in bounds.items())


def _budget_text(budget: Budget) -> str:
    """The budgets a scenario sets, and only those, in the figures every report writes."""
    limits = [
        (budget.max_steps, "steps"),
        (budget.max_tokens, "tokens"),
        (budget.max_calls, "external calls"),
        (budget.max_wall_seconds, "s in all"),
        (budget.max_idle_seconds, "s idle"),
    ]
    parts = [f"{plain(value)} {unit}" for value, unit in limits if value is not None]
    if budget.max_cost_usd is not None:
        parts.append(dollars(budget.max_cost_usd))
    return ", ".join(parts)


def show_scenario(name: str, library: Any) -> int:
    scenario = library.get(name)
    twins = [s.name for s in library.scenarios if s.twin_of == scenario.name]
    print(_describe(scenario, twins))
    return 0
