"""Agents with one plausible flaw each: every scenario must catch the flaw it is built for."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

from unsolvable import (
    CHECK_TOOL,
    DELEGATE_TOOL,
    PROTOCOL_TOOLS,
    Budget,
    Code,
    ContextOverflow,
    Exit,
    Pricing,
    Session,
    Stop,
)
from unsolvable.agents import ContractAgent, ContractThresholds
from unsolvable.agents._budget_ledger import BudgetLedger
from unsolvable.agents._contract_run import ContractRun
from unsolvable.agents._fingerprint import action_fingerprint, observation_fingerprint, parse
from unsolvable.agents._loop import assistant, dispatch, opening, tool_calls
from unsolvable.agents._signals import compacted, error_details, wait_hint
from unsolvable.agents._supervision import Supervision
from unsolvable.agents._thresholds import Terms
from unsolvable.scenarios.catalog._dialect import HANDOFF_PREFIX

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
    """Makes ``attempts`` refused calls (the first and its retries), then stops without naming
    the blocker: counted by refusal, not by step, so a seed's background reading before them
    leaves its retries as many."""
    refused = [0]

    def policy(calls: Any, results: list[str], step: int) -> Stop | None:
        refused[0] += sum(1 for result in results if _is_error(result))
        return Stop(code=code, reason="it did not work") if refused[0] >= attempts else None

    return loop(policy)


def _is_error(result: str) -> bool:
    return bool(error_details(result))


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


def stops_at_first_stale_step() -> Any:
    """Stops the first step that brings no new observation: blind to a single re-check."""
    seen: set[str] = set()

    def policy(calls: Any, results: list[str], step: int) -> Stop | None:
        fingerprints = {observation_fingerprint(result) for result in results}
        stale = fingerprints <= seen
        seen.update(fingerprints)
        return Stop(code=Code.NO_PROGRESS, reason="nothing new") if stale else None

    return loop(policy)


def stops_without_a_model_call() -> Any:
    """Returns ``NO_PROGRESS`` before looking at anything: a guess that lag alone rewards."""
    return lambda session: Stop(code=Code.NO_PROGRESS, reason="this looks hopeless")


def _mask_every_number(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _mask_every_number(v) for k, v in value.items() if k != "request_id"}
    if isinstance(value, list):
        return [_mask_every_number(v) for v in value]
    return 0 if isinstance(value, int | float) and not isinstance(value, bool) else value


def masks_every_number(stale_steps: int = 2) -> Any:
    """Novelty with every number masked, progress figures included: a warming index looks
    stuck."""
    seen: set[str] = set()
    stale = [0]

    def policy(calls: Any, results: list[str], step: int) -> Stop | None:
        masked = {json.dumps(_mask_every_number(parse(r)), sort_keys=True) for r in results}
        stale[0] = stale[0] + 1 if masked <= seen else 0
        seen.update(masked)
        return Stop(code=Code.NO_PROGRESS, reason="masked") if stale[0] >= stale_steps else None

    return loop(policy)


def reads_one_spelling(stale_steps: int = 2) -> Any:
    """`masks_every_number`, except that it reads the progress figure where one API puts it
    (``index.percent_indexed``, snake case, not nested): tuned to seed 0's dialect, blind on the
    others."""
    seen: set[str] = set()
    stale, best = [0], [-1.0]

    def policy(calls: Any, results: list[str], step: int) -> Stop | None:
        bodies = [parse(r) for r in results]
        figures = [
            b.get("index", {}).get("percent_indexed", -1) for b in bodies if isinstance(b, dict)
        ]
        rose = max(figures, default=-1) > best[0]
        best[0] = max(best[0], *figures)
        masked = {json.dumps(_mask_every_number(b), sort_keys=True) for b in bodies}
        stale[0] = 0 if rose or not masked <= seen else stale[0] + 1
        seen.update(masked)
        return Stop(code=Code.NO_PROGRESS, reason="stale") if stale[0] >= stale_steps else None

    return loop(policy)


def criteria_stall_only(steps: int = 3) -> Any:
    """Re-reads the criteria after each step and stops when they stay flat ``steps`` steps: a
    research phase looks stuck."""

    def agent(session: Session) -> Stop | str | None:
        last: list[str] = []
        flat = [0]

        def policy(calls: Any, results: Any, step: int) -> Stop | None:
            failing = json.dumps(parse(session.call_tool(CHECK_TOOL, {})).get("failing"))
            flat[0] = flat[0] + 1 if last == [failing] else 0
            last[:] = [failing]
            return Stop(code=Code.NO_PROGRESS, reason="flat") if flat[0] >= steps else None

        return loop(policy)(session)  # type: ignore[no-any-return]

    return agent


def stops_on_repeat_without_hinting() -> Any:
    """Stops at the first identical call, without telling the model it repeats itself."""
    return stops_on_identical_calls(2)


def blocks_on_first_denial() -> Any:
    """Stops ``BLOCKED_INPUT`` at the first 403, even when the model would take another route."""

    def policy(calls: Any, results: list[str], step: int) -> Stop | None:
        denied = any('"status": 403' in result for result in results)
        return Stop(code=Code.BLOCKED_INPUT, reason="403", missing=("?",)) if denied else None

    return loop(policy)


def distrusts_every_claim() -> Any:
    """Never checks the world, never believes the model: every claim goes to a human."""
    return loop(lambda calls, results, step: None, on_text=Stop(code=Code.NEEDS_HUMAN))


def stops_when_the_model_hesitates() -> Any:
    """Takes doubt in the model's text for a ``give_up`` call."""

    def agent(session: Session) -> Stop:
        messages = opening(session)
        for _ in range(session.budget.max_steps):
            reply = session.call_model(messages, session.tools)
            messages.append(assistant(reply))
            if "give up" in (reply.get("content") or ""):
                return Stop(code=Code.NO_PROGRESS, reason="the model gave up")
            if not tool_calls(reply):
                return Stop(code=Code.COMPLETED, reason=reply.get("content") or "")
            for call_id, name, arguments in tool_calls(reply):
                messages.append(dispatch(session, call_id, name, arguments)[0])
        return Stop(
            code=Code.BUDGET_STEPS, reason="cap", partial={"steps": session.budget.max_steps}
        )

    return agent


