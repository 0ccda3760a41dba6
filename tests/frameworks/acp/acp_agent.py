"""An Agent Client Protocol agent of our own, written with the ACP SDK, for the exact protocol
cases: it asks the model (the openai SDK at OPENAI_BASE_URL), asks the editor's permission
before every tool call, runs the call on the MCP server the editor gave it (the mcp client SDK),
and ends its turn with the stop reason its mode says.

    python acp_agent.py MODE [MARKER]

MODE: ``stop`` (a stop logic of its own: ``_no_progress`` on a repeated call, ``end_turn``
when a permission is refused), ``forever`` (never stops; it writes ``turn`` to MARKER as its turn
begins, ``cancelled`` on ``session/cancel``, and answers ``cancelled``), ``hang`` (the same,
without calling the model: only a clock ends its turn), ``deaf`` (``forever``, but it writes
its process id to MARKER.pid and hears ``session/cancel`` without ever answering the turn),
``asking`` (``forever``, but on ``session/cancel`` it asks the editor's permission for its last
call again and writes the outcome to MARKER.asked), ``allow-only`` (``stop``, but its permission
requests offer no option to reject, and it writes ``cancelled`` to MARKER on ``session/cancel``
and ends its turn ``cancelled``, as ACP asks of an agent), ``stray`` (``stop``, but it also
asks the editor's permission for each call in another session, ``s-2``, writing each answer to
MARKER.stray, and says a message in that session before it ends its turn), ``insist``
(``forever``, but it asks again after a refusal, as Codex does, and writes the outcome of each
answer to MARKER.asked), or a
stop reason to answer after one model call (``end_turn``, ``max_tokens``, ``max_turn_requests``,
``refusal``, ``_budget_idle``, ``_made_up``, …).
"""

import asyncio
import json
import os
import sys

import acp
from acp.schema import AgentCapabilities, McpCapabilities, ToolCallUpdate
from mcp import Client
from openai import AsyncOpenAI

PREFIX = "mcp__unsolvable__"
STRAY = "s-2"
"""The session a ``stray`` agent also talks about, which the editor never opened."""
CANCEL_WAIT = 30.0
"""How long ``forever`` waits for the editor's cancel after a failed model call."""
PERMISSIONS = [
    acp.schema.PermissionOption(option_id="yes", name="Allow", kind="allow_once"),
    acp.schema.PermissionOption(option_id="no", name="Reject", kind="reject_once"),
]
ALLOW_ONLY = [
    acp.schema.PermissionOption(option_id="yes", name="Allow", kind="allow_once"),
    acp.schema.PermissionOption(option_id="always", name="Always allow", kind="allow_always"),
]


