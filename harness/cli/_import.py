"""Consumes ``unsolvable import TRACE --format F --name N``, produces a scenario file and says
what the importer removed from the trace and what it inferred (each of which the file lets a
person correct)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

__all__ = ["add_import_command", "run_import"]


def add_import_command(commands: Any) -> None:
    from unsolvable.imports._formats import FORMATS

    command = commands.add_parser(
        "import", help="turn a recorded run (a trace) into a scenario file that replays it"
    )
    command.add_argument(
        "trace",
        type=Path,
        metavar="TRACE",
        help="the recorded run: a file, or for --format "
        "openhands the conversation's persistence folder",
    )
    command.add_argument("--format", required=True, choices=FORMATS, help="the trace's format")
    command.add_argument(
        "--name",
        required=True,
        metavar="FAMILY/VARIANT",
        help="the scenario's name, e.g. incidents/publish-loop (a bare name "
        "goes in family 'imported')",
    )
    command.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="where to write the scenario file (default: NAME's variant.json)",
    )
    command.add_argument(
        "--force",
        action="store_true",
        help="replace an existing scenario file that differs from what this import writes "
        "(edited by hand, or made from another trace)",
    )
    command.add_argument(
        "--unrecorded",
        choices=("unknown", "refusal"),
        default="unknown",
        help="what a call the recording does not hold gets: an 'unknown call' "
        "error (default) or a refusal",
    )
    command.add_argument(
        "--unblock-with",
        metavar="TOOL=RESULT",
        help="also write a solvable twin: TOOL answers RESULT, which unblocks "
        "the run (how it should have gone)",
    )
    command.add_argument(
        "--first-stagnant-step",
        type=int,
        metavar="N",
        help="correct where the recorded run got stuck (1-based turn)",
    )
    command.add_argument("--task", help="the task, when the trace holds no user message")
    command.add_argument(
        "--record",
        type=int,
        metavar="I",
        help="--format record: which record of the file (0-based)",
    )


def _unblock(text: str | None) -> tuple[str, str] | None:
    from unsolvable.imports._trace import ImportFailed

    if text is None:
        return None
    tool, sep, result = text.partition("=")
    if not sep or not tool or not result:
        raise ImportFailed(
            f"--unblock-with {text!r}: write TOOL=RESULT, e.g. "
            '--unblock-with \'publish_report={"status": "published"}\''
        )
    return tool.strip(), result


def _check_not_the_trace(output: Path, trace: Path, *, given: bool) -> None:
    """The scenario file never replaces the trace it is made from: the recording of an incident
    is often the only one there is."""
    from unsolvable._errors import OutputError

    if output.resolve() != trace.resolve():
        return
    default = "" if given else " (the default, --name's variant)"
    raise OutputError(
        f"-o {str(output)!r}{default} is the trace being imported: the scenario file would "
        "replace the recording; give it another path with -o FILE"
    )


def _check_not_edited(output: Path, text: str, *, force: bool) -> None:
    """An existing scenario file is replaced only by the same text, or when ``force`` says so:
    the docs have a person correct the file the import wrote (its step bound, its script), and
    importing again would lose those edits without a word."""
    from unsolvable._errors import OutputError

    if force or not output.is_file():
        return
    try:
        if output.read_text(encoding="utf-8") == text:
            return
    except (OSError, UnicodeDecodeError):
        pass  # unreadable as this import's text: it differs
    raise OutputError(
        f"-o {str(output)!r} already holds a scenario file that differs from what this import "
        "writes (edited since, or made from another trace): give the import another path with "
        "-o FILE, or pass --force to replace it"
    )


def _check_not_built_in(given: str, name: str, data: Any) -> None:
    """A file whose scenario or twin has a built-in's name is refused whenever it is read, so
    the import refuses to write it."""
    from unsolvable.imports._library import built_in_owners, claim
    from unsolvable.imports._replay import build
    from unsolvable.imports._schema import parse
    from unsolvable.imports._trace import ImportFailed

    owners = built_in_owners()
    taken = claim(owners, build(parse(data)), f"--name {given!r}")
    if taken is not None:
        raise ImportFailed(
            f"--name {given!r}: the scenario {taken.name!r} is already taken by "
            f"{owners[taken.name]}; give another --name, e.g. incidents/{name.split('/')[1]}"
        )


def run_import(args: argparse.Namespace) -> int:
    from unsolvable._scenario import check_name
    from unsolvable._writable import check_writable, file_path
    from unsolvable.imports._formats import read_trace
    from unsolvable.imports._importer import import_trace
    from unsolvable.imports._trace import ImportFailed
    from unsolvable.reports._files import write_file

    name = check_name(args.name if "/" in args.name else f"imported/{args.name}")
    variant = f"{name.split('/', 1)[1]}.json"
    given = args.output
    output = Path(variant) if given is None else file_path(given, flag="-o", example=variant)
    _check_not_the_trace(output, args.trace, given=args.output is not None)
    check_writable(output, flag="-o")
    if args.first_stagnant_step is not None and args.first_stagnant_step < 1:
        raise ImportFailed("--first-stagnant-step must be 1 or more")
    trace = read_trace(args.trace, args.format, record=args.record)
    imported = import_trace(
        trace,
        name=name,
        source=str(args.trace),
        format=args.format,
        unrecorded=args.unrecorded,
        unblock=_unblock(args.unblock_with),
        first_stagnant_step=args.first_stagnant_step,
        task=args.task,
    )
    _check_not_built_in(args.name, name, imported.data)
    text = json.dumps(imported.data, indent=2, allow_nan=False) + "\n"
    _check_not_edited(output, text, force=args.force)
    write_file(output, text)
    print(f"unsolvable: wrote {output} ({name})")
    for line in imported.removed:
        print(f"  removed:  {line}")
    for line in imported.inferred:
        print(f"  inferred: {line}")
    for line in imported.merged:
        print(f"  merged:   {line}")
    print(f"  run it with: unsolvable run --scenario-file {output}")
    return 0
