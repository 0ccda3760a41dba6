"""Consumes a trace path and its format's name, produces the `Trace` that format's reader makes,
the file's headers and credentials dropped before any reader sees it."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

from unsolvable._errors import InputError
from unsolvable._input import load_json, read_input
from unsolvable.imports._anthropic_messages import read_anthropic_messages
from unsolvable.imports._atif import read_atif
from unsolvable.imports._importer import strip_headers
from unsolvable.imports._openai_chat import read_openai_chat
from unsolvable.imports._openhands import read_openhands
from unsolvable.imports._records import read_records
from unsolvable.imports._trace import ImportFailed, Trace

__all__ = ["FORMATS", "read_trace"]

Reader = Callable[[Path, Any], Trace]
FORMATS: dict[str, Reader] = {
    "atif": read_atif,
    "openhands": read_openhands,
    "record": lambda path, data: read_records(path, data=data),
    "openai-chat": read_openai_chat,
    "anthropic-messages": read_anthropic_messages,
}
"""Each format `unsolvable import --format` reads, and its reader."""


def read_trace(path: Path, format: str, *, record: int | None = None) -> Trace:
    """The run recorded at ``path``; ``record`` picks one run of a records file."""
    if format not in FORMATS:
        raise ImportFailed(f"unknown format {format!r}; use one of {', '.join(FORMATS)}")
    if format == "openhands":
        if not path.is_dir():
            raise ImportFailed(
                f"{str(path)!r} is not a folder: --format openhands reads a conversation's "
                "persistence folder (events/event-*.json)"
            )
        return read_openhands(path)
    try:
        raw = load_json(read_input(path), what=repr(str(path)))
    except InputError as error:
        raise ImportFailed(f"{error}; --format {format} reads a JSON file") from None
    data, removed = strip_headers(raw)
    if format == "record":
        trace = read_records(path, index=record, data=data)
    else:
        trace = FORMATS[format](path, data)
    if removed:
        note = f"headers and credentials at {', '.join(removed)}"
        trace = dataclasses.replace(trace, removed=(note, *trace.removed))
    return trace