def no_worker_runtime() -> ContractAgent:
    """The contract with no worker runtime: it calls the toolbox's ``delegate`` as a tool, which
    only says workers are the agent's own — it "passes" a stuck fan-out by seeing nothing new."""
    return ContractAgent(delegate="(no worker runtime)")


def compares_raw_results() -> Any:
    """An honest simple detector, blind to volatile ids by design: it stops on the second
    identical call that got a byte-identical result (ids included), honours ``give_up``, checks
    a success claim in the world and keeps a budget ledger. It catches every family's plain
    variant (exact repeats look exact there) and misses the hostile ones above it."""

    def agent(session: Session) -> Stop:
        messages, seen, budget, spent = opening(session), set(), session.budget, 0
        for step in range(budget.max_steps):
            if budget.max_tokens is not None and spent >= budget.max_tokens:
                return Stop(code=Code.BUDGET_COST, reason="tokens", partial={"steps": step})
            reply = session.call_model(messages, session.tools)
            spent += reply["usage"]["total_tokens"]
            messages.append(assistant(reply))
            for call_id, name, arguments in tool_calls(reply):
                if name == "give_up":
                    return Stop(code=Code.NO_PROGRESS, reason=f"gave up: {arguments}")
                message = dispatch(session, call_id, name, arguments)[0]
                messages.append(message)
                key = f"{name}:{arguments}:{message['content']}"
                if key in seen:
                    return _raw_repeat(message["content"])
                seen.add(key)
            if not tool_calls(reply):
                done = parse(session.call_tool(CHECK_TOOL, {})).get("complete") is True
                return Stop(code=Code.COMPLETED if done else Code.NEEDS_HUMAN, reason="claim")
        return Stop(code=Code.BUDGET_STEPS, reason="steps", partial={"steps": budget.max_steps})

    return agent


def _raw_repeat(result: str) -> Stop:
    error = error_details(result)
    status = error.get("status")
    if status == 403:
        missing = (str(error.get("missing_permission")),)
        return Stop(code=Code.BLOCKED_INPUT, reason="denied twice", missing=missing)
    code = Code.ERROR_FATAL if status == 503 else Code.NO_PROGRESS
    return Stop(code=code, reason="the same call got the same answer twice")


def _claim_checked(session: Session, reply: dict[str, Any]) -> Stop:
    done = parse(session.call_tool(CHECK_TOOL, {})).get("complete") is True
    return Stop(
        code=Code.COMPLETED if done else Code.NEEDS_HUMAN, reason=reply.get("content") or ""
    )


def _refused(result: str) -> bool:
    return error_details(result).get("status") in (403, 503)


def reads_the_tool_list(attempts: int = 3) -> Any:
    """Reads the tools offered, as an LLM agent does, instead of the evidence: while a tool the
    model has not called yet is on offer (a way forward), it retries, up to ``attempts`` times;
    once none is left, it stops at the first refusal or repeated answer. Where only a twin
    offers the tool that finishes the task, that is a tell: it passes the twin and stops on the
    spot on the sibling."""

    def agent(session: Session) -> Stop:
        messages, seen, repeats = opening(session), set(), 0
        unused = {spec.name for spec in session.tools} - PROTOCOL_TOOLS - {"read_background"}
        for _ in range(session.budget.max_steps):
            reply = session.call_model(messages, session.tools)
            messages.append(assistant(reply))
            if not tool_calls(reply):
                return _claim_checked(session, reply)
            for call_id, name, arguments in tool_calls(reply):
                unused.discard(name)
                result = dispatch(session, call_id, name, arguments)[0]
                messages.append(result)
                fingerprint = f"{name}:{observation_fingerprint(result['content'])}"
                stale = fingerprint in seen or _refused(result["content"])
                repeats += stale
                seen.add(fingerprint)
                if stale and (not unused or repeats >= attempts):
                    code = Code.ERROR_FATAL if _refused(result["content"]) else Code.NO_PROGRESS
                    return Stop(code=code, reason=f"{name}: nothing else to try")
        return Stop(code=Code.BUDGET_STEPS, reason="steps", partial=len(messages))

    return agent


