"""The fake model on the wire: one scripted model served as OpenAI Chat Completions, OpenAI
Responses, Anthropic Messages and the Gemini API (JSON and SSE), with the token counts of the last
three, plus the scenario's tools as HTTP endpoints.

Faces: httpx2 and httpx mock transports (inject them as ``http_client=``), respx routes, and a
loopback server for agents in other processes. Importing this package imports no HTTP library.
"""

from unsolvable.wire._attempts import Attempt
from unsolvable.wire._clients import ANTHROPIC_BASE_URL, GEMINI_BASE_URL, OPENAI_BASE_URL
from unsolvable.wire._errors import HarnessFailure, StrayRequest, WireFormatError
from unsolvable.wire._exchange import FAKE_API_KEY, WireRequest, WireResponse, redact_url
from unsolvable.wire._formats import FORMATS
from unsolvable.wire._names import ToolNames
from unsolvable.wire._server import LoopbackServer
from unsolvable.wire._turn import Turn, WireFormat
from unsolvable.wire._wire import MODEL_HOSTS, TOOLS_URL, Wire

__all__ = [
    "ANTHROPIC_BASE_URL",
    "FAKE_API_KEY",
    "FORMATS",
    "GEMINI_BASE_URL",
    "MODEL_HOSTS",
    "OPENAI_BASE_URL",
    "TOOLS_URL",
    "Attempt",
    "HarnessFailure",
    "LoopbackServer",
    "StrayRequest",
    "ToolNames",
    "Turn",
    "Wire",
    "WireFormat",
    "WireFormatError",
    "WireRequest",
    "WireResponse",
    "redact_url",
]
