"""An agent that explores and notes everything it received, so that two runs — a twin and its
sibling — can be compared step by step: the task, the tools offered, the model's words and
moves, every answer (request ids aside) and the world re-read after each step."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import unsolvable
from unsolvable import (
    CHECK_TOOL,
    DELEGATE_TOOL,
    JSON,
    PROTOCOL_TOOLS,
    Code,
    ContextOverflow,
    Scenario,
    Session,
    Stop,
)
from unsolvable.agents._loop import assistant, dispatch, opening, tool_calls

VOLATILE = "request_id"
"""The one field two runs may differ in before they diverge: a fresh id per answer."""


def _aside(text: str) -> str:
    """``text`` with its top-level request id left out."""
    try:
        body = json.loads(text)
    except json.JSONDecodeError:
        return text
    if isinstance(body, dict):
        body.pop(VOLATILE, None)
    return json.dumps(body, sort_keys=True)


class Delegated(NamedTuple):
    """A fresh worker's first step on a subtask delegated once more (`Explorer.delegations`)."""

    said: str | None
    calls: tuple[tuple[str, str], ...]
    answers: tuple[str, ...]


@dataclass(frozen=True)
class Seen:
    """One step as the explorer received it."""

    step: int
    tools: str
    """The tools offered, as the agent reads them (names, descriptions, parameters)."""
    said: str | None
    calls: tuple[tuple[str, str], ...]
    answers: tuple[str, ...]
    world: str
    """``check_completion`` after the step."""
    agent: str = "main"
    raised: tuple[str, ...] = ()
    """The name of what each call raised ('' where it answered): a raised refusal carries the
    body an answered one does, but an agent catches the one and reads the other."""
    again: tuple[str, ...] = ()
    """What each call answered when the explorer made it a second time of its own accord, within
    the step (`Explorer.repeats`)."""
    probed: tuple[str, ...] = ()
    """What each of the scenario's tools answered when the explorer called it of its own accord
    after the step, with no arguments and with each the model gave it so far
    (`Explorer.probes`)."""
    delegated: tuple[Delegated, ...] = ()
    """What a fresh worker did first on each subtask the supervisor had dispatched so far, when
    the explorer delegated it once more of its own accord after the supervisor's step: its
    words, its calls and their answers (`Explorer.delegations`)."""


