"""Consumes a wire-format request body, produces one `Turn`: what the scripted model is asked.

Every format reads into the same shape — Chat Completions messages plus the tools offered, each
named and sent whole — because that is what `Session.answer` takes, and renders the session's
reply back. A format is one module with one `WireFormat` object, registered in
`unsolvable.wire._formats.FORMATS` (and, where its API counts tokens, one `TokenCount` beside it,
in ``COUNTS``);
it remembers nothing between requests: what must be remembered (the turn read from a
conversation's previous request, whose messages a format may take again), the wire keeps.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol

from unsolvable._model import Usage
from unsolvable._offered import OfferedTool
from unsolvable._types import JSON
from unsolvable.wire._errors import WireFormatError
from unsolvable.wire._exchange import WireResponse

__all__ = [
    "CREATED",
    "SERVICE_UNAVAILABLE",
    "OpenAIErrors",
    "TokenCount",
    "Turn",
    "WireFormat",
    "arguments_of",
    "openai_context_error",
    "openai_error",
    "read_from",
    "require",
    "require_objects",
    "require_one_answer",
    "tool_calls_of",
]

CREATED = 1_767_225_600
"""A fixed creation time (2026-01-01) for every response: the same run gives the same bytes."""


@dataclass(frozen=True, kw_only=True)
class Turn:
    """One model request, read from any wire format."""

    messages: list[JSON]
    """The conversation as Chat Completions messages."""
    tools: tuple[OfferedTool, ...]
    """The tools offered, each sent whole; empty when none are, or when ``tool_choice`` forbids
    them."""
    model: str
    stream: bool
    array_stream: bool = False
    """A stream sent as one JSON array of its chunks, not as server-sent events: the Gemini
    API's, when the request does not ask for ``alt=sse``."""
    body: JSON = field(repr=False)
    """The request as sent, for echoes such as the Responses API's ``tools``."""
    items: int = 0
    """How many items of the body's conversation (`WireFormat.conversation`) were read."""
    conversation: tuple[JSON, ...] = ()
    """The messages those items became, frozen: what a later request of the conversation that
    repeats them takes again (``messages`` is these, after any system prompt)."""
    continues: str | None = None
    """The id of an earlier response whose conversation this request continues, sending only
    what it adds (the Responses API's ``previous_response_id``)."""

    @classmethod
    def of(
        cls,
        body: JSON,
        *,
        system: list[JSON],
        items: int,
        conversation: Sequence[JSON],
        tools: tuple[OfferedTool, ...],
        continues: str | None = None,
    ) -> Turn:
        """A turn whose format-specific parts the format has already read: the ``system``
        prompt's messages, the number of conversation ``items`` read and the messages of the
        ``conversation`` they became (frozen), the ``tools`` offered."""
        frozen = tuple(conversation)
        return cls(
            messages=[*system, *frozen],
            tools=tools,
            model=str(body.get("model", "unsolvable")),
            stream=bool(body.get("stream")),
            body=body,
            items=items,
            conversation=frozen,
            continues=continues,
        )


class WireFormat(Protocol):
    """One wire format: which path it answers, how it reads a request and writes a reply."""

    name: str
    path_suffix: str
    conversation: str
    """The member of a request body that holds the conversation, re-sent grown every call."""

    @property
    def request_id_header(self) -> str | None:
        """The response header its API names each request by, which its SDK reads into
        ``_request_id`` and an error's ``request_id``; None where the API sends none the SDK
        reads."""
        ...

    def read(
        self, body: JSON, earlier: Turn | None = None, *, url: str = "", counted: bool = False
    ) -> Turn:
        """The request body as a `Turn`; raises `WireFormatError` naming what is wrong.
        ``earlier``: the turn read from the conversation's previous body, when this body repeats
        every item it read (`Turn.items`), as text: the messages they became
        (`Turn.conversation`) are taken again, and only the items after them read. ``url``: the
        request's, where a format whose API names the model in the path and chooses a stream's
        form in the query (Gemini's ``alt=sse``) reads them. ``counted``: the body is a token
        count's (`TokenCount`), which takes none of the settings of the generation it counts,
        so the API does not require them (Anthropic's ``max_tokens``)."""
        ...

    def render(self, reply: JSON, usage: Usage, turn: Turn, *, step: int) -> WireResponse:
        """The format's reply to ``turn``: ``reply`` is the session's assistant message (Chat
        Completions, `Answer.message`), ``usage`` its input and output tokens."""
        ...

    def error(
        self, status: int, message: str, *, param: str | None = None, code: str | None = None
    ) -> WireResponse:
        """The format's own error body for ``status``; ``param`` and ``code`` where its API's
        error bodies carry them (`WireFormatError`)."""
        ...

    def transient_error(self, message: str) -> WireResponse:
        """The API's own answer when it fails a request for a moment (an outage, an overload):
        the status and body its SDK retries in production."""
        ...

    def response_id(self, step: int, turn: Turn) -> str | None:
        """The id by which a later request may continue the response to step ``step``
        (`Turn.continues`), or ``None`` in a format without such ids, or when ``turn`` asked
        that its response not be kept."""
        ...

    def context_error(self, tokens: int, window: int) -> WireResponse:
        """The API's own refusal of a request of ``tokens`` over a context ``window``: its
        status and body, so that its SDK raises what it raises in production."""
        ...


