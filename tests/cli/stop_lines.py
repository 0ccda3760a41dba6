"""An exec agent that prints the stop line it is told to: ``null`` for a reason with a JSON null,
``long`` for a reason of many thousand characters, ``orphan`` for a stop after leaving a process
in a session of its own."""

import json
import subprocess
import sys

LONG = 50_000

if sys.argv[1] == "null":
    print(json.dumps({"code": "NO_PROGRESS", "reason": None, "missing": None}))
elif sys.argv[1] == "long":
    print(json.dumps({"code": "NO_PROGRESS", "reason": "x" * LONG}))
else:
    orphan = subprocess.Popen(["sleep", "300"], start_new_session=True)
    print(json.dumps({"code": "NO_PROGRESS", "reason": "left one", "partial": orphan.pid}))
