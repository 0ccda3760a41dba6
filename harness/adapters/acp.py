"""Consumes the command line of an Agent Client Protocol agent (``acp:COMMAND ARGS…``), produces a
run of it as an editor runs it — one prompt turn on the scenario's task, its model on the
loopback wire, its tools over the harness's MCP server, its permission requests answered from
the scenario — and the `Stop` its ``stopReason`` says.

Its stop reasons, read into the vocabulary (`STOP_REASONS`): ``end_turn`` → a claim of
completion the verdict checks, or ``BLOCKED_INPUT`` when the turn ended on a permission the
editor refused; ``max_turn_requests`` → ``BUDGET_STEPS``; ``max_tokens`` → ``BUDGET_COST``;
``refusal`` → ``NEEDS_HUMAN``; ``cancelled`` only follows the editor's ``session/cancel``: at a
harness ceiling, so the run is ``did_not_stop``, or at a permission request that offered no
option of the answer the editor meant (no ``reject_once`` or ``reject_always`` for a call the run
lacks the permission for), which ACP lets an editor answer only by cancelling the turn, so the run
is ``crashed`` saying so. A custom stop reason (ACP: it begins with ``_``) that names a code,
``_no_progress`` or ``_budget_idle``, is read as that code.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from unsolvable._errors import AdapterError, CeilingHit, docs_page
from unsolvable._remote import ACP_PREFIX
from unsolvable._stop import Code, Stop
from unsolvable.adapters.kit import missing_extra
from unsolvable.adapters.process import ProcessAdapter, ProcessExited, split_spec_command

if TYPE_CHECKING:
    from unsolvable._session import Session
    from unsolvable.adapters._editor import Turn
    from unsolvable.adapters._editor_client import Unoffered

__all__ = [
    "ACP_PREFIX",
    "GEMINI_TOOL_PREFIX",
    "STOP_REASONS",
    "TOOL_PREFIX",
    "AcpAdapter",
    "read_stop_reason",
]

TOOL_PREFIX = "mcp__unsolvable__"
"""How ACP agents name the harness's MCP tools on the model's wire: Claude Code names every MCP
tool ``mcp__<server>__<tool>``, and Codex's namespace reads the same (`ToolNames`)."""
GEMINI_TOOL_PREFIX = "mcp_unsolvable_"
"""How Gemini CLI names them: ``mcp_<server>_<tool>``. An ACP agent may use either spelling
unless told one (`AcpAdapter`): each request is read in the one its offered tools use."""
STOP_REASONS: dict[str, Code | None] = {
    "end_turn": Code.COMPLETED,
    "max_turn_requests": Code.BUDGET_STEPS,
    "max_tokens": Code.BUDGET_COST,
    "refusal": Code.NEEDS_HUMAN,
    "cancelled": None,
}
"""ACP's stop reasons and the code each reads as. ``refusal`` ("the agent refuses to continue")
is abandoned with a human to decide, not a blocker the agent named; ``cancelled`` has none: only
the editor cancels, at a harness ceiling or at a permission it could answer no other way."""
DOCS = docs_page("processes", "agents-that-speak-the-agent-client-protocol")


def read_stop_reason(value: str) -> Code | None:
    """The code an ACP ``stopReason`` reads as: `STOP_REASONS`, or a custom reason that names a
    code (``_no_progress`` → ``NO_PROGRESS``); ``None`` for ``cancelled`` and any other."""
    if value in STOP_REASONS:
        return STOP_REASONS[value]
    if value.startswith("_") and value[1:].upper() in Code.__members__:
        return Code[value[1:].upper()]
    return None


