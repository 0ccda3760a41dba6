"""Scenario files and the importer: a recorded run (ATIF, an OpenHands event log, the harness's
own records, an OpenAI or Anthropic transcript) becomes a replayed scenario that the engine runs
like a built-in one (issue 13). Names load on first use, so the plugin stays cheap to import."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness._lazy import lazy_getattr

if TYPE_CHECKING:
    from harness.imports._formats import FORMATS, read_trace
    from harness.imports._importer import Imported, import_trace
    from harness.imports._library import ScenarioLibrary, scenario_files
    from harness.imports._replay import build
    from harness.imports._schema import SCHEMA, ScenarioFile, ScenarioFileError, parse, read
    from harness.imports._trace import ImportFailed

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
    "FORMATS": "harness.imports._formats",
    "read_trace": "harness.imports._formats",
    "ImportFailed": "harness.imports._trace",
    "Imported": "harness.imports._importer",
    "import_trace": "harness.imports._importer",
    "ScenarioLibrary": "harness.imports._library",
    "scenario_files": "harness.imports._library",
    "build": "harness.imports._replay",
    "SCHEMA": "harness.imports._schema",
    "ScenarioFile": "harness.imports._schema",
    "ScenarioFileError": "harness.imports._schema",
    "parse": "harness.imports._schema",
    "read": "harness.imports._schema",
}

__getattr__ = lazy_getattr(globals(), _HOMES)
