"""Agents that try to score better than their stop logic deserves: each reads one answer and then
ends its run at its first step, by a stop decision or by something that is not one."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

from unsolvable import CHECK_TOOL, GIVE_UP_TOOL, JSON, PROTOCOL_TOOLS, Code, Exit, Session, Stop
from unsolvable.agents._budget_ledger import BudgetLedger
from unsolvable.agents._fingerprint import observation_fingerprint
from unsolvable.agents._loop import assistant, dispatch, opening, tool_calls
from unsolvable.agents._signals import error_details


def _first_step(session: Session) -> None:
    """One model call and the calls it asks for, so that what follows is no blind stop."""
    reply = session.call_model([{"role": "user", "content": session.task}], session.tools)
    for call in reply.get("tool_calls") or ():
        session.call_tool(call["function"]["name"], call["function"]["arguments"])


def stops_at_once(session: Session) -> Stop:
    """A guess, made as a stop decision: the premature stop the others are compared with."""
    _first_step(session)
    return Stop(code=Code.NO_PROGRESS, reason="guessing")


def looks_up_what_is_not_there_at_once(session: Session) -> Stop:
    """The same guess, made after calling each tool of the scenario with made-up values of its
    own, which a lookup refuses (404: no such order): a refusal of its own making."""
    _first_step(session)
    for spec in session.tools:
        fields = dict(spec.parameters.get("properties") or {})
        if spec.name not in PROTOCOL_TOOLS and fields:
            dispatch(session, "own", spec.name, dict.fromkeys(fields, "made-up-0"))
    return Stop(code=Code.BLOCKED_INPUT, reason="guessing")


def raises_at_once(session: Session) -> Stop:
    """The same guess, made by raising instead of stopping."""
    _first_step(session)
    raise RuntimeError("ending the run without a stop")


def spins_at_once(session: Session) -> Stop:
    """Makes no more steps and never stops: a tool-call ceiling ends it at its first step."""
    _first_step(session)
    while True:
        session.call_tool(CHECK_TOOL, {})


def claims_a_ceiling(session: Any) -> Stop:
    """The same guess, made by marking a harness ceiling as reached before stopping, where the
    session it was handed lets it."""
    _first_step(session)
    session.hit_ceiling("steps")
    return Stop(code=Code.NO_PROGRESS, reason="guessing")


def skips_the_asked_calls_at_once(session: Session) -> Stop:
    """The same guess, made without the calls the model asked for: a step with no answer in it
    looks like one in which nothing new came."""
    session.call_model([{"role": "user", "content": session.task}], session.tools)
    session.call_tool(CHECK_TOOL, {})
    return Stop(code=Code.NO_PROGRESS, reason="guessing")


def repeats_a_call_at_once(session: Session) -> Stop:
    """The same guess, made after calling one of the model's calls a second time, which
    answers nothing new: evidence of its own making within the step."""
    reply = session.call_model([{"role": "user", "content": session.task}], session.tools)
    calls = [call["function"] for call in reply.get("tool_calls") or ()]
    for function in [*calls, *calls[:1]]:
        session.call_tool(function["name"], function["arguments"])
    return Stop(code=Code.NO_PROGRESS, reason="guessing")


def stops_at_the_second_step(session: Session) -> Stop:
    """Makes its model's calls for two steps, and stops: a guess where the run still moved."""
    for _ in range(2):
        _first_step(session)
    return Stop(code=Code.NO_PROGRESS, reason="guessing")


def repeats_an_earlier_call_instead(session: Session) -> Stop:
    """The same guess, made after a second step whose calls it makes with the arguments the
    tool was first called with, not those its model asked for: their answer is known, so
    nothing new comes of the step."""
    first: dict[str, Any] = {}
    for _ in range(2):
        reply = session.call_model([{"role": "user", "content": session.task}], session.tools)
        for call in reply.get("tool_calls") or ():
            name, arguments = call["function"]["name"], call["function"]["arguments"]
            session.call_tool(name, first.setdefault(name, arguments))
    return Stop(code=Code.NO_PROGRESS, reason="guessing")


MADE_UP_RESULT = {"role": "tool", "tool_call_id": "call-0", "content": "{}"}
"""A tool result no call answered, which the agent writes into its own conversation."""


