"""Consumes supplier numbers, produces the supplier-audit world that the delegation families
share: a registry lookup and an audit filing per supplier, each supplier's audit a subtask with
its own completion criterion, and the worker scripts that do one audit."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from unsolvable import Call, Claim, Script, Steps, SubtaskSpec, ToolSpec
from unsolvable.fake_tools import FakeWorld, Tool, lookup_tool, sections_tool

__all__ = [
    "FILE",
    "LOOKUP",
    "WORKER_STEPS",
    "audits",
    "file_call",
    "filing",
    "finishes",
    "in_words",
    "lookup_call",
    "ordinal",
    "registry",
    "subtask",
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
Failing = Callable[[FakeWorld], list[str]]
WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def in_words(n: int) -> str:
    """A count of suppliers or workers in words, as the library's variants say it; in digits
    past ten."""
    return WORDS[n - 1] if 0 < n <= len(WORDS) else str(n)


ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth")


def ordinal(n: int) -> str:
    """The supplier or worker ``n`` by its place, in words up to the ninth."""
    if 0 < n <= len(ORDINALS):
        return ORDINALS[n - 1]
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def subtask(number: int) -> str:
    return f"audit supplier S-{number}"


def _filed(number: int) -> Failing:
    return lambda world: (
        [] if str(number) in world.peek("audits", {}) else [f"audit of S-{number} not filed"]
    )


def audits(numbers: Sequence[int]) -> tuple[SubtaskSpec, ...]:
    """One subtask per supplier, done when its audit is filed."""
    return tuple(SubtaskSpec(name=subtask(n), failing=_filed(n)) for n in numbers)


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