class Agent:
    def __init__(self, mode: str, marker: str) -> None:
        self.mode, self.marker, self.cancelled = mode, marker, asyncio.Event()

    def on_connect(self, conn) -> None:
        self.editor = conn

    async def initialize(self, protocol_version, **_):
        capabilities = AgentCapabilities(mcp_capabilities=McpCapabilities(http=True))
        return acp.InitializeResponse(protocol_version=1, agent_capabilities=capabilities)

    async def new_session(self, cwd, mcp_servers=None, **_):
        self.mcp_url = mcp_servers[0].url
        return acp.NewSessionResponse(session_id="s-1")

    async def cancel(self, session_id, **_):
        # Heard: marked at once, as unwinding the work (its MCP session's close) takes a while.
        if self.marker:
            with open(self.marker, "w") as file:
                file.write("cancelled")
        if self.mode == "deaf":
            return
        if self.mode == "asking":  # an editor answers every permission of a cancelled turn so
            answer = await self.editor.request_permission(
                options=PERMISSIONS, session_id=session_id, tool_call=self.last
            )
            with open(f"{self.marker}.asked", "w") as file:
                file.write(answer.outcome.outcome)
        self.cancelled.set()
        self.work.cancel()  # what is under way, a model call or a tool call, is aborted

    async def prompt(self, prompt, session_id, **_):
        self.work = asyncio.ensure_future(self.run(session_id, prompt[0].text))
        try:
            reason = await self.work
        except (asyncio.CancelledError, Exception):
            if self.mode == "deaf":
                await asyncio.Event().wait()  # never answers: only the editor's kill ends it
            if not self.cancelled.is_set() and self.mode not in ("forever", "hang", "asking"):
                raise
            # Cancelled, or a model call refused at the harness's ceiling: the cancel is coming.
            await asyncio.wait_for(self.cancelled.wait(), CANCEL_WAIT)
            reason = "cancelled"
        return acp.PromptResponse.model_construct(stop_reason=reason)  # "_…" is ours to send

    async def run(self, session_id, task) -> str:
        if self.marker:  # the turn is under way: what a cancel now must find
            with open(self.marker, "w") as file:
                file.write("turn")
        if self.mode == "deaf":
            with open(f"{self.marker}.pid", "w") as file:
                file.write(str(os.getpid()))
        if self.mode == "hang":  # at once, with nothing slow to start: only the clock ends the turn
            print("hanging until cancelled", file=sys.stderr, flush=True)
            await self.cancelled.wait()
        async with Client(self.mcp_url) as tools:
            return await self.turn(session_id, task, tools)

    async def turn(self, session_id, task, tools) -> str:
        model, seen = AsyncOpenAI(max_retries=0), set()
        offered = [
            {"type": "function", "function": {"name": PREFIX + t.name, "parameters": schema}}
            for t, schema in ((t, t.input_schema) for t in (await tools.list_tools()).tools)
        ]
        messages = [{"role": "user", "content": task}]
        while not self.cancelled.is_set():
            reply = await model.chat.completions.create(model="m", messages=messages, tools=offered)
            message = reply.choices[0].message
            messages.append(message.model_dump(exclude_none=True))
            modes = ("stop", "forever", "deaf", "asking", "allow-only", "stray", "insist")
            if self.mode not in modes:
                return self.mode
            for call in message.tool_calls or ():
                name, arguments = call.function.name.removeprefix(PREFIX), call.function.arguments
                if self.mode in ("stop", "allow-only", "stray") and (name, arguments) in seen:
                    return "_no_progress"
                seen.add((name, arguments))
                if self.mode == "stray":
                    await self.stray(call.id, name, json.loads(arguments))
                if not await self.allowed(session_id, call.id, name, json.loads(arguments)):
                    if self.mode == "stray":
                        said = acp.update_agent_message_text("the other session's task is done")
                        await self.editor.session_update(session_id=STRAY, update=said)
                    if self.mode == "insist":  # asks again, as Codex does after a refusal
                        refused = {"role": "tool", "tool_call_id": call.id, "content": "refused"}
                        messages.append(refused)
                        continue
                    return "end_turn"
                text = (await tools.call_tool(name, json.loads(arguments))).content[0].text
                messages.append({"role": "tool", "tool_call_id": call.id, "content": text})
            if not message.tool_calls:
                return "end_turn"
        return "cancelled"

    async def stray(self, call_id, name, arguments) -> None:
        """Asks the editor's permission for the call in the session it never opened, and writes
        down the answer: the outcome, or the error."""
        try:
            answer = await self.allowed(STRAY, call_id, name, arguments)
        except acp.RequestError as error:
            answer = f"error {error.code}"
        with open(f"{self.marker}.stray", "a") as file:
            file.write(f"{answer}\n")

    async def allowed(self, session_id, call_id, name, arguments) -> bool:
        call = ToolCallUpdate(tool_call_id=call_id, title=PREFIX + name, raw_input=arguments)
        self.last = call
        offered = ALLOW_ONLY if self.mode == "allow-only" else PERMISSIONS
        answer = await self.editor.request_permission(
            options=offered, session_id=session_id, tool_call=call
        )
        if self.mode == "insist":
            with open(f"{self.marker}.asked", "a") as file:
                file.write(f"{answer.outcome.outcome}\n")
        return getattr(answer.outcome, "option_id", None) in ("yes", "always")


asyncio.run(acp.run_agent(Agent(sys.argv[1], (sys.argv[2:] or [""])[0])))
