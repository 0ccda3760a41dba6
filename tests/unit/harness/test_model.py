"""The scripted model: a stable name, seeded moves, the forced final answer, and a token estimate
that grows with the conversation."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests import _builders as b
from unsolvable import Call, Repeat, ScriptedModel, ToolCall, ToolSpec, _model, scenarios
from unsolvable._json import canonical_json
from unsolvable._model import (
    CHARS_PER_TOKEN,
    TOKENS_PER_MESSAGE,
    Usage,
    _encoded_size,
    estimate_assistant_tokens,
    estimate_message_tokens,
    estimate_tokens,
    estimate_tool_tokens,
    text_sizes,
)
from unsolvable._scripts import FINAL_ANSWER_CLAIM, Perturbed


@pytest.mark.parametrize("chars", [0, 3, 4, 9])
def test_a_message_costs_its_overhead_plus_a_token_per_four_characters(chars: int) -> None:
    message = {"c": "x" * chars}  # '{"c": ""}' is 9 characters before the text
    assert estimate_tokens([message]) == TOKENS_PER_MESSAGE + (9 + chars) // CHARS_PER_TOKEN


def test_the_estimate_adds_up_over_messages() -> None:
    one = {"role": "user", "content": "hello there"}
    assert estimate_tokens([one, one, one]) == 3 * estimate_tokens([one])
    assert estimate_tokens([]) == 0


def test_usage_in_the_chat_completions_shape() -> None:
    usage = Usage(input_tokens=7, output_tokens=2).to_openai()
    assert usage == {"prompt_tokens": 7, "completion_tokens": 2, "total_tokens": 9}


def test_the_name_says_which_script_unless_given() -> None:
    assert ScriptedModel(Repeat(call=Call(name="a"))).name == "scripted:Repeat"
    assert ScriptedModel(Repeat(call=Call(name="a")), name="mine").name == "mine"


def test_no_tools_offered_gets_the_final_answer_claim_and_is_kept() -> None:
    model = ScriptedModel(Repeat(call=Call(name="a")))
    assert model.last_request is None
    request = b.request(tools=())
    assert model.respond(request).content == FINAL_ANSWER_CLAIM
    assert model.last_request is request


def _ids(seed: int | None) -> list[object]:
    script = Perturbed(call=Call(name="a"), kind="volatile-id")
    model = ScriptedModel(script) if seed is None else ScriptedModel(script, seed=seed)
    return [model.respond(b.request(step)).tool_calls[0].arguments for step in (1, 2)]


def test_the_same_seed_gives_the_same_moves_and_another_seed_others() -> None:
    assert _ids(5) == _ids(5)
    assert _ids(5) != _ids(6)
    assert _ids(None) == _ids(0), "the default seed is 0"


def test_values_json_cannot_encode_are_estimated_by_their_text() -> None:
    assert estimate_tokens([{"at": object}]) == estimate_tokens([{"at": str(object)}])


texts = st.text(max_size=40)
argument_values = st.dictionaries(texts, st.none() | st.integers() | texts, max_size=3)
tool_calls = st.lists(
    st.builds(ToolCall, id=texts, name=texts, arguments=argument_values), max_size=3
)


@given(st.none() | texts, tool_calls)
def test_the_assistant_estimate_is_the_estimate_of_the_message_it_builds(
    content: str | None, calls: list[ToolCall]
) -> None:
    sent = [call.to_openai() for call in calls]
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if sent:
        message["tool_calls"] = sent
    assert estimate_assistant_tokens(content, sent) == estimate_tokens([message])


schemas = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=8,
)


@given(texts, texts, st.dictionaries(texts, schemas, max_size=4))
def test_a_tool_is_estimated_as_its_chat_completions_entry(
    name: str, description: str, parameters: dict[str, Any]
) -> None:
    spec = ToolSpec(name=name, description=description, parameters=parameters)
    assert estimate_tool_tokens(spec) == estimate_tokens([spec.to_openai()])


def test_a_tool_measured_before_is_measured_again_once_its_parameters_change() -> None:
    """The estimate is kept per spec, but only while its parameters are what was measured."""
    parameters: dict[str, Any] = {"type": "object", "properties": {"q": {"type": "string"}}}
    spec = ToolSpec(name="search", description="finds", parameters=parameters)
    first = estimate_tool_tokens(spec)
    assert estimate_tool_tokens(spec) == first == estimate_tokens([spec.to_openai()])
    parameters["properties"]["q"]["description"] = "what to look for, in a long sentence"
    assert estimate_tool_tokens(spec) == estimate_tokens([spec.to_openai()]) > first
    del parameters["properties"]["q"]
    assert estimate_tool_tokens(spec) == estimate_tokens([spec.to_openai()]) < first
    odd = ToolSpec(name="odd", description="", parameters={"enum": ("a", "b"), "x": object})
    for _ in range(2):  # not JSON: written with str, and measured every time
        assert estimate_tool_tokens(odd) == estimate_tokens([odd.to_openai()])


def test_every_tool_of_the_library_is_estimated_as_its_entry() -> None:
    specs = [s for scenario in scenarios.select() for s in scenario.build(0).toolbox.specs]
    assert specs and all(estimate_tool_tokens(s) == estimate_tokens([s.to_openai()]) for s in specs)
    for odd in (ToolSpec(name=3, description=""), ToolSpec(name="x", description=None)):  # type: ignore[arg-type]
        assert estimate_tool_tokens(odd) == estimate_tokens([odd.to_openai()])


message_values = texts | st.none() | st.integers() | st.lists(texts, max_size=2)
messages = st.dictionaries(texts, message_values, max_size=4) | st.dictionaries(
    st.integers(), texts, min_size=1, max_size=2
)


@given(messages, st.lists(texts, max_size=3))
def test_a_message_is_estimated_from_its_canonical_json(
    message: dict[Any, Any], known: list[str]
) -> None:
    """Messages of strings only are measured from their strings' lengths, the rest encoded: the
    two give the same size, to the character, whichever texts' sizes are known beforehand."""
    size = len(canonical_json(message))
    assert _encoded_size(message) == size == _encoded_size(message, text_sizes(*known))
    assert estimate_message_tokens(message) == TOKENS_PER_MESSAGE + size // CHARS_PER_TOKEN
    tokens = estimate_message_tokens(message, text_sizes(*known, *map(str, message.values())))
    assert tokens == TOKENS_PER_MESSAGE + size // CHARS_PER_TOKEN


