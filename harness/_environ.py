"""Consumes the harness's environment, produces the part of it a child process is given: an
``exec:`` agent, the MCP server.

A CI job's environment holds its credentials (``GITHUB_TOKEN``, cloud keys); the agent under test
has no business with them. A child is given only what a program needs to start and find its
tools — `ALLOWED`, the locale's ``LC_*`` — plus what its caller adds (the run's variables, the
scenario's), plus the names listed in ``UNSOLVABLE_PASS_ENV`` or given as ``pass_env``; and the
frameworks' exports of a run to their vendor turned off (`TELEMETRY_OFF`), unless a variable
passed on says otherwise.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable, Mapping

__all__ = ["ALLOWED", "CREWAI_TELEMETRY_OFF", "PASS_ENV", "TELEMETRY_OFF", "child_environ"]

ALLOWED = frozenset(
    {
        "HOME",
        "LANG",
        "LANGUAGE",
        "LOGNAME",
        "PATH",
        "PYTHONPATH",
        "SHELL",
        "TEMP",
        "TERM",
        "TMP",
        "TMPDIR",
        "TZ",
        "USER",
        "VIRTUAL_ENV",
    }
)
"""What finds programs, libraries, a home, a temporary folder and the time zone."""
CREWAI_TELEMETRY_OFF = {
    "CREWAI_DISABLE_TELEMETRY": "true",
    "CREWAI_DISABLE_TRACKING": "true",
    "CREWAI_TRACING_ENABLED": "false",
}
"""What CrewAI reads (``crewai_core.telemetry``, ``crewai.execution``) to send nothing home. Not
``OTEL_SDK_DISABLED``, which CrewAI reads too: the OpenTelemetry SDK would then record nothing for
any tracer provider of the process, the user's own tracing of its agents included."""
TELEMETRY_OFF = {**CREWAI_TELEMETRY_OFF, "OPENAI_AGENTS_DISABLE_TRACING": "1"}
"""What a child is given so that no framework sends the run home: CrewAI's telemetry, and the
OpenAI Agents SDK's traces (Python and TypeScript read the same variable), which it posts to a
fixed address of OpenAI's that no base URL moves, the tools' arguments and results among them,
and which the in-process adapters turn off too."""
LOCALE_PREFIX = "LC_"
PASS_ENV = "UNSOLVABLE_PASS_ENV"
"""Names (or ``fnmatch`` patterns) of more variables to pass on, separated by spaces or commas:
``UNSOLVABLE_PASS_ENV='NODE_OPTIONS MY_AGENT_*'``."""


def _passed(environ: Mapping[str, str], extra: Iterable[str]) -> list[str]:
    return [*environ.get(PASS_ENV, "").replace(",", " ").split(), *extra]


def child_environ(
    environ: Mapping[str, str] | None = None, *, pass_env: Iterable[str] = ()
) -> dict[str, str]:
    """The variables of ``environ`` (the process's own by default) a child is given: `ALLOWED`,
    the locale's, and those `PASS_ENV` or ``pass_env`` name, over `TELEMETRY_OFF`."""
    environ = os.environ if environ is None else environ
    patterns = _passed(environ, pass_env)
    return TELEMETRY_OFF | {
        name: value
        for name, value in environ.items()
        if name in ALLOWED
        or name.startswith(LOCALE_PREFIX)
        or any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)
    }
