"""An Agent Client Protocol agent that writes the protocol by hand (newline-delimited JSON-RPC on
its stdin and stdout), so that it can misbehave as the SDK would not let it: the editor's side
is what its tests watch. It makes no model call.

    python raw_agent.py MODE [COUNT]

MODE: ``terminal`` (asks for ``terminal/create`` and ``fs/read_text_file``, which the editor never
offered, and ends its turn with ``refusal`` if both are refused as not found, ``end_turn``
otherwise), ``flood`` (sends COUNT ``agent_message_chunk`` updates, then ``refusal``),
``torrent`` (the same, each chunk a megabyte), ``unknown`` (sends COUNT updates of a kind ACP
does not have, then a message and ``refusal``), ``exit``
(exits with status 3 as the turn begins), ``close`` (closes its stdout as the turn begins and
stays running), ``version`` (answers ``initialize`` with protocol version 99, then ``refusal``)
``mute`` (reads every message and answers none, as a program not in its ACP mode does),
``signin`` (answers ``initialize`` and never ``session/new``, as an agent signing in to an
account of its own does),
``error`` (answers ``session/prompt`` with an internal error, as an agent whose API failed),
``null`` (answers ``initialize`` with ``"result": null``), ``list`` (answers ``session/new`` with a
list), ``nameless`` (answers ``session/new`` with an object and no ``sessionId``), ``wordy``
(the same, with a member of COUNT characters), ``reasonless`` (answers ``session/prompt``
with an object and no ``stopReason``),
``early`` (writes its answer to ``session/new`` and a message of the session in one write, as
the pipe hands both to an editor that reads late, then ends its turn with ``refusal``) or
``noise`` (writes lines that are no JSON-RPC message on its stdout before its answers — a debug
print, a JSON array, a bare number — then ends its turn with ``refusal``).
"""

import json
import os
import signal
import sys

MODE = sys.argv[1]
COUNT = int((sys.argv[2:] or ["0"])[0])
NOT_FOUND = -32601
MEGABYTE = 1024 * 1024


def send(*messages: dict) -> None:
    sys.stdout.write("".join(json.dumps({"jsonrpc": "2.0", **m}) + "\n" for m in messages))
    sys.stdout.flush()


def read() -> dict | None:
    line = sys.stdin.readline()
    return json.loads(line) if line else None


def asked(method: str, params: dict) -> dict:
    send({"id": method, "method": method, "params": params})
    answer = read()
    while answer is not None and answer.get("id") != method:
        answer = read()
    return answer or {}


def chunk(text: str) -> dict:
    update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}
    return {"method": "session/update", "params": {"sessionId": "s-1", "update": update}}


def turn() -> str:
    if MODE == "exit":
        print("exiting mid-turn", file=sys.stderr, flush=True)
        sys.exit(3)
    if MODE == "close":
        os.close(sys.stdout.fileno())
        signal.pause()  # runs on until it is ended: only the closed connection tells the editor
    if MODE in ("version", "noise", "early"):
        return "refusal"
    if MODE in ("flood", "torrent"):
        for _ in range(COUNT):
            send(chunk("x" * (50 if MODE == "flood" else MEGABYTE)))
        return "refusal"
    if MODE == "unknown":
        made_up = {"sessionUpdate": "made_up_kind", "detail": 1}
        for _ in range(COUNT):
            send({"method": "session/update", "params": {"sessionId": "s-1", "update": made_up}})
        send(chunk("read after them"))
        return "refusal"
    terminal = asked("terminal/create", {"sessionId": "s-1", "command": "ls"})
    read_file = asked("fs/read_text_file", {"sessionId": "s-1", "path": "/etc/hostname"})
    refused = [answer.get("error", {}).get("code") for answer in (terminal, read_file)]
    print(f"answers: {terminal} {read_file}", file=sys.stderr, flush=True)
    return "refusal" if refused == [NOT_FOUND, NOT_FOUND] else "end_turn"


def main() -> None:
    while (message := read()) is not None:
        method, given = message.get("method"), message.get("id")
        if MODE == "mute":
            continue
        if MODE == "noise":
            sys.stdout.write('starting up\n[{"jsonrpc": "2.0", "id": 0}]\n42\n')
        if method == "initialize" and MODE == "null":
            send({"id": given, "result": None})
        elif method == "initialize":
            version = 99 if MODE == "version" else 1
            send({"id": given, "result": {"protocolVersion": version, "agentCapabilities": {}}})
        elif method == "session/new" and MODE == "wordy":
            send({"id": given, "result": {"session": "s-1", "notes": "x" * COUNT}})
        elif method == "session/new" and MODE in ("list", "nameless"):
            send({"id": given, "result": ["s-1"] if MODE == "list" else {"session": "s-1"}})
        elif method == "session/new" and MODE == "early":
            send({"id": given, "result": {"sessionId": "s-1"}}, chunk("ready"))
        elif method == "session/new" and MODE != "signin":
            send({"id": given, "result": {"sessionId": "s-1"}})
        elif method == "session/prompt" and MODE == "reasonless":
            send({"id": given, "result": {"reason": "end_turn"}})
        elif method == "session/prompt" and MODE == "error":
            failed = {"code": -32603, "message": "Internal error", "data": {"details": "API 500"}}
            send({"id": given, "error": failed})
        elif method == "session/prompt":
            send({"id": given, "result": {"stopReason": turn()}})


main()
