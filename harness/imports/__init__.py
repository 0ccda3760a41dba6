"""Scenario files and the importer: a recorded run (ATIF, an OpenHands event log, the harness's
own records, an OpenAI or Anthropic transcript) becomes a replayed scenario that the engine runs
like a built-in one. Names load on first use, so the plugin stays cheap to import."""

from __future__ import annotations

from typing import TYPE_CHECKING

from unsolvable._lazy import lazy_getattr

if TYPE_CHECKING:
    from unsolvable.imports._formats import FORMATS, read_trace
    from unsolvable.imports._importer import Imported, import_trace
    from unsolvable.imports._library import ScenarioLibrary, scenario_files
    from unsolvable.imports._replay import build
    from unsolvable.imports._scenario_file import SCHEMA, ScenarioFile, ScenarioFileError
    from unsolvable.imports._schema import parse, read
    from unsolvable.imports._trace import ImportFailed

__all__ = [
    "FORMATS",
    "SCHEMA",
    "ImportFailed",
    "Imported",
    "ScenarioFile",
    "ScenarioFileError",
    "ScenarioLibrary",
    "build",
    "import_trace",
    "parse",
    "read",
    "read_trace",
    "scenario_files",
]

_HOMES = {
    "FORMATS": "unsolvable.imports._formats",
    "read_trace": "unsolvable.imports._formats",
    "ImportFailed": "unsolvable.imports._trace",
    "Imported": "unsolvable.imports._importer",
    "import_trace": "unsolvable.imports._importer",
    "ScenarioLibrary": "unsolvable.imports._library",
    "scenario_files": "unsolvable.imports._library",
    "build": "unsolvable.imports._replay",
    "SCHEMA": "unsolvable.imports._scenario_file",
    "ScenarioFile": "unsolvable.imports._scenario_file",
    "ScenarioFileError": "unsolvable.imports._scenario_file",
    "parse": "unsolvable.imports._schema",
    "read": "unsolvable.imports._schema",
}

__getattr__ = lazy_getattr(globals(), _HOMES)
