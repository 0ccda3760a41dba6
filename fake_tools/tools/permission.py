"""Consumes a call that needs a permission the caller lacks, produces a 403 naming that permission.

By default the refusal comes back as error text, as a real API's would; ``raises=True`` makes the
tool raise `PermissionDenied` instead, for agents whose tool runtime turns errors into exceptions.
Either way the agent receives the same body: the raised error carries it (`PermissionDenied.body`),
so a face that answers over HTTP answers exactly what the record keeps.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from unsolvable import ToolResult, ToolSpec
from unsolvable.fake_tools._router import Tool
from unsolvable.fake_tools._world import FakeWorld
from unsolvable.fake_tools.tools._respond import respond

__all__ = ["DENIED", "PermissionDenied", "denied_tool"]

DENIED = "denied"
"""The refusal kind of a call made without the permission it needs."""


class PermissionDenied(PermissionError):
    """A tool refused for lack of ``permission``."""

    def __init__(self, permission: str, message: str, *, body: str = "") -> None:
        super().__init__(message)
        self.permission = permission
        self.body = body
        """The refusal's body, as the call's answer text holds it: what an HTTP face answers with
        its 403, byte for byte."""

    def with_body(self, body: str) -> PermissionDenied:
        """The same refusal carrying ``body``: a result whose text was rewritten (a seed's
        dialect) raises an error that says what the text now says."""
        return PermissionDenied(self.permission, str(self), body=body)


def denied_tool(spec: ToolSpec, permission: str, *, raises: bool = False) -> Tool:
    """Refuses every call: the credentials lack ``permission`` and no call can change that."""
    message = (
        f"403 Forbidden: this token lacks the permission '{permission}' required by "
        f"{spec.name}; ask an administrator to grant it"
    )

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        body = {
            "error": {
                "status": 403,
                "code": "forbidden",
                "message": message,
                "missing_permission": permission,
            }
        }
        result = respond(world, body, refusal=DENIED)
        if not raises:
            return result
        error = PermissionDenied(permission, message, body=result.text)
        return dataclasses.replace(result, error=error)

    return Tool(spec=dataclasses.replace(spec, denied_permission=permission), handler=handle)
