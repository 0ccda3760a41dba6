"""The `contract` agent: a ReAct loop that implements the termination contract of DESIGN.md.

It stops on evidence, not on a cap: an identical action seen again and again, observations that
stopped being new, a denied permission (``BLOCKED_INPUT`` naming it), a dependency that stays
down; it checks a budget ledger before every dispatch, and it never claims completion without
re-reading the system of record.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

from harness._errors import BudgetError
from harness._record import Code, Stop
from harness._session import Session
from harness._types import JSON
from harness.agents._fingerprint import action_fingerprint, observation_fingerprint, parse
from harness.agents._loop import assistant, dispatch, opening, tool_calls

__all__ = ["ContractAgent", "ContractThresholds", "contract"]

PERMISSION_IN_TEXT = re.compile(r"permission '([^']+)'")
"""How a refusal names its permission when it comes as an exception message, not a JSON body."""


@dataclass(frozen=True, kw_only=True)
class ContractThresholds:
    """When the contract stops. Each at least 1."""

    repeated_action: int = 3
    """Identical tool call + arguments seen this many times: stop (the contract's 3×)."""
    stalled_steps: int = 2
    """Consecutive steps with no new observation: stop. Two, so a single re-check is allowed."""
    unavailable_attempts: int = 2
    """Calls to a dependency answering 503 before abandoning it (the contract's 2 attempts)."""
    warn_at_fraction_left: float = 0.2
    """Budget fraction left at which the model is told to wrap up (the contract's 20%)."""

    def __post_init__(self) -> None:
        for name in ("repeated_action", "stalled_steps", "unavailable_attempts"):
            if getattr(self, name) < 1:
                raise BudgetError(
                    f"ContractThresholds({name}={getattr(self, name)!r}): must be ≥ 1"
                )


class _Ledger:
    """The run's budget, checked before each dispatch."""

    def __init__(self, session: Session) -> None:
        self.budget = session.budget
        self.steps = 0
        self.tokens = 0
        self.started = time.monotonic()

    def charge(self, reply: JSON) -> None:
        self.steps += 1
        self.tokens += int(reply.get("usage", {}).get("total_tokens", 0))

    def exhausted(self) -> Code | None:
        budget = self.budget
        if self.steps >= budget.max_steps:
            return Code.BUDGET_STEPS
        if budget.max_tokens is not None and self.tokens >= budget.max_tokens:
            return Code.BUDGET_COST
        wall = budget.max_wall_seconds
        if wall is not None and time.monotonic() - self.started >= wall:
            return Code.BUDGET_TIME
        return None

    def fraction_left(self) -> float:
        return 1 - self.steps / self.budget.max_steps


class _Run:
    """One run of the contract on one session."""

    def __init__(self, session: Session, thresholds: ContractThresholds, verifier: str) -> None:
        self.session, self.thresholds, self.verifier = session, thresholds, verifier
        self.ledger = _Ledger(session)
        self.messages = opening(session)
        self.actions: Counter[str] = Counter()
        self.unavailable: Counter[str] = Counter()
        self.seen: set[str] = set()
        self.findings: list[str] = []
        self.stalled = 0
        self.warned = False

    def partial(self) -> JSON:
        return {"steps": self.ledger.steps, "findings": self.findings[-5:]}

    def go(self) -> Stop:
        while True:
            code = self.ledger.exhausted()
            if code is not None:
                return Stop(code=code, reason=f"budget ran out: {code}", partial=self.partial())
            self._warn_if_low()
            reply = self.session.call_model(self.messages, self.session.tools)
            self.ledger.charge(reply)
            self.messages.append(assistant(reply))
            stop = self._act(reply)
            if stop is not None:
                return stop

    def _warn_if_low(self) -> None:
        if not self.warned and self.ledger.fraction_left() <= self.thresholds.warn_at_fraction_left:
            self.warned = True
            self.messages.append({"role": "user", "content": "Budget nearly spent: wrap up now."})

    def _act(self, reply: JSON) -> Stop | None:
        calls = tool_calls(reply)
        if not calls:
            return self._verify_claim(reply.get("content") or "")
        novel = False
        for call_id, name, arguments in calls:
            fingerprint = action_fingerprint(name, arguments)
            if self.actions[fingerprint] + 1 >= self.thresholds.repeated_action:
                times = self.thresholds.repeated_action
                reason = f"identical call {name} {arguments} requested {times} times"
                return Stop(code=Code.NO_PROGRESS, reason=reason, partial=self.partial())
            self.actions[fingerprint] += 1
            message, error = dispatch(self.session, call_id, name, arguments)
            self.messages.append(message)
            stop = self._blocker(name, message["content"], error)
            if stop is not None:
                return stop
            novel |= self._note(message["content"])
        return self._stalled(novel)

    def _note(self, result: str) -> bool:
        fingerprint = observation_fingerprint(result)
        if fingerprint in self.seen:
            return False
        self.seen.add(fingerprint)
        self.findings.append(result[:200])
        return True

    def _stalled(self, novel: bool) -> Stop | None:
        self.stalled = 0 if novel else self.stalled + 1
        if self.stalled < self.thresholds.stalled_steps:
            return None
        reason = f"no new observation for {self.stalled} steps"
        return Stop(code=Code.NO_PROGRESS, reason=reason, partial=self.partial())

    def _blocker(self, name: str, result: str, error: Exception | None) -> Stop | None:
        """A denied permission blocks at once; a dead dependency after the allowed attempts."""
        body = parse(result)
        details: Any = body.get("error") if isinstance(body, dict) else None
        details = details if isinstance(details, dict) else {}
        permission = details.get("missing_permission") or getattr(error, "permission", None)
        if permission is None and details.get("status") == 403:
            found = PERMISSION_IN_TEXT.search(str(details.get("message", "")))
            permission = found.group(1) if found else "unknown permission"
        if permission is not None:
            reason = f"{name} needs the permission '{permission}', which this run lacks"
            return Stop(code=Code.BLOCKED_INPUT, reason=reason, missing=(str(permission),))
        if details.get("status") == 503:
            self.unavailable[name] += 1
            if self.unavailable[name] >= self.thresholds.unavailable_attempts:
                dependency = str(details.get("dependency", name))
                reason = f"{dependency} unavailable after {self.unavailable[name]} attempts"
                return Stop(code=Code.ERROR_FATAL, reason=reason, missing=(dependency,))
        return None

    def _verify_claim(self, claim: str) -> Stop | None:
        """The model says it is done: re-read the system of record before believing it."""
        if self.verifier not in {spec.name for spec in self.session.tools}:
            reason = (
                f"the model claims completion ({claim[:80]!r}) "
                f"and no {self.verifier} tool can verify it"
            )
            return Stop(code=Code.NEEDS_HUMAN, reason=reason, partial=self.partial())
        result = self.session.call_tool(self.verifier, {})
        body = parse(result)
        if isinstance(body, dict) and body.get("complete") is True:
            return Stop(code=Code.COMPLETED, reason=claim, partial=self.partial())
        self.messages.append({"role": "user", "content": f"Not complete yet: {result}"})
        return self._stalled(self._note(result))


class ContractAgent:
    """The reference agent. ``verifier`` names the tool that re-reads the system of record."""

    def __init__(
        self,
        thresholds: ContractThresholds | None = None,
        *,
        verifier: str = "check_completion",
        name: str = "contract",
    ) -> None:
        self.thresholds = thresholds or ContractThresholds()
        self.verifier = verifier
        self.name = name

    def __call__(self, session: Session) -> Stop:
        return _Run(session, self.thresholds, self.verifier).go()


contract = ContractAgent()
