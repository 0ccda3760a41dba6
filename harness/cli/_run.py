"""Consumes ``unsolvable run``'s arguments, produces the main job: scenarios × agents on worker
processes, each record streamed to disk as it finishes, then the table, the reports, the baseline
gate and the exit status."""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import math
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from unsolvable._batch import Batch, Job, run_jobs
from unsolvable._errors import OutputError, ShardError
from unsolvable._processes import DESCRIPTORS_PER_WORKER, most_workers, open_file_limit
from unsolvable._record import TerminationRecord
from unsolvable._scenario import SEEDS, Ceilings, Scenario, is_seed
from unsolvable._shard import Shard, ShardTag
from unsolvable._specs import AGENT_SPECS
from unsolvable.cli._progress import Progress
from unsolvable.cli._report import (
    INTERRUPTED_STATUS,
    UNWRITTEN_STATUS,
    add_report_arguments,
    options_of,
)
from unsolvable.cli._scenarios import add_scenario_files, library_of
from unsolvable.reports._blessed import Baseline
from unsolvable.reports._cells import format_metrics, pass_k_line, should_summarise
from unsolvable.reports._files import RecordStream
from unsolvable.reports._publish import ReportOptions, check_baseline, check_outputs, publish
from unsolvable.reports._table import INTERRUPTED, explain, format_table, summary_line

__all__ = ["add_run_command", "run_scenarios"]

DEFAULT_AGENTS = ("naive", "contract")


def add_run_command(commands: Any) -> None:
    """Declares ``unsolvable run`` and its arguments."""
    run_ = commands.add_parser("run", help="run scenarios against agents and judge each stop")
    run_.add_argument(
        "--agent",
        action="append",
        metavar="SPEC",
        help=f"{AGENT_SPECS} (repeatable; default: both built-ins)",
    )
    run_.add_argument(
        "--scenario",
        nargs="+",
        action="extend",
        metavar="NAME",
        help="scenario or family names (default: all)",
    )
    add_scenario_files(run_, selects=True)
    seeds = run_.add_mutually_exclusive_group()
    seeds.add_argument(
        "--seed",
        type=_seed,
        action="append",
        metavar="N",
        help="seeds, each a whole number, 0 or more (repeatable; default: each scenario's first)",
    )
    seeds.add_argument(
        "--all-seeds", action="store_true", help="each scenario's seeds; reports pass^k"
    )
    run_.add_argument("--strict", action="store_true", help="only the expected codes pass")
    run_.add_argument(
        "--volatile", action="store_true", help="keep wall times in the JSON (not byte-stable)"
    )
    run_.add_argument("--explain", action="store_true", help="print the trajectory of failures")
    add_report_arguments(run_)
    run_.add_argument(
        "-n",
        "--workers",
        type=_workers,
        default=1,
        metavar="N",
        help="run on N worker processes (default 1; auto: one per CPU this process may use); "
        "every run is in a worker process, so an agent that kills its process is recorded "
        "crashed and the rest go on. No more workers start than there are runs; N is at most "
        f"what the open-file limit (ulimit -n) holds, {DESCRIPTORS_PER_WORKER} files a worker",
    )
    run_.add_argument("--no-progress", action="store_true", help="show no progress on stderr")
    run_.add_argument(
        "--shard",
        type=_shard,
        metavar="K/N",
        help="make only shard K of N of the runs (a CI matrix job), balanced by the scenarios' "
        "step bounds; unsolvable merge makes the whole run's reports from the shards' --json",
    )
    run_.add_argument(
        "--ceiling-steps", type=_count, default=Ceilings.max_steps, help="harness step ceiling"
    )
    run_.add_argument(
        "--ceiling-seconds",
        type=_seconds,
        help=f"harness wall-clock ceiling per run (default {Ceilings.max_wall_seconds:g} s; "
        "an adapter may need more: the coding agents get 60 s)",
    )
    run_.add_argument(
        "--isolate-network",
        action="store_true",
        help="run exec: and acp: agents with loopback only (Linux network namespaces): every "
        "address but the harness's fails at once",
    )


