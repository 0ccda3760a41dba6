"""Consumes a LangGraph graph builder (prebuilt ``create_react_agent``, LangChain ``create_agent``
or a graph of your own), produces a run on a session and the `Stop` read from how LangGraph ended.

LangGraph's stops, read into the vocabulary:

- ``GraphRecursionError`` (``recursion_limit`` reached) → ``exhausted``/``BUDGET_STEPS``, with the
  partial state kept from the last superstep (streamed) or the checkpointer, since the error
  itself carries none.
- ``create_react_agent``'s closing "Sorry, need more steps to process this request." (an even
  ``recursion_limit``) → ``exhausted``/``BUDGET_STEPS``: a truncated run, not a completion.
- ``ModelCallLimitMiddleware``'s closing "Model call limits exceeded: …" (its default
  ``exit_behavior="end"``) → ``exhausted``/``BUDGET_STEPS`` too, and so is the
  ``ModelCallLimitExceededError`` it raises with ``exit_behavior="error"``.
- ``ToolCallLimitMiddleware``'s closing "Tool call limit reached: …" (``exit_behavior="end"``)
  and its ``ToolCallLimitExceededError`` (``"error"``) → ``exhausted``/``BUDGET_CALLS``, with the
  partial state as for a recursion limit.
- A run that paused for a person (an ``interrupt()``, ``HumanInTheLoopMiddleware``, a breakpoint
  of ``interrupt_before``/``interrupt_after``), which ``invoke`` returns with its interrupts →
  ``abandoned``/``NEEDS_HUMAN``: the graph waits for a resume that no one will send.
- A final answer (no tool call) → ``complete``/``COMPLETED`` as the agent's *claim*; the verdict
  checks it against the world. A ``structured_response`` with a ``code`` (a mapping, a pydantic
  model or a dataclass) is read as a `Stop`.

With ``per_agent=True`` the builder gives each agent of a multi-agent graph (a supervisor and its
workers) a chat model and tools of its own, so the record counts its steps apart.

A graph runs as ``graph.stream`` runs it, unless ``asynchronous=True``: then as ``graph.astream``
runs it, on an event loop of its own (``asyncio.run``), for a graph with async-only parts (an
``async def`` node, a middleware with only ``abefore_model``). The choice is the user's, as it is
in production (``invoke`` or ``ainvoke``): a graph with both kinds of part runs either way, and
LangGraph runs a sync-only part inline on the loop, so neither reading of the graph is a guess.
The sync path turns LangGraph's "No synchronous function provided" into an error naming the
option.
"""

from __future__ import annotations

import asyncio
import inspect
import re
import uuid
import warnings
from collections.abc import Callable, Mapping
from typing import Any, cast

from unsolvable._errors import AdapterError, docs_page
from unsolvable._session import Session
from unsolvable._stop import Code, Stop
from unsolvable._text import cut
from unsolvable.adapters._graph_stream import (
    LangGraphRun,
    astream_graph,
    has_checkpointer,
    stream_graph,
)
from unsolvable.adapters._langchain import AgentBindings, SessionChatModel, session_tools
from unsolvable.adapters._turnstile import Turnstile
from unsolvable.adapters.base import interpret_plain
from unsolvable.adapters.kit import (
    BUDGET,
    Budgeted,
    as_mapping,
    check_build_form,
    is_step_limit,
    missing_extra,
    partial_from_messages,
)

try:
    from langchain_core.callbacks import BaseCallbackManager
    from langchain_core.language_models.chat_models import BaseChatModel
    from langchain_core.messages import AIMessage, BaseMessage, convert_to_openai_messages
    from langchain_core.tools import BaseTool
    from langgraph.errors import GraphRecursionError

    from unsolvable.adapters._task_ends import TaskEnds  # a LangChain callback handler
except ModuleNotFoundError as error:  # pragma: no cover - only without the extra
    raise ImportError(missing_extra("langgraph", "langgraph")) from error

__all__ = [
    "MODEL_CALL_LIMITS",
    "NEED_MORE_STEPS",
    "AgentBindings",
    "LangGraphAdapter",
    "SessionChatModel",
    "TaskEnds",
    "Turnstile",
    "recursion_limit_for",
    "session_tools",
]

