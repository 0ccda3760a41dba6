"""Consumes a run to make, produces the job a worker process is sent and the messages it sends
back, each written as one line of JSON and read back checked: nothing a worker (or an agent
inside it) writes is taken as a record before it is known to answer the job asked.

A message names the worker's pid and the job's index. The harness reads every byte of the
channel but trusts none of it: a message that is not JSON, is nested too deeply, is too long,
comes from another process or answers another job is a `MessageError`, which the harness records
as the crash of the job it was waiting for.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from unsolvable._scenario import Ceilings, Scenario

__all__ = [
    "ABANDONED",
    "ENDED",
    "FAILED",
    "FINISHED",
    "KINDS",
    "LOADED",
    "MESSAGE_LIMIT",
    "Job",
    "Lookup",
    "MessageError",
    "decode",
    "encode",
]

LOADED, ENDED, FINISHED, ABANDONED, FAILED = "loaded", "ended", "finished", "abandoned", "failed"
"""What a worker says about the job it runs: its agent is imported (the run's clock starts), the
run is over and its record is being built, the run ended and here is its record, here is its
record and the worker exits (the agent would not unwind, and the record is the run so far, or
the run left the worker no descriptor to open), or the worker's own work around the run
raised."""
KINDS = frozenset({LOADED, ENDED, FINISHED, ABANDONED, FAILED})
MESSAGE_LIMIT = 512 * 1024 * 1024
"""Bytes a message may take: a record of 10,000 steps, every text at its cut, is a few tens of
megabytes; a line that grows past this is not a record."""

Lookup = Callable[[str], Scenario]
"""Finds a scenario by name; a module-level function (such as ``scenarios.get``) so it pickles."""


@dataclass(frozen=True, kw_only=True)
class Job:
    """One run to make."""

    agent: str
    """An agent spec: ``naive``, ``contract`` or ``module:attr``."""
    scenario: str
    seed: int
    strict: bool = False
    ceilings: Ceilings = field(default_factory=Ceilings)
    overrides: tuple[tuple[str, int | float], ...] = ()
    """Step bound and budget fields replaced for this run (what `unsolvable.run` takes)."""
    isolate_network: bool = False
    """Run an ``exec:`` agent with loopback only (`load_agent`)."""


class MessageError(ValueError):
    """What a worker wrote is not a message about the job the harness waits for."""


def encode(pid: int, index: int, kind: str, **fields: Any) -> bytes:
    """One message as a line: no raw newline can be inside JSON text, and ``NaN`` is refused
    rather than written."""
    message = {"pid": pid, "job": index, "kind": kind, **fields}
    return json.dumps(message, allow_nan=False, separators=(",", ":")).encode() + b"\n"


def _refuse_constant(name: str) -> Any:
    raise MessageError(f"it holds {name}, which is not a JSON number")


def decode(line: bytes, *, pid: int, index: int) -> Mapping[str, Any]:
    """The message ``line`` holds, checked to come from worker ``pid`` about job ``index``."""
    try:
        message = json.loads(line, parse_constant=_refuse_constant)
    except RecursionError:
        raise MessageError("nested too deeply to be a record") from None
    except ValueError as error:  # a JSONDecodeError or a UnicodeDecodeError
        raise MessageError(f"not JSON ({error})") from None
    if not isinstance(message, dict) or message.get("kind") not in KINDS:
        raise MessageError(f"not a message of the worker's ({bytes(line[:80])!r})")
    if message.get("pid") != pid:
        raise MessageError(f"written by process {message.get('pid')!r}, not the worker ({pid})")
    if message.get("job") != index:
        raise MessageError(f"about job {message.get('job')!r}, not the job it runs ({index})")
    return message
