"""Consumes supplier numbers, produces the supplier-audit world that the delegation families
share: a registry lookup and an audit filing per supplier, each supplier's audit a subtask with
its own completion criterion, and the worker scripts that do one audit."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from unsolvable import Call, Claim, Script, Steps, SubtaskSpec, ToolSpec
from unsolvable.fake_tools import FakeWorld, Tool, check_tool, lookup_tool, sections_tool
from unsolvable.scenarios.catalog._common import CHECK

__all__ = [
    "FILE",
    "LOOKUP",
    "SCOPED_CHECK",
    "WORKER_STEPS",
    "audits",
    "file_call",
    "filing",
    "finishes",
    "lookup_call",
    "registry",
    "scoped_check",
    "subtask",
    "world",
]

WORKER_STEPS = 3
"""What a worker that finishes needs: look the file up, file the audit, say so."""
LOOKUP = ToolSpec(
    name="lookup_supplier",
    description="Look up a supplier's compliance file in the supplier registry.",
    parameters={"type": "object", "properties": {"supplier": {"type": "string"}}},
)
FILE = ToolSpec(
    name="file_audit",
    description="File the audit of one supplier, by its number.",
    parameters={
        "type": "object",
        "properties": {"number": {"type": "integer"}, "text": {"type": "string"}},
    },
)
SCOPED_CHECK = ToolSpec(
    name=CHECK.name,
    description=f"{CHECK.description} Pass subtask to check one delegated subtask only.",
    parameters={"type": "object", "properties": {"subtask": {"type": "string"}}},
)
Failing = Callable[[FakeWorld], list[str]]


def subtask(number: int) -> str:
    return f"audit supplier S-{number}"


def _filed(number: int) -> Failing:
    return lambda world: (
        [] if str(number) in world.peek("audits", {}) else [f"audit of S-{number} not filed"]
    )


def audits(numbers: Sequence[int]) -> tuple[SubtaskSpec, ...]:
    """One subtask per supplier, done when its audit is filed."""
    return tuple(SubtaskSpec(name=subtask(n), failing=_filed(n)) for n in numbers)


def world(numbers: Sequence[int], seed: int) -> FakeWorld:
    criteria = [_filed(n) for n in numbers]
    return FakeWorld(failing=lambda w: [c for f in criteria for c in f(w)], seed=seed)


def scoped_check(specs: Sequence[SubtaskSpec]) -> Tool:
    """The verifier a worker checks its own subtask with."""
    return check_tool(SCOPED_CHECK, subtasks={s.name: s.failing for s in specs if s.failing})


def registry(numbers: Sequence[int]) -> Tool:
    files = {f"S-{n}": {"file": f"CF-{n}", "status": "on record"} for n in numbers}
    return lookup_tool(LOOKUP, field="supplier", records=files, missing={"file": None})


def filing(numbers: Sequence[int]) -> Tool:
    return sections_tool(FILE, key="audits", total=len(numbers))


def lookup_call(number: int) -> Call:
    return Call(name=LOOKUP.name, arguments={"supplier": f"S-{number}"}, text="Looking up the file")


def file_call(number: int) -> Call:
    return Call(
        name=FILE.name,
        arguments={"number": number, "text": f"S-{number}: compliant"},
        text="Filing the audit",
    )


def finishes(number: int, lookups: int = 1) -> Script:
    """A worker that looks its supplier up (``lookups`` times) and files the audit."""
    calls = [*[lookup_call(number)] * lookups, file_call(number)]
    return Steps(calls=calls, then=Claim(text=f"The audit of S-{number} is filed."))