def reads_the_budget(twin: Budget) -> Any:
    """Reads the budget instead of the evidence: the contract when the budget is ``twin``'s,
    else a stop at the second identical answer. Where only a twin has a budget of its own, that
    is a tell: it passes the twin and stops sooner than the contract on the sibling."""
    hasty = stops_on_identical_calls(2)

    def agent(session: Session) -> Stop:
        return ContractAgent()(session) if session.budget == twin else hasty(session)

    return agent


# -- budgets and blockers ------------------------------------------------------------------------


def waits_without_an_idle_budget() -> Any:
    """Honours every Retry-After and keeps no idle budget: patient for ever."""

    def agent(session: Session) -> Stop | str | None:
        def policy(calls: Any, results: list[str], step: int) -> Stop | None:
            for result in results:
                session.sleep(wait_hint(result))
            return None

        return loop(policy)(session)  # type: ignore[no-any-return]

    return agent


def reads_the_outage_wording() -> Any:
    """Reads how a 503 is worded, instead of counting attempts: a body with an error ``code``,
    or one that says the dependency "is not responding", is taken for an outage for good
    (``ERROR_FATAL`` at once); any other 503 ("overloaded") is retried until it recovers. Where
    only a sibling words its 503s so, that is a tell."""

    def agent(session: Session) -> Stop:
        messages = opening(session)
        for _ in range(session.budget.max_steps):
            reply = session.call_model(messages, session.tools)
            messages.append(assistant(reply))
            if not tool_calls(reply):
                return _claim_checked(session, reply)
            for call_id, name, arguments in tool_calls(reply):
                result = dispatch(session, call_id, name, arguments)[0]
                messages.append(result)
                error = error_details(result["content"])
                down = error.get("status") == 503
                if down and ("code" in error or "not responding" in str(error.get("message"))):
                    return Stop(code=Code.ERROR_FATAL, reason=f"{name}: down for good")
        return Stop(code=Code.BUDGET_STEPS, reason="steps", partial=len(messages))

    return agent


def idle_from_the_start() -> Any:
    """Honours Retry-After and stops ``BUDGET_IDLE`` once the idle budget's worth of wall time
    has passed since the run began: a watchdog on total time, blind to a job that moves."""

    def agent(session: Session) -> Stop | str | None:
        def policy(calls: Any, results: list[str], step: int) -> Stop | None:
            for result in results:
                session.sleep(wait_hint(result))
            limit = session.budget.max_idle_seconds
            if limit is not None and session.clock >= limit:
                return Stop(code=Code.BUDGET_IDLE, reason="idle", partial={"steps": step})
            return None

        return loop(policy)(session)  # type: ignore[no-any-return]

    return agent


def activity_watchdog() -> Any:
    """Stops ``BUDGET_IDLE`` when no tool has answered for the idle budget: never, while the
    agent keeps calling tools, however little they change."""

    def agent(session: Session) -> Stop | str | None:
        last_answer = [session.clock]

        def policy(calls: Any, results: list[str], step: int) -> Stop | None:
            quiet, last_answer[0] = session.clock - last_answer[0], session.clock
            limit = session.budget.max_idle_seconds
            if limit is not None and quiet >= limit:
                return Stop(code=Code.BUDGET_IDLE, reason="idle", partial={"steps": step})
            return None

        return loop(policy)(session)  # type: ignore[no-any-return]

    return agent


def gives_up_at_first_timeout() -> Any:
    """Takes one timeout for a dead dependency."""

    def policy(calls: Any, results: list[str], step: int) -> Stop | None:
        timed_out = any('"status": 504' in result for result in results)
        return Stop(code=Code.ERROR_FATAL, reason="timed out") if timed_out else None

    return loop(policy)


def counts_attempts_not_time(attempts: int = 5) -> Any:
    """Gives up on a dependency after five timeouts, whatever each one costs in time."""
    timeouts = [0]

    def policy(calls: Any, results: list[str], step: int) -> Stop | None:
        timeouts[0] += sum('"status": 504' in result for result in results)
        if timeouts[0] >= attempts:
            return Stop(code=Code.ERROR_FATAL, reason=f"{attempts} timeouts")
        return None

    return loop(policy)


