"""Consumes records written earlier (``unsolvable report``) or a run's shards (``unsolvable
merge``), produces the metrics, the reports and the baseline gate of that run, and its exit
status; and declares the report flags every command that writes reports takes.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from unsolvable._errors import BaselineError, OutputError, SchemaError, ShardError, UnsolvableError
from unsolvable._input import load_json, read_input
from unsolvable._record import TerminationRecord, check_file_schema
from unsolvable.reports._cells import format_metrics, pass_k_line
from unsolvable.reports._files import STREAM_SUFFIX
from unsolvable.reports._flags import (
    GATE_FLAGS,
    REPORT_FLAGS,
    ReportFlag,
    number_problem,
    report_options,
)
from unsolvable.reports._merge import merge, read_part
from unsolvable.reports._publish import ReportOptions, check_baseline, check_outputs, publish
from unsolvable.reports._table import INTERRUPTED, summary_line

UNWRITTEN_STATUS = 3
"""A run whose reports could not all be written: neither a verdict (1) nor a usage error (2)."""
NO_WORSE = "(0: no worse than the baseline)"
"""What a margin may be, as the refusals of one say it."""
INTERRUPTED_STATUS = 130
"""128 + SIGINT, as shells report a command stopped with Ctrl-C: the status of a session cut
short by SIGINT or SIGTERM, and of a report of its records."""

__all__ = ["add_report_arguments", "add_report_commands", "run_report"]


def add_report_commands(commands: Any) -> None:
    """``unsolvable report``: the same reports and gate for records written earlier, by
    ``unsolvable run --json`` or by the pytest plugin's ``--unsolvable-json``; ``unsolvable
    merge``: those of a whole run, from its shards' files."""
    report = commands.add_parser(
        "report", help="metrics, reports and the baseline gate of records written by --json"
    )
    report.add_argument(
        "records",
        type=Path,
        metavar="RECORDS.json",
        help="a --json file, or the RECORDS.json.jsonl stream a killed run left",
    )
    report.set_defaults(volatile=False)
    add_report_arguments(report)
    merging = commands.add_parser(
        "merge",
        help="the whole run's metrics, reports and baseline gate from its shards' --json files "
        "(run --shard K/N, pytest --unsolvable-shard K/N): the same bytes as one unsharded run",
    )
    merging.add_argument("parts", type=Path, nargs="+", metavar="PART.json")
    merging.set_defaults(volatile=False)
    add_report_arguments(merging)


def add_report_arguments(command: argparse.ArgumentParser) -> None:
    """The reports and the baseline gate: `REPORT_FLAGS`, as the plugin offers them too."""
    for flag in REPORT_FLAGS:
        if flag.switch:
            command.add_argument(f"--{flag.name}", action="store_true", help=flag.help)
        else:
            parse = _margin(flag) if flag.may_be_zero else flag.parse
            command.add_argument(f"--{flag.name}", type=parse, metavar=flag.metavar, help=flag.help)


def _margin(flag: ReportFlag) -> Callable[[str], Any]:
    """A margin read as ``flag`` parses it and refused by argparse, naming the flag, unless it
    is a number as `number_problem` takes one (`Margins` would refuse it only by its field's
    name)."""
    parse, most = flag.parse, flag.most

    def read(text: str) -> Any:
        try:
            value = parse(text)
        except ValueError:
            kind = "a whole number" if parse is int else "a number"
            raise argparse.ArgumentTypeError(
                f"{text!r}: a margin is {kind}, 0 or more {NO_WORSE}"
            ) from None
        if problem := number_problem(value, may_be_zero=True, most=most):
            raise argparse.ArgumentTypeError(f"{text!r}: a margin {problem} {NO_WORSE}")
        return value

    return read


class _Records(NamedTuple):
    """The records to report on, and whether the session that made them was interrupted."""

    records: list[TerminationRecord]
    interrupted: bool


