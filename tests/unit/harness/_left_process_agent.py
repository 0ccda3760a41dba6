"""An ``exec:`` agent that starts a process searching in a loop, prints its stop and exits: the
process is work it left running. The agent stops only once the process is ready (its interpreter
started, its imports done), and the process begins its loop the moment the agent has exited (its
standard input, the agent's pipe, ends then), so however long a loaded machine takes to start an
interpreter, its first search comes a poll's interval after the agent exited: later than the
harness would kill it without waiting for work left running, well within that wait."""

import subprocess
import sys

from unsolvable._leftovers import LEFTOVER_SECONDS

SEARCHES = """
import os, sys, time, urllib.request
print("ready", flush=True)
sys.stdin.read()
while True:
    time.sleep(float(sys.argv[1]))
    url = os.environ["UNSOLVABLE_TOOLS_URL"] + "/search"
    urllib.request.urlopen(urllib.request.Request(url, data=b"{}"))
"""

searching = subprocess.Popen(
    [sys.executable, "-c", SEARCHES, str(LEFTOVER_SECONDS / 4)],
    stdin=subprocess.PIPE,
    stdout=subprocess.PIPE,
)
assert searching.stdout is not None
searching.stdout.readline()
print('{"code": "NO_PROGRESS"}')