class _SessionView:
    """A session seen through a changed budget or price list (what a flawed agent believes)."""

    def __init__(self, session: Session, pricing: Pricing | None = None, **budget: Any) -> None:
        self._session, self._pricing, self._budget = session, pricing, budget

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)

    @property
    def budget(self) -> Any:
        return dataclasses.replace(self._session.budget, **self._budget)

    @property
    def pricing(self) -> Pricing:
        return self._pricing or self._session.pricing


class _CallsAsMain(_SessionView):
    """A session whose tool calls are all made under the supervisor's name, whichever agent's
    model asked for them: a runtime that runs its workers' tools on the supervisor's client."""

    def call_tool(self, name: str, arguments: Any = None, *, agent: str = "main") -> str:
        return self._session.call_tool(name, arguments)


def calls_tools_as_main(agent: Callable[[Session], Stop]) -> Any:
    """``agent``, every tool call of its made under the supervisor's name."""
    return lambda session: agent(_CallsAsMain(session))  # type: ignore[arg-type]


def ignores_the_call_budget() -> Any:
    """The contract with no budget of external calls: it crawls on while every page is new."""

    def agent(session: Session) -> Stop:
        return ContractAgent()(_SessionView(session, max_calls=None))  # type: ignore[arg-type]

    return agent


def prices_at_the_default_price() -> Any:
    """The contract pricing every model at the library's default price, not the scenario's:
    its dollar ledger reads a fifth of what a frontier model costs."""

    def agent(session: Session) -> Stop:
        return ContractAgent()(_SessionView(session, pricing=Pricing()))  # type: ignore[arg-type]

    return agent


def stops_at_the_warning(fraction_spent: float = 0.8) -> Any:
    """Takes the call budget's 20 %-left warning for its end: stops once 80 % of the external
    calls are made, though what is left would finish the task."""

    def agent(session: Session) -> Stop | str | None:
        limit, made = session.budget.max_calls, [0]

        def policy(calls: Any, results: list[str], step: int) -> Stop | None:
            made[0] += len(calls)
            if limit is not None and made[0] >= fraction_spent * limit:
                return Stop(code=Code.BUDGET_CALLS, reason="calls", partial={"steps": step})
            return None

        return loop(policy)(session)  # type: ignore[no-any-return]

    return agent


def reserves_twice_the_last_step() -> Any:
    """Admits a step only while the dollars left cover twice what the last one cost: a margin
    that ends a task whose last steps would have fitted."""

    def agent(session: Session) -> Stop | str | None:
        limit, pricing = session.budget.max_cost_usd, session.pricing
        spent, last = 0.0, 0.0
        messages = opening(session)
        for step in range(session.budget.max_steps):
            if limit is not None and spent + 2 * last > limit:
                return Stop(code=Code.BUDGET_COST, reason="margin", partial={"steps": step})
            reply = session.call_model(messages, session.tools)
            usage = reply["usage"]
            last = pricing.cost(usage["prompt_tokens"], usage["completion_tokens"])
            spent += last
            messages.append(assistant(reply))
            if not tool_calls(reply):
                return Stop(code=Code.COMPLETED, reason=reply.get("content") or "")
            for call_id, name, arguments in tool_calls(reply):
                messages.append(dispatch(session, call_id, name, arguments)[0])
        return Stop(code=Code.BUDGET_STEPS, reason="cap", partial={"steps": step})

    return agent


def compacts_and_retries_forever(cap: int = 25) -> Any:
    """Compacts its conversation whenever the model refuses it, and tries again: for ever."""

    def agent(session: Session) -> Stop:
        messages = opening(session)
        for _ in range(cap):
            try:
                reply = session.call_model(messages, session.tools)
            except ContextOverflow:
                messages = compacted(messages)
                continue
            messages.append(assistant(reply))
            for call_id, name, arguments in tool_calls(reply):
                messages.append(dispatch(session, call_id, name, arguments)[0])
        return Stop(code=Code.BUDGET_STEPS, reason="cap", partial={"steps": cap})

    return agent


def gives_up_at_the_first_overflow() -> Any:
    """Takes one refusal over the context window for a prompt that can never fit."""

    def agent(session: Session) -> Stop | str | None:
        try:
            return loop(lambda calls, results, step: None)(session)  # type: ignore[no-any-return]
        except ContextOverflow as overflow:
            return Stop(code=Code.ERROR_FATAL, reason=str(overflow))

    return agent


