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
- the same requests replayed into the bare mock's handler.

The wire's share is the difference of the last two, with no SDK around it, so the SDK's own
variation between runs does not enter it. The count repeats to within a few hundred
instructions whatever the machine's load; it cannot see cache misses, which the clock-based
`benchmarks.wire_overhead` does.

    python -m benchmarks.wire_instructions [--call 1] [--sse] [--formats anthropic messages]
"""

from __future__ import annotations

import argparse
import shutil

from benchmarks import wire_overhead
from benchmarks._timing import instructions, machine

CONVERSATIONS = 20
"""Conversations per count: enough that a few hundred instructions of noise vanish."""
SIDES = ("sdk", "wire", "mock")


def _child(fmt: str, calls: int, upto: int, side: str, stream: bool) -> None:
    """``CONVERSATIONS`` conversations of ``upto`` calls, of a ``calls``-call recording."""
    requests, answers = wire_overhead.recorded(fmt, calls, stream)
    if side == "sdk":
        clients = [
            wire_overhead.client(fmt, wire_overhead.replaying(answers))
            for _ in range(CONVERSATIONS)
        ]
        for client in clients:
            wire_overhead.conversation(fmt, client, upto, stream)
        return
    handlers = [
        wire_overhead.wired(calls) if side == "wire" else wire_overhead.replaying(answers)
        for _ in range(CONVERSATIONS)
    ]
    for handler in handlers:
        for request in requests[:upto]:
            handler(request).read()


def _instructions(fmt: str, call: int, upto: int, side: str, stream: bool) -> int:
    arguments = ["--child", side, "--upto", str(upto), "--call", str(call), "--formats", fmt]
    return instructions(
        "benchmarks.wire_instructions", [*arguments, *(["--sse"] if stream else [])]
    )


def _per_call(fmt: str, call: int, side: str, stream: bool) -> float:
    upto, before = (_instructions(fmt, call, n, side, stream) for n in (call, call - 1))
    return (upto - before) / CONVERSATIONS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--call", type=int, default=1, help="which call of the conversation")
    parser.add_argument("--sse", action="store_true", help="streamed replies")
    parser.add_argument(
        "--formats", nargs="+", default=list(wire_overhead.FORMATS), choices=wire_overhead.FORMATS
    )
    parser.add_argument("--child", choices=SIDES, help=argparse.SUPPRESS)
    parser.add_argument("--upto", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.call < 1:
        parser.error("--call counts from 1")
    if args.child is not None:
        _child(args.formats[0], args.call, args.upto, args.child, args.sse)
        return
    if shutil.which("valgrind") is None:
        raise SystemExit("this benchmark needs valgrind (apt install valgrind)")
    print(machine())
    body = "SSE" if args.sse else "JSON"
    print(f"{wire_overhead.SCENARIO}, {body}; instructions of call {args.call}:")
    print(f"  {'format':<20} {'SDK on the mock':>15}  {'the wire adds':>13}  ratio")
    for fmt in args.formats:
        sdk, wire, mock = (_per_call(fmt, args.call, side, args.sse) for side in SIDES)
        added = wire - mock
        print(f"  {fmt:<20} {sdk:15,.0f}  {added:13,.0f}  {(sdk + added) / sdk:.2f}x")


if __name__ == "__main__":
    main()
