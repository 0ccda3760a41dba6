"""Consumes the start and end of each LangGraph task of a run (LangChain callbacks), produces the
word a `Turnstile` waits for: which tool calls the graph is done with, whether or not their tool
ran.

``create_agent`` and ``create_react_agent`` send one ``tools`` task per tool call, its input the
call itself, so the end of that task says the call is finished however it ended (the tool ran, a
``wrap_tool_call`` middleware answered it, the task raised or was cancelled). A node that answers
a call without the tool writes its ``ToolMessage`` (``ToolCallLimitMiddleware`` blocking it, a
human's rejection), so the end of that task says the call will not come either.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import ToolMessage
from langgraph.types import Command

from unsolvable.adapters._turnstile import Turnstile

__all__ = ["TaskEnds"]


class TaskEnds(BaseCallbackHandler):
    """Tells ``turnstile`` which tool calls each LangGraph task of the run is done with, when the
    task ends. Add it to the run's ``callbacks``; it only listens, so the graph and every other
    callback see the run as they would without it.

    >>> graph.invoke(state, {"callbacks": [TaskEnds(turnstile)]})      # doctest: +SKIP
    """

    run_inline = True
    """Called on the task's own thread or loop as the task ends: it only takes a lock."""

    def __init__(self, turnstile: Turnstile) -> None:
        super().__init__()
        self.turnstile = turnstile
        self._lock = threading.Lock()
        self._tasks: dict[UUID, list[str]] = {}
        """The runs under way that are LangGraph tasks, with the ids of the calls each carries."""

    def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        run_id: UUID,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        # A task's own run is named after its node; the runs nested in it are not.
        node = (metadata or {}).get("langgraph_node")
        if node is None or kwargs.get("name") != node:
            return
        with self._lock:
            self._tasks[run_id] = list(_carried(inputs))

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        with self._lock:
            carried = self._tasks.pop(run_id, None)
        if carried is not None:
            self.turnstile.finish([*carried, *_answered(outputs)])

    def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        with self._lock:
            carried = self._tasks.pop(run_id, None)
        if carried:
            self.turnstile.finish(carried)


def _carried(inputs: Any) -> Iterator[str]:
    """The ids of the tool calls a task's input hands it: ``[tool_call]`` (``create_agent``) or a
    ``ToolCallWithContext`` (``create_react_agent``); none for a state."""
    if isinstance(inputs, Mapping) and inputs.get("__type") == "tool_call_with_context":
        inputs = [inputs.get("tool_call")]
    if isinstance(inputs, list):
        for item in inputs:
            if isinstance(item, Mapping) and item.get("type") == "tool_call":
                yield str(item.get("id"))


def _answered(outputs: Any) -> Iterator[str]:
    """The ids of the tool calls whose ``ToolMessage`` a task writes: a mapping of channels, a
    ``Command`` or a list of either."""
    if isinstance(outputs, list):
        for output in outputs:
            yield from _answered(output)
        return
    update = outputs.update if isinstance(outputs, Command) else outputs
    messages = update.get("messages") if isinstance(update, Mapping) else None
    for message in messages if isinstance(messages, list) else ():
        if isinstance(message, ToolMessage):
            yield message.tool_call_id
