"""Consumes a call the harness refused for a missing permission, produces the question put to
the client by elicitation (whether to grant it), and the refusal itself when the client retries
the call with the ``requestState`` that carries it: the call is not made twice.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import NoBackChannelError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from unsolvable._scenario import McpErrors
from unsolvable.mcp._calls import Failed, encode, error_data

__all__ = ["ELICITING", "ask", "asked", "missing_permission"]

ASKED = "asked:"
"""Begins the ``requestState`` of a refusal put to the client by elicitation: the refusal
follows, answered when the client retries (the call is not made twice)."""
PERMISSION = "permission"
"""The key of the elicitation among an ``input_required`` result's input requests."""
ELICITING = types.ClientCapabilities(elicitation=types.ElicitationCapability())
"""What a client declares to be asked by elicitation; one that does not gets the refusal as it
is (asked anyway, the `mcp` client SDK fails the call with "Elicitation not supported")."""


def missing_permission(failed: Failed) -> str | None:
    """The permission a refusal names (the fake tools' ``missing_permission``), if any."""
    body = error_data(failed)["body"]
    error = body.get("error") if isinstance(body, dict) else None
    permission = error.get("missing_permission") if isinstance(error, dict) else None
    return str(permission) if permission else None


async def ask(
    ctx: ServerRequestContext[Any], tool: str, permission: str, failed: Failed, errors: McpErrors
) -> types.CallToolResult | types.InputRequiredResult:
    """Puts the refusal ``failed`` to the client as the question whether to grant
    ``permission``: in the modern protocol an ``input_required`` result that carries the
    refusal for the retry; in an older one the question itself, and then the refusal."""
    message, schema = _question(tool, permission)
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        asking = types.ElicitRequestFormParams(message=message, requested_schema=schema)
        state = ASKED + json.dumps({"status": failed.status, "text": failed.text})
        requests: types.InputRequests = {PERMISSION: types.ElicitRequest(params=asking)}
        return types.InputRequiredResult(input_requests=requests, request_state=state)
    with contextlib.suppress(NoBackChannelError):  # a client that cannot be asked is not
        await ctx.session.elicit_form(message, schema)
    return encode(errors, failed)


def _question(tool: str, permission: str) -> tuple[str, types.ElicitRequestedSchema]:
    """What the server asks the user: whether to grant the permission the call lacks."""
    message = f"{tool} needs the permission '{permission}', which this token lacks. Grant it?"
    schema: Any = {"type": "object", "properties": {"grant": {"type": "boolean"}}}
    return message, schema


def asked(state: str | None) -> Failed | None:
    """The refusal an elicitation was about, carried in the retry's ``requestState`` (unsealed by
    the `RequestStateBoundary`, so it is one this server minted)."""
    if state is None or not state.startswith(ASKED):
        return None
    carried = json.loads(state.removeprefix(ASKED))
    return Failed(status=int(carried["status"]), text=str(carried["text"]))
