"""Consumes a trace path and its format's name, produces the `Trace` that format's reader makes,
the file's headers and credentials dropped before any reader sees it; a file that is not in the
format's shape is an `ImportFailed` naming the format, never a Python error."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from unsolvable._errors import InputError, UnsolvableError
from unsolvable._input import load_json, read_input
from unsolvable.imports._shapes import Malformed, NotThisFormat
from unsolvable.imports._trace import ImportFailed, Trace

__all__ = ["FORMATS", "read_trace"]

FORMATS = ("atif", "openhands", "record", "openai-chat", "anthropic-messages")
"""Each format `unsolvable import --format` reads. Their readers are imported when a trace is
read, so that the command line, which lists the formats, starts without them."""


def read_trace(path: Path, format: str, *, record: int | None = None) -> Trace:
    """The run recorded at ``path``; ``record`` picks one run of a records file."""
    if format not in FORMATS:
        raise ImportFailed(f"unknown format {format!r}; use one of {', '.join(FORMATS)}")
    try:
        return _trace(path, format, record)
    except UnsolvableError:
        raise
    except NotThisFormat as error:
        raise ImportFailed(
            f"{str(path)!r} is not {error.what} (--format {format}): {error.fix}; or pass the "
            "--format it is written in"
        ) from None
    except (Malformed, AttributeError, KeyError, TypeError, ValueError) as error:
        # A reader meets the user's file as it is: a field of another shape than the format's
        # is the file's fault, said as a usage error, never a traceback.
        raise ImportFailed(
            f"{str(path)!r} is not a valid --format {format} trace: {_what(error)}; correct the "
            "file there, or pass the --format it is written in"
        ) from None


def _what(error: Exception) -> str:
    """What a reader met, as a person fixing the file needs it said."""
    if isinstance(error, Malformed):
        return str(error)
    if isinstance(error, KeyError):
        return f"a field it needs, {error.args[0]!r}, is missing"
    return f"a field has another shape than the format gives it ({type(error).__name__}: {error})"


def _trace(path: Path, format: str, record: int | None) -> Trace:
    """The trace ``format``'s reader makes of ``path``, headers and credentials dropped."""
    if format == "openhands":
        if not path.is_dir():
            raise ImportFailed(
                f"{str(path)!r} is not a folder: --format openhands reads a conversation's "
                "persistence folder (events/event-*.json)"
            )
        from unsolvable.imports._openhands import read_openhands

        return read_openhands(path)
    try:
        raw = load_json(read_input(path), what=repr(str(path)))
    except InputError as error:
        raise ImportFailed(f"{error}; --format {format} reads a JSON file") from None
    from unsolvable.imports._importer import strip_headers

    data, removed = strip_headers(raw)
    trace = _read(format, path, data, record)
    if removed:
        note = f"headers and credentials at {', '.join(removed)}"
        trace = dataclasses.replace(trace, removed=(note, *trace.removed))
    return trace


def _read(format: str, path: Path, data: Any, record: int | None) -> Trace:
    """The trace a JSON file's ``data`` holds, read by ``format``'s reader."""
    if format == "record":
        from unsolvable.imports._records import read_records

        return read_records(path, index=record, data=data)
    if format == "atif":
        from unsolvable.imports._atif import read_atif

        return read_atif(path, data)
    if format == "openai-chat":
        from unsolvable.imports._openai_chat import read_openai_chat

        return read_openai_chat(path, data)
    from unsolvable.imports._anthropic_messages import read_anthropic_messages

    return read_anthropic_messages(path, data)