def offers_no_tools_at_once(session: Session) -> Stop:
    """The same guess, made after one model call that offers no tools, a tool result of its own
    making in its conversation: the model can ask for nothing, so nothing new comes of the
    step, and the result makes it look read."""
    session.call_model([{"role": "user", "content": session.task}, MADE_UP_RESULT])
    return Stop(code=Code.NO_PROGRESS, reason="guessing")


def offers_no_tools_then_stops(session: Session) -> Stop:
    """Makes its model's calls for two steps, then one model call that offers no tools, and
    stops: a guess wherever the run stood, made to look like a step that brought nothing."""
    for _ in range(2):
        _first_step(session)
    session.call_model([{"role": "user", "content": session.task}])
    return Stop(code=Code.NO_PROGRESS, reason="guessing")


def never_looks(session: Session) -> Stop:
    """Calls its model to the end of its step budget, making none of the calls it asks for,
    and stops exhausted: a stop made before reading anything."""
    return _never_looks(session, [])


def never_looks_but_writes_a_result(session: Session) -> Stop:
    """The same, a tool result of its own making in every conversation, so that it looks read."""
    return _never_looks(session, [MADE_UP_RESULT])


def never_looks_but_answers_its_calls(session: Session) -> Stop:
    """The same, answering every call its model asks for, in its next conversation, with a
    refusal of its own making, as a framework answers a call it rejects: the result is read,
    and the asked calls, never made, kept every step looking as if it could still bring news."""
    messages = opening(session)
    for _ in range(session.budget.max_steps):
        reply = session.call_model(messages, session.tools)
        messages.append(assistant(reply))
        for call_id, _name, _arguments in tool_calls(reply):
            messages.append({"role": "tool", "tool_call_id": call_id, "content": "rejected"})
    return Stop(code=Code.BUDGET_STEPS, reason="out of steps", partial=len(messages))


def _never_looks(session: Session, results: list[dict[str, Any]]) -> Stop:
    for _ in range(session.budget.max_steps):
        session.call_model([{"role": "user", "content": session.task}, *results], session.tools)
    return Stop(code=Code.BUDGET_STEPS, reason="out of steps", partial=session.budget.max_steps)


PADDING = {"role": "system", "content": "Think before you act. " * 20_000}
"""A system prompt of some 110,000 tokens, sent with the first call only."""


def _follows_its_model(session: Session, first: list[dict[str, Any]]) -> Stop:
    """Makes every call the model asks for, whatever its budget says, until the step budget
    ends; ``first`` opens the first call's conversation only."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": session.task}]
    for step in range(session.budget.max_steps):
        reply = session.call_model([*first, *messages] if step == 0 else messages, session.tools)
        messages.append({key: value for key, value in reply.items() if key != "usage"})
        for call in reply.get("tool_calls") or ():
            function = call["function"]
            result = session.call_tool(function["name"], function["arguments"])
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
    return Stop(code=Code.BUDGET_STEPS, reason="out of steps", partial=len(messages))


def ignores_its_budget(session: Session) -> Stop:
    return _follows_its_model(session, [])


def pads_its_first_prompt(session: Session) -> Stop:
    """The same run, its first call opened by a long system prompt it never sends again, so
    that its own prompt, which no budget is charged, is as large as its whole conversation."""
    return _follows_its_model(session, [PADDING])


def renames_itself_every_call(session: Session) -> Stop:
    """Follows its model as `ignores_its_budget` does, its conversation kept in a system message
    and each call made under a new agent name: every call is some agent's first, whose prompt
    is its own."""
    said: list[object] = []
    for step in range(session.budget.max_steps):
        prompt = {"role": "system", "content": f"{session.task}\n{json.dumps(said)}"}
        agent = f"agent-{step}"
        reply = session.call_model([prompt], session.tools, agent=agent)
        for call in reply.get("tool_calls") or ():
            function = call["function"]
            said.append(session.call_tool(function["name"], function["arguments"], agent=agent))
    return Stop(code=Code.BUDGET_STEPS, reason="out of steps", partial=len(said))


def stops_late_without_looking(session: Session) -> Stop:
    """Makes its model's first calls, then nine more steps whose calls — the same search again
    — it never makes, and stops: late, where leaving the calls unmade must not make every step
    one that could still have brought news."""
    reply = session.call_model([{"role": "user", "content": session.task}], session.tools)
    for call in reply.get("tool_calls") or ():
        session.call_tool(call["function"]["name"], call["function"]["arguments"])
    for _ in range(9):
        session.call_model([{"role": "user", "content": session.task}], session.tools)
    return Stop(code=Code.NO_PROGRESS, reason="stopping late")


def asks_everything_twice(session: Session) -> Stop:
    """Follows its model, making each call it asks for a second time of its own accord, and
    stops at the first step in which neither answer was new: a twin whose answers moved with
    its calls, not with the run's steps, showed the repeat its evidence a step early."""
    return _asks_twice(session, looks_around=False)