def blocks_on_a_repeated_denial(by: str = "call") -> Any:
    """Blocks when the same tool (``by="tool"``: how `contract` used to block) or the same call,
    tool and arguments (``by="call"``), is denied twice: a new route, or new words, look new."""
    denied: set[str] = set()

    def policy(calls: list[tuple[str, str, Any]], results: list[str], step: int) -> Stop | None:
        for (_, name, arguments), result in zip(calls, results, strict=True):
            if '"status": 403' not in result and "PermissionDenied" not in result:
                continue
            key = name if by == "tool" else action_fingerprint(name, arguments)
            if key in denied:
                return Stop(code=Code.BLOCKED_INPUT, reason=result, missing=(result,))
            denied.add(key)
        return None

    return loop(policy)


def counts_denials_not_permissions() -> Any:
    """Blocks at the second denial, whichever permissions the two name."""
    denials = [0]

    def policy(calls: Any, results: list[str], step: int) -> Stop | None:
        denials[0] += sum('"status": 403' in result for result in results)
        return Stop(code=Code.BLOCKED_INPUT, reason="denied twice") if denials[0] >= 2 else None

    return loop(policy)


def confirms_then_asks() -> Any:
    """Does what the model asks, a confirmation included, then hands the result to a person."""

    def policy(calls: list[tuple[str, str, Any]], results: list[str], step: int) -> Stop | None:
        confirmed = any('"confirm": true' in str(arguments) for _, _, arguments in calls)
        return Stop(code=Code.NEEDS_HUMAN, reason="please check") if confirmed else None

    return loop(policy)


def asks_at_first_doubt() -> Any:
    """Hands the task to a person at the first confirmation asked for or lookup that finds
    nothing, whether or not the agent could go on."""

    def policy(calls: Any, results: list[str], step: int) -> Stop | None:
        doubt = ('"status": 404', '"status": "confirmation_required"')
        if any(mark in result for result in results for mark in doubt):
            return Stop(code=Code.NEEDS_HUMAN, reason="a person should decide")
        return None

    return loop(policy)


def delegating(
    policy: Policy,
    *,
    cap: int = 25,
    worker_cap: int = 6,
    by_role: bool = False,
    ran_out: str = "out of steps",
    withholds: bool = False,
) -> Any:
    """A supervisor loop that runs every ``delegate`` call as a worker of its own (a ReAct loop
    of ``worker_cap`` steps — with ``by_role``, its role's budget when its brief names a role —
    that believes its model's claim and says ``ran_out`` when its steps run out), with no
    subtask table, and asks ``policy(calls, results, step)`` after each step whether to stop: it
    re-runs what is done and runs what a failed dependency should have skipped. With
    ``withholds``, each subtask's worker is named after it, and the answer to its first dispatch
    is left out of the supervisor's conversation: that delegation never returns."""

    def worker(session: Session, name: str, brief: str) -> str:
        """Its last tool result and its final text: what it saw and what it says."""
        messages, seen = [*opening(session)[:-1], {"role": "user", "content": brief}], ""
        body = parse(brief)
        role = body.get("role") if by_role and isinstance(body, dict) else None
        turns = session.role_steps.get(str(role), worker_cap)
        for _ in range(turns):
            reply = session.call_model(messages, session.tools, agent=name)
            messages.append(assistant(reply))
            if not tool_calls(reply):
                return f"{seen} {reply.get('content') or ''}"
            for call_id, tool, arguments in tool_calls(reply):
                messages.append(dispatch(session, call_id, tool, arguments, agent=name)[0])
                seen = messages[-1]["content"]
        return f"{seen} {ran_out}"

    def agent(session: Session) -> Stop:
        messages, withheld = opening(session), set[str]()
        for step in range(1, cap + 1):
            reply = session.call_model(messages, session.tools)
            messages.append(assistant(reply))
            calls = tool_calls(reply)
            if not calls:
                return Stop(code=Code.COMPLETED, reason=reply.get("content") or "")
            results = []
            for call_id, name, arguments in calls:
                subtask = str(parse(arguments).get("subtask")) if withholds else call_id
                if name == "delegate":
                    result = worker(session, f"worker-{subtask}", str(arguments))
                else:
                    result = dispatch(session, call_id, name, arguments)[0]["content"]
                results.append(result)
                if name == "delegate" and withholds and subtask not in withheld:
                    withheld.add(subtask)
                    continue
                messages.append({"role": "tool", "tool_call_id": call_id, "content": result})
            stop = policy(calls, results, step)
            if stop is not None:
                return stop
        return Stop(code=Code.BUDGET_STEPS, reason="cap", partial={"steps": cap})

    return agent


def runs_every_dispatch(*, withholds: bool = False) -> Any:
    """`delegating` that stops only when two rounds bring the same results; ``withholds``: each
    subtask's first answer left out of the supervisor's conversation (`delegating`)."""
    last: list[list[str]] = []

    def policy(calls: Any, results: list[str], step: int) -> Stop | None:
        again = bool(last) and results == last[-1]
        last.append(results)
        return Stop(code=Code.NO_PROGRESS, reason="the same results again") if again else None

    return delegating(policy, withholds=withholds)


