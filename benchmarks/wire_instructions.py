"""Machine instructions the wire face adds to one SDK call, at call 1 or call N of a growing
conversation, against the whole call on a bare mock.

The conversation of `benchmarks.wire_overhead` (the same SDK clients, scenario and growth) is
recorded once; then each figure is the difference between two fresh interpreters under
valgrind's cachegrind that differ only in how far they go: ``N`` conversations replayed up to
call ``k`` and up to call ``k - 1``, divided by ``N``, so start-up, imports, recording and every
client's and session's set-up cancel out. Three sides are counted:

- the SDK call on the bare ``httpx2.MockTransport`` (what a call costs without the harness);
- the recorded requests replayed straight into the wire's transport, one fresh `Wire` and
  `Session` per conversation;
- the same requests replayed into the bare mock's handler;
- with ``--floor``, the plainest wire: the same requests, each body read by one
  ``json.loads`` and its conversation and tools handed to a fresh `Session`'s step, answered
  with the recorded bytes (no conversion from the format, no rendering, no routing). It was
  once the least a wire could do; the wire now reads less of a body than ``json.loads`` does.

Before the counted conversations, each child replays ``--warm`` conversations of the same calls
that are not counted (the same ones in both children, so they cancel): CPython 3.11 specialises
a function's code only after it has run several times, and a wire's code that had run twenty
times was counted as the unspecialised interpreter runs it, which no suite's process does after
its first few calls. By default the counted call's code has run fifty times before; a call late
in a conversation has run that often in the conversation itself, so it has no warm-up.

The wire's share is the difference of the wire's count and the bare mock's, with no SDK around
them, so the SDK's own variation between runs does not enter it; the floor's share is counted
the same way, and shows what a wire that parses every body whole costs beside it. The count
repeats to within a few thousand instructions whatever the machine's load; it cannot see cache
misses, which the clock-based `benchmarks.wire_overhead` does.

    python -m benchmarks.wire_instructions [--call 1] [--sse] [--formats anthropic messages]
        [--conversations 20] [--warm 50]
"""

from __future__ import annotations

import argparse
import json
import shutil

import httpx2

from benchmarks import wire_overhead
from benchmarks._timing import instructions, machine

CONVERSATIONS = 20
"""Conversations per count by default: enough that a few hundred instructions of noise vanish.
Fewer serve a late call (``--call 50 --conversations 2``), whose SDK call is tens of millions of
instructions: there the noise is far below a per mille, and twenty conversations of fifty calls
each under valgrind would take hours."""
WARM_CALLS = 50
"""Times the counted call's code has run before it is counted, by default (`_warm`)."""
SIDES = ("sdk", "wire", "mock")
FLOOR = "floor"


