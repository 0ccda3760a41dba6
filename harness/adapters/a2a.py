"""Consumes the command line of an agent served over A2A (the Agent2Agent protocol), produces a
run of it as a client agent delegates to it — the scenario's task sent as one message, its model
on the loopback wire, its tools at the harness's — and the `Stop` its task's state says.

The command is started as an ``exec:`` agent is (the same environment and placeholders) and
prints its base URL, where its agent card is served, as its first stdout line; the task is
followed over its stream, or in the one answer of a server that does not stream, asked for at
once, then with ``tasks/get`` while the stream or the answer left it working. Its task states,
read into the vocabulary (`TASK_STATES`): ``completed`` → a claim of completion the verdict
checks; ``input-required`` → ``BLOCKED_INPUT``, naming what its status message asks for;
``auth-required`` → ``NEEDS_HUMAN`` (only a person can sign in); ``rejected`` → ``NEEDS_HUMAN``;
``failed`` → ``ERROR_FATAL``; ``canceled`` only follows the harness's cancel at a ceiling, so the
run is ``did_not_stop``. A code named in the status's metadata (``unsolvable.code``, as the
record's own export writes it) takes the place of the state's.
"""

from __future__ import annotations

import asyncio
import ipaddress
import shlex
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from unsolvable._errors import AdapterError, CeilingHit
from unsolvable._remote import A2A_PREFIX
from unsolvable._stop import Code, Stop
from unsolvable._text import cut
from unsolvable.adapters.kit import missing_extra
from unsolvable.adapters.process import ProcessAdapter, ProcessExited, described_status
from unsolvable.reports._stop_reasons import A2A_CODE_KEY

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    import httpx
    from a2a.client import Client
    from a2a.types import SendMessageRequest, StreamResponse, Task

    from unsolvable._session import Session
    from unsolvable.adapters._loop import Stop as Due

__all__ = ["TASK_STATES", "A2AAdapter", "Delegation", "read_task_state"]

TASK_STATES: dict[str, Code | None] = {
    "completed": Code.COMPLETED,
    "input-required": Code.BLOCKED_INPUT,
    "auth-required": Code.NEEDS_HUMAN,
    "rejected": Code.NEEDS_HUMAN,
    "failed": Code.ERROR_FATAL,
    "canceled": None,
}
"""The states a task rests in, and the code each reads as. ``rejected`` (the agent will not do
the task) hands the decision back to a person, as ACP's ``refusal`` does; ``canceled`` has none:
only the harness cancels, at a ceiling."""
CANCEL_SECONDS = 0.5
"""How long the agent gets to answer the harness's cancel before its process group is killed."""
BINDINGS = ["JSONRPC", "HTTP+JSON"]
"""The transports the harness's client speaks, as an agent card names them: the two the A2A
SDKs serve over HTTP (gRPC would need the ``grpc`` extra of ``a2a-sdk``). Where a card offers
both, its own order decides, as A2A has a client follow the server's preference."""
MADE_KEPT = 160
"""Characters kept of a task's artifacts: what a record's reason shows of them."""
URL_CUT = 200
"""Characters of a URL the agent printed or its card names that an error shows: its host, which
the error is about, comes first."""
ID_CUT = 100
"""Characters of a task id the agent sent that an error shows: the A2A SDKs make UUIDs (36)."""
DRAIN_BYTES = 65_536
"""The chunk the server's stdout is read and dropped in (`_drain`): a pipe's capacity."""
POLL_SECONDS = 0.25
"""How often a task that its answer or its stream left working is read again (``tasks/get``): a
task moves at the pace of model calls, and a read costs its server next to nothing."""


def read_task_state(state: str, code: str | None = None) -> Code | None:
    """The code a task state (``input-required``, or ``TASK_STATE_INPUT_REQUIRED`` as the
    protocol buffer names it) reads as: the ``code`` its metadata names where it names one."""
    if code is not None and code in Code.__members__:
        return Code[code]
    name = state.removeprefix("TASK_STATE_").lower().replace("_", "-")
    return TASK_STATES.get(name)


@dataclass(frozen=True, kw_only=True)
class Delegation:
    """How the delegated task ended, as the client saw it."""

    state: str | None
    """The task's last state (``completed``, ``input-required``, …); ``None`` when the agent
    never answered. An agent that answers with a message and no task has ``completed``."""
    said: str = ""
    """The text of the last status message (or of the message that answered)."""
    made: str = ""
    """The start of the text of the task's artifacts (`MADE_KEPT`): its result, which A2A puts
    there and not in a status message."""
    code: str | None = None
    """The code the status's metadata names (`A2A_CODE_KEY`), if any."""
    stderr: str = ""


