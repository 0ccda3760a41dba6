"""An ``exec:node`` agent that ends on an error it does not catch: Node's report of it ends with
the runtime's version (``Node.js v20.20.2``), which names nothing, so the crashed record names
the error the report shows instead."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import unsolvable
from unsolvable import Outcome, scenarios

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH")


@pytest.mark.parametrize(
    ("code", "named"),
    [
        ('throw new TypeError("no tools")', "TypeError: no tools"),
        ('await Promise.reject(new Error("out", { cause: new Error("in") }))', "Error: out"),
        (
            'await new Promise((_, no) => setTimeout(() => no(new RangeError("late")), 1))',
            "RangeError: late",
        ),
        ('console.error("thinking"); throw new Error("first\\nsecond")', "Error: first"),
        ('JSON.parse("{")', "SyntaxError: Expected property name or '}' in JSON at position 1"),
        ('throw "a bare string"', "a bare string"),
        (
            "const fields = Array.from({ length: 300 }, (_, i) => [`f${i}`, 'a value '.repeat(9)]);"
            'throw Object.assign(new Error("too much"), Object.fromEntries(fields))',
            "Error: too much",
        ),
    ],
    ids=[
        "thrown",
        "rejected-with-a-cause",
        "rejected-later",
        "two-lines",
        "no-caret",
        "no-error",
        "longer-than-kept",
    ],
)
def test_an_uncaught_error_is_a_crash_naming_it_not_the_runtimes_version(
    code: str, named: str, tmp_path: Path
) -> None:
    agent = tmp_path / "agent.mjs"
    agent.write_text(code + "\n")
    record = unsolvable.run(f"exec:node {agent}", scenarios.get("constant-return/repeat"))
    assert record.outcome is Outcome.CRASHED
    assert f"exited with status 1 without a structured exit; its stderr says: {named}. " in str(
        record.observed.error
    )