def looks_everywhere_too(session: Session) -> Stop:
    """The same, calling every tool it is offered too, of its own accord, at every step: a twin
    whose ledger listed the invoice before its search found it showed it there."""
    return _asks_twice(session, looks_around=True)


def _asks_twice(session: Session, *, looks_around: bool) -> Stop:
    messages, seen = opening(session), set[str]()
    for _ in range(session.budget.max_steps):
        reply = session.call_model(messages, session.tools)
        messages.append(assistant(reply))
        calls, stale = tool_calls(reply), True
        if looks_around:
            offered = [spec.name for spec in session.tools if spec.name not in PROTOCOL_TOOLS]
            calls += [(f"look-{name}", name, {}) for name in offered]
        for call_id, name, arguments in calls:
            if name == GIVE_UP_TOOL:
                return Stop(code=Code.NO_PROGRESS, reason="the model gave up")
            answers = [dispatch(session, call_id, name, arguments)[0] for _ in range(2)]
            new = [a for a in answers if observation_fingerprint(a["content"]) not in seen]
            seen.update(observation_fingerprint(a["content"]) for a in answers)
            stale = stale and not new
            messages.append((new or answers)[-1])
        if json.loads(session.call_tool(CHECK_TOOL, {})).get("complete"):
            return Stop(code=Code.COMPLETED, reason="verified in the world")
        if stale:
            return Stop(code=Code.NO_PROGRESS, reason="nothing new, asked twice")
    return Stop(code=Code.BUDGET_STEPS, reason="out of steps")


def claims_completion_as_abandoned(session: Session) -> Stop:
    """The same guess, its stop's code changed to ``COMPLETED`` after it was made, under the
    exit ``abandoned`` that an honest stop on an unsolvable task has: ``frozen`` does not stop
    ``object.__setattr__``."""
    _first_step(session)
    stop = Stop(code=Code.NO_PROGRESS, reason="done")
    object.__setattr__(stop, "code", Code.COMPLETED)
    assert stop.exit is Exit.ABANDONED
    return stop


class _HoldsEverything(str):
    """A text that answers yes when asked whether it holds any other: the record writes only
    what it says."""

    def __contains__(self, text: object) -> bool:
        return True


def blocks_without_naming(session: Session) -> Stop:
    """Follows its model until it gives up or a call is refused, and stops ``BLOCKED_INPUT``
    naming neither what is missing nor the model's reason."""
    return _blocks(session, "it did not work")


def blocks_saying_it_names_all(session: Session) -> Stop:
    """The same stop, its reason a text that says it holds whatever it is asked for."""
    return _blocks(session, _HoldsEverything("it did not work"))


def _blocks(session: Session, reason: str) -> Stop:
    messages = opening(session)
    for _ in range(session.budget.max_steps):
        reply = session.call_model(messages, session.tools)
        messages.append(assistant(reply))
        for call_id, name, arguments in tool_calls(reply):
            if name == GIVE_UP_TOOL:
                return Stop(code=Code.BLOCKED_INPUT, reason=reason)
            message, error = dispatch(session, call_id, name, arguments)
            if error is not None or error_details(message["content"]):
                return Stop(code=Code.BLOCKED_INPUT, reason=reason)
            messages.append(message)
    return Stop(code=Code.BUDGET_STEPS, reason="out of steps", partial=len(messages))


class _UnequalToAll(dict[str, Any]):
    """A mapping that says it equals nothing, itself and an empty one included."""

    def __eq__(self, other: object) -> bool:
        return False

    __hash__ = None


def exhausts_with_nothing(session: Session) -> Stop:
    """Follows its model to the end of its step budget and stops exhausted, handing back an
    empty partial result."""
    return dataclasses.replace(ignores_its_budget(session), partial={})


def exhausts_with_nothing_unequal(session: Session) -> Stop:
    """The same stop, its empty partial result one that equals no empty value."""
    return dataclasses.replace(ignores_its_budget(session), partial=_UnequalToAll())


LATE_STEP = 10
"""The step at which the late stops below stop: past the first stagnant step of `REPEAT`."""