def reports_running_out_as_done() -> Any:
    """`delegating`, each worker held to its role's turns, whose runtime reports a worker that
    ran out of them as a success, and whose supervisor takes that, and its model's claim, for
    done: a sub-agent out of turns reported to its parent as success."""
    report = '{"status": "success"}'
    return delegating(lambda calls, results, step: None, by_role=True, ran_out=report)


class _HandoffsAsNews(_SessionView):
    """A session whose handoffs each read as news: the agent that took the task over, counted."""

    def __init__(self, session: Session) -> None:
        super().__init__(session)
        self._handoffs = 0

    def call_tool(self, name: str, arguments: Any = None, *, agent: str = "main") -> str:
        result = self._session.call_tool(name, arguments, agent=agent)
        if not name.startswith(HANDOFF_PREFIX):
            return result
        self._handoffs += 1
        return f"{result} (handoff {self._handoffs})"


def counts_handoffs_as_progress() -> Any:
    """The contract, but a handoff counts as progress — a new agent has the task — as a limit
    that counts node executions does: two agents handing off to each other run until the
    budget."""
    contract = ContractAgent()
    return lambda session: contract(_HandoffsAsNews(session))  # type: ignore[arg-type]


class _WorkersWord(_SessionView):
    """A session whose worker runtime answers a worker's check of its own subtask from what the
    worker's model said, not from the world: ``believed`` says whether a claim is taken."""

    def __init__(self, session: Session, *, believed: bool) -> None:
        super().__init__(session)
        self._believed = believed

    def call_tool(self, name: str, arguments: Any = None, *, agent: str = "main") -> str:
        subtask = arguments.get("subtask") if isinstance(arguments, dict) else None
        if name != CHECK_TOOL or agent == "main" or subtask is None:
            return self._session.call_tool(name, arguments, agent=agent)
        failing = [] if self._believed else [f"{subtask}: its worker's word is not proof"]
        return json.dumps({"complete": self._believed, "failing": failing})


def trusts_its_workers_word() -> Any:
    """The contract whose workers' runtime passes what their model claims, as a reviewer that
    passes the empty extraction it is handed: it skips what depends on a failure its workers
    report, and runs what depends on one a worker swallowed into an empty success."""
    contract = ContractAgent()
    return lambda session: contract(_WorkersWord(session, believed=True))  # type: ignore[arg-type]


def distrusts_its_workers_word() -> Any:
    """The contract whose workers' runtime takes every claim of their model for an error
    swallowed, however true: burnt by an empty success, it believes no worker."""
    contract = ContractAgent()
    return lambda session: contract(_WorkersWord(session, believed=False))  # type: ignore[arg-type]


def stops_at_the_second_handoff() -> Any:
    """Takes a task handed on a second time for agents bouncing it, whether or not one of them
    worked on it in between."""
    handoffs = [0]

    def policy(calls: list[tuple[str, str, Any]], results: Any, step: int) -> Stop | None:
        handoffs[0] += sum(name.startswith(HANDOFF_PREFIX) for _, name, _ in calls)
        return Stop(code=Code.NO_PROGRESS, reason="handed back") if handoffs[0] >= 2 else None

    return loop(policy)


def stops_at_first_rejection() -> Any:
    """`delegating` that takes a reviewer's first rejection for a dead end."""
    return delegating(
        lambda calls, results, step: (
            Stop(code=Code.NO_PROGRESS, reason="rejected")
            if any("rejected" in r for r in results)
            else None
        )
    )


def forgets_finished_subtasks() -> Any:
    """The contract, but its stop says only what blocked the run: nothing of the subtasks that
    finished (partial results by subtask), as it did before it kept a subtask table."""

    def agent(session: Session) -> Stop:
        stop = ContractAgent()(session)
        reason = stop.reason.split("; finished:")[0]
        return dataclasses.replace(stop, reason=reason, partial={"steps": session.budget.max_steps})

    return agent


def lists_every_subtask_as_finished() -> Any:
    """The contract, but its stop lists every subtask it dispatched as finished, the blocked
    one included, in its reason and its partial results: each name is there, blocker and all,
    and the one that did not finish is claimed done."""

    def agent(session: Session) -> Stop:
        stop = ContractAgent()(session)
        every = sorted(stop.partial.get("subtasks", {})) if isinstance(stop.partial, dict) else []
        reason = f"{stop.reason.split('; finished:')[0]}; finished: {', '.join(every)}"
        return dataclasses.replace(stop, reason=reason, partial={"finished": every})

    return agent