class A2AAdapter:
    """Runs an A2A agent's server (``python agent.py``) and delegates the task to it.

    ``command``: the program and its arguments, with the ``exec:`` face's ``{placeholders}``; it
    must print its base URL as its first line. The harness's client reaches that URL from
    outside, so the server runs on the machine's network (no network namespace).
    """

    def __init__(self, command: Sequence[str], *, name: str | None = None) -> None:
        if not command:
            raise AdapterError("a2a agent: no command; give the command that serves the agent")
        self.command = tuple(command)
        self.name = name or A2A_PREFIX + shlex.join(self.command)
        self.process = ProcessAdapter(self.command, name=self.name, face="")

    def preflight(self) -> None:
        """What every run needs, checked once before any (`unsolvable.load_agent`): the server's
        program, as for ``exec:``, and what `check_extras` checks."""
        self.process.preflight()
        self.check_extras()

    def check_extras(self) -> None:
        """The A2A SDK, whose client the harness delegates with."""
        import importlib.util

        if importlib.util.find_spec("a2a") is None:
            raise AdapterError(f"agent {self.name!r}: {missing_extra('a2a-sdk', 'a2a')}")

    def run(self, session: Session) -> Delegation:
        from unsolvable.adapters._loop import on_thread

        self.check_extras()
        with self.process.prepared(session) as launch:
            try:
                ended = on_thread(
                    session,
                    lambda due: _delegate(session.task, launch.argv, launch.environ, due),
                    name="unsolvable-a2a-client",
                )
            except _AgentFailed as error:
                raise ProcessExited(f"agent {self.name!r}: {error}") from error
        if session.ceiling is not None:
            raise CeilingHit(f"unsolvable: harness ceiling {session.ceiling} reached")
        if ended.state is None or read_task_state(ended.state, ended.code) is None:
            raise ProcessExited(
                f"agent {self.name!r}: its task ended {ended.state!r}, which the vocabulary does "
                f"not read; its status said: {ended.said:.160}"
            )
        return ended

    def interpret(self, returned: object, error: BaseException | None) -> Stop | None:
        if error is not None or not isinstance(returned, Delegation) or returned.state is None:
            return None
        code = read_task_state(returned.state, returned.code)
        if code is None:
            return None
        reason = f"a2a task {returned.state}: {returned.said or returned.made:.160}"
        missing = (returned.said,) if code is Code.BLOCKED_INPUT and returned.said else ()
        partial = {"task_state": returned.state} if code.is_budget else None
        return Stop(code=code, reason=reason, missing=missing, partial=partial)


class _AgentFailed(Exception):
    def __init__(self, message: str, stderr: str) -> None:
        super().__init__(message)
        self.stderr = stderr


async def _delegate(
    task: str, argv: Sequence[str], environ: Mapping[str, str], due: Due
) -> Delegation:
    """Starts the server, sends it the task and follows the task until it rests, or until the
    run must stop, when it is canceled; the server's process group is killed on the way out."""
    from unsolvable.adapters._loop import EXIT_SECONDS, Child, waited

    child = await Child.start(argv, environ)
    assert child.process.stdout is not None
    first = asyncio.ensure_future(child.process.stdout.readline())
    try:
        if not await waited(first, due):
            return Delegation(state=None, stderr=await child.end())
        url = first.result().decode().strip()
        if not url:
            said = await child.end()
            raise _AgentFailed(f"it printed no URL; its stderr {child.account(said)}", said)
        if not _on_this_machine(url):
            said = await child.end()
            raise _AgentFailed(
                f"it printed {cut(url, URL_CUT)!r}, not the URL of a server on this machine "
                "(http://127.0.0.1:PORT): the task goes only to the server the harness started; "
                f"its stderr {child.account(said)}",
                said,
            )
        drained = asyncio.ensure_future(_drain(child.process.stdout))
        ended = await _follow(url, task, due)
        drained.cancel()
    except Exception as error:
        if isinstance(error, _AgentFailed):
            raise
        what = str(error) if isinstance(error, _Refused) else repr(error)
        status = await child.status_within(EXIT_SECONDS)
        if status is not None:
            what = f"its server {described_status(status)} before the task rested ({what})"
        said = await child.end()
        raise _AgentFailed(f"{what}; its stderr {child.account(said)}", said) from error
    return replace(ended, stderr=await child.end())