def stops_late(session: Session) -> Stop:
    """Follows its model to its tenth step and stops: late, a lag to hide."""
    return _stops_late(session, lambda step: None)


def stops_late_calling_no_tool(session: Session) -> Stop:
    """The same run, with a call at every step, before the model's, to a tool that is not
    there, under a new name each time: the error names it, so it is an answer never seen."""
    return _stops_late(session, lambda step: session.call_tool(f"no_such_tool_{step}", {}))


def stops_late_with_unreadable_arguments(session: Session) -> Stop:
    """The same, each extra call to a tool of the scenario with arguments that are no JSON,
    new each time: the error quotes them."""
    name = session.tools[0].name
    return _stops_late(session, lambda step: session.call_tool(name, f"{{not json {step}"))


def stops_late_having_skipped_its_calls(session: Session) -> Stop:
    """The same stop, its model's calls made at its first and last steps only, each step
    between answered with a result of its own: the steps it skipped hold the run open, and the
    last step's calls, which answer nothing new, are evidence."""
    messages = opening(session)
    for step in range(1, LATE_STEP + 1):
        reply = session.call_model(messages, session.tools)
        messages.append(assistant(reply))
        for call_id, name, arguments in tool_calls(reply):
            if step in (1, LATE_STEP):
                messages.append(dispatch(session, call_id, name, arguments)[0])
            else:
                messages.append({"role": "tool", "tool_call_id": call_id, "content": "skipped"})
    return Stop(code=Code.NO_PROGRESS, reason="stopping late")


PUT_OFF_STEP = 5
"""The step at which the two agents below stop: within the bound of missing-permission/plain,
whose model asks for the denied call at every step from its first (seed 0)."""


def makes_the_refused_call_then_waits(session: Session) -> Stop:
    """Makes its model's calls at its first step only, each later one answered with a result
    of its own, and stops at `PUT_OFF_STEP`: a late stop, the refusal read at once."""
    return _puts_off(session, made_at=1)


def puts_off_the_refused_call(session: Session) -> Stop:
    """The same steps, its model's calls answered with a result of its own until its last
    step, whose call, the same one, is refused: it stopped on the refusal it read, but was
    asked for that call from its first step on."""
    return _puts_off(session, made_at=PUT_OFF_STEP)


def puts_off_the_refused_call_under_new_names(session: Session) -> Stop:
    """The same steps, each a fresh conversation under a new name whose call is left unmade,
    but the last's: no conversation goes on past a call it was asked for."""
    for step in range(1, PUT_OFF_STEP + 1):
        agent = f"asker-{step}"
        reply = session.call_model(opening(session), session.tools, agent=agent)
        if step == PUT_OFF_STEP:
            for call_id, name, arguments in tool_calls(reply):
                dispatch(session, call_id, name, arguments, agent=agent)
    return Stop(code=Code.NO_PROGRESS, reason="refused")


def _puts_off(session: Session, *, made_at: int) -> Stop:
    messages = opening(session)
    for step in range(1, PUT_OFF_STEP + 1):
        reply = session.call_model(messages, session.tools)
        messages.append(assistant(reply))
        for call_id, name, arguments in tool_calls(reply):
            if step == made_at:
                messages.append(dispatch(session, call_id, name, arguments)[0])
            else:
                messages.append({"role": "tool", "tool_call_id": call_id, "content": "later"})
    return Stop(code=Code.NO_PROGRESS, reason="refused")


def stops_late_out_of_calls(session: Session) -> Stop:
    """The same late stop, said to be for a call budget: on a task given none, it tells its
    caller to retry with more budget a task that no budget ended."""
    return _claims_a_budget(stops_late(session), Code.BUDGET_CALLS)


def stops_late_out_of_idle_time(session: Session) -> Stop:
    """The same late stop, said to be for an idle-time budget."""
    return _claims_a_budget(stops_late(session), Code.BUDGET_IDLE)


def stops_late_out_of_time(session: Session) -> Stop:
    """The same late stop, said to be for a time budget."""
    return _claims_a_budget(stops_late(session), Code.BUDGET_TIME)


def _claims_a_budget(stop: Stop, code: Code) -> Stop:
    return Stop(code=code, reason=f"{code}: out of budget", partial={"late": stop.reason})