class AcpAdapter:
    """Runs an ACP agent's command line as an editor would (``acp:claude-code-acp``).

    ``command``: the program and its arguments, with the ``{placeholders}`` of the ``exec:``
    face; ``isolate_network``: loopback only, as for ``exec:``; ``tool_prefix``: how the agent
    names the MCP tools on the model's wire (``""`` for an agent that calls them by their own
    names; by default either `TOOL_PREFIX` or `GEMINI_TOOL_PREFIX`, whichever its requests use).
    """

    def __init__(
        self,
        command: Sequence[str],
        *,
        name: str | None = None,
        isolate_network: bool = False,
        tool_prefix: str | None = None,
    ) -> None:
        if not command:
            raise AdapterError(
                f"acp agent: no command; write it as {ACP_PREFIX}claude-code-acp. See {DOCS}"
            )
        self.command = tuple(command)
        self.name = name or ACP_PREFIX + shlex.join(self.command)
        self.tool_prefixes = (
            (TOOL_PREFIX, GEMINI_TOOL_PREFIX) if tool_prefix is None else (tool_prefix,)
        )
        """The prefixes the agent may name the MCP tools with, the default first."""
        self.process = ProcessAdapter(
            self.command,
            name=self.name,
            face=ACP_PREFIX,
            isolate_network=isolate_network,
            wire=_wire_options(self.tool_prefixes),
        )

    @classmethod
    def from_spec(cls, spec: str, *, isolate_network: bool = False) -> AcpAdapter:
        """``acp:COMMAND ARGS…``, split as a POSIX shell would (`split_spec_command`)."""
        command = split_spec_command(spec, ACP_PREFIX)
        return cls(command, name=spec, isolate_network=isolate_network)

    def preflight(self) -> None:
        """What every run needs, checked once before any (`unsolvable.load_agent`): the agent's
        program, and what `check_extras` checks."""
        self.process.preflight()
        self.check_extras()

    def check_extras(self) -> None:
        """The SDK the editor speaks with, and the MCP server the tools are offered on."""
        import importlib.util

        for module, extra in (("acp", "acp"), ("mcp", "mcp")):
            if importlib.util.find_spec(module) is None:
                raise AdapterError(f"agent {self.name!r}: {missing_extra(module, extra)}")

    def run(self, session: Session) -> Turn:
        from unsolvable.mcp import server_environ, stdio_command

        self.check_extras()
        with self.process.prepared(session) as launch:
            work = f"{launch.folder}/work"
            environ = launch.environ
            served = server_environ(session, environ["UNSOLVABLE_TOOLS_URL"])
            turn = self._converse(session, launch.argv, environ, work, served, stdio_command())
        if session.ceiling is not None:
            raise CeilingHit(f"unsolvable: harness ceiling {session.ceiling} reached")
        if turn.unoffered is not None:
            raise ProcessExited(self._cancelled_at(turn.unoffered, turn.stop_reason))
        if turn.stop_reason is None or read_stop_reason(turn.stop_reason) is None:
            # ``cancelled`` too: the editor did not cancel, so the agent's answer is not one.
            last = turn.stderr.strip().splitlines()[-1:] or ["(nothing)"]
            raise ProcessExited(
                f"agent {self.name!r} ended its turn with stop reason {turn.stop_reason!r}, which "
                f"the vocabulary does not read; its stderr ends: {last[0]}"
            )
        return turn

    def interpret(self, returned: object, error: BaseException | None) -> Stop | None:
        """The turn's stop reason as a `Stop` (`read_stop_reason`); ``end_turn`` right after a
        refused permission is the agent handing the blocker back: ``BLOCKED_INPUT``."""
        if error is not None:
            return None
        from unsolvable.adapters._editor import Turn  # the run returned: the SDK is there
        from unsolvable.adapters._editor_client import SAID_KEPT

        if not isinstance(returned, Turn) or returned.stop_reason is None:
            return None
        reason = returned.stop_reason
        code = read_stop_reason(reason)
        refused = returned.refused
        if code is Code.COMPLETED and refused is not None:
            return Stop(
                code=Code.BLOCKED_INPUT,
                reason=f"{reason} after the editor refused {refused.tool}: lacks "
                f"{refused.permission}",
                missing=(refused.permission,),
            )
        if code is None:
            return None
        said = f"; said: {returned.said:.{SAID_KEPT}}" if returned.said else ""
        partial = {"stop_reason": reason} if code.is_budget else None
        return Stop(code=code, reason=f"acp stopReason {reason}{said}", partial=partial)

    def _cancelled_at(self, unoffered: Unoffered, reason: str | None) -> str:
        """The crash of a turn the editor cancelled at a permission request it could not answer
        with an option (`Unoffered`)."""
        lacks = f" (the run lacks {unoffered.permission!r})" if unoffered.permission else ""
        return (
            f"agent {self.name!r} asked permission to call {unoffered.tool}{lacks} and offered no "
            f"option to {unoffered.meant} it; ACP leaves an editor only the cancelled outcome, "
            f"which says the turn was cancelled, so the editor cancelled the turn (the agent "
            f"answered stop reason {reason!r}). Offer {unoffered.meant}_once or "
            f"{unoffered.meant}_always. See {DOCS}"
        )

    def _converse(
        self,
        session: Session,
        argv: Sequence[str],
        environ: Mapping[str, str],
        work: str,
        served: Mapping[str, str],
        command: Sequence[str],
    ) -> Turn:
        """The turn on a thread of its own (`on_thread`), so the agent always gets its
        ``session/cancel`` at a ceiling."""
        from unsolvable.adapters._editor import Tools, converse
        from unsolvable.adapters._loop import on_thread

        os.makedirs(work, exist_ok=True)
        tools = Tools(url=environ["UNSOLVABLE_MCP_URL"], command=command, environ=served)
        try:
            return on_thread(
                session,
                lambda stop: converse(
                    session,
                    argv,
                    environ=environ,
                    cwd=work,
                    tools=tools,
                    prefixes=self.tool_prefixes,
                    stop=stop,
                ),
                name="unsolvable-acp-editor",
            )
        except Exception as error:
            raise ProcessExited(f"agent {self.name!r}: {error}") from error


def _wire_options(prefixes: tuple[str, ...]) -> dict[str, object]:
    from unsolvable.wire import ToolNames

    return {"tool_names": ToolNames(prefix=prefixes[0], others=prefixes[1:])}
