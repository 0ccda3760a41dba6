"""Consumes the command line, produces the command it names (``run``, ``report``, ``merge``,
``list``, ``show``, ``import``) and its exit status.

Exit status: 0 when every verdict passes, 1 when any fails or the baseline gate finds a
regression, 2 for a usage error, 3 when a report could not be written at the end (a full disk),
130 when interrupted (SIGINT, SIGTERM or SIGHUP).
"""

from __future__ import annotations

import argparse
import errno
import os
import shlex
import sys
from collections.abc import Sequence

from unsolvable._errors import UnsolvableError
from unsolvable._interrupts import InterruptCatcher, interrupting_signal
from unsolvable._remote import EXEC_PREFIX
from unsolvable.cli._report import INTERRUPTED_STATUS, add_report_commands, run_report
from unsolvable.cli._run import add_run_command, run_scenarios
from unsolvable.cli._scenarios import (
    add_scenario_commands,
    library_of,
    list_scenarios,
    show_scenario,
)

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="unsolvable", description="Run unsolvable tasks against an agent's stop logic."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    add_run_command(commands)
    add_report_commands(commands)
    add_scenario_commands(commands)
    from unsolvable.cli._import import add_import_command

    add_import_command(commands)
    return parser


def _command(args: argparse.Namespace) -> int:
    if args.command == "run":
        return run_scenarios(args)
    if args.command in ("report", "merge"):
        return run_report(args)
    if args.command == "list":
        return list_scenarios(library_of(args), as_json=args.json, as_markdown=args.markdown)
    if args.command == "import":
        from unsolvable.cli._import import run_import

        return run_import(args)
    return show_scenario(args.name, library_of(args))


def _reader_left(args: argparse.Namespace) -> int:
    """``unsolvable list | head``: the reader closed the pipe (``EPIPE``), or the terminal
    hung up (``EIO``; a run writes its reports before its first print). Exit quietly, with
    stdout pointed at devnull so the interpreter's last flush raises nothing either; 0 for the
    listings, 1 for a run or report whose verdicts were not all shown."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 0 if args.command in ("list", "show") else 1


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line, as ``parse_args`` reads it; words left over after an ``exec:`` agent
    are its command line split by the shell, which the error says how to quote."""
    parser = _parser()
    args, extra = parser.parse_known_args(argv)
    if not extra:
        return args
    message = f"unrecognized arguments: {' '.join(extra)}"
    specs = [spec for spec in getattr(args, "agent", None) or () if spec.startswith(EXEC_PREFIX)]
    if specs:
        whole = shlex.quote(" ".join([specs[-1], *extra]))
        message += (
            f"; an exec: agent's command line is one argument, so quote it whole: --agent {whole}"
        )
    parser.error(message)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse(argv)
    try:
        with InterruptCatcher():  # SIGTERM and SIGHUP end a command as Ctrl-C does
            return _command(args)
    except UnsolvableError as error:
        print(f"unsolvable: error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        if error.errno not in (errno.EPIPE, errno.EIO):
            raise
        return _reader_left(args)
    except KeyboardInterrupt as interrupt:  # before or after the runs: nothing to keep
        print(f"unsolvable: interrupted ({interrupting_signal(interrupt)})", file=sys.stderr)
        return INTERRUPTED_STATUS
