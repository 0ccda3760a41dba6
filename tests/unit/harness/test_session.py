"""The session's accounting: steps, growing token usage, and the ground truth of stagnation."""

from __future__ import annotations

import itertools
import json

import pytest

import unsolvable
from tests import _builders as b
from unsolvable import Alternate, Call, Ceilings, Code, Stop
from unsolvable.agents._loop import assistant, dispatch, opening, tool_calls
from unsolvable.scenarios import get


def _session(scenario: unsolvable.Scenario, seed: int = 0) -> unsolvable.Session:
    return unsolvable.Session(scenario, scenario.build(seed), seed=seed, ceilings=Ceilings())


def test_reply_is_a_chat_completions_assistant_message_with_usage() -> None:
    session = _session(b.scenario())
    reply = session.call_model([{"role": "user", "content": "go"}], session.openai_tools)
    assert reply["role"] == "assistant"
    assert reply["tool_calls"][0]["function"] == {"name": "search", "arguments": "{}"}
    assert set(reply["usage"]) == {"prompt_tokens", "completion_tokens", "total_tokens"}


def test_input_tokens_grow_with_the_conversation() -> None:
    session, messages, prompts = _session(b.scenario()), [{"role": "user", "content": "go"}], []
    for _ in range(4):
        reply = session.call_model(messages, session.tools)
        prompts.append(reply["usage"]["prompt_tokens"])
        messages += [reply, {"role": "tool", "content": session.call_tool("search", {})}]
    growth = [later - earlier for earlier, later in itertools.pairwise(prompts)]
    assert all(step > 0 for step in growth), prompts


def test_a_count_is_the_next_steps_prompt_tokens_and_no_step() -> None:
    """`count_tokens` gives what the same call's usage reports, with a system prompt and the
    tools, on a conversation that grows; a session that counts first keeps what one that does
    not keeps."""
    counting, plain = (
        _session(get("constant-return/repeat")),
        _session(get("constant-return/repeat")),
    )
    messages = [
        {"role": "system", "content": "Stop when the task cannot be done."},
        {"role": "user", "content": counting.task},
    ]
    for _ in range(3):
        counted = counting.count_tokens(messages, counting.tools)
        reply = counting.call_model(messages, counting.tools)
        assert reply == plain.call_model(messages, plain.tools)
        assert counted == reply["usage"]["prompt_tokens"]
        message = {key: value for key, value in reply.items() if key != "usage"}
        messages += [message, {"role": "user", "content": "the same answer again"}]
    assert counting.finish() == plain.finish()


def test_no_tools_offered_gets_the_forced_final_answer() -> None:
    reply = _session(b.scenario()).call_model([], tools=None)
    assert reply["content"] == unsolvable._scripts.FINAL_ANSWER_CLAIM and "tool_calls" not in reply


def test_alternation_is_stagnant_from_the_first_revisit() -> None:
    scenario = get("contradictory-criteria/alternate")
    session = _session(scenario)
    spent = []
    for _step in range(5):
        reply = session.call_model([], session.tools)
        spent.append(reply["usage"]["total_tokens"])
        call = reply["tool_calls"][0]["function"]
        session.call_tool(call["name"], call["arguments"])
    observed = session.finish()
    assert (observed.first_stagnant_step, observed.distinct_world_states) == (3, 3)
    assert observed.detection_lag == 2 and observed.lag_tokens == sum(spent[2:])


def test_first_denial_is_the_stagnant_step_of_missing_permission() -> None:
    session = _session(get("missing-permission/retry-403"))
    session.call_model([], session.tools)
    text = session.call_tool("publish_report", {"report_id": "R-0"})
    observed = session.finish()
    assert "reports:publish" in text
    assert (observed.first_stagnant_step, observed.refusals) == (1, {"denied": 1})


def test_raising_tool_is_recorded_before_it_raises() -> None:
    session = _session(get("missing-permission/retry-raises"))
    with pytest.raises(PermissionError, match="portal:write"):
        session.call_tool("publish_report", {"report_id": "R-0"})
    assert session.finish().refusals == {"denied": 1}


