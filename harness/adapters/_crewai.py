"""Consumes a session and its wire, produces the LLM and tools a CrewAI crew runs on: CrewAI's
own OpenAI provider with its clients on the wire, each call a step of the session (of one
agent's, with ``per_agent``), and the scenario's tools as CrewAI tools. Imported by
`unsolvable.adapters.crewai`, once CrewAI's telemetry is switched off."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from crewai.llms.cache import CACHE_BREAKPOINT_KEY
from crewai.llms.providers.openai.completion import OpenAICompletion
from crewai.tools import BaseTool
from crewai.utilities.i18n import I18N_DEFAULT
from openai import AsyncOpenAI, OpenAI
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from unsolvable._session import Session
from unsolvable._types import ToolSpec
from unsolvable.adapters.kit import FAKE_MODEL, ToolCaller, bind_tool, text_of
from unsolvable.wire import Wire

__all__ = [
    "BASE_URL",
    "AgentBindings",
    "SessionTool",
    "WireLLM",
    "session_tools",
    "wire_llm",
]

BASE_URL = "https://model.unsolvable.test/v1"
"""The fake model's host (`unsolvable.wire.MODEL_HOSTS`). Not api.openai.com: CrewAI counts input
tokens through OpenAI's own ``/responses/input_tokens`` there, which no compatible server (and no
fake) has; elsewhere it estimates them, as it does for every OpenAI-compatible server."""
ESTIMATE_WARNING = "Using an approximate input token count for model"
"""How CrewAI begins the warning it logs on each call whose input tokens it estimates."""
FORCE_FINAL_ANSWER = I18N_DEFAULT.errors("force_final_answer")
"""The user turn CrewAI appends at ``max_iter`` before its tool-less last call."""


class WireLLM(OpenAICompletion):
    """CrewAI's own OpenAI provider, its clients on the wire (the openai SDK's retries kept). It
    notes the conversations in which CrewAI forced a final answer, which it does not flag
    otherwise."""

    wire: Any = Field(default=None, exclude=True)
    agent_name: str | None = Field(default=None, exclude=True)
    """The agent whose steps this LLM's calls are on the wire (``None``: ``main``)."""
    _forced: list[list[dict[str, Any]]] = PrivateAttr(default_factory=list)
    """Each conversation CrewAI forced an answer on, as it stood before the forcing turn: CrewAI
    forces it on a copy of an agent's conversation and names no agent, and a lone agent's output
    holds its conversation copied again, so the two are compared by value."""
    _sent: Sequence[object] = PrivateAttr(default=())
    """The conversation of the last call, the forcing turn aside."""

    def _build_sync_client(self) -> Any:
        http_client = self.wire.httpx_client(agent=self.agent_name)
        return OpenAI(**self._get_client_params(), http_client=http_client)

    def _build_async_client(self) -> Any:
        http_client = self.wire.httpx_async_client(agent=self.agent_name)
        return AsyncOpenAI(**self._get_client_params(), http_client=http_client)

    def call(self, messages: Any, tools: Any = None, *args: Any, **kwargs: Any) -> Any:
        forcing = _forcing(messages)
        if isinstance(messages, Sequence) and not isinstance(messages, str):
            self._sent = messages[:-1] if forcing else messages
        if forcing and not tools:
            self._forced.append(_unmarked(self._sent))
        return super().call(messages, tools, *args, **kwargs)

    def last_conversation(self) -> list[dict[str, Any]]:
        """The conversation this LLM was last called with: where CrewAI keeps none of a lone
        agent's run that raised, it is that agent's, as far as it got."""
        return _unmarked(self._sent)

    def forced(self, conversation: Sequence[object]) -> bool:
        """Whether the answer that ended an agent's ``conversation`` was forced."""
        return bool(conversation) and _unmarked(conversation) in self._forced


class _FakeModelEstimates(logging.Filter):
    """Drops CrewAI's warning that it estimates the fake model's input tokens, logged on every
    call: it estimates them on any compatible server (`BASE_URL`), and a warning per step would
    fill a failed run's ``output``, which should hold the agent's own."""

    def filter(self, record: logging.LogRecord) -> bool:
        about_the_fake = isinstance(record.args, tuple) and FAKE_MODEL in record.args
        return not (about_the_fake and str(record.msg).startswith(ESTIMATE_WARNING))


logging.getLogger("crewai.llms.base_llm").addFilter(_FakeModelEstimates())


def _forcing(messages: object) -> bool:
    if not isinstance(messages, Sequence) or isinstance(messages, str) or not messages:
        return False
    last = messages[-1]
    return isinstance(last, Mapping) and text_of(last.get("content")) == FORCE_FINAL_ANSWER


def _unmarked(messages: Sequence[object]) -> list[dict[str, Any]]:
    """A conversation's messages as plain mappings, without the prompt-cache marks CrewAI puts on
    the ones it sends and drops from the ones a lone agent's output keeps."""
    return [
        {key: value for key, value in message.items() if key != CACHE_BREAKPOINT_KEY}
        for message in messages
        if isinstance(message, Mapping)
    ]


def wire_llm(wire: Wire, agent: str | None = None) -> WireLLM:
    """The LLM an agent of the crew is given: the fake model, answered by ``wire``, its calls the
    steps of ``agent`` (``None``: every agent's, as ``main``)."""
    return WireLLM(
        model=FAKE_MODEL,
        api_key="unsolvable-fake-key",
        base_url=BASE_URL,
        wire=wire,
        agent_name=agent,
    )


class _Arguments(BaseModel):
    """A tool's arguments as the model sent them: no fields, so CrewAI passes them through
    unvalidated (the scenario's tool checks them itself), described by the scenario's schema."""

    model_config = ConfigDict(extra="allow")


def _arguments_model(spec: ToolSpec) -> type[BaseModel]:
    parameters = dict(spec.parameters)

    class Arguments(_Arguments):
        @classmethod
        def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
            return dict(parameters)

    return Arguments


class SessionTool(BaseTool):
    """A scenario tool as a CrewAI tool. It lets what the tool raises through, so CrewAI's default
    (``"Error executing tool: …"`` to the model, the run going on) decides what the model sees."""

    call: ToolCaller = Field(exclude=True)

    def _run(self, *args: Any, **kwargs: Any) -> str:
        return self.call(**kwargs)


def session_tools(session: Session, *, agent: str = "main") -> list[BaseTool]:
    """The scenario's tools as CrewAI tools, their results fed to ``agent``'s next model call."""
    return [
        SessionTool(
            name=spec.name,
            description=spec.description,
            args_schema=_arguments_model(spec),
            call=bind_tool(session, spec.name, agent=agent),
        )
        for spec in session.tools
    ]


@dataclass(frozen=True, kw_only=True)
class AgentBindings:
    """What a ``per_agent=True`` builder is handed: each agent's own LLM and tools, by name.

    >>> def build(bind: AgentBindings) -> Crew:                           # doctest: +SKIP
    ...     writer = Agent(role="writer", ..., llm=bind.llm("writer"), tools=bind.tools("writer"))
    ...     return Crew(agents=[writer], tasks=[...], process=Process.hierarchical,
    ...                 manager_llm=bind.llm("main"))
    """

    session: Session
    wire: Wire

    def llm(self, agent: str) -> WireLLM:
        """An LLM whose every call is a step of ``agent`` (``main``: the supervisor, a
        hierarchical crew's manager, for the fan-out scripts)."""
        return wire_llm(self.wire, agent)

    def tools(self, agent: str) -> list[BaseTool]:
        """The scenario's tools, their results fed to ``agent``'s next model call."""
        return session_tools(self.session, agent=agent)
