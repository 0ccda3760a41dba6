"""Consumes a request no fake route answers, or a body no wire format reads, produces an error.

    StrayRequest (BaseException)          a request that would have left the harness
    HarnessFailure (BaseException)        a request the harness failed to answer
    WireFormatError (UnsolvableError,     a request body the fake model cannot read
                     ValueError)

`StrayRequest` is a `BaseException`, like `CeilingHit`, so that an SDK's retry loop (which
catches `Exception`) cannot turn it into three silent retries and a generic connection error;
so is `HarnessFailure`, which `Wire.check` raises after the run, so that no agent swallows it.
"""

from __future__ import annotations

from typing import Any

from unsolvable._errors import HarnessFailure, UnsolvableError, docs_page
from unsolvable.wire._exchange import WireRequest

__all__ = [
    "HarnessFailure",
    "StrayRequest",
    "WireFormatError",
    "json_object",
    "require_body",
    "shape_error",
]

WIRE_DOCS = docs_page("frameworks")
"""The page on the wire faces and the framework adapters."""


class StrayRequest(BaseException):
    """A request during a scenario that matched no fake route: it would have left the harness.

    The message names the method and the URL with its query values and credentials removed;
    request headers (where API keys live) are never read into it.
    """


class WireFormatError(UnsolvableError, ValueError):
    """A request body that is not the wire format its path promises, or that asks for what the
    API would refuse. ``param`` and ``code``: the member it names and the API's own code for the
    refusal, where the API gives them (OpenAI's error bodies carry both)."""

    def __init__(self, message: str, *, param: str | None = None, code: str | None = None):
        super().__init__(message)
        self.param = param
        self.code = code


def require_body(request: WireRequest) -> None:
    if not request.body.strip():
        raise WireFormatError("unsolvable: expected a JSON object body, got an empty one")


def json_object(data: object) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise WireFormatError(f"unsolvable: expected a JSON object body, got {data!r:.80}")
    return data


def shape_error(api: str, error: Exception) -> str:
    """Why a request to ``api`` (a wire format's name) whose members hold values of other types
    than the API takes is refused."""
    return (
        f"unsolvable: this {api} request is not in the shape its API takes: a member "
        f"holds a value of another type ({error}); send each member as the API's reference "
        f"gives it. See {WIRE_DOCS}"
    )