@dataclass
class Explorer:
    """Makes every call the model asks for, re-reads the world after each step, never hints and
    never stops early: it sees everything a run shows, for ``steps`` steps. With ``workers``, it
    runs each ``delegate`` call as a worker of its own (``worker-<call id>``, its brief the
    call's arguments) whose steps it explores too, as a system of agents does."""

    steps: int
    task: str = ""
    seen: list[Seen] = field(default_factory=list)
    workers: bool = False
    repeats: bool = False
    """Makes every call of a scenario's tool a second time within its step, as an agent may of
    its own accord: a twin whose answers moved with its calls, not with the run's steps, showed
    that repeat its evidence before its divergence step."""
    probes: bool = False
    """Calls every tool of the scenario after each step, as an agent may that looks for another
    way (a ledger beside the search): an ambiguous twin whose ledger listed the invoice from the
    start told itself apart at the first step."""
    delegations: bool = False
    """Delegates every subtask dispatched so far once more, to a fresh worker, after each of the
    supervisor's steps, as a system may that re-runs its subtasks of its own accord: a twin
    whose workers met a world the sibling's did not would show it to that worker before any
    of the model's own workers met it."""
    asked: dict[str, list[str]] = field(default_factory=dict, init=False)
    """The arguments the model gave each tool so far, in order, as JSON."""
    refused: bool = field(default=False, init=False)
    """A request over the context window ended the exploration."""
    briefs: list[str] = field(default_factory=list, init=False)
    """The arguments of every ``delegate`` call the supervisor made so far, in order."""

    def __call__(self, session: Session) -> Stop:
        self.task = session.task
        self._converse(session, opening(session), "main")
        return Stop(code=Code.NO_PROGRESS, reason="explored", partial=len(self.seen))

    def _converse(self, session: Session, messages: list[JSON], agent: str) -> str:
        """Explores one agent's conversation until its model calls no tool or the steps run out;
        its last words."""
        said = ""
        while len(self.seen) < self.steps and not self.refused:
            offered = json.dumps([spec.to_openai() for spec in session.tools], sort_keys=True)
            try:
                reply = session.call_model(messages, session.tools, agent=agent)
            except ContextOverflow as overflow:  # as far as a run goes without compacting
                world = _aside(session.call_tool(CHECK_TOOL, {}))
                said, self.refused = f"refused: {overflow}", True
                self.seen.append(Seen(len(self.seen) + 1, offered, said, (), (), world))
                break
            step = len(self.seen) + 1
            messages.append(assistant(reply))
            calls = tool_calls(reply)
            outcomes = {call[0]: self._answer(session, agent, *call) for call in calls}
            answers = {call_id: answer for call_id, (answer, _) in outcomes.items()}
            said = reply.get("content") or ""
            self.seen.append(
                Seen(
                    step=step,
                    tools=offered,
                    said=reply.get("content"),
                    calls=tuple((name, str(arguments)) for _, name, arguments in calls),
                    answers=tuple(_aside(answer["content"]) for answer in answers.values()),
                    world=_aside(session.call_tool(CHECK_TOOL, {})),
                    agent=agent,
                    raised=tuple(_name(error) for _, error in outcomes.values()),
                    again=tuple(self._again(session, agent, *call) for call in calls),
                    probed=self._probe(session, agent, calls),
                    delegated=self._delegate_again(session, agent, calls),
                )
            )
            messages += [self._worker(session, answers, *call) for call in calls]
            if not calls:
                break
        return said

    def _answer(
        self, session: Session, agent: str, call_id: str, name: str, arguments: Any
    ) -> tuple[JSON, Exception | None]:
        """The tool's answer and what it raised, or none yet for a ``delegate`` call that a
        worker answers."""
        if self.workers and name == DELEGATE_TOOL:
            return {"role": "tool", "tool_call_id": call_id, "content": ""}, None
        return dispatch(session, call_id, name, arguments, agent=agent)

    def _again(self, session: Session, agent: str, call_id: str, name: str, arguments: Any) -> str:
        """The answer to the call made once more, where the explorer `repeats` a scenario's
        tool's calls."""
        if not self.repeats or name in PROTOCOL_TOOLS:
            return ""
        return _aside(dispatch(session, call_id, name, arguments, agent=agent)[0]["content"])

    def _probe(
        self, session: Session, agent: str, calls: list[tuple[str, str, Any]]
    ) -> tuple[str, ...]:
        """What every tool of the scenario answers now, where the explorer `probes`."""
        if not self.probes:
            return ()
        for _, name, arguments in calls:
            given = arguments if isinstance(arguments, str) else json.dumps(arguments)
            if given not in self.asked.setdefault(name, []):
                self.asked[name].append(given)
        names = [spec.name for spec in session.tools if spec.name not in PROTOCOL_TOOLS]
        return tuple(
            _aside(dispatch(session, "probe", name, arguments, agent=agent)[0]["content"])
            for name in names
            for arguments in ["{}", *self.asked.get(name, [])]
        )

    def _delegate_again(
        self, session: Session, agent: str, calls: list[tuple[str, str, Any]]
    ) -> tuple[Delegated, ...]:
        """What a fresh worker does first on each subtask dispatched so far, where the explorer
        makes `delegations` and ``agent`` is the supervisor: one model call each, its calls
        answered but a ``delegate``'s (which would open another level)."""
        if not self.delegations or agent != "main":
            return ()
        for _, name, arguments in calls:
            if name == DELEGATE_TOOL and str(arguments) not in self.briefs:
                self.briefs.append(str(arguments))
        firsts = []
        for n, brief in enumerate(self.briefs):
            again = f"worker-again-{len(self.seen) + 1}-{n}"
            messages = [*opening(session)[:-1], {"role": "user", "content": brief}]
            reply = session.call_model(messages, session.tools, agent=again)
            made = tuple((name, str(arguments)) for _, name, arguments in tool_calls(reply))
            answers = tuple(
                _aside(dispatch(session, call_id, name, arguments, agent=again)[0]["content"])
                for call_id, name, arguments in tool_calls(reply)
                if name != DELEGATE_TOOL
            )
            firsts.append(Delegated(reply.get("content"), made, answers))
        return tuple(firsts)

    def _worker(
        self, session: Session, answers: dict[str, JSON], call_id: str, name: str, arguments: Any
    ) -> JSON:
        """The answer to one call: a ``delegate`` call's is its worker's last words, explored
        after the step that asked for it."""
        answer = answers[call_id]
        if not (self.workers and name == DELEGATE_TOOL):
            return answer
        brief = [*opening(session)[:-1], {"role": "user", "content": str(arguments)}]
        return {**answer, "content": self._converse(session, brief, f"worker-{call_id}")}


def _name(error: Exception | None) -> str:
    return "" if error is None else type(error).__name__


def explore(
    scenario: Scenario,
    seed: int,
    steps: int,
    *,
    workers: bool = False,
    repeats: bool = False,
    probes: bool = False,
    delegations: bool = False,
) -> Explorer:
    explorer = Explorer(
        steps, workers=workers, repeats=repeats, probes=probes, delegations=delegations
    )
    unsolvable.run(explorer, scenario, seed=seed)
    return explorer


def first_difference(twin: Explorer, sibling: Explorer, upto: int) -> str | None:
    """Where ``twin`` first looks different from ``sibling`` before step ``upto``, in words; the
    tools offered are compared at every step, ``upto`` included. ``None`` when nowhere."""
    if twin.task != sibling.task:
        return f"the task: {twin.task!r} vs {sibling.task!r}"
    for mine, theirs in zip(twin.seen, sibling.seen, strict=False):
        if mine.tools != theirs.tools:
            return f"step {mine.step}: the tools offered: {mine.tools} vs {theirs.tools}"
        if mine.step < upto and mine != theirs:
            return f"step {mine.step}: {_differing(mine, theirs)}"
    ended = len(twin.seen) != len(sibling.seen)  # where both end alike, neither ended first
    if ended and min(len(twin.seen), len(sibling.seen)) < upto - 1:
        return f"one run ended first: {len(twin.seen)} vs {len(sibling.seen)} steps"
    return None


def _differing(mine: Seen, theirs: Seen) -> str:
    fields: dict[str, Any] = {
        name: (getattr(mine, name), getattr(theirs, name))
        for name in ("said", "calls", "answers", "raised", "again", "probed", "delegated", "world")
        if getattr(mine, name) != getattr(theirs, name)
    }
    return "; ".join(f"{name}: {a!r} vs {b!r}" for name, (a, b) in fields.items())
