"""Consumes one session and the `contract` agent's thresholds, produces the stop of one agent of
the contract (the supervisor, or a worker): the ReAct loop and the evidence it stops on."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from unsolvable._errors import ContextOverflow
from unsolvable._session import Session
from unsolvable._stop import Code, Exit, Stop
from unsolvable._types import GIVE_UP_TOOL, JSON, PROTOCOL_TOOLS
from unsolvable.agents._budget_ledger import BudgetLedger
from unsolvable.agents._fingerprint import (
    action_fingerprint,
    information_fingerprint,
    observation_fingerprint,
    parse,
    progress_figures,
)
from unsolvable.agents._loop import assistant, dispatch, opening, tool_calls
from unsolvable.agents._signals import (
    NotFound,
    compacted,
    error_details,
    is_waiting,
    needs_a_person,
    not_found,
    wait_hint,
)
from unsolvable.agents._supervision import Supervision
from unsolvable.agents._thresholds import Terms

__all__ = ["ContractRun"]

PERMISSION_IN_TEXT = re.compile(r"permission '([^']+)'")
"""How a refusal names its permission when it comes as an exception message, not a JSON body."""
UNAVAILABLE_STATUSES = frozenset({503, 504})
"""A dependency that is down, or that did not answer within its timeout."""
BLOCKING_STATUSES = UNAVAILABLE_STATUSES | {429}
"""A dependency that refused the call for now: down, timed out, or over its rate limit. Each is
what blocked the subtask when it never answers, and the stop and the subtask table name it."""


class ContractRun:
    """One agent of the contract (the supervisor, or a worker) on one session."""

    def __init__(self, terms: Terms, session: Session, ledger: BudgetLedger, name: str) -> None:
        self.terms, self.session, self.ledger, self.name = terms, session, ledger, name
        self.thresholds = terms.thresholds
        self.messages = opening(session)
        self.actions: Counter[str] = Counter()
        """Times each action was made."""
        self.hinted: set[str] = set()
        self.denied: Counter[str] = Counter()
        """Times each permission was refused: `permission_denials` of them block."""
        self.informed: set[str] = set()
        self.progress: dict[str, float] = {}
        self.waiting: set[str] = set()
        self.unavailable: Counter[str] = Counter()
        self.seen: set[str] = set()
        self.findings: list[str] = []
        self.stalled = self.idle = self.criteria_stalled = 0
        self.criteria: str | None = None
        self.warned = False
        self.compacted = False
        """The conversation was compacted to fit the context window, and nothing new came since."""
        self.compactions = 0
        """Times the conversation was compacted: each starts a fresh one, as the ledger counts."""
        self.not_found: list[NotFound] = []
        """Lookups in a row answered "not found"."""
        self.scope: dict[str, Any] = {}
        """A worker's subtask (its delegate call's arguments): what its verifier checks."""
        self.passes = 0
        """Times this worker's brief was passed on whole before it reached this worker."""
        self.blockers: list[str] = []
        """Permissions and dependencies that refused this agent's calls."""
        self.supervision: Supervision | None = None
        """The subtasks this agent dispatched, once it dispatches any."""
        self.stalled_waves = 0

    def partial(self) -> JSON:
        partial: JSON = {"steps": self.ledger.steps, "findings": self.findings[-5:]}
        if self.supervision is not None:  # partial results by subtask
            partial["subtasks"] = self.supervision.states()
            partial["finished"] = self.supervision.finished()
        return partial

    def stop(self, code: Code, reason: str, missing: tuple[str, ...] = ()) -> Stop:
        return Stop(code=code, reason=reason, partial=self.partial(), missing=missing)

    def go(self) -> Stop:
        role = self.scope.get("role")
        while True:
            code = self.ledger.exhausted(role)
            if code is not None and self.ledger.role_spent(role):
                return self.stop(code, f"the {role} role's own budget of steps is spent")
            if code is not None:
                return self.stop(code, f"budget ran out: {code}")
            self._warn_if_low()
            try:
                reply = self.session.call_model(self.messages, self.session.tools, agent=self.name)
            except ContextOverflow as overflow:
                self.ledger.refused()
                stop = self._overflowed(overflow)
                if stop is not None:
                    return stop
                continue
            # a compacted conversation does not send the last one's messages again, so the
            # harness measures no growth across it either
            self.ledger.charge(reply, role, (self.name, self.compactions))
            self.messages.append(assistant(reply))
            stop = self._act(reply)
            if stop is not None:
                return stop

    def _overflowed(self, overflow: ContextOverflow) -> Stop | None:
        """Compacts once; a prompt that overflows again before anything new came is irreducible:
        compacting and retrying for ever is the loop to avoid."""
        if self.compacted:
            reason = f"the prompt does not fit the context window even compacted: {overflow}"
            return self.stop(Code.ERROR_FATAL, reason)
        self.compacted = True
        self.compactions += 1
        self.messages = compacted(self.messages)
        return None

    def _warn_if_low(self) -> None:
        if not self.warned and self.ledger.fraction_left() <= self.thresholds.warn_at_fraction_left:
            self.warned = True
            self.messages.append({"role": "user", "content": "Budget nearly spent: wrap up now."})

    def _act(self, reply: JSON) -> Stop | None:
        calls = tool_calls(reply)
        for _, name, arguments in calls:
            if name == GIVE_UP_TOOL:
                body = parse(arguments)
                reason = body.get("reason", "") if isinstance(body, dict) else str(body)
                return self.stop(Code.NO_PROGRESS, f"the model gave up: {reason}")
        if not calls:
            return self._verify_claim(reply.get("content") or "")
        if all(name == self.terms.delegate for _, name, _ in calls):
            return self._delegate(calls)
        external = sum(name not in PROTOCOL_TOOLS for _, name, _ in calls)
        if not self.ledger.affords_calls(external):
            made = self.ledger.calls
            reason = f"{external} more external call(s) would pass the call budget ({made} made)"
            return self.stop(Code.BUDGET_CALLS, reason)
        novel, informed, idle = False, False, True
        for call_id, name, arguments in calls:
            message, error = dispatch(self.session, call_id, name, arguments, agent=self.name)
            self.ledger.calls += name not in PROTOCOL_TOOLS
            self.messages.append(message)
            result = message["content"]
            stop = self._blocker(name, result, error) or self._needs_a_person(result)
            if stop is not None:
                return stop
            waiting = is_waiting(result)
            self.session.sleep(wait_hint(result))  # honour it, free
            fingerprint = action_fingerprint(name, arguments)
            (self.waiting.add if waiting else self.waiting.discard)(fingerprint)
            idle &= waiting
            new = not waiting and self._note(result)
            novel |= new
            informed |= self._informs(result) and not waiting
            stop = None if waiting else self._repeated(fingerprint, name, arguments, new)
            if stop is not None:
                return stop
        if idle:
            return self._idle()
        return self._stalled(novel) or self._check_criteria(informed=informed)

    def _repeated(self, fingerprint: str, name: str, arguments: Any, new: bool) -> Stop | None:
        """Hint first, then stop: an identical action that brought nothing new is told so once,
        one time before the threshold; an identical action with a new answer (a cursor that
        pages) is no repeat at all."""
        self.actions[fingerprint] += 1
        if new:
            return None
        times = self.actions[fingerprint]
        if times >= self.thresholds.repeated_action:
            return self.stop(
                Code.NO_PROGRESS, f"identical call {name} {arguments} made {times} times"
            )
        if times == self.thresholds.repeated_action - 1 and fingerprint not in self.hinted:
            self.hinted.add(fingerprint)
            hint = (
                f"You repeated {name} with the same arguments and got nothing new; try another way."
            )
            self.messages.append({"role": "user", "content": hint})
        return None

    def _informs(self, result: str) -> bool:
        """New information: new content once numbers are masked, or a progress figure that rose
        (a visible change of state, which restarts the idle time)."""
        fingerprint = information_fingerprint(result)
        new = fingerprint not in self.informed
        self.informed.add(fingerprint)
        rose = False
        for key, figure in progress_figures(result).items():
            rose |= figure > self.progress.get(key, float("-inf"))
            self.progress[key] = max(figure, self.progress.get(key, figure))
        if rose:
            self.ledger.changed_at = self.session.clock
        return new or rose

    def _note(self, result: str) -> bool:
        fingerprint = observation_fingerprint(result)
        if fingerprint in self.seen:
            return False
        self.seen.add(fingerprint)
        self.findings.append(result[:200])
        self.compacted = False
        return True

    def _idle(self) -> Stop | None:
        if self.ledger.budget.max_idle_seconds is not None:
            return None  # the ledger reads the idle time itself
        self.idle += 1
        if self.idle < self.thresholds.idle_steps:
            return None
        return self.stop(Code.BUDGET_IDLE, f"waited {self.idle} steps on a dependency")

    def _stalled(self, novel: bool) -> Stop | None:
        self.stalled = 0 if novel else self.stalled + 1
        if self.stalled < self.thresholds.stalled_steps:
            return None
        return self.stop(Code.NO_PROGRESS, f"no new observation for {self.stalled} steps")

    def _verifier(self) -> str | None:
        """The verifier's answer, or ``None`` when the session offers no verifier. A worker
        passes its subtask to a verifier that takes it (a per-subtask check): the whole task is
        done only when every worker is."""
        spec = next((s for s in self.session.tools if s.name == self.terms.verifier), None)
        if spec is None:
            return None
        accepted = spec.parameters.get("properties", {})
        scope = {key: value for key, value in self.scope.items() if key in accepted}
        return self.session.call_tool(self.terms.verifier, scope, agent=self.name)

    def _check_criteria(self, result: str | None = None, *, informed: bool = False) -> Stop | None:
        """Stops when no completion criterion moved, and no new information came, for
        `criteria_steps` steps."""
        result = result if result is not None else self._verifier()
        if result is None:
            return None
        body = parse(result)
        failing = json.dumps(body.get("failing") if isinstance(body, dict) else result)
        unchanged = failing == self.criteria
        if not unchanged and self.criteria is not None:  # a criterion moved: the state changed
            self.ledger.changed_at = self.session.clock
        self.criteria = failing
        self.criteria_stalled = self.criteria_stalled + 1 if unchanged and not informed else 0
        if self.criteria_stalled < self.thresholds.criteria_steps:
            return None
        return self.stop(
            Code.NO_PROGRESS, f"no completion criterion moved in {self.criteria_stalled} steps"
        )

    def _blocker(self, name: str, result: str, error: Exception | None) -> Stop | None:
        """A permission denied again (by any tool: the permission is the blocker, not the tool)
        blocks; a record looked up in vain twice; a dead dependency after the allowed
        attempts. A dependency that refused the call, down or rate-limited, is noted as this
        agent's blocker either way."""
        details = error_details(result)
        permission = details.get("missing_permission") or getattr(error, "permission", None)
        if permission is None and details.get("status") == 403:
            found = PERMISSION_IN_TEXT.search(str(details.get("message", "")))
            permission = found.group(1) if found else "unknown permission"
        blocker = permission or (
            details.get("status") in BLOCKING_STATUSES and details.get("dependency")
        )
        if blocker and str(blocker) not in self.blockers:
            self.blockers.append(str(blocker))
        if permission is not None:
            self.denied[str(permission)] += 1
            if self.denied[str(permission)] < self.thresholds.permission_denials:
                return None  # the model may take another, allowed route
            reason = f"{name} needs the permission '{permission}', which this run lacks"
            return self.stop(Code.BLOCKED_INPUT, reason, missing=(str(permission),))
        stop = self._not_found(result)
        if stop is not None:
            return stop
        if details.get("status") not in UNAVAILABLE_STATUSES or "retry_after" in details:
            self.unavailable[name] = 0
            return None
        self.unavailable[name] += 1
        if self.unavailable[name] < self.thresholds.unavailable_attempts:
            return None
        dependency = str(details.get("dependency", name))
        reason = f"{dependency} unavailable after {self.unavailable[name]} attempts"
        return self.stop(Code.ERROR_FATAL, reason, missing=(dependency,))

    def _not_found(self, result: str) -> Stop | None:
        """Lookups in a row that find nothing: the premise of the task is false, and what it
        names is the missing input."""
        missing = not_found(result)
        if missing is None:
            self.not_found.clear()
            return None
        self.not_found.append(missing)
        if len(self.not_found) < self.thresholds.not_found_lookups:
            return None
        messages = "; ".join(missed.message for missed in self.not_found)
        names = tuple(dict.fromkeys(name for missed in self.not_found for name in missed.names))
        reason = f"what the task names does not exist: {messages}"
        return self.stop(Code.BLOCKED_INPUT, reason, missing=names)

    def _needs_a_person(self, result: str) -> Stop | None:
        """An action that cannot be undone waits for a confirmation: only a person gives it."""
        message = needs_a_person(result)
        if message is None:
            return None
        return self.stop(Code.NEEDS_HUMAN, f"a person must approve this: {message}")

    def _verify_claim(self, claim: str) -> Stop | None:
        """The model says it is done: re-read the system of record before believing it. A
        supervisor whose own table has subtasks that did not finish (each verified by its worker)
        needs no re-reading to know the claim is false."""
        supervision = self.supervision
        if supervision is not None and supervision.unfinished():
            unfinished = ", ".join(supervision.unfinished())
            reason = f"the model claims completion, but {unfinished} did not finish"
            return self.stop(Code.NO_PROGRESS, f"{reason}; {supervision.summary()}")
        result = self._verifier()
        if result is None:
            reason = f"the model claims completion ({claim[:80]!r}); nothing can verify it"
            return self.stop(Code.NEEDS_HUMAN, reason)
        body = parse(result)
        if isinstance(body, dict) and body.get("complete") is True:
            return Stop(code=Code.COMPLETED, reason=claim, partial=self.partial())
        self.messages.append({"role": "user", "content": f"Not complete yet: {result}"})
        return self._stalled(False) or self._check_criteria(result)

    def _siblings_failed(self, stops: list[Stop]) -> bool:
        recent = stops[-self.thresholds.sibling_failures :]
        return len(recent) == self.thresholds.sibling_failures and all(
            s.exit is not Exit.COMPLETE for s in recent
        )

    def _delegate(self, calls: list[tuple[str, str, Any]]) -> Stop | None:
        """Runs one worker per subtask that may run (`Supervision`) on the shared ledger; a
        worker's blocker propagates up with the subtasks that finished."""
        supervision = self.supervision = self.supervision or Supervision(
            retries=self.thresholds.retries
        )
        seen, stops = len(self.seen), list[Stop]()
        for call_id, _, arguments in calls:
            subtask = parse(arguments)
            subtask = subtask if isinstance(subtask, dict) else {"subtask": str(arguments)}
            name = str(subtask.get("subtask", arguments))
            if self._siblings_failed(stops):
                supervision.skip(name)
                continue
            if name == self.scope.get("subtask") and self.passes >= self.thresholds.brief_passes:
                reason = f"{name!r} was passed on {self.passes + 1} times with no work done"
                return self.stop(Code.NO_PROGRESS, reason)
            refusal = supervision.refusal(name, list(subtask.get("depends_on") or ()))
            if refusal is not None:
                self._answer(call_id, {"status": "not run", "why": refusal})
                continue
            supervision.start(name)
            stop, worker = self._work(call_id, arguments, subtask)
            supervision.settle(name, stop, worker.blockers)
            stops.append(stop)
            self._answer(call_id, {"exit": stop.exit, "code": stop.code, "reason": stop.reason})
        return self._after_wave(supervision, stops, novel=len(self.seen) > seen)

    def _work(self, call_id: str, arguments: Any, subtask: JSON) -> tuple[Stop, ContractRun]:
        worker = ContractRun(self.terms, self.session, self.ledger, f"worker-{call_id}")
        worker.messages[-1]["content"] = f"Subtask of '{self.session.task}': {arguments}"
        worker.seen = self.seen  # what one worker learnt is no news to the next
        # A permission refused to one worker and again to the next, the same subtask's or
        # another's, is the retry that shows there is none: refusals count across workers.
        worker.denied = self.denied
        worker.scope = subtask
        if subtask.get("subtask") == self.scope.get("subtask"):
            worker.passes = self.passes + 1
        return worker.go(), worker

    def _answer(self, call_id: str, body: JSON) -> None:
        self.messages.append({"role": "tool", "tool_call_id": call_id, "content": json.dumps(body)})

    def _after_wave(
        self, supervision: Supervision, stops: list[Stop], *, novel: bool
    ) -> Stop | None:
        """A blocker no retry can lift ends the run, naming it and what finished; so does a wave
        in which every worker stopped without finishing (unless one was refused what a retry may
        find granted: the retry, not the wave, shows whether it is), a worker that ran out of its
        budget (its subtask alive, and nothing left in this run to finish it: exhausted, never
        done), or rounds that bring nothing new."""
        summary = supervision.summary()
        blocked = supervision.blocked()
        if blocked:
            first = blocked[0]
            return self.stop(first.code, f"{first.reason}; {summary}", missing=first.missing)
        if (
            stops
            and all(s.exit is not Exit.COMPLETE for s in stops)
            and not supervision.retriable()
        ):
            worst = stops[-1]
            reason = f"every worker stopped without finishing: {worst.reason}; {summary}"
            return self.stop(worst.code, reason)
        spent = [s for s in stops if s.exit is Exit.EXHAUSTED]
        if spent:
            return self.stop(spent[0].code, f"{spent[0].reason}; {summary}")
        self.stalled_waves = 0 if novel else self.stalled_waves + 1
        if self.stalled_waves >= self.thresholds.stalled_waves:
            reason = f"{self.stalled_waves} round(s) of delegation brought nothing new; {summary}"
            return self.stop(Code.NO_PROGRESS, reason)
        return None