def test_volatile_ids_do_not_count_as_new_observations() -> None:
    def follows_the_model(session: unsolvable.Session) -> Stop:
        messages = opening(session)
        for _ in range(4):
            messages.append(assistant(session.call_model(messages, session.tools)))
            messages += [dispatch(session, *call)[0] for call in tool_calls(messages[-1])]
        return Stop(code=Code.NO_PROGRESS)

    record = unsolvable.run(follows_the_model, get("constant-return/repeat"))
    assert record.observed.first_stagnant_step == 2


def test_tail_keeps_the_last_steps_only() -> None:
    record = unsolvable.run(
        b.steps_then(10, Stop(code=Code.NO_PROGRESS)), b.scenario(step_bound=20)
    )
    steps = [step.step for step in record.observed.tail]
    assert steps == [5, 6, 7, 8, 9, 10]
    assert record.observed.tail[-1].tools[0].name == "search"


def test_the_trajectory_keeps_every_step_in_order_and_the_tail_is_its_end() -> None:
    record = unsolvable.run(
        b.steps_then(10, Stop(code=Code.NO_PROGRESS)), b.scenario(step_bound=20)
    )
    trajectory = record.observed.trajectory
    assert [step.step for step in trajectory] == list(range(1, 11))
    assert [step.tools[0].name for step in trajectory] == ["search"] * 10
    assert [step.said for step in trajectory[-6:]] == [step.said for step in record.observed.tail]


def test_alternate_restyled_changes_bytes_not_meaning() -> None:
    plans = (Call(name="w", arguments={"text": "a b"}), Call(name="w", arguments={"text": "c"}))
    script = Alternate(plans=plans, restyled=True)
    session = _session(b.scenario(script=script))
    calls = [session.call_model([], ["w"])["tool_calls"][0]["function"] for _ in range(4)]
    texts = [json.loads(call["arguments"])["text"] for call in calls]
    assert texts[0] != texts[2]
    assert texts[0].casefold().split() == texts[2].casefold().split()


def test_scripted_model_keeps_the_last_request_for_assertions() -> None:
    session = _session(b.scenario())
    session.call_model([{"role": "user", "content": "go"}], session.tools, agent="worker-1")
    request = session._setup.model.last_request  # type: ignore[attr-defined]
    assert (request.agent, request.agent_step, request.tools) == ("worker-1", 1, ("search",))


def test_finishing_twice_gives_the_same_trajectory_and_tail() -> None:
    """An abandoned run's record is made while its agent may still come back and be recorded
    again: the second record must not lose the steps the first one let go."""
    session = _session(get("constant-return/repeat"))
    messages = [{"role": "user", "content": session.task}]
    for _ in range(8):
        call = session.call_model(messages, session.tools)["tool_calls"][0]["function"]
        session.call_tool(call["name"], call["arguments"])
    first, again = session.finish(), session.finish()
    assert len(first.trajectory) == 8 and len(first.tail) == 6
    assert (again.trajectory, again.tail) == (first.trajectory, first.tail)


def test_an_agent_that_edits_the_tools_it_is_shown_changes_no_later_run() -> None:
    """The tools a session shows are the agent's to keep: editing a schema in place (as an agent
    readying it for a strict mode might) must not reach the scenario's own tools, which every
    later run in the process offers and counts."""

    def editing(session: unsolvable.Session) -> Stop:
        for spec in session.tools:
            spec.parameters["additionalProperties"] = False
            for schema in spec.parameters.get("properties", {}).values():
                schema["description"] = "an edit that costs tokens " * 20
        return unsolvable.agents.naive(session)

    scenario = get("constant-return/repeat")
    before = unsolvable.run("naive", scenario)
    unsolvable.run(editing, scenario)
    after = unsolvable.run("naive", scenario)
    assert after.observed.input_tokens == before.observed.input_tokens
    assert after.to_dict() == before.to_dict()
