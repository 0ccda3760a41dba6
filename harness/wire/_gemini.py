"""Consumes a Gemini API ``generateContent`` request, produces the response (JSON, or its SSE
chunks for ``streamGenerateContent``).

Spoken by the ``google-genai`` SDK, Gemini CLI and REST clients, whose members the API reads in
either spelling, camelCase or its proto's snake_case (`_field`). The model is named in the path
(``…/v1beta/models/{model}:generateContent``), and so is streaming: two paths, one format class.
A stream is answered as server-sent events when the request asks for them (``?alt=sse``, as
both clients do), else as the API answers a plain REST stream: one JSON array of the chunks.
``functionCall`` parts become Chat Completions tool calls and ``functionResponse`` parts tool
messages; a call or a response without an ``id`` (the API's ids are optional) is paired with its
partner by position, so the scripted model sees the same conversation whichever SDK the agent
is built on.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Sequence
from dataclasses import replace
from types import MappingProxyType
from typing import Any
from urllib.parse import parse_qs, urlsplit

from unsolvable._frozen import freeze
from unsolvable._model import Usage
from unsolvable._offered import OfferedTool
from unsolvable._types import JSON
from unsolvable.wire._errors import WireFormatError
from unsolvable.wire._exchange import WireResponse
from unsolvable.wire._turn import (
    SERVICE_UNAVAILABLE,
    Turn,
    arguments_of,
    read_from,
    require,
    require_objects,
    require_one_answer,
)

__all__ = ["GEMINI", "GEMINI_COUNT_TOKENS", "GEMINI_STREAM"]

NAME = "Gemini generateContent"
MODELS_SEGMENT = "/models/"
"""What precedes the model's name in a request's path."""
STATUSES = MappingProxyType(
    {
        400: "INVALID_ARGUMENT",
        401: "UNAUTHENTICATED",
        403: "PERMISSION_DENIED",
        404: "NOT_FOUND",
        429: "RESOURCE_EXHAUSTED",
        500: "INTERNAL",
        503: "UNAVAILABLE",
    }
)
"""Google's canonical status names for the HTTP codes the fake answers with."""
ROLES = frozenset({None, "", "user", "model"})
"""The roles of a Gemini content: the user's (its default, when none is given) or the model's;
the API refuses any other (``assistant``, ``system``, ``function``)."""
CAPITAL = re.compile(r"([A-Z])")
"""Each capital of a member's camelCase name, which its proto name writes as ``_`` and the
letter in lower case."""


def _field(data: JSON, name: str) -> Any:
    """``data``'s member ``name``, spelt as the SDKs spell it (``systemInstruction``) or as the
    API's proto names it (``system_instruction``), which the API reads alike and Google's own
    REST examples send."""
    return data[name] if name in data else data.get(CAPITAL.sub(r"_\1", name).lower())


def _parts_of(parts: list[Any], kind: str) -> list[JSON]:
    """The ``kind`` member (``functionCall``, in either spelling, `_field`) of each part that
    has one."""
    found = (_field(part, kind) for part in parts if isinstance(part, dict))
    return [value for value in found if value is not None]


def model_of(path: str) -> str:
    """The model a request's path names (``…/models/gemini-2.5-flash:generateContent``)."""
    _, found, rest = path.rpartition(MODELS_SEGMENT)
    return rest.partition(":")[0] if found else "unsolvable"


def _system(body: JSON) -> list[JSON]:
    instruction = _field(body, "systemInstruction")
    if isinstance(instruction, str):
        return [{"role": "system", "content": instruction}] if instruction else []
    text = _text(instruction.get("parts")) if isinstance(instruction, dict) else ""
    return [{"role": "system", "content": text}] if text else []


def _text(parts: object) -> str:
    """The text of a content's parts, thoughts left out (as the Responses format leaves out
    reasoning items)."""
    if not isinstance(parts, list):
        return ""
    texts = [p.get("text") for p in parts if isinstance(p, dict) and not p.get("thought")]
    return "".join(text for text in texts if isinstance(text, str))


def _call_id(call: JSON, position: int, calls_before: int) -> str:
    """A call's own id, or one made from its place in the conversation: the same every time the
    conversation is read, so the agent's result finds it again."""
    given = call.get("id")
    return given if isinstance(given, str) and given else f"gemini_call_{calls_before}_{position}"


def _model(parts: list[Any], calls_before: int) -> JSON:
    calls = _parts_of(parts, "functionCall")
    message: JSON = {"role": "assistant", "content": _text(parts) or None}
    if calls:
        message["tool_calls"] = [
            {
                "id": _call_id(call, position, calls_before),
                "type": "function",
                "function": {
                    "name": call.get("name"),
                    "arguments": json.dumps(call.get("args") or {}),
                },
            }
            for position, call in enumerate(calls)
        ]
    return message


