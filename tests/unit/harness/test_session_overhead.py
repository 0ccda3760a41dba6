"""A scenario's token budget is for the task: the agent's fixed prompt per call (its system
prompt and the tool list, measured from its first call) is recorded and not charged."""

from __future__ import annotations

import pytest

import unsolvable
from tests import _builders as b
from unsolvable import Ceilings
from unsolvable._model import estimate_tokens
from unsolvable.wire import Wire

SYSTEM = {"role": "system", "content": "You are a careful agent. " * 400}
TASK = {"role": "user", "content": "find it"}
TOOLS = [b.SEARCH.to_openai()]


WALL = Ceilings(max_wall_seconds=600)
"""These sessions count tokens, not time: the wall ceiling stays out of the way even when a first
SDK import inside one (the wire's Anthropic client) takes seconds on a loaded machine."""


def _session(max_tokens: int | None = None) -> unsolvable.Session:
    scenario = b.scenario(step_bound=50)
    if max_tokens is not None:
        scenario = scenario.with_overrides(max_tokens=max_tokens)
    return unsolvable.Session(scenario, scenario.build(0), seed=0, ceilings=WALL)


def _converse(session: unsolvable.Session, prompt: list[unsolvable.JSON], steps: int) -> None:
    """A loop that re-sends its prompt and the whole conversation on every call."""
    messages = [*prompt, TASK]
    for _ in range(steps):
        reply = session.call_model(messages, ["search"])
        messages.append({k: v for k, v in reply.items() if k != "usage"})
        for call in reply["tool_calls"]:
            result = session.call_tool("search", {})
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})


def test_the_prompt_and_the_tool_list_are_measured_once_and_credited_on_every_call() -> None:
    session = _session()
    _converse(session, [SYSTEM], 4)
    observed = session.finish()
    assert observed.overhead_tokens == estimate_tokens([SYSTEM]) + estimate_tokens(TOOLS)
    assert observed.uncharged_tokens == 4 * observed.overhead_tokens
    assert observed.charged_tokens == observed.tokens - observed.uncharged_tokens


def test_a_prompt_sent_once_is_credited_once() -> None:
    """Were the first call's prompt credited on every call, a long one sent once would leave
    every later call free, however long its conversation."""
    session = _session()
    _converse(session, [SYSTEM], 1)
    _converse(session, [], 3)
    observed = session.finish()
    tools = estimate_tokens(TOOLS)
    assert observed.uncharged_tokens == observed.overhead_tokens + 3 * tools


def test_a_rewritten_prompt_is_credited_only_as_far_as_it_is_the_first_one() -> None:
    session = _session()
    _converse(session, [SYSTEM], 1)
    _converse(session, [SYSTEM, {"role": "system", "content": "Notes so far: " * 400}], 2)
    _converse(session, [{**SYSTEM, "content": "Be brief."}], 1)
    observed = session.finish()
    assert observed.uncharged_tokens == 3 * observed.overhead_tokens + estimate_tokens(TOOLS)


def test_a_prompt_whose_number_became_a_boolean_is_a_rewritten_one() -> None:
    """``1`` and ``True`` are equal in Python and different JSON: a prompt whose ``1`` the agent
    wrote ``true`` on its next call is not the prompt its first call sent."""
    session = _session()
    _converse(session, [{**SYSTEM, "weight": 1}], 1)
    _converse(session, [{**SYSTEM, "weight": True}], 1)
    observed = session.finish()
    assert observed.uncharged_tokens == observed.overhead_tokens + estimate_tokens(TOOLS)


def test_the_prompt_is_measured_with_the_conversation_not_a_second_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from unsolvable import _tally

    measured: list[unsolvable.JSON] = []
    real = _tally.estimate_message_tokens
    monkeypatch.setattr(_tally, "estimate_message_tokens", lambda m: measured.append(m) or real(m))
    session = _session()
    _converse(session, [SYSTEM], 2)
    assert [m for m in measured if m == SYSTEM] == [SYSTEM]
    assert session.finish().overhead_tokens == estimate_tokens([SYSTEM]) + estimate_tokens(TOOLS)


def test_a_long_system_prompt_does_not_spend_the_task_budget() -> None:
    bare, prompted = _session(max_tokens=600), _session(max_tokens=600)
    _converse(bare, [], 6)
    _converse(prompted, [SYSTEM], 6)
    without, with_prompt = bare.finish(), prompted.finish()
    assert with_prompt.tokens > 6 * estimate_tokens([SYSTEM])  # far past 600 as sent
    assert with_prompt.charged_tokens == without.charged_tokens
    assert with_prompt.steps_past_token_budget == without.steps_past_token_budget


def test_lag_and_cost_count_every_token_sent() -> None:
    bare, prompted = _session(), _session()
    _converse(bare, [], 4)
    _converse(prompted, [SYSTEM], 4)
    without, with_prompt = bare.finish(), prompted.finish()
    extra = estimate_tokens([SYSTEM])
    assert with_prompt.lag_tokens == without.lag_tokens + 3 * extra  # steps 2 to 4 are lag
    assert with_prompt.cost_usd > without.cost_usd


def test_each_agent_of_a_system_has_its_own_overhead() -> None:
    session = _session()
    session.call_model([SYSTEM, TASK], ["search"], agent="supervisor")
    session.call_model([TASK], ["search"], agent="worker")
    session.call_model([TASK], ["search"], agent="worker")
    observed = session.finish()
    tools = estimate_tokens(TOOLS)
    assert observed.uncharged_tokens == estimate_tokens([SYSTEM]) + tools + 2 * tools


def test_another_agent_is_credited_its_prompt_once_it_sends_it_again() -> None:
    """Its first call is credited its tools only, and its second makes up for the rest: a
    sub-agent that makes one call pays its prompt, as one agent renamed at every call would."""
    session = _session()
    session.call_model([TASK], ["search"], agent="supervisor")
    session.call_model([SYSTEM, TASK], ["search"], agent="once")
    for _ in range(2):
        session.call_model([SYSTEM, TASK], ["search"], agent="worker")
    observed = session.finish()
    tools = estimate_tokens(TOOLS)
    assert observed.uncharged_tokens == 4 * tools + 2 * estimate_tokens([SYSTEM])


def test_the_wire_credits_the_same_prompt_as_the_plain_face() -> None:
    import anthropic  # noqa: F401  # imported before the sessions start their wall clocks

    plain, wired = _session(), _session()
    # the same definition on both faces: a tool is charged as it was sent
    tool = {"name": "search", "description": b.SEARCH.description, "input_schema": {}}
    plain.call_model([SYSTEM, TASK], [tool])
    with Wire(wired) as wire:
        wire.anthropic_client().messages.create(
            model="m", max_tokens=100, system=SYSTEM["content"], messages=[TASK], tools=[tool]
        )
    assert wired.finish().overhead_tokens == plain.finish().overhead_tokens


def test_the_budget_still_bounds_the_task_itself() -> None:
    session = _session(max_tokens=100)
    _converse(session, [SYSTEM], 5)
    assert session.finish().steps_past_token_budget > 0