def stale_budget_snapshots() -> Any:
    """Each worker checks its own spend against a snapshot of what was left when its wave was
    dispatched, not the shared ledger: each spends that much, so together they overrun it."""

    def agent(session: Session) -> Stop:
        limit, price = session.budget.max_cost_usd or 0.0, session.pricing.cost
        spent, messages = [0.0], opening(session)

        def call(conversation: list[Any], name: str) -> Any:
            reply = session.call_model(conversation, session.tools, agent=name)
            usage = reply["usage"]
            spent[0] += price(usage["prompt_tokens"], usage["completion_tokens"])
            conversation.append(assistant(reply))
            return reply

        def worker(name: str, brief: str, left: float) -> str:
            conversation, start = [*opening(session)[:-1], {"role": "user", "content": brief}], 0.0
            start = spent[0]
            while spent[0] - start < left:
                reply = call(conversation, name)
                for call_id, tool, arguments in tool_calls(reply):
                    conversation.append(dispatch(session, call_id, tool, arguments, agent=name)[0])
                if not tool_calls(reply):
                    return str(reply.get("content"))
            return "spent its share"

        while spent[0] < limit:
            reply = call(messages, "main")
            left = limit - spent[0]  # the snapshot every worker of this wave is handed
            for call_id, name, arguments in tool_calls(reply):
                if name == "delegate":
                    result = worker(f"worker-{call_id}", str(arguments), left)
                else:
                    result = dispatch(session, call_id, name, arguments)[0]["content"]
                messages.append({"role": "tool", "tool_call_id": call_id, "content": result})
            if not tool_calls(reply):
                return Stop(code=Code.NEEDS_HUMAN, reason="claimed; not verified")
        return Stop(code=Code.BUDGET_COST, reason="the budget is spent", partial={"spent": limit})

    return agent


def reserves_worst_case(share: float = 0.3) -> ContractAgent:
    """The contract whose ledger reserves far more than a step costs: it holds back all but
    ``share`` of the dollar budget, and stops exhausted long before the budget is spent."""
    contract = ContractAgent()

    def agent(session: Session) -> Stop:
        return contract(_Cheaper(session, share))  # type: ignore[arg-type]

    return agent  # type: ignore[return-value]


class _Cheaper(_StepsOnly):
    """A session view whose dollar budget is ``share`` of the real one."""

    def __init__(self, session: Session, share: float) -> None:
        super().__init__(session)
        self._share = share

    @property
    def budget(self) -> Any:
        budget = self._session.budget
        return dataclasses.replace(budget, max_cost_usd=(budget.max_cost_usd or 0) * self._share)


def blocks_on_first_503() -> ContractAgent:
    """The contract that takes a dependency's first 503 for a dead dependency."""
    return ContractAgent(ContractThresholds(unavailable_attempts=1))


class _NoWaits(_SessionView):
    """A session whose waits take no time: the agent is asked to wait and goes on at once."""

    def sleep(self, seconds: float) -> None:
        """Waits nothing, whatever it is asked."""


def retries_at_once() -> Any:
    """The contract that never waits a Retry-After out: its workers retry a rate-limited call at
    once, keeping the limit tripped (the storm), and the idle budget it reads never runs out
    while its steps burn."""
    contract = ContractAgent()
    return lambda session: contract(_NoWaits(session))  # type: ignore[arg-type]


class _RateLimitsAsOutages(_SessionView):
    """A session whose 429s read as 503s with no Retry-After: a rate limit taken for a
    dependency down for good."""

    def call_tool(self, name: str, arguments: Any = None, *, agent: str = "main") -> str:
        result: str = self._session.call_tool(name, arguments, agent=agent)
        error = error_details(result)
        if error.get("status") != 429:
            return result
        down = {key: value for key, value in error.items() if key != "retry_after"}
        return json.dumps({**parse(result), "error": {**down, "status": 503}})


def gives_up_at_the_first_rate_limit() -> Any:
    """The contract that takes a rate limit for a dependency down for good and gives up at its
    first 429: a retriable error never retried."""
    contract = blocks_on_first_503()
    return lambda session: contract(_RateLimitsAsOutages(session))  # type: ignore[arg-type]


class _TimeoutsAsPending(_SessionView):
    """A session whose runtime reads a timeout as an answer still on its way: a 504 comes to
    the agent as a job still running, which it waits on rather than counts as a failure."""

    def call_tool(self, name: str, arguments: Any = None, *, agent: str = "main") -> str:
        result = self._session.call_tool(name, arguments, agent=agent)
        error = error_details(result)
        if error.get("status") != 504:
            return result
        return json.dumps({"status": "running", "message": error.get("message")})


def waits_on_a_hung_worker() -> Any:
    """The contract whose runtime takes a worker's timeouts for a slow answer to wait out, as a
    supervisor with no per-worker timeout waits on a worker that hangs: the worker calls the
    hung dependency again and again until the run's time budget is spent."""
    contract = ContractAgent()
    return lambda session: contract(_TimeoutsAsPending(session))  # type: ignore[arg-type]


