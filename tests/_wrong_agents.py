"""Agents with one plausible flaw each: every scenario must catch the flaw it is built for."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from harness import Code, Session, Stop
from harness.agents import ContractAgent, ContractThresholds
from harness.agents._fingerprint import action_fingerprint
from harness.agents._loop import assistant, dispatch, opening, tool_calls

Policy = Callable[[list[tuple[str, str, Any]], list[str], int], Stop | None]


def loop(policy: Policy, *, cap: int = 25, on_text: Stop | None = None) -> Any:
    """A ReAct loop that asks ``policy(calls, results, step)`` after each step whether to stop."""

    def agent(session: Session) -> Stop | str | None:
        messages = opening(session)
        for step in range(1, cap + 1):
            reply = session.call_model(messages, session.tools)
            messages.append(assistant(reply))
            calls = tool_calls(reply)
            if not calls:
                return on_text or Stop(code=Code.COMPLETED, reason=reply.get("content") or "")
            results = []
            for call_id, name, arguments in calls:
                message = dispatch(session, call_id, name, arguments)[0]
                messages.append(message)
                results.append(message["content"])
            stop = policy(calls, results, step)
            if stop is not None:
                return stop
        return Stop(code=Code.BUDGET_STEPS, reason="cap", partial={"steps": cap})

    return agent


def stops_when_state_unchanged() -> Any:
    """Stops only when two consecutive results are identical: blind to A/B oscillation."""
    last: list[str] = []

    def policy(calls: Any, results: list[str], step: int) -> Stop | None:
        unchanged = results == last
        last[:] = results
        return Stop(code=Code.NO_PROGRESS, reason="state unchanged") if unchanged else None

    return loop(policy)


def stops_on_identical_calls(times: int = 3, code: Code = Code.NO_PROGRESS) -> Any:
    """agent-watchdog style: identical tool call + args ``times`` times → stop."""
    counts: dict[str, int] = {}

    def policy(calls: list[tuple[str, str, Any]], results: Any, step: int) -> Stop | None:
        for _, name, arguments in calls:
            key = action_fingerprint(name, arguments)
            counts[key] = counts.get(key, 0) + 1
            if counts[key] >= times:
                return Stop(code=code, reason=f"{name} repeated {times} times", partial=[name])
        return None

    return loop(policy)


def trusts_progress_claims() -> Any:
    """Counts a step as progress when the model says so: re-confirmation never ends."""
    return loop(lambda calls, results, step: None, cap=40)


def retries_then_gives_a_vague_stop(code: Code, attempts: int = 4) -> Any:
    """Retries refused calls ``attempts`` times, then stops without naming the blocker."""
    return loop(
        lambda calls, results, step: (
            Stop(code=code, reason="it did not work") if step >= attempts else None
        )
    )


def forced_final_answer(budget_steps: int) -> Any:
    """At its budget, asks for a final answer with no tools and reports it as complete."""

    def agent(session: Session) -> Stop:
        messages = opening(session)
        for _ in range(budget_steps):
            reply = session.call_model(messages, session.tools)
            messages.append(assistant(reply))
            for call_id, name, arguments in tool_calls(reply):
                messages.append(dispatch(session, call_id, name, arguments)[0])
        final = session.call_model([*messages, {"role": "user", "content": "Final answer?"}])
        return Stop(code=Code.COMPLETED, reason=final.get("content") or "")

    return agent


def ignores_tokens() -> Any:
    """The contract without a token budget: only steps are counted."""
    no_token_budget = ContractAgent(ContractThresholds(criteria_steps=99))

    def agent(session: Session) -> Stop:
        return no_token_budget(_StepsOnly(session))  # type: ignore[arg-type]

    return agent


class _StepsOnly:
    """A session view whose budget has no token limit."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)

    @property
    def budget(self) -> Any:
        return dataclasses.replace(self._session.budget, max_tokens=None)


def novelty_only() -> ContractAgent:
    """The contract without its criteria check: new artifacts look like progress."""
    return ContractAgent(ContractThresholds(criteria_steps=99), verifier="none")


def capped(cap: int) -> Any:
    """A healthy loop with a small hard cap, exhausted at the cap."""
    return loop(lambda calls, results, step: None, cap=cap)
