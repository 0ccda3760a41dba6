"""Consumes an agent of any shape, produces a run on a `Session` and the agent's `Stop`, if any.

The plain face is the smallest adapter: a callable ``agent(session)`` (sync or async) that returns
a `Stop` (or a mapping with a ``code``), or anything else, which the harness calls unstructured.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine, Mapping
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from unsolvable._errors import AdapterError
from unsolvable._stop import Stop

if TYPE_CHECKING:
    from unsolvable._session import Session

__all__ = ["Adapter", "NamedAdapter", "PlainAdapter", "as_adapter", "interpret_plain", "own_name"]


@runtime_checkable
class Adapter(Protocol):
    """Runs an agent on a session and reads its way of stopping into the vocabulary."""

    name: str

    def run(self, session: Session) -> object:
        """Runs the agent to its end and returns what it returned; may raise."""
        ...

    def interpret(self, returned: object, error: BaseException | None) -> Stop | None:
        """The agent's structured exit, from its return value or the exception it raised.

        ``None`` means there was none: the harness then records ``unstructured`` or ``crashed``.
        """
        ...


def interpret_plain(returned: object) -> Stop | None:
    """A `Stop`, or a mapping with a ``code`` (plus ``exit``, ``reason``, ``partial``...).

    A mapping with a ``code`` means to stop: a code or exit that is not valid raises the
    `ValueError` that names the valid ones (the run is recorded ``crashed`` with it), instead of
    passing for an unstructured return in silence. A key given as ``null`` (JSON's way of
    leaving a value out) is left out, but for ``code``: a stop of no code is the invalid one."""
    if isinstance(returned, Stop):
        return returned
    if isinstance(returned, Mapping) and "code" in returned:
        fields = {"code", "exit", "reason", "partial", "missing"}
        given = {k: v for k, v in returned.items() if k in fields and v is not None}
        given["code"] = returned["code"]
        if not isinstance(given.get("missing", ()), str | list | tuple):
            raise TypeError(f"a stop's missing is {given['missing']!r}: give a list of names")
        return Stop(**given)
    return None


class PlainAdapter:
    """The plain Python face: ``agent(session)``; coroutine functions run on their own loop."""

    def __init__(self, agent: Callable[..., Any], *, name: str | None = None) -> None:
        if not callable(agent):
            raise AdapterError(
                f"{agent!r} is not callable; an agent is a callable agent(session) "
                "or an Adapter with run() and interpret()"
            )
        self.agent = agent
        self.name = name or own_name(agent) or _qualname(agent)

    def run(self, session: Session) -> object:
        returned = self.agent(session)
        if inspect.iscoroutine(returned):
            import asyncio  # here, not at the top: the pytest plugin imports this module

            return asyncio.run(_then_returned(returned, session))
        return returned

    def interpret(self, returned: object, error: BaseException | None) -> Stop | None:
        return None if error is not None else interpret_plain(returned)


class NamedAdapter:
    """An adapter under the name its user gave it (``NAME=SPEC``), which records, snapshots,
    reports and test ids carry; the adapter itself is left as it is, since the same object may
    run under its own name elsewhere."""

    def __init__(self, adapter: Adapter, *, name: str) -> None:
        self.adapter, self.name = adapter, name

    def run(self, session: Session) -> object:
        return self.adapter.run(session)

    def interpret(self, returned: object, error: BaseException | None) -> Stop | None:
        return self.adapter.interpret(returned, error)

    def preflight(self) -> None:
        """The adapter's own up-front check, if it has one."""
        check = getattr(self.adapter, "preflight", None)
        if callable(check):
            check()

    @property
    def wall_seconds(self) -> float | None:
        """The wall ceiling the adapter declares it needs, if any."""
        return getattr(self.adapter, "wall_seconds", None)


def own_name(agent: object) -> str | None:
    """The name an agent object gives itself (a ``name`` attribute that is a non-empty
    string), which labels its runs in place of the spec it was loaded by."""
    name = getattr(agent, "name", None)
    return name if isinstance(name, str) and name else None


async def _then_returned(agent: Coroutine[Any, Any, object], session: Session) -> object:
    """Awaits the agent, then marks it returned (`Session.returned`) before the event loop
    cancels the tasks it left: a task still calling the model or a tool is work left running."""
    try:
        return await agent
    finally:
        session.returned()


def _qualname(agent: Callable[..., Any]) -> str:
    target = agent if hasattr(agent, "__qualname__") else type(agent)
    return f"{target.__module__}:{target.__qualname__}"


def as_adapter(agent: Adapter | Callable[..., Any]) -> Adapter:
    """An adapter as is; anything callable through the plain face."""
    if isinstance(agent, Adapter):
        return agent
    return PlainAdapter(agent)