class TokenCount(Protocol):
    """One API's token-counting route: which path it answers, the wire format of the request
    it counts, and its answer. A count request is the generating request it counts, read and
    refused as that request is, since the APIs validate the one as the other."""

    name: str
    path_suffix: str

    @property
    def generating(self) -> WireFormat:
        """The format of the request counted, whose reading and error bodies the count
        shares."""
        ...

    def request(self, body: JSON) -> JSON:
        """The generating request ``body`` counts (itself, where the API sends it as is); raises
        `WireFormatError` naming what is wrong."""
        ...

    def render(self, tokens: int) -> WireResponse:
        """The API's answer: the request counted ``tokens`` input tokens."""
        ...


def require(body: Mapping[str, Any], key: str, kind: type, fmt: str) -> Any:
    """``body[key]`` of type ``kind``, or a `WireFormatError` naming the format and the key."""
    value = body.get(key)
    if not isinstance(value, kind):
        raise WireFormatError(
            f"unsolvable: the {fmt} request needs {key!r} as {kind.__name__}, got {value!r:.80}; "
            "is the client pointed at the right path?"
        )
    return value


def require_objects(items: list[Any], key: str, fmt: str, *, start: int = 0) -> None:
    """Every one of ``items`` (``body[key]``) from index ``start`` a JSON object, or a
    `WireFormatError` naming the first that is not: the formats read each item as a dict."""
    for index in range(start, len(items)):
        if not isinstance(items[index], dict):
            raise WireFormatError(
                f"unsolvable: the {fmt} request's {key!r} must hold JSON objects, got "
                f"{items[index]!r:.80} at index {index}"
            )


def require_one_answer(asked: object, param: str) -> None:
    """One answer asked for (``asked``, the request's ``param``: Chat Completions' ``n``,
    Gemini's ``candidateCount``), or a refusal naming it: the API would answer that many
    choices and bill each one's output, where the scripted model gives one answer a step, so
    an agent served one would read, and its record count, one answer's tokens for several."""
    if isinstance(asked, int) and not isinstance(asked, bool) and asked > 1:
        raise WireFormatError(
            f"unsolvable: {param}={asked} asks for {asked} answers to one request; the scripted "
            f"model gives one a step: ask for one (leave {param} out)",
            param=param,
        )


def read_from(earlier: Turn | None) -> int:
    """The first conversation item a format reads: the one after those ``earlier`` read."""
    return 0 if earlier is None else earlier.items


def arguments_of(call: JSON) -> str:
    """The JSON arguments of a Chat Completions tool call, as the string the formats carry."""
    arguments = call.get("function", {}).get("arguments")
    return arguments if isinstance(arguments, str) else json.dumps(arguments or {})


def tool_calls_of(reply: JSON) -> list[JSON]:
    return list(reply.get("tool_calls") or ())


OPENAI_ERROR_CODES = MappingProxyType({401: "invalid_api_key"})
"""The ``code`` OpenAI's API gives an error of these statuses; it gives ``null`` for the rest
of the refusals the fake makes (a specific code, such as ``context_length_exceeded``, is made
where the refusal is)."""
SERVICE_UNAVAILABLE = 503
"""OpenAI's and Google's status for a request the API fails for a moment, which their SDKs
retry (Google's only when retries are configured)."""
SERVER_ERRORS = 500
"""The first status OpenAI's API answers with ``"type": "server_error"``; below it, every
refusal is an ``invalid_request_error``, a wrong key included."""


def openai_context_error(message: str, param: str) -> WireResponse:
    """OpenAI's refusal of a request over the context window: a 400 whose ``code`` is
    ``context_length_exceeded`` (the SDK raises `openai.BadRequestError` with that code)."""
    return openai_error(400, message, param=param, code="context_length_exceeded")


def openai_error(
    status: int, message: str, *, param: str | None = None, code: str | None = None
) -> WireResponse:
    """An error body the way OpenAI's API writes it, its ``type`` and ``code`` as it gives them
    for ``status`` unless a ``code`` is given (the SDK's `APIError` carries both, and
    ``param``); its SDK raises the matching `APIStatusError`."""
    kind = "server_error" if status >= SERVER_ERRORS else "invalid_request_error"
    error = {
        "message": message,
        "type": kind,
        "param": param,
        "code": code or OPENAI_ERROR_CODES.get(status),
    }
    return WireResponse.json({"error": error}, status=status)


class OpenAIErrors:
    """The error answers of OpenAI's two APIs (Chat Completions, Responses), which write one
    error body (`openai_error`)."""

    __slots__ = ()

    def error(
        self, status: int, message: str, *, param: str | None = None, code: str | None = None
    ) -> WireResponse:
        return openai_error(status, message, param=param, code=code)

    def transient_error(self, message: str) -> WireResponse:
        return openai_error(SERVICE_UNAVAILABLE, message)
