"""The count of a conversation is what counting it from scratch gives, whatever the agent did to
it since its last call — and a conversation that only grows is not encoded again."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import unsolvable
from tests import _builders as b
from unsolvable import JSON, Ceilings
from unsolvable._frozen import FrozenDict
from unsolvable._json import canonical_json
from unsolvable._model import estimate_tokens
from unsolvable._tally import Tally

TEXT = st.text(max_size=8)
SCALARS = st.none() | st.booleans() | st.integers(-2, 2) | st.sampled_from([1.0, 0.0, -0.0]) | TEXT
"""``1``, ``1.0`` and ``True`` among them: equal in Python, three texts in JSON."""
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=6,
)
MESSAGES = st.fixed_dictionaries(
    {"role": st.sampled_from(["system", "user", "assistant", "tool"]), "content": VALUES},
    optional={"tool_calls": st.lists(st.dictionaries(TEXT, VALUES, max_size=2), max_size=2)},
)
AGENTS = st.sampled_from(["main", "worker"])
OPERATIONS = st.one_of(
    st.tuples(st.just("append"), AGENTS, MESSAGES),
    st.tuples(st.just("edit"), AGENTS, st.integers(0, 20), VALUES),
    st.tuples(st.just("edit deep"), AGENTS, st.integers(0, 20), VALUES),
    st.tuples(st.just("trim in place"), AGENTS, st.integers(0, 20)),
    st.tuples(st.just("trim a copy"), AGENTS, st.integers(0, 20)),
    st.tuples(st.just("drop"), AGENTS, st.integers(0, 20), st.integers(0, 3)),
    st.tuples(st.just("fresh"), AGENTS, st.lists(MESSAGES, max_size=3)),
    st.tuples(st.just("call"), AGENTS),
)


def _apply(conversation: list[JSON], operation: tuple[Any, ...]) -> list[JSON]:
    """What an agent does to its conversation between two calls; returns the one it sends next."""
    kind, _, *rest = operation
    if kind == "append":
        conversation.append(json.loads(json.dumps(rest[0])))
    elif kind == "fresh":
        return json.loads(json.dumps(rest[0]))
    elif conversation:
        at = rest[0] % len(conversation)
        message = conversation[at]
        if kind == "edit":
            message["content"] = rest[1]
        elif kind == "edit deep":
            content = message["content"]
            if isinstance(content, list) and content:
                content[0] = rest[1]
            elif isinstance(content, dict) and content:
                content[next(iter(content))] = rest[1]
            else:
                message.setdefault("tool_calls", []).append({"edited": rest[1]})
        elif kind == "trim in place":
            message["content"] = "[trimmed]"
        elif kind == "trim a copy":
            conversation[at] = {**message, "content": "[trimmed]"}
        elif kind == "drop":
            del conversation[at : at + rest[1]]
    return conversation


@settings(max_examples=300)
@given(st.lists(OPERATIONS, max_size=40))
def test_every_count_is_the_count_from_scratch_whatever_the_agents_do(
    operations: list[tuple[Any, ...]],
) -> None:
    scenario = b.scenario(step_bound=50)
    session = unsolvable.Session(scenario, scenario.build(0), seed=0, ceilings=Ceilings())
    tools = estimate_tokens([b.SEARCH.to_openai()])
    conversations: dict[str, list[JSON]] = {"main": [], "worker": []}
    for operation in [*operations, ("call", "main"), ("call", "worker")]:
        agent = operation[1]
        if operation[0] != "call":
            conversations[agent] = _apply(conversations[agent], operation)
            continue
        sent = conversations[agent]
        usage = session.call_model(sent, ["search"], agent=agent)["usage"]
        assert usage["prompt_tokens"] == estimate_tokens(sent) + tools


@given(st.lists(st.lists(MESSAGES, max_size=4), max_size=6))
def test_the_tally_hands_back_the_messages_as_sent_and_their_count(
    conversations: list[list[JSON]],
) -> None:
    tally = Tally()
    for messages in conversations:
        counted = tally.count(messages)
        assert list(counted.messages) == messages and counted.total == estimate_tokens(messages)
        assert all(isinstance(m, FrozenDict) for m in counted.messages)


def test_a_growing_conversation_has_each_message_encoded_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What keeps a long run's steps flat: only what a call adds is encoded."""
    from unsolvable import _tally

    encoded: list[JSON] = []
    real = _tally.estimate_message_tokens
    monkeypatch.setattr(_tally, "estimate_message_tokens", lambda m: encoded.append(m) or real(m))
    tally, messages = Tally(), [{"role": "user", "content": "go"}]
    for step in range(50):
        assert tally.count(messages).total == estimate_tokens(messages)
        messages += [
            {"role": "assistant", "content": f"step {step}"},
            {"role": "tool", "content": ""},
        ]
    assert encoded == messages[:-2]


def test_a_number_edited_to_an_equal_boolean_or_float_is_counted_again() -> None:
    """``{"n": 1}``, ``{"n": True}`` and ``{"n": 1.0}`` are equal in Python and three texts in
    JSON: a message holding numbers or booleans is counted every call, never reused."""
    tally, content = Tally(), {"n": 1, "p": ""}
    message = {"role": "user", "content": content}
    counted = []
    for value in (1, True, 1.0):
        content["n"] = value
        counted.append(tally.count([message]).total)
    assert counted == [
        estimate_tokens([{**message, "content": {"n": v, "p": ""}}]) for v in (1, True, 1.0)
    ]
    assert counted[0] != counted[1]


@settings(max_examples=300)
@given(st.lists(OPERATIONS, max_size=40))
def test_a_conversation_is_carried_on_when_it_opens_with_the_last_one_sent(
    operations: list[tuple[Any, ...]],
) -> None:
    """Carried on: every message sent last, unchanged as JSON, and more after them — whatever
    ``==`` says of ``1`` and ``true``; a fresh, trimmed or edited conversation is not."""
    tally, conversation, last = Tally(), list[JSON](), list[str]()
    for operation in [*operations, ("call", "main")]:
        if operation[0] != "call":
            conversation = _apply(conversation, operation)
            continue
        sent = [canonical_json(message) for message in conversation]
        carried = bool(last) and sent[: len(last)] == last
        assert tally.count(conversation).continued == carried
        last = sent