def _read_records(path: Path) -> _Records:
    """The records of a whole run's ``--json`` file, each checked
    (`TerminationRecord.from_dict`), and its ``"interrupted"`` mark: the records of a session
    cut short are not a whole run to gate. A shard's file is a `ShardError`; a record stream
    (``.jsonl``) is read by `_read_stream`."""
    if path.name.endswith(STREAM_SUFFIX):
        return _read_stream(path)
    try:
        data = load_json(read_input(path), what=f"records file {str(path)!r}")
        if not isinstance(data, dict) or not isinstance(data.get("records"), list):
            raise ValueError('it holds no "records" list')
        check_file_schema(data)
        interrupted = data.get("interrupted", False)
        if not isinstance(interrupted, bool):
            raise ValueError(f'its "interrupted" is {interrupted!r}, not true or false')
        records = [TerminationRecord.from_dict(record) for record in data["records"]]
    except SchemaError as error:
        raise UnsolvableError(f"cannot read records from {str(path)!r}: {error}") from None
    except ValueError as error:
        raise UnsolvableError(
            f"cannot read records from {str(path)!r} ({error}); pass a file written by "
            "unsolvable run --json or pytest --unsolvable-json"
        ) from None
    if data.get("shard") is not None:
        raise ShardError(
            f"{str(path)!r} is a shard's file (run --shard K/N, pytest --unsolvable-shard K/N), "
            "a part of each group: its metrics, reports and baseline gate would be a part's; "
            "make the whole run's from every shard's file with unsolvable merge PART.json... "
            "and the same flags"
        )
    return _Records(records, interrupted)


def _read_stream(path: Path) -> _Records:
    """The records a run streamed as each finished (`RecordStream`), which a run that was killed
    leaves behind: a run that did not end, so interrupted (reported, never gated or blessed). A
    last line without its newline was cut short by the kill, and is left out."""
    fix = "pass a record stream (RECORDS.json.jsonl) as a run wrote it"
    try:
        text = read_input(path)
    except ValueError as error:
        raise UnsolvableError(f"cannot read records from {str(path)!r} ({error}); {fix}") from None
    records = []
    for number, line in enumerate(text.split("\n")[:-1], start=1):  # the rest: unfinished
        try:
            if line.strip():
                records.append(TerminationRecord.from_dict(load_json(line, what="it")))
        except SchemaError as error:
            said = f"cannot read records from {str(path)!r}: line {number}: {error}"
            raise UnsolvableError(said) from None
        except ValueError as error:
            raise UnsolvableError(
                f"cannot read records from {str(path)!r}: line {number}: {error}; {fix}"
            ) from None
    return _Records(records, interrupted=True)


def _records(args: argparse.Namespace) -> _Records:
    """What ``report`` reads, or the whole run ``merge`` makes of its parts (never interrupted:
    `merge` refuses a shard that did not finish)."""
    if args.command == "merge":
        return _Records(merge([read_part(path) for path in args.parts]), interrupted=False)
    return _read_records(args.records)


def options_of(args: argparse.Namespace) -> ReportOptions:
    """The reports and the gate the command's flags ask for; a flag that tunes a gate given
    without ``--baseline`` is a usage error, as the run would go ungated with it said."""
    if args.baseline is None:
        for flag in GATE_FLAGS:
            value = vars(args)[flag.key]
            if value is not None and value is not False:  # a margin of 0 is given too
                raise BaselineError(f"--{flag.name} tunes a baseline gate: add --baseline PATH")
    return report_options(vars(args), volatile=args.volatile)


def run_report(args: argparse.Namespace) -> int:
    """Exit status as for ``unsolvable run``: 1 when a record's verdict failed (as judged when
    it was made) or the baseline gate found a regression, so a CI step that reports on records
    made elsewhere fails where the run would have. Records of an interrupted session are
    reported as that session reported them: marked, with no gate and no new baseline, and
    `INTERRUPTED_STATUS`, so that a gate that gated nothing never passes."""
    options = options_of(args)
    baseline = check_baseline(options)  # read once, now
    check_outputs(options, inputs=args.parts if args.command == "merge" else [args.records])
    records, interrupted = _records(args)
    try:
        published = publish(records, options, baseline=baseline, interrupted=interrupted)
    except OutputError as error:  # a full disk at the end: as `unsolvable run` says it
        print(summary_line(records))
        print(f"unsolvable: error: {error}", file=sys.stderr)
        return UNWRITTEN_STATUS
    print(format_metrics(published.metrics) + "\n")
    print(summary_line(records))
    print(pass_k_line(published.metrics))
    for note in published.notes:
        print(note)
    if interrupted:
        print(f"unsolvable: {INTERRUPTED}")
        return INTERRUPTED_STATUS
    failed = any(not record.verdict.passed for record in records)
    return 1 if failed or not published.passed else 0
