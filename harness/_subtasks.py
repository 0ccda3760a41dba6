"""Consumes a multi-agent run's dispatches, model calls and tool results, produces its subtask
table: each delegated unit of work, who dispatched it, to whom, its dependencies and its state
over the run, as the harness observed it — never as an agent reports it.

A dispatch is a ``delegate`` call the model asked for; a subtask's worker is any agent but
``main`` whose conversation names it (`named_subtask`, the rule the scripted model follows too);
a dispatch has returned once its dispatcher's conversation holds the answer to that call. A
subtask succeeds when its own completion criteria hold in the world (or, with none declared,
when the whole task does); it fails when its attempt ended after a refused call; it is abandoned
when its attempt ended, or the run did, without either; it is skipped when it never started.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from unsolvable._delegated import (
    DECLARED,
    Dispatch,
    Subtask,
    SubtaskSpec,
    SubtaskState,
    Transition,
)
from unsolvable._errors import ScenarioError
from unsolvable._types import DELEGATE_TOOL, JSON, ToolResult, World

__all__ = [
    "SUBTASK_FIELD",
    "Dispatch",
    "Subtask",
    "SubtaskSpec",
    "SubtaskState",
    "SubtaskTable",
    "Transition",
    "named_subtask",
]

SUBTASK_FIELD = "subtask"
"""The argument of ``delegate`` that names the subtask (the same in every dialect)."""
SUPERVISOR = "main"
"""The agent that is never a worker: the system's own top-level agent."""


def named_subtask(messages: Iterable[Mapping[str, Any]], names: Iterable[str]) -> str | None:
    """The subtask a worker's conversation names, or ``None``: the one its texts give as a
    ``delegate`` call's argument (``"subtask": "<name>"``, as an agent that hands the worker its
    call's arguments writes it), else the longest name its texts contain (so ``S-1`` is not
    taken for ``S-10``, nor a dependency the arguments also name for the subtask). Only message
    texts are read, never tool-call arguments, so a supervisor's own calls do not make it a
    worker."""
    said = [str(message.get("content") or "") for message in messages]
    arguments = {name: f'"{SUBTASK_FIELD}": {json.dumps(name)}' for name in names}
    given = [n for n, argument in arguments.items() if any(argument in t for t in said)]
    found = given or [n for n in arguments if any(n in text for text in said)]
    return max(found, key=len) if found else None


@dataclass(kw_only=True)
class _Entry:
    """A subtask while the run goes on."""

    spec: SubtaskSpec
    state: SubtaskState = SubtaskState.PENDING
    why: str = DECLARED
    dispatched_by: list[str] = field(default_factory=list)
    workers: list[str] = field(default_factory=list)
    active: set[str] = field(default_factory=set)
    """Agents working on its current attempt."""
    returned: set[str] = field(default_factory=set)
    """Agents whose attempt ended: a further step of theirs, undispatched, is late."""
    dispatches: dict[str, Dispatch] = field(default_factory=dict)
    """By call id."""
    refusal: str | None = None
    """The last refusal of the current attempt, described."""
    blocker: str | None = None
    history: list[Transition] = field(default_factory=list)
    duplicate_starts: list[int] = field(default_factory=list)
    blocked_starts: list[int] = field(default_factory=list)
    late_steps: list[int] = field(default_factory=list)

    def move(self, step: int, state: SubtaskState, agent: str | None, why: str) -> None:
        self.state, self.why = state, why
        self.history.append(Transition(step=step, state=state, agent=agent, why=why))


