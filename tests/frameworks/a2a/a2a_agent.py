"""An A2A agent of our own, served with the A2A SDK's server on loopback, for the A2A face's tests:
it asks the model (the openai SDK at OPENAI_BASE_URL), calls the tools at UNSOLVABLE_TOOLS_URL,
and ends its task in the state its mode says. It prints its URL as its first stdout line.

    python a2a_agent.py MODE [MARKER] [--no-streaming] [--card-url=URL]

MODE: ``stop`` (``input-required`` naming the permission on a 403; ``failed`` with the code
``NO_PROGRESS`` in the status metadata on a repeated call; ``completed`` when the model is done),
``auth`` (``auth-required`` on a 403), ``forever`` (works until canceled, then writes MARKER),
``exit`` (exits with status 3 once its task is working), ``later`` (answers ``working`` and
ends its stream at once, then works as ``stop`` does and leaves the state it ends in in its task
store, where only ``tasks/get`` finds it), or a state to end in after one model call
(``rejected``, ``failed``, ``completed``; ``artifact`` completes with the model's text as an
artifact and no status message; ``replace`` does the same, the artifact first sent as a draft
that an update with ``append`` false replaces). ``silent``: its task sends no event, and its
stream ends empty. ``stray``: as ``stop``, its stream sending a ``completed`` status of another
task right after its task (a server that mixes up its tasks' streams, which the SDK's own
handler refuses to be). ``loud``: as ``completed``, having written 200 MB of log lines to its
stdout after its URL. ``chatty``: as ``stop``, but it says "on it" in a message right after its
task, which the SDK's legacy handler (``LegacyRequestHandler``, which it serves with) streams and
its default handler refuses. ``--no-streaming``: its agent card says it
does not stream, so a client sends the message and gets one answer. ``--card-url=URL``: its agent
card names URL, not the address it serves on, as where to send messages (as a server
configured with its public address does).
"""

import asyncio
import json
import os
import socket
import sys

import httpx
import uvicorn
from a2a.helpers.proto_helpers import new_text_message, new_text_part
from a2a.server.agent_execution import AgentExecutor
from a2a.server.request_handlers import DefaultRequestHandler, LegacyRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    Task,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
)
from openai import AsyncOpenAI
from starlette.applications import Starlette

STREAMING = "--no-streaming" not in sys.argv
CARD_URL = next((arg.partition("=")[2] for arg in sys.argv if arg.startswith("--card-url=")), "")
ARGS = [arg for arg in sys.argv[1:] if not arg.startswith("--")]
MODE, MARKER = ARGS[0], (ARGS[1:] or [""])[0]
LOUD_MEGABYTES = 200
"""What a ``loud`` server writes to its stdout after its URL."""


def mark():
    with open(MARKER, "w") as file:
        file.write("canceled")


