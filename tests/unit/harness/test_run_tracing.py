"""`unsolvable.run` under a tracer or a profiler, as under ``pytest --cov``: the run still ends.

On CPython 3.11, clearing a thread's pending interruption left the interpreter's pending flag set,
and with a trace or profile function installed the next Python call then spun forever: every run
hung once the agent had returned. Each case runs in its own interpreter, so a hang is a timeout
with a message rather than a stuck test session.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

HOOKS = {
    "sys.settrace (coverage, debuggers)": "sys.settrace(lambda frame, event, arg: None)",
    "cProfile": "import cProfile; cProfile.Profile().enable()",
}
SCRIPT = """
import sys, time
{hook}
import unsolvable
from unsolvable import scenarios
from unsolvable import Ceilings, Code, Stop

def stops(session):
    session.call_model([{{"role": "user", "content": session.task}}], session.tools)
    return Stop(code=Code.NO_PROGRESS, reason="stuck")

def spins(session):
    while True:
        pass

def sleeps(session):
    time.sleep(60)

scenario = scenarios.get("constant-return/repeat")
for agent, wall in ((stops, 60.0), (spins, 0.3), (sleeps, 0.3)):  # stops: however slow, traced
    record = unsolvable.run(agent, scenario, ceilings=Ceilings(max_wall_seconds=wall))
    print(agent.__name__, record.outcome.value, record.observed.ceiling)
print("after", sum(len(str(i)) for i in range(1000)))
"""


@pytest.mark.parametrize("hook", list(HOOKS.values()), ids=list(HOOKS))
def test_runs_end_under_a_trace_or_profile_function(hook: str) -> None:
    code = textwrap.dedent(SCRIPT.format(hook=hook))
    try:
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"unsolvable.run hung with {hook!r} installed")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "stops stopped None",
        "spins did_not_stop wall_seconds",
        "sleeps did_not_stop wall_seconds",
        "after 2890",
    ]
