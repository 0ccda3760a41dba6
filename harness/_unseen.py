"""What only a run's worker counts of it, from its calls' answers and its clock, which the
harness lacks when it loses the worker: the fields of `Observed` that read null on a lost run,
and a version 5 record of a lost run, which wrote them as 0, 1 or false, read as version 6
writes it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = ["WORKER_COUNTED", "as_version_6"]

WORKER_COUNTED = (
    "transport_attempts",
    "max_repeated_action",
    "distinct_world_states",
    "world_complete",
    "read_a_result",
    "overhead_tokens",
    "steps_past_token_budget",
    "next_step_tokens",
    "next_step_cost_usd",
    "final_answer_calls",
    "slept_seconds",
    "tool_seconds",
    "idle_seconds",
    "external_calls",
    "calls_past_budget",
    "steps_past_time_budget",
    "unaffordable_steps",
    "irreversible_calls",
    "refusals",
    "steps_by_agent",
    "agents",
    "subtasks",
    "steps_past_cost_budget",
    "steps_by_role",
    "steps_past_role_budget",
    "roles_spent",
)
"""The figures of `Observed` only a worker counts: ``None`` on a run whose worker was lost."""
NO_LAG = ("first_stagnant_step", "lag_tokens", "lag_cost_usd")
"""Version 5 kept no stagnant step a lost run's worker showed the harness; its first lost runs
made one up, at step 1, that no one saw."""
VERSION_5 = 5
LOST_CRASH = re.compile(
    r"the worker process (exited with status (-?\d+|None)|was killed by SIG[A-Z0-9]+) during the "
    r"run|the worker failed around the run: .*|the worker's message about this run could not be "
    r"read \(.*",
    re.DOTALL,
)
"""The errors version 5 gave a crashed run whose worker it lost: each in the harness's own words,
never the ``Type: message`` of an exception the agent raised."""
LOST_WALL = "the agent held the interpreter past the wall ceiling; its worker was killed"
"""The error version 5 gave a run whose worker it killed at the wall ceiling."""
WRITTEN = {"max_repeated_action": 0, "distinct_world_states": 1, "world_complete": False}
"""What version 5 wrote of a lost run where its record has no default."""


def _as_written(observed: Mapping[str, Any]) -> bool:
    """The figures are those version 5 gave a lost run, of the same type (``1 == True``)."""
    return all(
        type(observed.get(name)) is type(value) and observed.get(name) == value
        for name, value in WRITTEN.items()
    )


def _lost_in_version_5(data: Mapping[str, Any]) -> bool:
    """A version 5 record is a lost run's beyond doubt when it is what version 5 wrote of one:
    no stop reported, no step and no traceback kept, and its error in the harness's words for a
    lost worker. A run that ended in its worker has none of these: a crash there keeps the
    agent's traceback (or says the harness could not read what it returned), and a run ended at a
    ceiling has no error."""
    observed = data.get("observed")
    if data.get("schema_version") != VERSION_5 or not isinstance(observed, Mapping):
        return False
    error = observed.get("error")
    said = isinstance(error, str) and (
        (data.get("outcome") == "crashed" and LOST_CRASH.fullmatch(error) is not None)
        or (data.get("outcome") == "did_not_stop" and error == LOST_WALL)
    )
    unseen = not (observed.get("traceback") or observed.get("trajectory") or observed.get("tail"))
    return said and unseen and data.get("reported") is None and _as_written(observed)


def as_version_6(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """``data`` as version 6 reads it: a version 5 lost run's worker-counted figures and made-up
    stagnant step ``None``, as version 6 writes them; any other record as it is."""
    if not _lost_in_version_5(data):
        return data
    unknown = dict.fromkeys((*WORKER_COUNTED, *NO_LAG))
    return {**data, "observed": {**data["observed"], **unknown}}