def _shard(text: str) -> Shard:
    try:
        return Shard.parse(text)
    except ShardError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _count(text: str) -> int:
    """A count of processes or of steps: a whole number, 1 or more."""
    if not (text.isascii() and text.isdigit()) or int(text) < 1:  # '²' is a digit int() refuses
        raise argparse.ArgumentTypeError(f"{text!r}: give a whole number, 1 or more")
    return int(text)


def _seed(text: str) -> int:
    """A seed as `Scenario.build` takes it (`is_seed`)."""
    seed = int(text) if text.isascii() and text.isdigit() else -1
    if not is_seed(seed):
        raise argparse.ArgumentTypeError(f"{text!r}: give a seed, {SEEDS}, e.g. 0")
    return seed


def _workers(text: str) -> int:
    """A count of worker processes, at most `most_workers` (more would fail to start, mid-way),
    or ``auto``: one per CPU this process may run on, as pytest-xdist's ``-n auto`` counts them
    when psutil is not installed. `WorkerPool` starts no more than there are runs."""
    most = most_workers()
    if text == "auto":
        return min(_cpus(), most)
    if not (text.isascii() and text.isdigit()) or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give a whole number, 1 or more, or auto")
    if int(text) > most:
        raise argparse.ArgumentTypeError(
            f"{text!r}: give a whole number from 1 to {most}, or auto: each worker holds "
            f"{DESCRIPTORS_PER_WORKER} open files, and this process may open "
            f"{open_file_limit()} (ulimit -n)"
        )
    return int(text)


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not every platform has affinity
        return os.cpu_count() or 1


def _seconds(text: str) -> float:
    """A span of time: a finite number of seconds above 0 (0 would end every run at once)."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds > 0):
        raise argparse.ArgumentTypeError(f"{text!r}: give a number of seconds above 0, e.g. 30")
    return seconds


def _seeds(args: argparse.Namespace, scenario: Scenario) -> list[int]:
    """The seeds ``scenario`` runs on, each once: a seed given twice would run twice and count
    as two of its pass^k."""
    given = list(dict.fromkeys(args.seed or ()))
    return given or list(scenario.seeds if args.all_seeds else scenario.seeds[:1])


def _jobs(args: argparse.Namespace, library: Any) -> list[Job]:
    from unsolvable._loading import load_agents
    from unsolvable._run import ceilings_for
    from unsolvable.imports._scenario_file import ScenarioFileError

    names = args.scenario or [s.name for s in library.from_files]
    if args.scenario_file and not names:
        files = ", ".join(map(repr, args.scenario_file))
        raise ScenarioFileError(
            f"--scenario-file {files} holds no scenario (no .json or .toml file written by "
            "unsolvable import): give one, or name the scenarios to run with --scenario"
        )
    specs = list(args.agent or DEFAULT_AGENTS)
    # A bad spec, a load that hangs, two agents under one label, or an isolation this platform
    # lacks is a usage error now.
    adapters = load_agents(specs, flag="--agent", isolate_network=args.isolate_network)
    ceilings = {
        spec: ceilings_for(
            adapter, max_steps=args.ceiling_steps, max_wall_seconds=args.ceiling_seconds
        )
        for spec, adapter in zip(specs, adapters, strict=True)
    }
    return [
        Job(
            agent=spec,
            scenario=scenario.name,
            seed=seed,
            strict=args.strict,
            ceilings=ceilings[spec],
            isolate_network=args.isolate_network,
        )
        for scenario in library.select(names)
        for seed in _seeds(args, scenario)
        for spec in specs
    ]


def _records(args: argparse.Namespace, stream: RecordStream) -> tuple[Batch, ShardTag | None]:
    """Every job (of ``--shard``, its share), each record streamed to disk as it finishes
    (`RecordStream`); with the shard's place in the whole run."""
    library = library_of(args)
    jobs = _jobs(args, library)
    shard: Shard | None = args.shard
    mine = list(range(len(jobs)))
    if shard is not None:
        mine = shard.take([library.get(job.scenario).step_bound for job in jobs])
    progress = Progress(len(mine), enabled=not args.no_progress)

    def finished(record: TerminationRecord) -> None:
        stream.add(record)
        progress.advance()

    try:
        batch = run_jobs(
            [jobs[p] for p in mine], lookup=library, workers=args.workers, on_record=finished
        )
    finally:
        progress.close()
    if shard is None:
        return batch, None
    order = tuple((mine[p],) for p in batch.positions)
    complete = not batch.interrupted
    tag = ShardTag(shard=shard, complete=complete, order=order, runs=len(jobs), plan=_plan(jobs))
    return batch, tag