NEED_MORE_STEPS = "Sorry, need more steps to process this request."
"""What ``create_react_agent`` writes instead of the model's answer when it runs out of steps."""
MODEL_CALL_LIMITS = "Model call limits exceeded"
"""How the closing message of LangChain's ``ModelCallLimitMiddleware`` begins when it ends a run
at its limit (``_build_limit_exceeded_message`` in langchain 1.5)."""
TOOL_CALL_LIMIT = re.compile(r"(?:Tool|'.+' tool) call limit reached: ")
"""How the closing message of LangChain's ``ToolCallLimitMiddleware`` begins when it ends a run
at its limit (``_build_final_ai_message_content`` in langchain 1.5)."""
ASYNC_ONLY = re.compile(
    r"No synchronous function provided|Synchronous implementation of \w+ is not available"
    r"|does not support sync invocation"
)
"""How LangGraph (a node), LangChain's middleware (``awrap_model_call`` alone) and a
``StructuredTool`` with only a coroutine refuse a sync run."""
PAUSE_CUT = 200
"""Characters kept of a pause's reason: what the graph asked can be a long request."""
SUPERSTEPS_PER_STEP = 2
"""A model→tools loop spends two supersteps per model call (the model node, then the tools)."""


def recursion_limit_for(steps: int) -> int:
    """The ``recursion_limit`` that lets a model→tools agent make ``steps`` model calls, the
    last of them a final answer that stands; a stuck agent stops after ``steps`` calls.

    Even, because an odd limit takes the last answer away: at ``2 * steps - 1`` the last call
    has no superstep left, ``create_react_agent`` replaces a final answer with its apology
    (``_are_more_steps_needed`` reads an answer with no tool calls as "all tools return
    direct", since ``all([])`` is true) and LangGraph raises `GraphRecursionError` anyway.
    At this limit a stuck ``create_react_agent`` apologises and ``create_agent`` raises; the
    adapter reads both as ``exhausted``."""
    return SUPERSTEPS_PER_STEP * steps


GraphBuilder = Callable[[BaseChatModel, list[BaseTool]], Any]
PerAgentBuilder = Callable[[AgentBindings], Any]


