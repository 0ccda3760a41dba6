"""What an SDK's error says of the loopback server's URLs, masked in every record: the run's key
differs on every run, so a record holding it would differ too."""

from __future__ import annotations

import anthropic
import pytest

from tests.unit.harness.wire.conftest import start
from unsolvable._redact import Redactor
from unsolvable.wire import Wire


def test_the_run_key_in_the_path_an_sdk_error_names_is_masked() -> None:
    """The anthropic SDK names the path it asked for in a status error's text (``path:
    /<key>/v1/messages``), with no host; the rest of the text stays."""
    with Wire(start("context-overflow/irreducible-prompt")) as wire, wire.serve() as server:
        # closed here: left to the garbage collector, its kept-alive socket was reported
        # unclosed in whichever later test the collection ran, and failed that test
        with anthropic.Anthropic(base_url=server.anthropic_base_url, api_key="k") as client:
            long = [{"role": "user", "content": "word " * 2000}]
            with pytest.raises(anthropic.BadRequestError) as refused:
                client.messages.create(model="m", messages=long, max_tokens=10)  # type: ignore[arg-type]
        message = str(refused.value)
    assert f"path: /{server.key}/v1/messages" in message
    cleaned = Redactor({}).text(message)
    assert cleaned == message.replace(server.key, "…")


def test_a_path_that_only_looks_like_the_run_key_stays() -> None:
    """A hash in a path, no route of the server's after it, is not the run's key."""
    key = "3c4d7e281d15818f527d83b41b4c9117"
    text = f"path: /{key} path: /{key}/blobs path: /{key}0/v1/messages"
    assert Redactor({}).text(text) == text