async def _drain(stdout: asyncio.StreamReader) -> None:
    """Reads the server's stdout past its URL, which says nothing the harness reads, so that a
    server logging there never blocks on a full pipe; each chunk is dropped as it is read. Read
    whole (``read()``), a server's 200 MB of log lines were held in the harness's memory."""
    while await stdout.read(DRAIN_BYTES):
        pass


def _on_this_machine(url: str) -> bool:
    """Whether ``url`` is an HTTP address on this machine (a loopback address, ``localhost``, or
    ``0.0.0.0`` as a server bound to every address prints it): the harness never sends the
    scenario's task to another host."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return False
    if parts.hostname == "localhost":
        return True
    try:
        address = ipaddress.ip_address(parts.hostname)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


async def _follow(url: str, task: str, due: Due) -> Delegation:
    """The delegated task followed until it rests, with a client of the agent at ``url``; its
    HTTP connections closed however it ended, a refused agent card too."""
    import httpx

    from unsolvable.adapters._loop import waited

    # No timeout of its own: a working task may stay silent for long, and the harness's
    # ceilings bound the wait (`waited`), the agent card's too: a server may never send it.
    async with httpx.AsyncClient(timeout=None) as http:
        connecting = asyncio.ensure_future(_client(url, http))
        if not await waited(connecting, due):
            connecting.cancel()
            return Delegation(state=None)
        client = connecting.result()
        try:
            return await _followed(client, task, due)
        finally:
            await client.close()


async def _followed(client: Client, task: str, due: Due) -> Delegation:
    """The task sent as one message and its events read until it rests, or until the run must
    stop, when it is canceled (``tasks/cancel``)."""
    from a2a.types import CancelTaskRequest, Message, Part, Role, SendMessageRequest, Task

    from unsolvable.adapters._loop import waited

    parts = [Part(text=task)]
    message = Message(role=Role.ROLE_USER, message_id=str(uuid.uuid4()), parts=parts)
    events = aiter(_events(client, SendMessageRequest(message=message)))
    latest, delegated = Delegation(state=None), Task()
    while latest.state not in TASK_STATES:
        following = asyncio.ensure_future(anext(events, None))
        if not await waited(following, due):
            following.cancel()
            if delegated.id:
                cancel = client.cancel_task(CancelTaskRequest(id=delegated.id))
                await asyncio.wait({asyncio.ensure_future(cancel)}, timeout=CANCEL_SECONDS)
            return Delegation(state="canceled")
        event = following.result()
        if event is None and latest.state is None:
            raise _Refused(
                "its stream ended before it sent a task or a message: an A2A server streams the "
                "task it made of the message it was sent (or answers with a message); send one"
            )
        if event is None:
            break
        latest = _read(event, latest, delegated)
    return latest


class _Refused(Exception):
    """What the agent sent that the harness does not follow, in words: an agent card that names
    an interface on another host than this machine, an event of a task not the delegated one, a
    message once the task is under way, or a stream that ended before it named any task."""


async def _client(url: str, http: httpx.AsyncClient) -> Client:
    """The SDK's client of the agent whose card is served at ``url``. The client sends the task
    to the interface the card names, not to ``url``: a card that names another host (a
    server's public address) is `_ElsewhereCard`, and that host is sent nothing."""
    from a2a.client import A2ACardResolver, ClientConfig, create_client

    card = await A2ACardResolver(http, url).get_agent_card()
    for interface in card.supported_interfaces:
        if not _on_this_machine(interface.url):
            raise _Refused(
                f"its agent card names {cut(interface.url, URL_CUT)!r} as where to send the "
                f"task, not an address on this machine: the task goes only to the server the "
                f"harness started; serve the card with the address it printed ({cut(url, URL_CUT)})"
            )
    # ``polling``: a server that does not stream answers at once with the task, not when it
    # rests, so the harness knows the task's id and can cancel it at a ceiling.
    config = ClientConfig(httpx_client=http, polling=True, supported_protocol_bindings=BINDINGS)
    return await create_client(card, config)


async def _events(client: Client, request: SendMessageRequest) -> AsyncIterator[StreamResponse]:
    """The task's events: its stream's, or the one answer of a server that does not stream; then,
    once those end, the task as ``tasks/get`` reads it every `POLL_SECONDS`, as A2A has a client
    follow a task its answer left working (the caller stops reading when the task rests). Each
    is of the task the first named (`_same_task`)."""
    from a2a.types import GetTaskRequest, StreamResponse

    task_id = ""
    async for event in client.send_message(request):
        task_id = _same_task(event, task_id)
        yield event
    while task_id:
        await asyncio.sleep(POLL_SECONDS)
        event = StreamResponse(task=await client.get_task(GetTaskRequest(id=task_id)))
        _same_task(event, task_id)
        yield event


def _same_task(event: StreamResponse, task_id: str) -> str:
    """The id of the task ``event`` is about, which must be ``task_id`` once that is known (a
    message names none): an event of another task, or a message, is `_Refused`, as the A2A
    SDK's own server refuses to send either once a task is under way, and never ends or changes
    the delegated task (a message would read as the task's answer: a completion)."""
    if task_id and event.HasField("message"):
        raise _Refused(
            f"it sent a message while following task {cut(task_id, ID_CUT)!r}, the one it was "
            "delegated: once an A2A stream has named a task it carries that task's events only "
            "(the A2A SDK's own server refuses a message then); say it in the task's status, "
            "and end the task in the state that says how it ended"
        )
    named = _task_of(event)
    if not named or named == task_id or not task_id:
        return named or task_id
    raise _Refused(
        f"it sent an event of task {cut(named, ID_CUT)!r} while following task "
        f"{cut(task_id, ID_CUT)!r}, the "
        "one it was delegated: an A2A stream, and a tasks/get answer, carry that task's events "
        "only; send each task's events on its own stream"
    )


def _task_of(event: StreamResponse) -> str:
    """The id of the task an event is about; ``""`` for a message."""
    return event.task.id or event.status_update.task_id or event.artifact_update.task_id


def _read(event: StreamResponse, latest: Delegation, delegated: Task) -> Delegation:
    """The task's state after one event of the stream. ``delegated`` keeps the task's id and
    artifacts as its events tell them, an artifact update applied as the A2A SDK's own task
    manager applies it: with ``append`` false it replaces the artifact of its id, with ``append``
    true it extends it. One that extends an artifact never sent, which that task manager refuses,
    is kept as a new one, as this client kept every update: the text is what a record shows of the
    result, no reason to lose the task's state. A task whose snapshot lists no artifacts keeps
    those its updates sent."""
    from a2a.helpers.proto_helpers import get_artifact_text, get_message_text
    from a2a.server.tasks.task_manager import append_artifact_to_task
    from a2a.types import TaskState
    from a2a.utils.errors import InvalidAgentResponseError

    if event.HasField("message"):
        return Delegation(state="completed", said=get_message_text(event.message))
    delegated.id = delegated.id or _task_of(event)
    if event.HasField("artifact_update"):
        try:
            append_artifact_to_task(delegated, event.artifact_update)
        except InvalidAgentResponseError:  # ``append`` to an artifact never sent: keep its text
            delegated.artifacts.append(event.artifact_update.artifact)
        _cut(delegated, event.artifact_update.artifact.artifact_id)
    elif event.task.artifacts:
        del delegated.artifacts[:]
        delegated.artifacts.extend(event.task.artifacts)
    made = "\n".join(get_artifact_text(each) for each in delegated.artifacts)[:MADE_KEPT]
    if event.HasField("task"):
        status, metadata = event.task.status, event.task.metadata
    elif event.HasField("status_update"):
        status, metadata = event.status_update.status, event.status_update.metadata
    else:
        return replace(latest, made=made)
    name = TaskState.Name(status.state).removeprefix("TASK_STATE_").lower().replace("_", "-")
    code = _named_code(metadata)
    said = get_message_text(status.message) if status.HasField("message") else ""
    return Delegation(state=name, said=said, code=code, made=made)


def _cut(delegated: Task, artifact_id: str) -> None:
    """The artifacts of id ``artifact_id`` cut to the text a record shows of them (`MADE_KEPT`),
    as one text part: a server that appends to one without end would otherwise have the task
    held, and its text joined after every update, grow with every update. The start of the
    artifacts' text, which is all a record keeps, is the same."""
    from a2a.helpers.proto_helpers import get_artifact_text
    from a2a.types import Part

    for artifact in delegated.artifacts:
        if artifact.artifact_id != artifact_id:
            continue
        text = get_artifact_text(artifact)
        if len(text) > MADE_KEPT:
            del artifact.parts[:]
            artifact.parts.append(Part(text=text[:MADE_KEPT]))


def _named_code(metadata: Any) -> str | None:
    fields = dict(metadata.items()) if metadata is not None else {}
    value = fields.get(A2A_CODE_KEY)
    return str(getattr(value, "string_value", value)) if value is not None else None