def _floor(calls: int, answers: list[wire_overhead.Answer]) -> wire_overhead.Handler:
    """The plainest wire's call: parse the body and step the session (its conversation
    as sent, in any format: the token estimate reads dicts of any shape), then answer with the
    bytes the wire answered."""
    session = wire_overhead.session(calls)
    replay = wire_overhead.replaying(answers)

    def handle(request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        session.call_model(body.get("messages") or body.get("input"), body.get("tools"))
        return replay(request)

    return handle


def _handler(side: str, calls: int, answers: list[wire_overhead.Answer]) -> wire_overhead.Handler:
    if side == "wire":
        return wire_overhead.wired(calls)
    if side == FLOOR:
        return _floor(calls, answers)
    return wire_overhead.replaying(answers)


def _warm(call: int) -> int:
    """Uncounted conversations before the counted ones by default: enough that the code of
    call ``call`` has run `WARM_CALLS` times, none when the conversation itself runs it so often
    before that call."""
    return 0 if call >= WARM_CALLS else -(-WARM_CALLS // call)


def _child(
    fmt: str, calls: int, upto: int, side: str, stream: bool, conversations: int, warm: int
) -> None:
    """``warm`` conversations of ``calls`` calls, then ``conversations`` conversations of
    ``upto`` calls, of a ``calls``-call recording."""
    requests, answers = wire_overhead.recorded(fmt, calls, stream)
    if side == "sdk":
        clients = [
            wire_overhead.client(fmt, wire_overhead.replaying(answers))
            for _ in range(warm + conversations)
        ]
        for i, client in enumerate(clients):
            wire_overhead.conversation(fmt, client, calls if i < warm else upto, stream)
        return
    handlers = [_handler(side, calls, answers) for _ in range(warm + conversations)]
    for i, handler in enumerate(handlers):
        for request in requests[: calls if i < warm else upto]:
            handler(request).read()


def _instructions(
    fmt: str, call: int, upto: int, side: str, stream: bool, conversations: int, warm: int
) -> int:
    arguments = ["--child", side, "--upto", str(upto), "--call", str(call), "--formats", fmt]
    arguments += ["--conversations", str(conversations), "--warm", str(warm)]
    return instructions(
        "benchmarks.wire_instructions", [*arguments, *(["--sse"] if stream else [])]
    )


def _per_call(fmt: str, call: int, side: str, stream: bool, conversations: int, warm: int) -> float:
    upto, before = (
        _instructions(fmt, call, n, side, stream, conversations, warm) for n in (call, call - 1)
    )
    return (upto - before) / conversations


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--call", type=int, default=1, help="which call of the conversation")
    parser.add_argument("--sse", action="store_true", help="streamed replies")
    parser.add_argument(
        "--formats", nargs="+", default=list(wire_overhead.FORMATS), choices=wire_overhead.FORMATS
    )
    parser.add_argument(
        "--floor", action="store_true", help="also count the plainest wire (json.loads and a step)"
    )
    parser.add_argument(
        "--conversations",
        type=int,
        default=CONVERSATIONS,
        help=f"conversations per count (default {CONVERSATIONS}; 2 serve a late call)",
    )
    parser.add_argument(
        "--warm",
        type=int,
        help=f"uncounted conversations first (default: enough that the call has run "
        f"{WARM_CALLS} times before; 0 counts the code as the interpreter first runs it)",
    )
    parser.add_argument("--child", choices=(*SIDES, FLOOR), help=argparse.SUPPRESS)
    parser.add_argument("--upto", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.call < 1:
        parser.error("--call counts from 1")
    if args.conversations < 1:
        parser.error("--conversations counts from 1")
    if args.warm is not None and args.warm < 0:
        parser.error("--warm counts from 0")
    warm = _warm(args.call) if args.warm is None else args.warm
    if args.child is not None:
        _child(
            args.formats[0], args.call, args.upto, args.child, args.sse, args.conversations, warm
        )
        return
    if shutil.which("valgrind") is None:
        raise SystemExit("this benchmark needs valgrind (apt install valgrind)")
    print(machine())
    body = "SSE" if args.sse else "JSON"
    print(
        f"{wire_overhead.SCENARIO}, {body}; instructions of call {args.call}, "
        f"after {warm} uncounted conversations:"
    )
    floor = f"  {'the floor adds':>14}  {'ratio':>6}" if args.floor else ""
    print(f"  {'format':<20} {'SDK on the mock':>15}  {'the wire adds':>13}  {'ratio':>6}{floor}")
    for fmt in args.formats:
        sdk, wire, mock = (
            _per_call(fmt, args.call, side, args.sse, args.conversations, warm) for side in SIDES
        )
        added = wire - mock
        line = f"  {fmt:<20} {sdk:15,.0f}  {added:13,.0f}  {(sdk + added) / sdk:.3f}x"
        if args.floor:
            least = _per_call(fmt, args.call, FLOOR, args.sse, args.conversations, warm) - mock
            line += f"  {least:14,.0f}  {(sdk + least) / sdk:.3f}x"
        print(line)


if __name__ == "__main__":
    main()
