"""Consumes what an agent reported and what the harness observed, produces a `TerminationRecord`.

The record keeps the two apart on purpose: an agent that *says* it finished is only believed
when the harness re-reads the world and agrees.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from unsolvable._errors import SchemaError
from unsolvable._frozen import freeze
from unsolvable._observed import AgentTally, Observed, ToolTrace, TraceStep
from unsolvable._redact import Clean, kept
from unsolvable._rules import Failure, Rule, Verdict
from unsolvable._stop import Code, Exit, Outcome, Stop
from unsolvable._text import plain_partial
from unsolvable._unseen import as_version_6

__all__ = [
    "SCHEMA_VERSION",
    "AgentTally",
    "Code",
    "Ending",
    "Exit",
    "Failure",
    "Observed",
    "Outcome",
    "Rule",
    "Stop",
    "TerminationRecord",
    "ToolTrace",
    "TraceStep",
    "Verdict",
    "check_file_schema",
    "check_schema",
    "kept_stop",
]

SCHEMA_VERSION = 6
"""Bumped whenever the snapshot form changes shape; old snapshots must then be regenerated.
2: verdict failures carry their rule; refused calls are counted by kind (``refusals``).
3: the agent's fixed prompt per call is recorded and not charged to the token budget
(``overhead_tokens``, ``uncharged_tokens``).
4: a solvable control has no first stagnant step and no lag (``null``); lag in tokens and
dollars is signed like lag in steps; budget-spent runs stagnate at the step that spent the
budget; seconds waited on the session clock (``slept_seconds``).
5: a crash keeps the agent's own traceback (``traceback``; records of version 4 read back
without one); the evidence of stagnation (``evidence_step``), the step a control's world became
complete (``completed_at_step``), whether a tool result was read (``read_a_result``), the next
step's estimated spend and the overshoot past the budget (``next_step_tokens``,
``next_step_cost_usd``, ``overshoot_tokens``, ``overshoot_cost_usd``), the first call made after
the agent returned (``late_call``); the harness's own tools never move the first stagnant step,
and N counts from the end of a seed's lead; the budget's idle time and external calls
(``max_idle_seconds``, ``max_calls``); what the session clock, the call, time and dollar budgets
and irreversible actions observed (``tool_seconds``, ``idle_seconds``, ``external_calls``,
``calls_past_budget``, ``steps_past_time_budget``, ``unaffordable_steps``,
``irreversible_calls``); who did what in a multi-agent run: each step names its agent
(``agent``), spend per agent (``agents``), the subtask table (``subtasks``), steps begun past the
dollar budget, steps by role and past a role's budget, the roles whose budget was spent.
6: a run whose worker was lost has only what the harness counted itself, and the stagnant step
and the lag as they stood after its last call; what else its worker counted is ``null`` there,
not a made-up 0, 1 or false (the fields of `Observed` that may be ``None``). A lost run recorded
before the worker showed the harness the stagnant step as the run went has those ``null`` too,
as a run lost before its first step still has."""
OLDEST_READ_SCHEMA = 4
"""The oldest records read back: version 4 reads as 6 without what 5 added, and version 5 as 6,
the zeros it wrote of a lost run's unknown figures as null (`as_version_6`); before 4 a control
had a lag and lag in tokens and dollars was unsigned, so their numbers would not be this
version's."""


@dataclass(frozen=True, kw_only=True)
class Ending:
    """How a run ended, before it is judged: what `judge` reads."""

    outcome: Outcome
    reported: Stop | None
    observed: Observed
    returned: str | None = None