class SubtaskTable:
    """Observes one run's delegation, step by step; `finish` gives the table.

    ``declared`` is the scenario's task graph (possibly empty); subtasks dispatched but not
    declared join it as they come, with no dependencies and no criteria of their own.
    """

    def __init__(
        self, declared: Sequence[SubtaskSpec], world: World, role_steps: Mapping[str, int]
    ) -> None:
        self._world = world
        self._caps = dict(role_steps)
        # Only a declared subtask has a role: a budget for any other role would never be counted.
        roles = sorted({spec.role for spec in declared if spec.role is not None})
        unknown = sorted(set(self._caps) - set(roles))
        if unknown:
            raise ScenarioError(
                f"role_steps gives {unknown} a budget, but no subtask of the task graph has that "
                f"role (its roles: {roles}): correct the name, or give a SubtaskSpec that role"
            )
        self.role_steps: dict[str, int] = {}
        """Steps each role took, its workers together."""
        self.past_role_budget: dict[str, int] = {}
        """Steps each role began with its own budget already spent."""
        self.role_spent_at: dict[str, int] = {}
        """The step during which each role's budget ran out."""
        self.last_success = 0
        """The step at which a subtask last succeeded, every dependency of it met when it
        started (0: none did): work finished, whichever worker finished it, dated when its
        criteria first held (`_held_at`)."""
        self._entries: dict[str, _Entry] = {}
        for spec in declared:
            entry = self._entries[spec.name] = _Entry(spec=spec)
            entry.move(0, SubtaskState.PENDING, None, DECLARED)
        self._world_seen = world.fingerprint()
        self._held_at: dict[str, int] = {}
        """The step at which each subtask's own criteria first held, whoever's call made them
        hold: the date of its work, which its success is credited at, so that a worker naming
        it later, after steps that moved nothing, does not make the run look busy until then."""
        self._note_held(0)
        self._working: dict[str, str] = {}
        """Agent → the subtask its conversation names."""
        self._named: dict[int, str] = {}
        """Step → the subtask named by the worker's conversation that made it: a tool call is
        the work of the conversation that asked for it, where one name runs several at once."""
        self._asked: dict[str, str] = {}
        """Open dispatch call id → subtask, for the dispatch's return."""

    def on_model_call(
        self, step: int, agent: str, messages: Sequence[JSON], calls: Sequence[JSON]
    ) -> None:
        """One model call: the dispatches it answers, the subtask its agent works on, and the
        dispatches it asks for (``calls``: the response's Chat Completions tool calls)."""
        if self._asked:
            self._returns(step, agent, messages)
        if agent != SUPERVISOR and self._entries:
            self._attribute(step, agent, messages)
            self._count_role(step, agent)
        for call in calls:
            function = call["function"]
            if function["name"] == DELEGATE_TOOL:
                self._dispatch(step, agent, call["id"], function["arguments"])

    def named_at(self, step: int) -> str | None:
        """The subtask the worker's conversation that made ``step`` names, if any."""
        return self._named.get(step)

    def _count_role(self, step: int, agent: str) -> None:
        entry = self._entries.get(self._working.get(agent, ""))
        role = entry.spec.role if entry is not None else None
        if role is None:
            return
        cap = self._caps.get(role)
        taken = self.role_steps.get(role, 0)
        if cap is not None and taken >= cap:
            self.past_role_budget[role] = self.past_role_budget.get(role, 0) + 1
        self.role_steps[role] = taken + 1
        if cap is not None and taken + 1 == cap:
            self.role_spent_at[role] = step

    def budget_spent_at(self, steps: int) -> int | None:
        """The step during which a role's own budget ran out, the first of them, when the run
        ended after ``steps``; for a role that stopped short of it, projected as if it took every
        step after the run's last — a role yet to take a step too, once a subtask of its could
        start (a floor, as the projected spend of tokens is)."""
        spent = []
        for role, cap in self._caps.items():
            taken = self.role_steps.get(role, 0)
            if role in self.role_spent_at:
                spent.append(self.role_spent_at[role])
            elif taken or self._could_start(role):
                spent.append(steps + cap - taken)
        return min(spent, default=None)

    def _could_start(self, role: str) -> bool:
        """Whether a subtask of ``role`` that has not succeeded has every dependency succeeded:
        its workers could take the next step."""
        return any(
            entry.spec.role == role
            and entry.state is not SubtaskState.SUCCEEDED
            and self._unmet(entry) is None
            for entry in self._entries.values()
        )

    def on_tool(
        self, step: int, agent: str, name: str, result: ToolResult, *, made_at: int, world: str
    ) -> None:
        """A tool call an agent made during step ``made_at``, asked for at ``step``, after which
        the world's fingerprint is ``world``: a refusal of the subtask that step's conversation
        names, or its criteria met; or, made after that conversation's delegation returned, work
        after its stop, as a model call then is."""
        if world != self._world_seen:  # criteria can only start to hold when the world changes
            self._world_seen = world
            self._note_held(step)
        asked_for = self._entries.get(self._named.get(step, ""))
        if asked_for is not None and agent in asked_for.returned - asked_for.active:
            if made_at not in asked_for.late_steps:
                asked_for.late_steps.append(made_at)
            return
        working = self._working.get(agent)
        entry = self._entries.get(self._named.get(step, working or "") if working else "")
        if entry is None:
            return
        if result.refusal is not None:
            entry.blocker = _blocker(result.text)
            named = f" ({entry.blocker})" if entry.blocker else ""
            entry.refusal = f"{name} was refused: {result.refusal}{named}"
        if entry.state is not SubtaskState.SUCCEEDED and self._holds(entry) is True:
            entry.move(step, SubtaskState.SUCCEEDED, agent, f"its criteria held after {name}")
            if not entry.blocked_starts:
                held = self._held_at.setdefault(entry.spec.name, step)
                self.last_success = max(self.last_success, held)

    def _note_held(self, step: int) -> None:
        """Dates, at ``step``, the criteria that hold now for the first time."""
        for subtask, entry in self._entries.items():
            if subtask not in self._held_at and self._holds(entry) is True:
                self._held_at[subtask] = step

    def finish(self, step: int, *, world_complete: bool) -> tuple[Subtask, ...]:
        """The table when the run ended at ``step``: no subtask is left pending or running."""
        for entry in self._entries.values():
            done = self._holds(entry)
            if (done is None and world_complete) or done is True:
                if entry.state is not SubtaskState.SUCCEEDED:
                    entry.move(step, SubtaskState.SUCCEEDED, None, "done when the run ended")
            elif entry.state is SubtaskState.RUNNING:
                self._end(step, entry, "the run ended while it was running")
        for entry in self._entries.values():
            if entry.state is SubtaskState.PENDING:
                why = self._unmet(entry) or "the run ended before it started"
                entry.move(step, SubtaskState.SKIPPED, None, why)
        return tuple(_row(entry) for entry in self._entries.values())

    # -- what a model call shows --------------------------------------------------------------
    def _dispatch(self, step: int, agent: str, call_id: str, arguments: str) -> None:
        try:
            parsed = json.loads(arguments)
        except ValueError:
            return
        name = parsed.get(SUBTASK_FIELD) if isinstance(parsed, dict) else None
        if not isinstance(name, str) or not name:
            return
        entry = self._entries.get(name)
        if entry is None:
            entry = self._entries[name] = _Entry(spec=SubtaskSpec(name=name))
            entry.move(step, SubtaskState.PENDING, agent, f"dispatched by {agent}")
        entry.dispatched_by.append(agent)
        entry.dispatches[call_id] = Dispatch(step=step, by=agent)
        self._asked[call_id] = name

    def _returns(self, step: int, agent: str, messages: Sequence[JSON]) -> None:
        """The dispatches ``agent`` asked for whose answers its conversation now holds."""
        answered = {str(m.get("tool_call_id")) for m in messages if m.get("role") == "tool"}
        for call_id in sorted(answered & set(self._asked)):
            entry = self._entries[self._asked[call_id]]
            dispatch = entry.dispatches[call_id]
            if dispatch.by != agent:  # a conversation handed on whole: not the dispatcher's
                continue
            del self._asked[call_id]
            entry.dispatches[call_id] = dataclasses.replace(dispatch, returned=step)
            still_open = [d for d in entry.dispatches.values() if d.started and not d.returned]
            if not still_open and entry.active:
                self._end(step, entry, "its delegation returned without success")

    def _attribute(self, step: int, agent: str, messages: Sequence[JSON]) -> None:
        name = named_subtask(messages, self._entries)
        if name is None:
            return
        self._working[agent] = self._named[step] = name
        entry = self._entries[name]
        waiting = [(i, d) for i, d in entry.dispatches.items() if d.started is None]
        # an agent whose delegation has not returned goes on with its attempt, unless its
        # conversation holds no reply yet, a worker's first step as its script counts it: a new
        # worker under the same name, taking up a dispatch still waiting
        fresh = not any(message.get("role") == "assistant" for message in messages)
        if agent in entry.active and not (waiting and fresh):
            return
        if waiting:
            call_id, dispatch = waiting[0]
            entry.dispatches[call_id] = dataclasses.replace(dispatch, started=step)
            self._start(step, entry, agent, dispatch.by)
        elif agent in entry.returned or (entry.returned and not entry.active):
            # after its delegation returned, only a new dispatch starts it again: a worker under
            # a new name is no new dispatch
            entry.late_steps.append(step)
        else:  # a new worker with no dispatch of its own starts an attempt all the same
            self._start(step, entry, agent, None)
        if agent not in entry.workers:
            entry.workers.append(agent)

    def _start(self, step: int, entry: _Entry, agent: str, by: str | None) -> None:
        if by is not None and by in entry.active:  # its worker passed its own brief on
            entry.active.add(agent)
            return
        previous = entry.state
        dispatched = f", dispatched by {by}" if by else ", with no dispatch"
        if previous in (SubtaskState.RUNNING, SubtaskState.SUCCEEDED):
            entry.duplicate_starts.append(step)
            why = f"started again by {agent}{dispatched}, while it was {previous}"
        elif previous in (SubtaskState.FAILED, SubtaskState.ABANDONED):
            why = f"retried by {agent}{dispatched}, after it {previous}: {entry.why}"
        else:
            why = f"started by {agent}{dispatched}"
        unmet = self._unmet(entry)
        if unmet:
            entry.blocked_starts.append(step)
            why += f", although {unmet}"
        entry.active = {agent, *entry.active} if previous is SubtaskState.RUNNING else {agent}
        entry.returned.discard(agent)
        entry.refusal = None
        entry.move(step, SubtaskState.RUNNING, agent, why)

    # -- endings ------------------------------------------------------------------------------
    def _end(self, step: int, entry: _Entry, why: str) -> None:
        """The current attempt ended: failed after a refusal, abandoned otherwise, unless it
        succeeded; dependents still pending are skipped."""
        entry.returned |= entry.active
        # a name that workers of other subtasks still run under (agents-as-tools) stays theirs:
        # their calls are attributed by the step that asked for them
        still = {
            agent
            for other in self._entries.values()
            if other is not entry
            for agent in other.active
        }
        for agent in entry.active - still:
            self._working.pop(agent, None)
        entry.active = set()
        if entry.state is SubtaskState.RUNNING:
            if entry.refusal is not None:
                entry.move(step, SubtaskState.FAILED, None, entry.refusal)
            else:
                entry.move(step, SubtaskState.ABANDONED, None, why)
            self._skip_dependents(step, entry)

    def _skip_dependents(self, step: int, failed: _Entry) -> None:
        for entry in self._entries.values():
            if failed.spec.name in entry.spec.depends_on and entry.state is SubtaskState.PENDING:
                why = f"its dependency {failed.spec.name!r} {failed.state}"
                entry.move(step, SubtaskState.SKIPPED, None, why)
                self._skip_dependents(step, entry)

    def _unmet(self, entry: _Entry) -> str | None:
        """The first dependency that has not succeeded, said as a reason; ``None`` if all have."""
        for name in entry.spec.depends_on:
            state = self._entries[name].state if name in self._entries else SubtaskState.PENDING
            if state is not SubtaskState.SUCCEEDED:
                return f"its dependency {name!r} {_as_reason(state)}"
        return None

    def _holds(self, entry: _Entry) -> bool | None:
        """Whether the subtask's own criteria hold; ``None`` when it declares none."""
        failing = entry.spec.failing
        return None if failing is None else not failing(self._world)


def _as_reason(state: SubtaskState) -> str:
    if state is SubtaskState.PENDING:
        return "had not started"
    if state is SubtaskState.RUNNING:
        return "had not finished"
    return f"{state}" if state is not SubtaskState.SUCCEEDED else "succeeded"


def _blocker(text: str) -> str | None:
    """What a refusal names: the permission it lacks or the dependency that is down."""
    try:
        body = json.loads(text)
    except ValueError:
        return None
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return None
    named = error.get("missing_permission") or error.get("dependency")
    return str(named) if named else None


def _row(entry: _Entry) -> Subtask:
    spec = entry.spec
    return Subtask(
        name=spec.name,
        state=entry.state,
        why=entry.why,
        depends_on=spec.depends_on,
        dispatched_by=tuple(entry.dispatched_by),
        workers=tuple(entry.workers),
        blocker=entry.blocker,
        dispatches=tuple(entry.dispatches.values()),
        history=tuple(entry.history),
        duplicate_starts=tuple(entry.duplicate_starts),
        blocked_starts=tuple(entry.blocked_starts),
        late_steps=tuple(entry.late_steps),
    )