def _user(parts: list[Any], pending: Sequence[JSON]) -> list[JSON]:
    """Function responses first (they answer the previous turn), then the user's own text; a
    response without an id answers the call at its position among those ``pending``."""
    responses = _parts_of(parts, "functionResponse")
    results = []
    for position, response in enumerate(responses):
        given = response.get("id")
        if isinstance(given, str) and given:
            call_id = given
        elif position < len(pending):
            call_id = str(pending[position].get("id"))
        else:
            call_id = f"gemini_response_{position}"
        content = json.dumps(response.get("response") or {}, ensure_ascii=False)
        results.append({"role": "tool", "tool_call_id": call_id, "content": content})
    text = _text(parts)
    return [*results, {"role": "user", "content": text}] if text else results


def _contents(raw: list[Any], start: int, taken: Sequence[JSON]) -> list[JSON]:
    """The contents from ``start`` as Chat Completions messages, frozen; ``taken`` are the
    messages the contents before ``start`` became."""
    added: list[JSON] = []
    calls_before = sum(len(m.get("tool_calls") or ()) for m in taken)
    for index in range(start, len(raw)):
        content = raw[index]
        if content.get("role") not in ROLES:
            raise WireFormatError("Please use a valid role: user, model.")
        parts = content.get("parts") or []
        if not isinstance(parts, list):
            raise WireFormatError(
                f"unsolvable: the {NAME} request's contents[{index}].parts must be a list, got "
                f"{parts!r:.80}"
            )
        if content.get("role") == "model":
            message = _model(parts, calls_before)
            calls_before += len(message.get("tool_calls") or ())
            added.append(freeze(message))
            continue
        added.extend(freeze(message) for message in _user(parts, _last_calls(taken, added)))
    return added


def _count(content: JSON | None, role: str, kind: str) -> int:
    """How many ``kind`` parts ``content`` has, if it is ``role``'s turn (the user's when it
    names none)."""
    if content is None or (content.get("role") or "user") != role:
        return 0
    return len(_parts_of(content.get("parts") or [], kind))


def _require_responses(contents: list[JSON], start: int) -> None:
    """Every model turn's function calls answered by as many function responses in the turn
    after it, and no function responses after any other turn, from index ``start``, or the
    API's refusal: an agent that drops a result is refused in production."""
    for index in range(start, len(contents)):
        calls = _count(contents[index - 1] if index else None, "model", "functionCall")
        responses = _count(contents[index], "user", "functionResponse")
        if responses and not calls:
            raise WireFormatError(
                "Please ensure that function response turn comes immediately after a function "
                "call turn."
            )
        if calls != responses and calls:
            raise WireFormatError(
                "Please ensure that the number of function response parts is equal to the "
                "number of function call parts of the function call turn."
            )


def _last_calls(taken: Sequence[JSON], added: Sequence[JSON]) -> Sequence[JSON]:
    """The tool calls of the last model turn so far (none before the first), looked for from the
    end rather than by listing every model turn again for each content read."""
    for message in itertools.chain(reversed(added), reversed(taken)):
        if message["role"] == "assistant":
            return message.get("tool_calls") or ()
    return ()


def _tools_offered(body: JSON) -> tuple[OfferedTool, ...]:
    """Each function the request declares, sent whole (its declaration)."""
    config = _field(_field(body, "toolConfig") or {}, "functionCallingConfig") or {}
    if str(config.get("mode", "")).upper() == "NONE":
        return ()
    return tuple(
        OfferedTool.sent(str(declaration.get("name", "")), declaration)
        for tool in body.get("tools") or ()
        if isinstance(tool, dict)
        for declaration in _field(tool, "functionDeclarations") or ()
        if isinstance(declaration, dict)
    )


def _parts(reply: JSON) -> list[JSON]:
    """The reply's text, then a ``functionCall`` part per tool call."""
    parts: list[JSON] = [{"text": reply["content"]}] if reply.get("content") else []
    for call in reply.get("tool_calls") or ():
        function = call["function"]
        arguments = json.loads(arguments_of(call))
        parts.append(
            {"functionCall": {"id": call["id"], "name": function["name"], "args": arguments}}
        )
    return parts


def _response(parts: list[JSON], usage: JSON, model: str, step: int, *, final: bool) -> JSON:
    candidate: JSON = {"content": {"role": "model", "parts": parts}, "index": 0}
    if final:
        candidate["finishReason"] = "STOP"
    return {
        "candidates": [candidate],
        "usageMetadata": usage,
        "modelVersion": model,
        "responseId": f"unsolvable-{step}",
    }