@dataclass(frozen=True, kw_only=True)
class TerminationRecord:
    """The output of one run: scenario × seed × agent."""

    scenario: str
    family: str
    seed: int
    agent: str
    outcome: Outcome
    reported: Stop | None
    """The agent's structured exit; ``None`` unless ``outcome`` is ``stopped``."""
    observed: Observed
    step_bound: int
    """N: the scenario's bound on the stopped step."""
    solvable: bool = False
    """A solvable control: any exit but ``complete`` is a false stop (metrics read this)."""
    budget: dict[str, float | int | None]
    """The budget the agent was given: ``max_steps``, ``max_tokens``, ``max_wall_seconds``,
    ``max_idle_seconds``, ``max_cost_usd`` and ``max_calls``, each ``None`` where it sets none."""
    verdict: Verdict
    returned: str | None = None
    """For ``unstructured``: a repr of what the agent returned."""
    output: str = ""
    """The end of the agent's own stdout and stderr, kept when the run failed (worker processes
    capture it, so that it never lands in the middle of the harness's table)."""
    wall_seconds: float = field(default=0.0, compare=False)
    """Volatile: written only by ``--volatile`` (``to_dict(volatile=True)``); the stable form,
    which ``--json`` and snapshots write, leaves it out."""
    schema_version: int = SCHEMA_VERSION

    def __post_init__(self) -> None:
        """The stop becomes the one a record keeps (`kept_stop`): its partial plain, bounded
        data, so every written form can hold it, and it and the budget copies that refuse every
        change (`freeze`), so a test that edits the record it was handed edits no report. A bound N
        below one step is refused: every metric of the record is read against it (a records file
        edited by hand, say); so is a schema this version does not read (`OLDEST_READ_SCHEMA`),
        whose numbers would be counted by other rules."""
        if self.step_bound < 1:
            raise ValueError(f"step_bound is {self.step_bound}: a scenario's N is 1 step or more")
        check_schema(self.schema_version)
        object.__setattr__(self, "budget", freeze(self.budget))
        if self.reported is not None:
            object.__setattr__(self, "reported", kept_stop(self.reported))

    @property
    def exit(self) -> Exit | None:
        return self.reported.exit if self.reported else None

    @property
    def code(self) -> Code | None:
        return self.reported.code if self.reported else None

    def to_dict(self, *, volatile: bool = False, clean: Clean = kept) -> dict[str, Any]:
        """Plain JSON-able data; ``volatile=False`` gives the stable snapshot form. ``clean``, when
        given, rewrites every string in it but the record's own field names: a redaction made in
        the same walk (`unsolvable._run.redacted_data`)."""
        data: dict[str, Any] = _plain(self, clean)
        data["observed"].update({key: getattr(self.observed, key) for key in Observed.DERIVED})
        if not volatile:
            del data["wall_seconds"]
        return data

    def to_json(self, *, volatile: bool = False) -> str:
        """Stable JSON (sorted keys): the same run gives the same bytes."""
        return json.dumps(
            self.to_dict(volatile=volatile), sort_keys=True, indent=2, allow_nan=False
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, clean: Clean = kept) -> TerminationRecord:
        """The record that `to_dict` made ``data`` from (what xdist workers, worker processes
        and ``--json`` files carry), every field checked against its type: a `ValueError` names
        the first that is not what a record holds. Derived keys such as ``detection_lag`` are
        dropped; a version 5 lost run reads as version 6 writes one (`as_version_6`). ``clean``,
        when given, rewrites every string in it but the record's own field names and enum
        members as it is read: a redaction made in the same walk (`unsolvable._judged`)."""
        from unsolvable._record_data import build

        return build(cls, as_version_6(data), clean=clean)


def kept_stop(stop: Stop) -> Stop:
    """``stop`` as a record keeps it and the verdict judges it: a `Stop` made again from its
    fields, checked as a new one is, its partial plain, bounded data that refuses every change
    (`plain_partial`, `freeze`). What an agent returns may be a subclass, or a stop changed
    after it was made (``object.__setattr__`` passes ``frozen``): judged as it was, a code of
    ``COMPLETED`` under an exit of ``abandoned`` passed as an honest stop, and a partial whose
    ``==`` answered no to every empty value passed as results, while the record showed it
    empty."""
    return Stop(
        code=stop.code,
        exit=stop.exit,
        reason=stop.reason,
        partial=freeze(plain_partial(stop.partial)),
        missing=stop.missing,
    )


def check_schema(version: int) -> None:
    """A `SchemaError` unless this harness reads records of schema ``version``: a record's own,
    or that of the file that holds records (one of none says which version wrote it)."""
    if not OLDEST_READ_SCHEMA <= version <= SCHEMA_VERSION:
        raise SchemaError(_unread_schema(version))


def check_file_schema(data: Mapping[str, Any]) -> None:
    """The schema version of a file of records, read as its records' are: a file of no records
    says by it alone which version wrote it (left out, it is read as this version's, as a
    record's is). A `ValueError` unless it is a whole number, a `SchemaError` unless it is read."""
    version = data.get("schema_version", SCHEMA_VERSION)
    if not isinstance(version, int) or isinstance(version, bool):
        raise ValueError(f'its "schema_version" is {version!r}, not a whole number')
    check_schema(version)


def _unread_schema(version: int) -> str:
    """Why a record of another schema is refused, and what to do: a record's every number is
    read by its own version's rules (`SCHEMA_VERSION`)."""
    fix = (
        "a newer pytest-unsolvable wrote it: upgrade pytest-unsolvable to read it"
        if version > SCHEMA_VERSION
        else "an older pytest-unsolvable wrote it: run again to make the records anew"
    )
    readable = f"{OLDEST_READ_SCHEMA} to {SCHEMA_VERSION}"
    return f"schema_version is {version}, and this harness reads {readable}; {fix}"


def _plain(value: Any, clean: Clean) -> Any:
    """What `asdict` makes of ``value``, every sequence a list and every string but a field name
    passed through ``clean``. A record holds plain data only (`plain_partial`, JSON text, the
    world's values), so its numbers, booleans, ``None`` and enum members are kept as they are and
    every container is made anew: nothing in the result is shared with the record."""
    if isinstance(value, Enum):
        return value
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, list | tuple):
        return [_plain(item, clean) for item in value]
    if isinstance(value, dict):
        return {clean(key): _plain(item, clean) for key, item in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {name: _plain(getattr(value, name), clean) for name in _field_names(type(value))}
    return value


@functools.cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))