class Executor(AgentExecutor):
    def __init__(self, store):
        self.store, self.later = store, set()

    async def execute(self, context, event_queue):
        if MODE == "silent":
            return
        task = Task(id=context.task_id, context_id=context.context_id)
        task.status.CopyFrom(TaskStatus(state=TaskState.TASK_STATE_WORKING))
        await event_queue.enqueue_event(task)
        if MODE == "chatty":  # a message mid-task, as agents of older SDKs said what they did
            said = new_text_message("on it", context_id=context.context_id, task_id=task.id)
            await event_queue.enqueue_event(said)
        if MODE == "exit":  # dies mid-task, as a server that crashed
            print("exiting mid-task", file=sys.stderr, flush=True)
            os._exit(3)
        if MODE == "later":  # its answer, or its stream, ends here: the task goes on
            self.later.add(asyncio.ensure_future(self.rest_later(task, context)))
            return
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        try:
            state, said, code = await self.work(context.get_user_input())
        except asyncio.CancelledError:
            mark()
            raise
        except Exception:
            if MODE != "forever":
                raise
            try:  # a model call refused at the harness's ceiling: its cancel is coming
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                mark()
                raise
        if MODE == "replace":  # a draft, replaced by its answer
            draft = [new_text_part("a draft")]
            await updater.add_artifact(draft, artifact_id="answer", name="answer")
        if MODE in ("artifact", "replace"):  # its answer is an artifact, its status says nothing
            await updater.add_artifact([new_text_part(said)], artifact_id="answer", name="answer")
            await updater.complete()
            return
        message = new_text_message(said, context_id=context.context_id, task_id=context.task_id)
        metadata = {"unsolvable.code": code} if code else None
        await updater.update_status(state, message=message, metadata=metadata)

    async def rest_later(self, task, context):
        state, said, _ = await self.work(context.get_user_input())
        message = new_text_message(said, context_id=context.context_id, task_id=context.task_id)
        task.status.CopyFrom(TaskStatus(state=state, message=message))
        await self.store.save(task, context.call_context)

    async def cancel(self, context, event_queue):
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.cancel()

    async def work(self, task):
        model, tools = AsyncOpenAI(max_retries=0), json.loads(os.environ["UNSOLVABLE_TOOLS"])
        messages, seen = [{"role": "user", "content": task}], set()
        async with httpx.AsyncClient(base_url=os.environ["UNSOLVABLE_TOOLS_URL"]) as http:
            while True:
                reply = await model.chat.completions.create(
                    model="m", messages=messages, tools=tools
                )
                message = reply.choices[0].message
                messages.append(message.model_dump(exclude_none=True))
                if MODE in ("artifact", "replace"):
                    return TaskState.TASK_STATE_COMPLETED, f"the answer: {message.content}", None
                if MODE in ("rejected", "failed", "completed", "loud"):
                    ended = "completed" if MODE == "loud" else MODE
                    return TaskState.Value(f"TASK_STATE_{ended.upper()}"), f"ended {ended}", None
                if not message.tool_calls and MODE != "forever":
                    return TaskState.TASK_STATE_COMPLETED, message.content or "done", None
                for call in message.tool_calls or ():
                    name, arguments = call.function.name, call.function.arguments
                    answer = await http.post(f"/{name}", content=arguments)
                    if answer.status_code == 403 and MODE != "forever":
                        error = answer.json()["error"]
                        blocked = TaskState.TASK_STATE_INPUT_REQUIRED
                        if MODE == "auth":
                            blocked = TaskState.TASK_STATE_AUTH_REQUIRED
                        return blocked, f"{name}: grant {error['missing_permission']}", None
                    if (name, arguments) in seen and MODE == "stop":
                        return TaskState.TASK_STATE_FAILED, f"{name} again", "NO_PROGRESS"
                    seen.add((name, arguments))
                    result = {"role": "tool", "tool_call_id": call.id, "content": answer.text}
                    messages.append(result)


class Stray(DefaultRequestHandler):
    """Streams a ``completed`` status of another task right after its own task."""

    async def on_message_send_stream(self, params, context):
        async for event in super().on_message_send_stream(params, context):
            yield event
            if isinstance(event, Task):
                done = TaskStatus(state=TaskState.TASK_STATE_COMPLETED)
                yield TaskStatusUpdateEvent(
                    task_id="another-task", context_id=event.context_id, status=done
                )


async def main():
    listener = socket.create_server(("127.0.0.1", 0))
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    card = AgentCard(
        name="a2a-test-agent",
        description="An agent of the harness's tests",
        version="1",
        supported_interfaces=[
            AgentInterface(url=CARD_URL or url, protocol_binding="JSONRPC", protocol_version="1.0")
        ],
        skills=[AgentSkill(id="task", name="task", description="Does the task", tags=["test"])],
        capabilities=AgentCapabilities(streaming=STREAMING),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
    )
    store = InMemoryTaskStore()
    serving = {"stray": Stray, "chatty": LegacyRequestHandler}.get(MODE, DefaultRequestHandler)
    handler = serving(Executor(store), store, card)
    routes = [*create_agent_card_routes(card), *create_jsonrpc_routes(handler, rpc_url="/")]
    config = uvicorn.Config(Starlette(routes=routes), log_level="warning")
    print(url, flush=True)
    if MODE == "loud":  # logs to stdout, as a server may: a block of megabytes, before it serves
        for _ in range(LOUD_MEGABYTES):
            sys.stdout.write("x" * 1023 * 1024 + "\n" * 1024)
        sys.stdout.flush()
    await uvicorn.Server(config).serve(sockets=[listener])


asyncio.run(main())