class LangGraphAdapter:
    """Runs a LangGraph graph built by ``build(model, tools)`` on the session's task.

    ``recursion_limit`` is passed as the top-level config key (``None``: LangGraph's own default,
    10007 in 1.2, so a stuck agent runs into the harness ceiling — which is what the default does
    in production too; ``"budget"``: `recursion_limit_for` the scenario's ``max_steps``).
    ``config`` is merged in; a ``recursion_limit`` placed inside ``configurable`` is warned
    about, because LangGraph silently ignores it there. ``per_agent=True`` makes ``build`` a
    ``build(bind)`` given `AgentBindings`: ``bind.model(name)`` and ``bind.tools(name)`` belong to
    agent ``name``, for a supervisor and its worker sub-graphs. ``asynchronous=True`` runs the
    graph with ``astream``, as ``ainvoke`` would run it, for a graph with an ``async def`` node or
    an async-only middleware.

    >>> adapter = LangGraphAdapter(lambda model, tools: create_agent(model, tools),
    ...                            recursion_limit=25)                  # doctest: +SKIP
    >>> unsolvable.run(adapter, scenarios.get("constant-return/repeat"))   # doctest: +SKIP
    """

    def __init__(
        self,
        build: GraphBuilder | PerAgentBuilder,
        *,
        recursion_limit: int | Budgeted | None = None,
        config: Mapping[str, Any] | None = None,
        per_agent: bool = False,
        asynchronous: bool = False,
        name: str = "langgraph",
    ) -> None:
        if not callable(build):
            raise AdapterError(
                f"LangGraphAdapter(build={build!r}): pass a callable build(model, tools) "
                "returning a compiled graph, e.g. lambda m, t: create_agent(m, t)"
            )
        form = ("model", "tools")
        check_build_form(build, per_agent=per_agent, adapter="LangGraphAdapter", arguments=form)
        if not is_step_limit(recursion_limit):
            raise AdapterError(
                f"LangGraphAdapter(recursion_limit={recursion_limit!r}): use a positive int, "
                "'budget' (recursion_limit_for the scenario's max_steps) or None (the graph's "
                "default: 10007 in LangGraph 1.2, 9999 bound by create_agent)"
            )
        self.build, self.recursion_limit, self.per_agent = build, recursion_limit, per_agent
        self.asynchronous = asynchronous
        self.config = dict(config or {})
        given = {} if recursion_limit is None else {"recursion_limit": recursion_limit}
        warn_misplaced_recursion_limit({**self.config, **given})
        self.name = name

    def run(self, session: Session) -> LangGraphRun:
        turnstile = Turnstile()
        try:
            return self._run(session, turnstile)
        finally:
            turnstile.close()  # whatever ended the run, no call waits for one that will not come

    def _run(self, session: Session, turnstile: Turnstile) -> LangGraphRun:
        if self.asynchronous:
            return asyncio.run(self._arun(session, turnstile))
        graph = self._graph(self._built(session, turnstile))
        try:
            return stream_graph(graph, _input(session), self._config(graph, session, turnstile))
        except Exception as error:
            if not _refused_sync(error):
                raise
            raise AdapterError(
                f"unsolvable: LangGraph refused to run {self.name!r} synchronously: {error}\n"
                "  - the graph has an async-only part (an async def node, an async-only "
                "middleware hook or tool), which runs only under ainvoke/astream\n"
                "Pass LangGraphAdapter(..., asynchronous=True) to run it with astream, as "
                "ainvoke runs it in production "
                f"({docs_page('frameworks', 'async-langgraph-graphs')})."
            ) from error

    async def _arun(self, session: Session, turnstile: Turnstile) -> LangGraphRun:
        """The graph built and run on one event loop, so that what ``build`` makes binds to the
        loop that runs it (an ``AsyncSqliteSaver`` takes the running loop as it is made); an
        async ``build`` is awaited there."""
        built = self._built(session, turnstile)
        graph = self._graph(await built if inspect.isawaitable(built) else built)
        return await astream_graph(graph, _input(session), self._config(graph, session, turnstile))

    def _graph(self, built: object) -> Any:
        """What ``build`` returned, if it runs as a compiled graph runs; an error that says
        what it is instead and what to return."""
        if callable(getattr(built, "stream", None)) and callable(getattr(built, "astream", None)):
            return built
        if inspect.iscoroutine(built):
            built.close()  # never to be awaited: no warning that it was not
        if inspect.isawaitable(built):
            fix = "Pass LangGraphAdapter(..., asynchronous=True) to await an async build."
        elif callable(getattr(built, "compile", None)):
            fix = "Return builder.compile(): a StateGraph runs once compiled."
        else:
            fix = "Return the graph, e.g. create_agent(model, tools)."
        raise AdapterError(
            f"unsolvable: the build of {self.name!r} returned {built!r:.80}, not a compiled "
            f"graph\n  - the adapter runs what build returns with its stream/astream\n{fix}"
        )

    def _built(self, session: Session, turnstile: Turnstile) -> Any:
        """What ``build`` returns: the compiled graph, or with ``asynchronous=True`` maybe an
        awaitable of it."""
        if self.per_agent:
            bindings = AgentBindings(session=session, turnstile=turnstile)
            return cast(PerAgentBuilder, self.build)(bindings)
        model = SessionChatModel(session=session, turnstile=turnstile)
        tools = session_tools(session, turnstile=turnstile)
        return cast(GraphBuilder, self.build)(model, tools)

    def _config(self, graph: Any, session: Session, turnstile: Turnstile) -> dict[str, Any]:
        warn_misplaced_recursion_limit(getattr(graph, "config", None) or {})
        config = dict(self.config)
        config["callbacks"] = _with_handler(config.get("callbacks"), TaskEnds(turnstile))
        if self.recursion_limit == BUDGET:
            config["recursion_limit"] = recursion_limit_for(session.budget.max_steps)
        elif self.recursion_limit is not None:
            config["recursion_limit"] = self.recursion_limit
        if has_checkpointer(graph):
            configurable = dict(config.get("configurable") or {})
            # Any node reads it: one per run, made of nothing the run is, so that it neither
            # names the scenario nor resumes an earlier run's thread on a saver they share.
            configurable.setdefault("thread_id", f"unsolvable-{uuid.uuid4().hex}")
            config["configurable"] = configurable
        return config

    def interpret(self, returned: object, error: BaseException | None) -> Stop | None:
        if error is not None or not isinstance(returned, LangGraphRun):
            return None
        messages = list(returned.state.get("messages") or ())
        partial = partial_from_messages(convert_to_openai_messages(messages))
        error = returned.limit_error
        if isinstance(error, GraphRecursionError):
            reason = f"LangGraph stopped the run: {error}".split(". ")[0]
            return Stop(code=Code.BUDGET_STEPS, reason=reason, partial=partial)
        if error is not None:
            reason = f"{type(error).__name__} ended the run: {error}"
            return Stop(code=returned.limit_code, reason=reason, partial=partial)
        if returned.interrupts is not None:
            return _paused(returned.interrupts, partial)
        last = messages[-1] if messages else None
        if isinstance(last, AIMessage) and last.content == NEED_MORE_STEPS:
            reason = f"create_react_agent ran out of recursion_limit and said {NEED_MORE_STEPS!r}"
            return Stop(code=Code.BUDGET_STEPS, reason=reason, partial=partial)
        if isinstance(last, AIMessage) and last.text.startswith(MODEL_CALL_LIMITS):
            reason = f"ModelCallLimitMiddleware ended the run: {last.text}"
            return Stop(code=Code.BUDGET_STEPS, reason=reason, partial=partial)
        if isinstance(last, AIMessage) and TOOL_CALL_LIMIT.match(last.text):
            reason = f"ToolCallLimitMiddleware ended the run: {last.text}"
            return Stop(code=Code.BUDGET_CALLS, reason=reason, partial=partial)
        structured = interpret_plain(as_mapping(returned.state.get("structured_response")))
        if structured is not None:
            return structured
        text = last.text if isinstance(last, BaseMessage) else ""
        return Stop(code=Code.COMPLETED, reason=f"final answer: {text}"[:200], partial=partial)