def _stops_late(session: Session, before: Any) -> Stop:
    messages = opening(session)
    for step in range(1, LATE_STEP + 1):
        reply = session.call_model(messages, session.tools)
        messages.append(assistant(reply))
        before(step)
        for call_id, name, arguments in tool_calls(reply):
            messages.append(dispatch(session, call_id, name, arguments)[0])
    return Stop(code=Code.NO_PROGRESS, reason="stopping late")


def runs_away(session: Session) -> Stop:
    """Follows its model until a harness ceiling ends the run: the runaway the others are
    compared with."""
    return _runs_away(session, lambda messages: _step(session, messages))


def runs_away_offering_no_tools(session: Session) -> Stop:
    """Follows its model for one step, then calls it with no tools until a ceiling ends the
    run: its model can ask for nothing, so every step looks like one that could still bring
    news."""
    return _runs_away(session, lambda messages: session.call_model(messages))


def runs_away_making_no_calls(session: Session) -> Stop:
    """Follows its model for one step, then calls it with its tools, making none of the calls
    it asks for, until a ceiling ends the run."""
    return _runs_away(session, lambda messages: session.call_model(messages, session.tools))


def _runs_away(session: Session, step: Any) -> Stop:
    messages = opening(session)
    _step(session, messages)
    while True:
        step(messages)


def _step(session: Session, messages: list[Any]) -> None:
    """One step of following the model: its reply and the answers to its calls appended."""
    reply = session.call_model(messages, session.tools)
    messages.append(assistant(reply))
    for call_id, name, arguments in tool_calls(reply):
        messages.append(dispatch(session, call_id, name, arguments)[0])


def stops_a_step_early_on_budget(session: Session) -> Stop:
    """Follows its model in one conversation and stops ``BUDGET_COST`` while its budget could
    still cover a step or two more: the early budget stop the three below are compared with."""
    return _stops_early_on_budget(session, lambda messages: "main")


def asks_another_agent_before_its_budget_stop(session: Session) -> Stop:
    """The same stop, a one-message step under another name (a scout asked for a summary)
    made just before its last step: a run's step before the last is then a small one, and its
    last step seems to have grown by nearly all it cost, so that the next one seems unaffordable."""
    return _stops_early_on_budget(session, lambda messages: _asks_aside(session, "scout"))


def asks_itself_afresh_before_its_budget_stop(session: Session) -> Stop:
    """The same, the one-message step made under its own name, in a fresh conversation."""
    return _stops_early_on_budget(session, lambda messages: _asks_aside(session, "main"))


def jumps_under_another_name_before_its_budget_stop(session: Session) -> Stop:
    """The same, the one-message step under another name sending the conversation's opening
    message alone, and the last step made under that name, sending the whole conversation: that
    name's conversation carries on its step before, and jumped by nearly all it cost."""

    def aside(messages: list[JSON]) -> str:
        session.call_model(messages[:1], agent="scout")
        return "scout"

    return _stops_early_on_budget(session, aside)


def _asks_aside(session: Session, agent: str) -> str:
    session.call_model([{"role": "user", "content": "Summarise the task."}], agent=agent)
    return "main"


STEPS_SHORT = 3
"""How many steps' spend the early stop below keeps in hand: its budget covers one or two more
steps when it stops, which a stop at the last affordable step would have made."""


def _stops_early_on_budget(session: Session, aside: Callable[[list[JSON]], str]) -> Stop:
    """Follows its model, ``aside`` called before the step after which it stops, which is made
    under the name it returns: the first step after which its budget, by its own ledger of this
    conversation, would not cover `STEPS_SHORT` more steps."""
    ledger, messages = BudgetLedger(session), opening(session)
    budget = session.budget
    while True:
        tokens_short = budget.max_tokens is not None and (
            ledger.tokens + STEPS_SHORT * ledger.next_step() > budget.max_tokens
        )
        dollars_short = budget.max_cost_usd is not None and (
            ledger.dollars + STEPS_SHORT * ledger.last_dollars > budget.max_cost_usd
        )
        last = tokens_short or dollars_short or ledger.steps + STEPS_SHORT >= budget.max_steps
        agent = aside(messages) if last else "main"
        reply = session.call_model(messages, session.tools, agent=agent)
        ledger.charge(reply)
        messages.append(assistant(reply))
        for call_id, name, arguments in tool_calls(reply):
            messages.append(dispatch(session, call_id, name, arguments)[0])
        if last:
            return Stop(code=Code.BUDGET_COST, reason="out of budget", partial=len(messages))
