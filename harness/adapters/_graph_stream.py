"""Consumes a compiled LangGraph graph, its input and config, produces a `LangGraphRun`: the graph
run as ``invoke`` (or ``ainvoke``) runs it, through its ``updates`` and ``values`` streams, and
what it left — its last state and the interrupts of a pause, or, at a limit LangGraph or a
LangChain limit middleware raised, the error, its budget code and the partial state that
survives (the checkpointer's, else the last one streamed)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from unsolvable._stop import Code
from unsolvable.adapters.kit import missing_extra

try:
    from langgraph.errors import GraphRecursionError
except ModuleNotFoundError as error:  # pragma: no cover - only without the extra
    raise ImportError(missing_extra("langgraph", "langgraph")) from error

__all__ = ["LangGraphRun", "astream_graph", "has_checkpointer", "stream_graph"]

INTERRUPT = "__interrupt__"
"""The key under which LangGraph's updates stream carries a pause (``invoke`` reads it so, to
return the interrupts); LangGraph keeps its own constant private."""
STREAM_MODES = ["updates", "values"]
"""What ``invoke`` streams to return the last state and, from the updates, the interrupts."""


@dataclass(frozen=True, kw_only=True)
class LangGraphRun:
    """What one graph run left: the last state seen and, at a limit that raised, the error and
    the budget code it is read as."""

    state: Mapping[str, Any]
    limit_error: Exception | None = None
    limit_code: Code = Code.BUDGET_STEPS
    interrupts: tuple[Any, ...] | None = None
    """The interrupts the run paused at (empty at a breakpoint); ``None``: it did not pause."""


@dataclass(kw_only=True)
class _Reading:
    """What the stream of a graph run has said so far: its last state and its pause, if any."""

    state: Mapping[str, Any] = field(default_factory=dict)
    interrupts: tuple[Any, ...] | None = None

    def take(self, mode: str, payload: Any) -> None:
        """One chunk of the ``updates`` and ``values`` streams, read as ``invoke`` reads them."""
        if mode == "values":
            self.state = payload
        elif mode == "updates" and isinstance(payload, Mapping) and INTERRUPT in payload:
            self.interrupts = (*(self.interrupts or ()), *(payload[INTERRUPT] or ()))

    def run(self) -> LangGraphRun:
        return LangGraphRun(state=self.state, interrupts=self.interrupts)


def stream_graph(graph: Any, graph_input: Any, config: Mapping[str, Any]) -> LangGraphRun:
    """Runs the graph with ``stream`` as ``invoke`` runs it, keeping the full state after each
    superstep (what survives a `GraphRecursionError` without a checkpointer: the error carries
    no state) and the interrupts a pause returns."""
    reading = _Reading()
    try:
        for mode, payload in graph.stream(graph_input, config, stream_mode=STREAM_MODES):
            reading.take(mode, payload)
    except Exception as error:
        code = _limit(error)
        if code is None:
            raise
        saved = graph.get_state(config).values if has_checkpointer(graph) else None
        return _at_limit(error, code, saved, reading.state)
    return reading.run()


async def astream_graph(graph: Any, graph_input: Any, config: Mapping[str, Any]) -> LangGraphRun:
    """`stream_graph`, with ``astream`` and the checkpointer's async face."""
    reading = _Reading()
    try:
        async for mode, payload in graph.astream(graph_input, config, stream_mode=STREAM_MODES):
            reading.take(mode, payload)
    except Exception as error:
        code = _limit(error)
        if code is None:
            raise
        saved = (await graph.aget_state(config)).values if has_checkpointer(graph) else None
        return _at_limit(error, code, saved, reading.state)
    return reading.run()


def _limit(error: Exception) -> Code | None:
    """The budget code of a limit LangGraph or a LangChain limit middleware raised; ``None`` for
    any other error."""
    if isinstance(error, GraphRecursionError):
        return Code.BUDGET_STEPS
    return _middleware_limit(error)


def _middleware_limit(error: Exception) -> Code | None:
    """The budget code of the error a LangChain limit middleware raises with
    ``exit_behavior="error"``; ``None`` for any other error. Imported here: only a graph that
    already imported the middleware can raise one, and LangChain's agents are too heavy to import
    for every LangGraph user."""
    if not type(error).__module__.startswith("langchain.agents.middleware."):
        return None
    from langchain.agents.middleware.model_call_limit import ModelCallLimitExceededError
    from langchain.agents.middleware.tool_call_limit import ToolCallLimitExceededError

    if isinstance(error, ModelCallLimitExceededError):
        return Code.BUDGET_STEPS
    if isinstance(error, ToolCallLimitExceededError):
        return Code.BUDGET_CALLS
    return None


def has_checkpointer(graph: Any) -> bool:
    """Whether the graph keeps its state in a checkpointer, which outlives a limit's error."""
    return bool(getattr(graph, "checkpointer", None))


def _at_limit(error: Exception, code: Code, saved: object, last: Mapping[str, Any]) -> LangGraphRun:
    """The run a limit ended, its partial state the checkpointer's (``saved``) when it holds
    one, else the last one streamed."""
    state = saved if isinstance(saved, Mapping) and saved else last
    return LangGraphRun(state=state, limit_error=error, limit_code=code)