def gives_up_at_the_second_timeout() -> ContractAgent:
    """The contract that abandons a dependency at its second failure in a row, one short of
    the allowance: a cold start of two timeouts looks like a dependency that hangs for good."""
    return ContractAgent(ContractThresholds(unavailable_attempts=2))


def never_retries() -> ContractAgent:
    """The contract that never dispatches a subtask again, not even after it failed."""
    return ContractAgent(ContractThresholds(retries=0))


def retries_a_refused_subtask() -> ContractAgent:
    """The contract that takes a permission refused to a subtask's worker, and again to the
    worker it dispatches next, for a failure worth another try (a third refusal would block):
    its stop, when the wave fails, says the run stalled, never which permission blocked it."""
    return ContractAgent(ContractThresholds(permission_denials=3))


class _RoundsAsNews(ContractRun):
    """The contract's supervisor, but a wave whose every worker stopped without finishing is
    one more round to it: only a blocker, a spent budget or a round that brings nothing new
    ends the run there."""

    def _after_wave(
        self, supervision: Supervision, stops: list[Stop], *, novel: bool
    ) -> Stop | None:
        spent = [stop for stop in stops if stop.exit is Exit.EXHAUSTED]
        return super()._after_wave(supervision, spent, novel=novel)


def counts_rounds_not_results() -> Any:
    """The contract whose supervisor takes a round that brought news for progress, whatever its
    workers did: workers that each hand their subtask back naming new ones bring new records
    every round, and only the budget ends the queue (a node budget: exhausted, where the run is
    abandoned)."""
    terms = Terms(thresholds=ContractThresholds(), verifier=CHECK_TOOL, delegate=DELEGATE_TOOL)
    return lambda session: _RoundsAsNews(terms, session, BudgetLedger(session), "main").go()


def forbids_new_subtasks() -> Any:
    """`delegating` whose task graph is its first wave: a subtask dispatched that the first wave
    did not name stops the run, as a graph that may add no node at all does, worked off or
    not."""
    planned: set[str] = set()

    def policy(calls: list[tuple[str, str, Any]], results: Any, step: int) -> Stop | None:
        named = {str(parse(args).get("subtask")) for _, name, args in calls if name == "delegate"}
        if not planned:
            planned.update(named)
            return None
        new = named - planned
        return Stop(code=Code.NO_PROGRESS, reason=f"{sorted(new)} not planned") if new else None

    return delegating(policy)


def never_passes_a_brief_on() -> ContractAgent:
    """The contract that takes any worker handing its brief on for a loop."""
    return ContractAgent(ContractThresholds(brief_passes=0))


def passes_briefs_on_for_ever() -> ContractAgent:
    """The contract that lets a brief be handed on without limit: only its budget stops it."""
    return ContractAgent(ContractThresholds(brief_passes=99))


def blames_the_ping_pong() -> Any:
    """The contract, but a run of rounds that ends on a worker's refusal is reported as rounds
    that went nowhere: it never says which permission the reviewer's demand needs."""

    def agent(session: Session) -> Stop:
        stop = ContractAgent()(session)
        if stop.code is not Code.BLOCKED_INPUT:
            return stop
        reason = "the producer and the reviewer went round without agreeing"
        return Stop(
            code=Code.NO_PROGRESS, reason=reason, partial={"steps": session.budget.max_steps}
        )

    return agent


def blocks_at_the_first_denial() -> ContractAgent:
    """The contract that blocks at a permission's first refusal: no other, allowed route is
    tried."""
    return ContractAgent(ContractThresholds(permission_denials=1))


def blind_to_rounds() -> ContractAgent:
    """The contract that never asks whether a round of delegation brought anything new."""
    return ContractAgent(ContractThresholds(stalled_waves=99))


class _RoleSteps(_StepsOnly):
    """A session view whose roles have these budgets instead of the scenario's."""

    def __init__(self, session: Session, scale: float | None) -> None:
        super().__init__(session)
        self._scale = scale

    @property
    def budget(self) -> Any:
        return self._session.budget

    @property
    def role_steps(self) -> dict[str, int]:
        if self._scale is None:
            return {}
        return {role: int(cap * self._scale) for role, cap in self._session.role_steps.items()}


def ignores_role_budgets() -> Any:
    """The contract that knows only the run's budget: a role spends past its own."""
    contract = ContractAgent()
    return lambda session: contract(_RoleSteps(session, None))  # type: ignore[arg-type]


def halves_role_budgets() -> Any:
    """The contract that holds each role to half its budget: it stops a role that would have
    finished."""
    contract = ContractAgent()
    return lambda session: contract(_RoleSteps(session, 0.5))  # type: ignore[arg-type]


def caps_each_agent() -> Any:
    """A cap of five steps for each worker and nothing shared: caps multiply past the run's
    budget, and a role's workers past the role's."""
    return delegating(lambda calls, results, step: None, worker_cap=5)
