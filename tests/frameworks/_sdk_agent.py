"""The stop logic shared by the test agents written directly against the vendor SDKs.

Deliberately small and honest: a denied permission is a ``BLOCKED_INPUT`` naming it, the same call
asked for a third time is ``NO_PROGRESS``, and running out of turns is ``BUDGET_STEPS`` with the
results so far. Stdlib only, so the same code runs in a child process.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from collections import Counter
from typing import Any

REPEATS = 3
"""Identical calls (name + canonical arguments) that prove the model is stuck."""
MAX_TURNS = 8
"""The agent's own turn budget, below every scenario's step bound of interest."""


class StopLogic:
    """Watches each tool call and its result; `verdict` says when and how to stop."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.results: list[str] = []

    def observe(self, name: str, arguments: str, result: str) -> dict[str, Any] | None:
        canonical = json.dumps(json.loads(arguments or "{}"), sort_keys=True)
        self.calls[f"{name}:{canonical}"] += 1
        self.results.append(result)
        denied = _denied(result)
        if denied is not None:
            return {"code": "BLOCKED_INPUT", "reason": f"{name} refused", "missing": [denied]}
        if self.calls[f"{name}:{canonical}"] >= REPEATS:
            return {"code": "NO_PROGRESS", "reason": f"{name} asked {REPEATS} times"}
        return None

    def out_of_turns(self) -> dict[str, Any]:
        return {"code": "BUDGET_STEPS", "reason": "out of turns", "partial": self.results}


def _denied(result: str) -> str | None:
    try:
        error = json.loads(result).get("error") or {}
    except (ValueError, AttributeError):
        return None
    return error.get("missing_permission") if error.get("status") == 403 else None


def http_tool(name: str, arguments: str) -> str:
    """Calls a tool over HTTP at ``$UNSOLVABLE_TOOLS_URL/<name>``, as a REST-backed tool would."""
    url = f"{os.environ['UNSOLVABLE_TOOLS_URL']}/{name}"
    request = urllib.request.Request(url, data=(arguments or "{}").encode(), method="POST")
    request.add_header("content-type", "application/json")
    try:
        with urllib.request.urlopen(request) as response:
            return str(response.read().decode())
    except urllib.error.HTTPError as error:
        return str(error.read().decode())
