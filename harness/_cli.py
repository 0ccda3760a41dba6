"""Consumes the command line, produces the main job: scenarios × agents, a table, an exit status.

Exit status: 0 when every verdict passes, 1 when any fails, 2 for a usage error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from harness._errors import UnsolvableError
from harness._record import TerminationRecord
from harness._report import explain, format_table, pass_k_line, summary_line, write_json
from harness._run import run
from harness._scenario import Ceilings, Scenario

__all__ = ["main"]

DEFAULT_AGENTS = ("naive", "contract")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="unsolvable", description="Run unsolvable tasks against an agent's stop logic."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    run_ = commands.add_parser("run", help="run scenarios against agents and judge each stop")
    run_.add_argument(
        "--agent",
        action="append",
        metavar="SPEC",
        help="'naive', 'contract' or module:attr (repeatable; default: both built-ins)",
    )
    run_.add_argument(
        "--scenario",
        nargs="+",
        action="extend",
        metavar="NAME",
        help="scenario or family names (default: all)",
    )
    seeds = run_.add_mutually_exclusive_group()
    seeds.add_argument("--seed", type=int, action="append", help="seeds (default: each first)")
    seeds.add_argument(
        "--all-seeds", action="store_true", help="each scenario's seeds; reports pass^k"
    )
    run_.add_argument("--strict", action="store_true", help="only the expected codes pass")
    run_.add_argument("--json", type=Path, metavar="PATH", help="write all records as JSON")
    run_.add_argument(
        "--volatile", action="store_true", help="keep wall times in the JSON (not byte-stable)"
    )
    run_.add_argument("--explain", action="store_true", help="print the trajectory of failures")
    run_.add_argument(
        "--ceiling-steps", type=int, default=Ceilings.max_steps, help="harness step ceiling"
    )
    run_.add_argument(
        "--ceiling-seconds",
        type=float,
        default=Ceilings.max_wall_seconds,
        help="harness wall-clock ceiling per run",
    )
    commands.add_parser("list", help="list the scenarios")
    show = commands.add_parser("show", help="explain one scenario")
    show.add_argument("name")
    return parser


def _run(args: argparse.Namespace) -> int:
    from harness._loading import load_agent
    from scenarios import select

    agents = [load_agent(spec) for spec in args.agent or DEFAULT_AGENTS]
    chosen = select(args.scenario or ())
    ceilings = Ceilings(max_steps=args.ceiling_steps, max_wall_seconds=args.ceiling_seconds)
    records: list[TerminationRecord] = []
    for scenario in chosen:
        for seed in args.seed or (scenario.seeds if args.all_seeds else scenario.seeds[:1]):
            for agent in agents:
                records.append(
                    run(agent, scenario, seed=seed, strict=args.strict, ceilings=ceilings)
                )
    print(format_table(records))
    failures = [r for r in records if r.verdict and not r.verdict.passed]
    if args.explain:
        for record in failures:
            print("\n" + explain(record))
    if args.json:
        write_json(records, args.json, volatile=args.volatile)
    print(summary_line(records))
    if args.all_seeds or (args.seed and len(args.seed) > 1):
        print(pass_k_line(records))
    return 1 if failures else 0


def _list() -> int:
    from scenarios import SCENARIOS

    rows = [("family", "scenario", "expected", "N", "what the model does")]
    rows += [
        (s.family, s.name, "|".join(sorted(s.expected)), str(s.step_bound), s.summary)
        for s in SCENARIOS
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for row in rows:
        print("  ".join([*(cell.ljust(w) for cell, w in zip(row, widths, strict=False)), row[4]]))
    return 0


def _describe(scenario: Scenario) -> str:
    lines = [
        scenario.name,
        f"  family:     {scenario.family}",
        f"  task:       {scenario.task}",
        f"  expected:   {'|'.join(sorted(scenario.expected))} within N={scenario.step_bound} steps",
        f"  budget:     {scenario.budget.to_dict()}",
        f"  stagnation: {scenario.stagnation}",
        f"  seeds:      {', '.join(map(str, scenario.seeds))}",
    ]
    if scenario.missing:
        lines.append(f"  missing:    {', '.join(scenario.missing)}")
    if scenario.refused_retries is not None:
        lines.append(f"  retries of a refused call allowed: {scenario.refused_retries}")
    lines.append("")
    lines.append(scenario.explanation)
    return "\n".join(lines)


def _show(name: str) -> int:
    from scenarios import get

    print(_describe(get(name)))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "run":
            return _run(args)
        if args.command == "list":
            return _list()
        return _show(args.name)
    except UnsolvableError as error:
        print(f"unsolvable: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