def _paused(interrupts: tuple[Any, ...], partial: Any) -> Stop:
    """The stop of a run that paused for a person: what it asked, or the breakpoint it met (its
    interrupt ids are left out, since they change from run to run)."""
    asked = [getattr(interrupt, "value", interrupt) for interrupt in interrupts]
    what = f"interrupt({asked!r})" if asked else "a breakpoint (interrupt_before/interrupt_after)"
    reason = cut(f"the graph paused for a human at {what}", PAUSE_CUT)
    return Stop(code=Code.NEEDS_HUMAN, reason=reason, partial=partial)


def _with_handler(callbacks: Any, handler: TaskEnds) -> Any:
    """The user's ``callbacks`` (none, a list or a manager) with ``handler`` added, a copy: the
    user's own config and manager stay as they were."""
    if callbacks is None:
        return [handler]
    if isinstance(callbacks, BaseCallbackManager):
        manager = callbacks.copy()
        manager.add_handler(handler, inherit=True)
        return manager
    return [*callbacks, handler]


def _input(session: Session) -> dict[str, Any]:
    """What a graph is started with: the task as the user's message."""
    return {"messages": [("user", session.task)]}


def _refused_sync(error: Exception) -> bool:
    """Whether ``error`` is how a graph with an async-only part refuses ``stream`` (read from the
    exception types those refusals use, whose text is safe to read)."""
    return isinstance(error, TypeError | NotImplementedError) and bool(
        ASYNC_ONLY.search(str(error))
    )


def warn_misplaced_recursion_limit(config: Mapping[str, Any]) -> None:
    """Warns when ``recursion_limit`` sits inside ``configurable``, where LangGraph ignores it."""
    configurable = config.get("configurable") or {}
    if "recursion_limit" in configurable:
        value = configurable["recursion_limit"]
        top = config.get("recursion_limit")
        default = "the graph's default (10007 in LangGraph 1.2; create_agent binds 9999)"
        effective = default if top is None else repr(top)
        warnings.warn(
            f"unsolvable: config['configurable']['recursion_limit']={value!r} is silently ignored "
            f"by LangGraph, which reads only the top-level key; this run uses {effective}. "
            f"Pass config={{'recursion_limit': {value!r}}} or LangGraphAdapter(recursion_limit="
            f"{value!r}) instead.",
            UserWarning,
            stacklevel=3,
        )
