"""A tool's answer: the agent sees the body with a fresh request id, the harness judges the body
without it, and the two texts are the body's sorted JSON with and without that one item. A
`Canned` answer gives the same texts as `respond`, call after call."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from tests import _strategies as strategies
from unsolvable._json import sorted_json
from unsolvable.fake_tools import FakeWorld
from unsolvable.fake_tools.tools._respond import Canned, respond

json_values = strategies.json_values(max_leaves=12)
keys = st.sampled_from(["a", "request", "request_id", "requests", "z", "r"]) | st.text()
bodies = st.dictionaries(keys, json_values, max_size=5)


@given(bodies, st.integers(0, 2**16))
def test_the_observation_is_the_body_and_the_text_adds_one_fresh_id(
    body: dict[str, Any], seed: int
) -> None:
    world = FakeWorld(failing=lambda _: (), seed=seed)
    result = respond(world, body)
    assert result.observation == sorted_json(body)
    again = FakeWorld(failing=lambda _: (), seed=seed).volatile_id("req")
    assert result.text == sorted_json({**body, "request_id": again})


def test_a_body_nesting_the_same_id_is_still_judged_on_the_whole_body() -> None:
    request_id = FakeWorld(failing=lambda _: (), seed=7).volatile_id("req")
    body = {"previous": {"request_id": request_id}, "z": 1}
    result = respond(FakeWorld(failing=lambda _: (), seed=7), body)
    assert result.observation == sorted_json(body)
    assert result.text.count(request_id) == 2


@given(bodies, st.integers(0, 2**16))
def test_a_canned_answer_is_what_respond_answers_call_after_call(
    body: dict[str, Any], seed: int
) -> None:
    canned = Canned(body)
    world, again = (FakeWorld(failing=lambda _: (), seed=seed) for _ in range(2))
    for _ in range(3):
        assert canned.answer(world) == respond(again, body)


def test_a_canned_answer_keeps_the_body_it_was_built_with() -> None:
    body: dict[str, Any] = {"note": "", "total": 0, "items": [1]}
    canned = Canned(body)
    body["total"] = 1  # a tool's answer is read when the tool is built
    body["items"].append(2)
    world = FakeWorld(failing=lambda _: (), seed=3)
    assert canned.answer(world).observation == sorted_json({"items": [1], "note": "", "total": 0})


def test_what_the_agent_sent_is_said_back_to_it_but_judged_no_news() -> None:
    result = respond(FakeWorld(failing=lambda _: (), seed=3), {"matches": []}, echoed={"p": "x"})
    assert result.observation == sorted_json({"matches": []})
    assert '"p": "x"' in result.text
