"""Aliases and protocols: the seams between the engine, the fake world and the scripted model.

The engine depends only on these shapes, so `fake_tools` and user-built worlds plug in without the
engine importing them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from unsolvable._json import sorted_json

__all__ = [
    "CHECK_TOOL",
    "DELEGATE_TOOL",
    "GIVE_UP_TOOL",
    "JSON",
    "PROTOCOL_TOOLS",
    "CriteriaWorld",
    "ModelRequest",
    "ModelResponse",
    "ToolCall",
    "ToolResult",
    "ToolSpec",
    "Toolbox",
    "World",
]

JSON = dict[str, Any]


GIVE_UP_TOOL = "give_up"
"""The tool a model calls to say the task cannot be done; the harness notes when it asked, and
the verdict holds the agent to it."""
DELEGATE_TOOL = "delegate"
"""The tool a supervisor calls to hand a subtask to a worker its own runtime runs."""
CHECK_TOOL = "check_completion"
"""The tool that re-reads the system of record: what still fails."""
PROTOCOL_TOOLS = frozenset({CHECK_TOOL, GIVE_UP_TOOL, DELEGATE_TOOL})
"""The harness's own tools, which a termination contract names: never renamed by a dialect, never
progress (re-reading the world, giving up and handing work on bring nothing new about it), and
not counted against a budget of external calls, since they touch no dependency."""


@runtime_checkable
class CriteriaWorld(Protocol):
    """A world that can say which completion criteria still fail.

    Needed by scenarios whose stagnation is defined on the criteria (`Stagnation.CRITERIA`):
    work that creates artifacts but never moves a criterion is no progress.
    """

    def criteria(self) -> str:
        """A stable description of the criteria that still fail."""
        ...


@runtime_checkable
class World(Protocol):
    """The system of record a scenario's tools act on."""

    def fingerprint(self) -> str:
        """A digest of the content that counts for progress: audit fields such as access counts
        excluded, and a written value counted by what the world's checks make of it where they
        judge it (the criteria a text fails), so that new bytes alone are no new state."""
        ...

    def is_complete(self) -> bool:
        """The completion predicate, which the harness evaluates itself."""
        ...


@dataclass(frozen=True, kw_only=True)
class ToolSpec:
    """What an agent is told about a tool: the OpenAI function-tool shape."""

    name: str
    description: str
    parameters: JSON = field(default_factory=lambda: {"type": "object", "properties": {}})
    denied_permission: str | None = None
    """A permission every call needs and the run's credentials lack: the tool refuses each call
    (403), and a face that asks before a call (ACP's ``session/request_permission``) is refused
    there. Never shown to the agent (`to_openai` and `Session.tools` leave it out)."""

    def to_openai(self) -> JSON:
        """The Chat Completions ``tools`` entry for this tool."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


@dataclass(frozen=True, kw_only=True)
class ToolResult:
    """What one tool call produced, as the agent sees it and as the harness judges it."""

    text: str
    """The result text the agent receives."""
    observation: str
    """A stable form of the result (volatile ids dropped): the ground truth of novelty."""
    refusal: str | None = None
    """The kind of refusal, when the call was refused: the tool family names it (``denied``
    for a missing permission, ``unavailable`` for a dependency that is down, ...)."""
    error: BaseException | None = None
    """Raised to the agent after the call is recorded (opt-in raising tools)."""
    seconds: float = 0.0
    """Seconds the call took on the session clock (a tool that hangs until its timeout): the
    wall and idle budgets run on, while the run costs no real time."""
    irreversible: bool = False
    """The call did something that cannot be undone (a delete, a payment, a publication): the
    harness never gave a person's approval for one, so the verdict holds it against the agent."""


class Toolbox(Protocol):
    """The tools of one run, bound to that run's world."""

    @property
    def specs(self) -> Sequence[ToolSpec]: ...

    def call(self, name: str, arguments: Mapping[str, Any]) -> ToolResult:
        """Run one tool; unknown names and bad arguments come back as error text, not raises."""
        ...


@dataclass(frozen=True, kw_only=True)
class ToolCall:
    """A tool call the model asks for."""

    id: str
    name: str
    arguments: JSON

    def to_openai(self) -> JSON:
        """The call in the Chat Completions shape, its arguments as sorted JSON text."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": sorted_json(self.arguments)},
        }


@dataclass(frozen=True, kw_only=True)
class ModelRequest:
    """One call to the model: the conversation so far and the tools offered."""

    messages: Sequence[JSON]
    """The conversation as the agent sent it, in copies that refuse every change
    (`unsolvable._frozen`): a model reads it, and nothing it does reaches the agent's messages
    or what the harness counted."""
    tools: tuple[str, ...]
    """Names of the tools offered; empty when the agent asks for a final answer."""
    step: int
    """1-based index of this model call in the run, all agents together."""
    agent: str = "main"
    """Which agent of a multi-agent system is calling (``main`` unless the agent says)."""
    agent_step: int = 0
    """1-based index of this call among the calling agent's own calls."""
    results: tuple[str, ...] = ()
    """Tool results this agent received since its previous model call, as the harness saw them
    (a script reads the world's answers here, whatever the agent put in its messages)."""


@dataclass(frozen=True, kw_only=True)
class ModelResponse:
    """What the model answers: text, tool calls, or both."""

    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
