"""Consumes the tool names an agent uses on the wire, produces the scenario's own, and back.

Some agents cannot call a tool by its own name: Claude Code names every MCP tool
``mcp__<server>__<tool>`` and has no way to drop the prefix, so a scripted call to
``search_invoices`` would be answered "No such tool available". `ToolNames` maps the names in
both directions at the wire, so the scripted model sees (and the record keeps) the scenario's
names while the agent sees its own: offered tools and past calls are read without the prefix,
the model's new calls are written with it. The Codex CLI's namespace tool (``mcp__<server>``)
reaches this already spelt the same way: the Responses format reads each of its functions as
``mcp__<server>__<tool>`` (`unsolvable.wire._responses`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from unsolvable._offered import OfferedTool
from unsolvable._types import JSON

__all__ = ["ToolNames"]


@dataclass(frozen=True, kw_only=True)
class ToolNames:
    """How the agent spells the scenario's tools on the wire: ``f"{prefix}{name}"``.

    >>> Wire(session, tool_names=ToolNames(prefix="mcp__unsolvable__"))   # doctest: +SKIP
    """

    prefix: str = ""
    others: tuple[str, ...] = ()
    """Other prefixes the agent may spell the tools with, when one face serves agents that spell
    them differently (Gemini CLI names MCP tools ``mcp_<server>_<tool>``): a request that
    offers a tool under one of them is read and answered in it (`spelling`)."""

    def spelling(self, offered: Sequence[str]) -> ToolNames:
        """The names as a request offering the tools ``offered`` spells them: the first of
        `others` that an offered tool begins with, else `prefix`, the others kept for reading
        (a request that offers no tools may still hold earlier calls)."""
        if not self.others:
            return self
        chosen = next(
            (other for other in self.others if any(n.startswith(other) for n in offered)),
            self.prefix,
        )
        rest = tuple(prefix for prefix in (self.prefix, *self.others) if prefix != chosen)
        return ToolNames(prefix=chosen, others=rest)

    def inbound(self, name: str) -> str:
        """The scenario's name of a tool the agent named: without the first of the prefixes it
        begins with (unchanged when it has none)."""
        for prefix in (self.prefix, *self.others):
            if prefix and name.startswith(prefix):
                return name.removeprefix(prefix)
        return name

    def outbound(self, name: str) -> str:
        return f"{self.prefix}{name}"

    def read(
        self, messages: list[JSON], tools: tuple[OfferedTool, ...]
    ) -> tuple[list[JSON], tuple[OfferedTool, ...]]:
        """A request's conversation and offered tools, in the scenario's names (as they are,
        without a prefix: the conversation is not copied on every call); a tool's definition
        is charged as it was sent, in the agent's spelling."""
        if not self.prefix and not self.others:
            return messages, tools
        renamed = tuple(tool._replace(name=self.inbound(tool.name)) for tool in tools)
        return [self._renamed(m, self.inbound) for m in messages], renamed

    def write(self, reply: JSON) -> JSON:
        """The model's reply, its tool calls in the agent's names (the reply itself when the
        agent spells them as the scenario does: copying its calls
        costs every call for nothing)."""
        if not self.prefix:
            return reply
        return self._renamed(reply, self.outbound)

    @staticmethod
    def _renamed(message: JSON, rename: Callable[[str], str]) -> JSON:
        calls = message.get("tool_calls")
        if not calls:
            return message
        renamed = [
            {**c, "function": {**c["function"], "name": rename(c["function"]["name"])}}
            for c in calls
        ]
        return {**message, "tool_calls": renamed}