def test_a_text_of_known_size_is_looked_up_not_encoded(monkeypatch: pytest.MonkeyPatch) -> None:
    """A session measures its task with its set-up (`text_sizes`): the step that sends it, and
    the keys and roles every message spells, encode nothing."""
    task = "Find the open invoice and mark it paid."
    sizes = text_sizes(task)
    expected = estimate_message_tokens({"role": "user", "content": task})
    encoded: list[str] = []
    real = _model.encode_basestring_ascii
    monkeypatch.setattr(_model, "encode_basestring_ascii", lambda t: encoded.append(t) or real(t))
    assert estimate_message_tokens({"role": "user", "content": task}, sizes) == expected
    assert encoded == []
    assert estimate_message_tokens({"role": "user", "content": "other"}, sizes) > 0
    assert encoded == ["other"]


def test_a_message_of_strings_is_measured_without_encoding_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The step path's point: a tool or user message costs no encoding."""
    expected = estimate_message_tokens({"role": "tool", "content": "ok"})

    def encoded(value: object) -> str:
        raise AssertionError(f"encoded {value!r}")

    monkeypatch.setattr(_model, "canonical_json", encoded)
    assert estimate_message_tokens({"role": "tool", "content": "ok"}) == expected


def test_a_message_that_is_no_dict_is_encoded() -> None:
    expected = TOKENS_PER_MESSAGE + len('["a", "b"]') // CHARS_PER_TOKEN
    assert estimate_message_tokens(["a", "b"]) == expected  # type: ignore[arg-type]