def _plan(jobs: Sequence[Job]) -> str:
    """The whole run's runs, hashed: what every shard of one command has alike (`ShardTag.plan`)."""
    runs = json.dumps([dataclasses.asdict(job) for job in jobs], sort_keys=True)
    return hashlib.sha256(runs.encode()).hexdigest()


def run_scenarios(args: argparse.Namespace) -> int:
    options = options_of(args)
    if args.shard is not None:  # checked now, with the baseline flags (`ReportOptions`)
        options = dataclasses.replace(
            options, shard=ShardTag(shard=args.shard, complete=False, order=())
        )
    baseline = check_baseline(options)
    check_outputs(options, inputs=[Path(path) for path in args.scenario_file], streamed=True)
    stream = RecordStream(options.json)
    stream.open()
    try:
        batch, tag = _records(args, stream)
        options = dataclasses.replace(options, shard=tag)
        try:
            return _finish(args, batch, options, baseline, stream)
        except KeyboardInterrupt as interrupt:  # the runs are over; a report may be unwritten
            print(stream.interrupted_writing(interrupt), file=sys.stderr)
            return INTERRUPTED_STATUS
    finally:
        stream.close(keep=True)  # what it holds is all there is, unless the reports were written


def _finish(
    args: argparse.Namespace,
    batch: Batch,
    options: ReportOptions,
    baseline: Baseline | None,
    stream: RecordStream,
) -> int:
    """The reports and the gate, then the table and the explanations; the exit status. The
    files come first: a terminal closed as the session ends (SIGHUP) fails every print after
    it, which must not cost them."""
    records = list(batch.records)
    failures = [r for r in records if not r.verdict.passed]
    try:
        published = publish(records, options, baseline=baseline, interrupted=batch.interrupted)
    except OutputError as error:
        _print_table(records, failures, explained=args.explain)
        print(summary_line(records))
        kept = f"; {stream.kept()}" if stream.kept() else ""
        # The stream may have stopped short of every finished run: say why, and how many it lost.
        short = (
            f" (it stopped at {stream.written} of {len(records)}: {stream.error})"
            if stream.error is not None
            else ""
        )
        print(f"unsolvable: error: {error}{kept}{short}", file=sys.stderr)
        return UNWRITTEN_STATUS
    stream.close(keep=False)
    _print_table(records, failures, explained=args.explain)
    if stream.error is not None:
        print(f"unsolvable: warning: {stream.error}; the final files were written", file=sys.stderr)
    if should_summarise(published.metrics):
        print("\n" + format_metrics(published.metrics) + "\n")
    print(summary_line(records))
    if args.all_seeds or (args.seed and len(args.seed) > 1):
        print(pass_k_line(published.metrics))
    for note in published.notes:
        print(note)
    if batch.interrupted:
        print(f"unsolvable: {INTERRUPTED}")
        return INTERRUPTED_STATUS
    return 1 if failures or not published.passed else 0


def _print_table(
    records: Sequence[TerminationRecord], failures: Sequence[TerminationRecord], *, explained: bool
) -> None:
    """The table of every run, then (``--explain``) the trajectory of each failure."""
    print(format_table(records))
    if explained:
        for record in failures:
            print("\n" + explain(record))
