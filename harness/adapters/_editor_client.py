"""Consumes an Agent Client Protocol agent's calls to its editor (permission requests and
``session/update`` notifications), produces the editor's answers from the scenario and what the
turn showed: the agent's message, the permission refused last, the request it cancelled at.

Imports `acp` (the ``agent-client-protocol`` SDK); only `unsolvable.adapters._editor` imports it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from acp import RequestError, RequestPermissionResponse
from acp.schema import (
    AllowedOutcome,
    DeniedOutcome,
    PermissionOption,
    SessionNotification,
    ToolCall,
    ToolCallUpdate,
)
from pydantic import ValidationError

from unsolvable._errors import CeilingHit
from unsolvable._session import specs_of
from unsolvable._types import ToolSpec

if TYPE_CHECKING:
    from unsolvable._session import Session

__all__ = ["SAID_KEPT", "Editor", "Refusal", "Unoffered"]

SAID_KEPT = 160
"""Characters of the agent's last message the editor keeps, all a record's reason shows."""
GRANT = ("allow_once", "allow_always")
REFUSE = ("reject_once", "reject_always")
"""Option kinds, in the order an editor's user picks them: once, where the agent offers it, so
every call is asked about again."""


@dataclass(frozen=True, kw_only=True)
class Refusal:
    """A permission the editor refused: the tool the agent asked to run, and what it lacks."""

    tool: str
    permission: str


@dataclass(frozen=True, kw_only=True)
class Unoffered:
    """A permission request the editor could answer only by cancelling the turn: the agent
    offered no option of the kind the editor meant to pick (``meant``: allow or reject)."""

    tool: str
    meant: str
    permission: str | None = None
    """What the run lacks, when the editor meant to refuse a scenario tool."""


@dataclass(kw_only=True)
class Editor:
    """The editor the agent talks to (an `acp.interfaces.Client`): it answers each permission
    request from the scenario and keeps what the turn shows."""

    session: Session
    prefixes: tuple[str, ...]
    said: str = ""
    """The start of the agent's message since its last tool call: its first `SAID_KEPT`
    characters, all a record shows of it, so that neither a flood of chunks nor chunks of
    megabytes are held (joined at every chunk, a flood of them was quadratic; held whole, 200
    chunks of a megabyte were 200 MB of the harness's memory)."""
    announced: dict[str, ToolCall] = field(default_factory=dict)
    """The tool calls the agent announced (``tool_call`` updates), by id."""
    refused: Refusal | None = None
    unread: set[str] = field(default_factory=set)
    """The kinds of update the agent sent that the editor could not read, each told once."""
    cancelled: bool = False
    """Whether the editor has sent ``session/cancel``: from then on every permission the agent
    asks for is answered with the ``cancelled`` outcome, as ACP requires of an editor."""
    send_cancel: Callable[[], Awaitable[None]] | None = None
    """Sends ``session/cancel`` for the turn under way; ``None`` until the turn is asked for."""
    unoffered: Unoffered | None = None
    """The request at which the editor cancelled the turn, having no option of its answer."""
    session_id: str | None = None
    """The session the editor opened (``session/new``'s answer, `open`); ``None`` until then."""
    opened: asyncio.Event = field(default_factory=asyncio.Event)
    """Set once the session is open: what a message of the agent's that came before waits for."""
    strays: set[str] = field(default_factory=set)
    """The sessions other than the editor's that the agent named, each told once (`_is_stray`)."""

    def open(self, session_id: str) -> None:
        """Takes the session ``session/new`` answered as the turn's: every update and permission
        request of another is not this turn's (`_is_stray`)."""
        self.session_id = session_id
        self.opened.set()

    async def request_permission(
        self,
        options: list[PermissionOption],
        session_id: str,
        tool_call: ToolCallUpdate,
        **kwargs: Any,
    ) -> RequestPermissionResponse:
        """Refuses a call to a tool whose permission the run lacks (`ToolSpec.denied_permission`)
        and grants every other scenario tool. A refused call is still made through the session,
        which records it as the refused call it is (its 403 in the trajectory, the ground truth
        of the first stagnant step); an agent's own built-in tool, which no scenario has, is
        refused without being recorded. In a cancelled turn each is answered ``cancelled``; one
        whose refused call a harness ceiling refuses (`_made`) is answered so too, the turn
        cancelled as at every ceiling, and so is a request that offers no option of the answer
        (`_pick`). A request of another session than the editor's is answered with an error,
        as an editor answers one of a session it does not have, and neither made nor recorded."""
        if await self._is_stray(session_id, "a permission request"):
            raise RequestError.invalid_params(
                {"sessionId": session_id, "details": "the editor has no session of this id"}
            )
        if self.cancelled:
            return _cancelled()
        self.said = ""  # the call asked about is a tool call, announced or not (`session_update`)
        called = self._called(tool_call)
        if called is None:
            unknown = Unoffered(tool=tool_call.title or tool_call.tool_call_id, meant="reject")
            return await self._pick(options, REFUSE, unknown)
        spec, arguments = called
        if spec.denied_permission is None:
            self.refused = None
            return await self._pick(options, GRANT, Unoffered(tool=spec.name, meant="allow"))
        if not await self._made(spec.name, arguments):
            await self.cancel()
            return _cancelled()
        self.refused = Refusal(tool=spec.name, permission=str(spec.denied_permission))
        meant = Unoffered(tool=spec.name, meant="reject", permission=self.refused.permission)
        return await self._pick(options, REFUSE, meant)

    async def _made(self, name: str, arguments: Mapping[str, Any]) -> bool:
        """Makes a refused call through the session, which records it; ``False`` when a harness
        ceiling refuses it (`CeilingHit`): the run is over and the call is not made. Raised on,
        it ended the SDK's handling of the request with a traceback on stderr, the request
        never answered."""
        try:
            with contextlib.suppress(Exception):  # a raising denied tool: refused all the same
                await asyncio.to_thread(self.session.call_tool, name, arguments)
        except CeilingHit:
            return False
        return True

    async def _pick(
        self, options: Sequence[PermissionOption], kinds: Sequence[str], meant: Unoffered
    ) -> RequestPermissionResponse:
        """The first option of the first of ``kinds`` offered. Where none is, the editor cancels
        the turn and answers ``cancelled``: in ACP that outcome says the turn was cancelled, and
        it is the only answer left that is not an option the editor did not mean."""
        if not self.cancelled:
            for kind in kinds:
                for option in options:
                    if option.kind == kind:
                        outcome = AllowedOutcome(outcome="selected", option_id=option.option_id)
                        return RequestPermissionResponse(outcome=outcome)
            self.unoffered = meant
            await self.cancel()
        return _cancelled()

    async def cancel(self) -> None:
        """Cancels the turn under way (``session/cancel``), once: from then on every permission
        is answered ``cancelled``."""
        if self.cancelled or self.send_cancel is None:
            return
        self.cancelled = True
        await self.send_cancel()

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        """Keeps the agent's message since its last tool call, and the tool calls it announced.
        A tool call shows as its ``tool_call``, or, where the agent announces none (Gemini CLI
        sends only its permission request and, once the call ran, its ``tool_call_update``), as
        either of those."""
        kind = getattr(update, "session_update", None)
        if kind == "agent_message_chunk":
            if len(self.said) < SAID_KEPT:
                self.said = (self.said + str(getattr(update.content, "text", "")))[:SAID_KEPT]
            self.refused = None
        elif kind == "tool_call":
            self.said, self.refused = "", None
            self.announced[update.tool_call_id] = update
        elif kind == "tool_call_update" and update.tool_call_id not in self.announced:
            self.said = ""

    async def heard(self, params: Any) -> None:
        """A ``session/update`` notification, read (`session_update`) or, one the SDK's schema
        does not read (a kind newer than it, or malformed), ignored as ACP lets an editor ignore
        an update: said once per kind in a line on stderr, never a traceback per update."""
        try:
            notification = SessionNotification.model_validate(params)
        except ValidationError as error:
            kind = _kind_of(params)
            _say_once(
                self.unread,
                kind,
                f"unsolvable: the ACP agent sent a session/update of kind {kind!r}, which the "
                f"editor cannot read ({error.errors()[0]['msg']:.200}); it and each later one "
                "of its kind are ignored",
            )
            return
        if not await self._is_stray(notification.session_id, "a session/update"):
            await self.session_update(notification.session_id, notification.update)

    async def _is_stray(self, session_id: str, what: str) -> bool:
        """Whether a message of the agent names another session than the one the editor opened:
        not this turn's, so it neither says the turn's message nor asks for its tools (an editor
        such as Zed finds no session of its id and drops it); said once per session on stderr.
        A message that comes before the session is open waits for it, as an agent may send its
        first update right behind its answer to ``session/new``."""
        await self.opened.wait()
        if session_id == self.session_id:
            return False
        _say_once(
            self.strays,
            session_id,
            f"unsolvable: the ACP agent sent {what} of session {session_id!r}, which the editor "
            f"never opened (its session is {self.session_id!r}); it is not this turn's: each "
            "update of that session is ignored, each permission request answered with an error",
        )
        return True

    def _called(self, request: ToolCallUpdate) -> tuple[ToolSpec, dict[str, Any]] | None:
        """The scenario tool a permission request is about, and its arguments: read from the
        request, or from the tool call it names (Codex asks "Approve MCP tool call" and names
        the tool in the call it announced); ``None`` for a tool no scenario has."""
        specs = {spec.name: spec for spec in specs_of(self.session)}
        for call in (request, self.announced.get(request.tool_call_id)):
            raw = call.raw_input if call is not None and isinstance(call.raw_input, dict) else {}
            given = raw.get("arguments")
            arguments = given if isinstance(given, dict) else raw or _shown(call)
            for name in _names(call.title or "" if call is not None else "", raw, self.prefixes):
                if name in specs:
                    return specs[name], dict(arguments)
        return None


def _kind_of(params: Any) -> str:
    """The ``sessionUpdate`` kind a notification's parameters name, as sent."""
    update = params.get("update") if isinstance(params, Mapping) else None
    return str(update.get("sessionUpdate") if isinstance(update, Mapping) else update)


def _names(title: str, raw: Mapping[str, Any], prefixes: Sequence[str]) -> list[str]:
    """The names a tool call may go by: its title as it is, without an MCP prefix, its
    last word (``Tool: unsolvable/search``), its first (Gemini CLI's ``search (unsolvable MCP
    Server)``), and the ``tool`` or ``name`` of its input."""
    words = re.split(r"[\s/.:]", title)
    return [
        title,
        *(title.removeprefix(prefix) for prefix in prefixes),
        words[-1],
        words[0],
        str(raw.get("tool")),
        str(raw.get("name")),
    ]


def _shown(call: ToolCallUpdate | ToolCall | None) -> dict[str, Any]:
    """The arguments an agent shows as the text of the call's content, when it sends no
    ``rawInput`` (Gemini CLI shows them as JSON); empty when it shows none."""
    for block in (call.content or ()) if call is not None else ():
        text = getattr(getattr(block, "content", None), "text", None)
        if isinstance(text, str):
            with contextlib.suppress(ValueError):
                shown = json.loads(text)
                if isinstance(shown, dict):
                    return shown
    return {}


def _cancelled() -> RequestPermissionResponse:
    """The answer to a permission asked in a cancelled turn."""
    return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))


def _say_once(said: set[str], key: str, line: str) -> None:
    """Writes ``line`` to stderr the first time ``key`` comes: an agent that repeats a message
    the editor ignores gets one line for it, not one per message."""
    if key not in said:
        said.add(key)
        sys.stderr.write(line + "\n")
