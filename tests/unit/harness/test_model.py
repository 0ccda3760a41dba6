"""The scripted model: a stable name, seeded moves, the forced final answer, and a token estimate
that grows with the conversation."""

from __future__ import annotations

import pytest

from tests import _builders as b
from unsolvable import Call, Repeat, ScriptedModel, ToolSpec
from unsolvable._model import (
    CHARS_PER_TOKEN,
    TOKENS_PER_MESSAGE,
    Usage,
    estimate_message_tokens,
    estimate_tokens,
    estimate_tool_tokens,
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


def test_a_tool_is_estimated_as_its_chat_completions_entry() -> None:
    spec = ToolSpec(name="search", description="finds", parameters={"type": "object"})
    assert estimate_tool_tokens(spec) == estimate_tokens([spec.to_openai()])


def test_a_message_that_is_no_dict_is_estimated_from_its_json_too() -> None:
    expected = TOKENS_PER_MESSAGE + len('["a", "b"]') // CHARS_PER_TOKEN
    assert estimate_message_tokens(["a", "b"]) == expected  # type: ignore[arg-type]