class GeminiGenerateContent:
    """``POST …/models/{model}:generateContent``."""

    __slots__ = ()  # a format keeps nothing between requests: the wire does

    name = "gemini_generate_content"
    request_id_header = None
    """google-genai reads no request id from a header: a response names itself
    (``responseId``)."""
    path_suffix = ":generateContent"
    conversation = "contents"
    stream = False

    def read(
        self, body: JSON, earlier: Turn | None = None, *, url: str = "", counted: bool = False
    ) -> Turn:
        raw = require(body, "contents", list, NAME)
        if not counted:
            config = _field(body, "generationConfig")
            asked = _field(config, "candidateCount") if isinstance(config, dict) else None
            require_one_answer(asked, "generationConfig.candidateCount")
        start = read_from(earlier)
        require_objects(raw, "contents", NAME, start=start)
        taken = () if earlier is None else earlier.conversation
        added = _contents(raw, start, taken)
        _require_responses(raw, start)
        turn = Turn.of(
            body,
            system=_system(body),
            items=len(raw),
            conversation=(*taken, *added),
            tools=_tools_offered(body),
        )
        address = urlsplit(url)
        array = self.stream and "sse" not in parse_qs(address.query).get("alt", ())
        return replace(turn, model=model_of(address.path), stream=self.stream, array_stream=array)

    def render(self, reply: JSON, usage: Usage, turn: Turn, *, step: int) -> WireResponse:
        parts = _parts(reply)
        total = {
            "promptTokenCount": usage.input_tokens,
            "candidatesTokenCount": usage.output_tokens,
            "totalTokenCount": usage.input_tokens + usage.output_tokens,
        }
        if not turn.stream:
            return WireResponse.json(_response(parts, total, turn.model, step, final=True))
        prompt = {"promptTokenCount": usage.input_tokens, "totalTokenCount": usage.input_tokens}
        chunks = [[part] for part in parts] or [[{"text": ""}]]
        events: list[tuple[str | None, Any]] = [
            (None, _response(chunk, prompt, turn.model, step, final=False)) for chunk in chunks[:-1]
        ]
        events.append((None, _response(chunks[-1], total, turn.model, step, final=True)))
        if turn.array_stream:
            return WireResponse.json([data for _, data in events])
        return WireResponse.sse(events)

    def error(
        self, status: int, message: str, *, param: str | None = None, code: str | None = None
    ) -> WireResponse:
        """Google's error bodies carry the canonical status, not a member or a code of their
        own: ``param`` and ``code`` are not written."""
        body = {
            "error": {"code": status, "message": message, "status": STATUSES.get(status, "UNKNOWN")}
        }
        return WireResponse.json(body, status=status)

    def transient_error(self, message: str) -> WireResponse:
        return self.error(SERVICE_UNAVAILABLE, message)

    def response_id(self, step: int, turn: Turn) -> str | None:
        return None

    def context_error(self, tokens: int, window: int) -> WireResponse:
        """A 400 ``INVALID_ARGUMENT`` (the SDK raises `google.genai.errors.ClientError`)."""
        return self.error(
            400,
            f"The input token count ({tokens}) exceeds the maximum number of tokens allowed "
            f"({window}).",
        )


class GeminiStreamGenerateContent(GeminiGenerateContent):
    """``POST …/models/{model}:streamGenerateContent``: each chunk a response with one part,
    the last with the finish reason and the whole usage, as the API streams them."""

    __slots__ = ()

    name = "gemini_stream_generate_content"
    path_suffix = ":streamGenerateContent"
    stream = True


GEMINI = GeminiGenerateContent()
GEMINI_STREAM = GeminiStreamGenerateContent()


class GeminiCountTokens:
    """``POST …/models/{model}:countTokens``: its ``contents`` (what google-genai sends), or a
    whole ``generateContentRequest`` (the REST API's other form, which carries the system
    instruction and the tools the SDK does not send), counted."""

    __slots__ = ()

    name = "gemini_count_tokens"
    path_suffix = ":countTokens"
    generating = GEMINI

    def request(self, body: JSON) -> JSON:
        wrapped = _field(body, "generateContentRequest")
        if wrapped is None:
            return body
        if not isinstance(wrapped, dict) or _field(body, "contents") is not None:
            raise WireFormatError(
                "unsolvable: a Gemini countTokens request gives either 'contents' or a "
                f"'generateContentRequest' object, got {body!r:.80}"
            )
        return wrapped

    def render(self, tokens: int) -> WireResponse:
        """What the SDK's `CountTokensResponse` reads: ``totalTokens``, and no
        ``cachedContentTokenCount``, as no cached content is ever counted."""
        return WireResponse.json({"totalTokens": tokens})


GEMINI_COUNT_TOKENS = GeminiCountTokens()
