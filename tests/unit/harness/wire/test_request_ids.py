"""Each answer of the fake model carries the request id its API sends, in the header its SDK
reads (`_request_id` on a response, `request_id` on an error): ``request-id`` on Anthropic's,
``x-request-id`` on OpenAI's; the same run gives the same ids."""

from __future__ import annotations

from typing import Any

import anthropic
import openai

from tests.unit.harness.wire.conftest import start
from unsolvable.wire import Wire

USER = [{"role": "user", "content": "hi"}]


def _anthropic_ids() -> list[str | None]:
    with Wire(start(), transient_failures=1) as wire:
        client = wire.anthropic_client(max_retries=0)
        messages: Any = client.messages
        try:
            messages.create(model="m", max_tokens=9, messages=USER)
        except anthropic.APIStatusError as failure:
            failed = failure.request_id
        counted = messages.count_tokens(model="m", messages=USER)
        created = messages.create(model="m", max_tokens=9, messages=USER)
    return [failed, counted._request_id, created._request_id]


def _openai_ids() -> list[str | None]:
    with Wire(start(), transient_failures=1) as wire:
        client = wire.openai_client(max_retries=0)
        try:
            client.chat.completions.create(model="m", messages=USER)  # type: ignore[arg-type]
        except openai.APIStatusError as failure:
            failed = failure.request_id
        completed = client.chat.completions.create(model="m", messages=USER)  # type: ignore[arg-type]
        responded = client.responses.create(model="m", input="hi")
    return [failed, completed._request_id, responded._request_id]


def test_anthropic_answers_name_their_request_in_its_header() -> None:
    ids = _anthropic_ids()
    assert ids == ["req_unsolvable_1", "req_unsolvable_2", "req_unsolvable_3"]
    assert _anthropic_ids() == ids, "the same run, the same ids"


def test_openai_answers_name_their_request_in_its_header() -> None:
    ids = _openai_ids()
    assert ids == ["req_unsolvable_1", "req_unsolvable_2", "req_unsolvable_3"]
    assert _openai_ids() == ids, "the same run, the same ids"
