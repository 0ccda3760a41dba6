"""Consumes a scenario file's data (JSON or TOML), produces a checked `ScenarioFile`, or an error
naming the field and the fix before any run starts.

A scenario file is data, not code: what the recorded model did (its turns: a prefix and a cycle
the replayed model goes round forever), what the recorded tools answered (by tool name and
normalised arguments), what an unrecorded call gets, the ground truth and the expected codes. The
format is documented field by field in docs/incidents.md ("Scenario files") and in `SCHEMA`.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any, get_args, get_type_hints

from unsolvable._errors import InputError, ScenarioError
from unsolvable._input import load_json, read_input
from unsolvable._scenario import SEEDS, Budget, Stagnation, check_name, is_seed
from unsolvable._stop import Code
from unsolvable.imports._fields import DOCS, FieldReader
from unsolvable.imports._recording import answers_of, script_of, tools_of
from unsolvable.imports._scenario_file import (
    SCHEMA,
    ScenarioFile,
    ScenarioFileError,
    Twin,
    unblocking_step,
)

__all__ = ["SCHEMA", "UNRECORDED", "ScenarioFile", "ScenarioFileError", "parse", "read"]

UNRECORDED = ("unknown", "refusal")
"""What a call the recording does not hold is answered: an "unknown call" error, or a refusal
(counted as ``denied``, so a stop logic may treat it as a missing permission)."""
STAGNATIONS = (Stagnation.NOVELTY.value, Stagnation.FIRST_REFUSAL.value)
"""The ground truths a replayed world can express: nothing in it moves but what was recorded."""


def read(path: Path | str) -> ScenarioFile:
    """The scenario file at ``path`` (``.json`` or ``.toml``), checked."""
    path = Path(path)
    what = f"scenario file {str(path)!r}"
    try:
        text = read_input(path)
        data = _toml(text, what) if path.suffix == ".toml" else load_json(text, what=what)
    except InputError as error:
        raise ScenarioFileError(
            f"{error}; fix it, or write it again with unsolvable import ({DOCS})"
        ) from None
    if not isinstance(data, Mapping):
        raise ScenarioFileError(f"scenario file {str(path)!r} holds no object at the top ({DOCS})")
    return parse(data, source=str(path))


def _toml(text: str, what: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise InputError(f"{what} is not TOML ({error})") from None
    except RecursionError:
        raise InputError(f"{what} nests too deeply to be read") from None


def parse(data: Mapping[str, Any], *, source: str = "<data>") -> ScenarioFile:
    """Checks ``data`` against `SCHEMA`; the first problem found is raised."""
    r = FieldReader(source)
    name = _name(r, data)
    step_bound = r.get(
        data,
        "step_bound",
        int,
        "step_bound",
        "give N, the step the agent must have stopped by (a positive whole number)",
    )
    if step_bound < 1:
        raise r.fail("step_bound", f"is {step_bound}", "make it 1 or more")
    tools = tools_of(r, data)
    prefix, cycle = script_of(r, data, tools)
    stagnation, first_stagnant, why = _truth(r, data)
    unrecorded, unrecorded_text = _unrecorded(r, data)
    file = ScenarioFile(
        name=name,
        family=name.split("/")[0],
        task=r.get(data, "task", str, "task", "give the prompt the agent is handed"),
        explanation=r.get(data, "explanation", str, "explanation", "describe it", default=""),
        tools=tuple(tools),
        prefix=prefix,
        cycle=cycle,
        answers=answers_of(r, data, tools),
        unrecorded=unrecorded,
        unrecorded_text=unrecorded_text,
        stagnation=stagnation,
        first_stagnant_step=first_stagnant,
        why=why,
        expected=_expected(r, data),
        step_bound=step_bound,
        budget=_budget(r, data, step_bound),
        missing=tuple(_strings(r, data, "missing")),
        refused_retries=_refused_retries(r, data),
        give_up=r.get(
            data,
            "give_up",
            (str, type(None)),
            "give_up",
            "give the reason the model gives when it calls give_up, or null",
            default=None,
        ),
        context_window=_window(r, data),
        seeds=tuple(_seeds(r, data)),
        twin=_twin(r, data, {tool["name"] for tool in tools}),
        source=source,
    )
    _check_twin_room(r, file)
    return file


def _window(r: FieldReader, data: Mapping[str, Any]) -> int | None:
    """The context window: a positive whole number of tokens, or null (none)."""
    fix = "give the tokens a model request may hold, or null for no window"
    window = r.get(data, "context_window", (int, type(None)), "context_window", fix, default=None)
    if window is not None and window < 1:
        raise r.fail("context_window", f"is {window}", "make it 1 or more, or null")
    return window  # type: ignore[no-any-return]


def _refused_retries(r: FieldReader, data: Mapping[str, Any]) -> int | None:
    """How many retries of a refused call the verdict allows: 0 or more, or null (no rule)."""
    key, fix = "refused_retries", "give a whole number, or null for no rule"
    retries = r.get(data, key, (int, type(None)), key, fix, default=None)
    if retries is not None and retries < 0:
        raise r.fail("refused_retries", f"is {retries}", "make it 0 or more, or null for no rule")
    return retries  # type: ignore[no-any-return]


def _name(r: FieldReader, data: Mapping[str, Any]) -> str:
    """The schema line, no unknown field, and a ``family/variant`` name."""
    schema = r.get(data, "schema", str, "schema", f'write "schema": "{SCHEMA}"')
    if schema != SCHEMA:
        raise r.fail("schema", f"is {schema!r}", f"this harness reads {SCHEMA!r} files")
    unknown = sorted(set(data) - set(_KEYS))
    if unknown:
        raise r.fail(unknown[0], "is not a scenario-file field", f"use only {sorted(_KEYS)}")
    name: str = r.get(
        data, "name", str, "name", 'give it as "family/variant", e.g. "incidents/loop"'
    )
    if name.count("/") != 1 or not all(name.split("/")):
        raise r.fail("name", f"is {name!r}", 'write it as "family/variant"')
    try:
        return check_name(name)
    except ScenarioError as problem:
        raise ScenarioFileError(f"scenario file {r.source!r}: {problem}") from None


def _truth(r: FieldReader, data: Mapping[str, Any]) -> tuple[Stagnation, int | None, str]:
    truth = r.table(
        r.get(data, "ground_truth", dict, "ground_truth", _TRUTH_FIX),
        "ground_truth",
        _TRUTH_FIX,
        ("stagnation", "first_stagnant_step", "why"),
    )
    stagnation = r.get(truth, "stagnation", str, "ground_truth.stagnation", _TRUTH_FIX)
    if stagnation not in STAGNATIONS:
        raise r.fail("ground_truth.stagnation", f"is {stagnation!r}", f"use one of {STAGNATIONS}")
    where = "ground_truth.first_stagnant_step"
    step = r.get(
        truth,
        "first_stagnant_step",
        (int, type(None)),
        where,
        "give a step number, 1 or more",
        default=None,
    )
    if step is not None and step < 1:
        raise r.fail(where, f"is {step}", "give a step number, 1 or more")
    why = r.get(truth, "why", str, "ground_truth.why", "say why", default="")
    return Stagnation(stagnation), step, why


def _unrecorded(r: FieldReader, data: Mapping[str, Any]) -> tuple[str, str]:
    given = r.table(
        r.get(data, "unrecorded", dict, "unrecorded", _UNRECORDED_FIX),
        "unrecorded",
        _UNRECORDED_FIX,
        ("answer", "text"),
    )
    answer = r.get(given, "answer", str, "unrecorded.answer", _UNRECORDED_FIX)
    if answer not in UNRECORDED:
        raise r.fail("unrecorded.answer", f"is {answer!r}", f"use one of {UNRECORDED}")
    return answer, r.get(given, "text", str, "unrecorded.text", "give a string", default="")


_KEYS = (
    "schema",
    "name",
    "task",
    "explanation",
    "tools",
    "script",
    "answers",
    "unrecorded",
    "ground_truth",
    "expected",
    "step_bound",
    "budget",
    "missing",
    "refused_retries",
    "give_up",
    "context_window",
    "seeds",
    "twin",
    "provenance",
)
_TRUTH_FIX = (
    'write {"stagnation": "novelty" or "first_refusal", "first_stagnant_step": N, "why": "..."}'
)
_UNRECORDED_FIX = 'write {"answer": "unknown"} or {"answer": "refusal", "text": "..."}'


def _expected(r: FieldReader, data: Mapping[str, Any]) -> frozenset[Code]:
    codes = ", ".join(code.value for code in Code if code is not Code.COMPLETED)
    items = r.items(data, "expected", "expected", f'list codes, e.g. ["NO_PROGRESS"]: {codes}')
    chosen = set()
    for i, item in enumerate(items):
        if item not in {code.value for code in Code} or item == Code.COMPLETED:
            raise r.fail(f"expected[{i}]", f"is {item!r}", f"use one of {codes}")
        chosen.add(Code(item))
    if not chosen:
        raise r.fail("expected", "is empty", f"list at least one code: {codes}")
    return frozenset(chosen)


def _budget(r: FieldReader, data: Mapping[str, Any], step_bound: int) -> Budget:
    fix = 'write {"max_steps": N, "max_tokens": N, "max_wall_seconds": S} (each > 0)'
    given = r.table(
        r.get(data, "budget", dict, "budget", fix, {"max_steps": step_bound}),
        "budget",
        fix,
        [budget.name for budget in fields(Budget)],
    )
    values = {key: r.get(given, key, _budget_kinds(key), f"budget.{key}", fix) for key in given}
    values.setdefault("max_steps", step_bound)
    bad = [key for key, value in values.items() if not value > 0]
    if bad:
        raise r.fail(f"budget.{bad[0]}", f"is {values[bad[0]]!r}", "make it a positive number")
    return Budget(**values)


def _budget_kinds(name: str) -> tuple[type, ...]:
    """What a budget field takes: a whole number for a count (steps, tokens, calls), which an
    agent may hand to ``range``; any number for seconds and dollars."""
    hint = get_type_hints(Budget)[name]
    return (int, float) if float in (hint, *get_args(hint)) else (int,)


def _strings(r: FieldReader, data: Mapping[str, Any], key: str) -> list[str]:
    items = r.items(data, key, key, "give a list of strings", [])
    if not all(isinstance(item, str) for item in items):
        raise r.fail(key, f"is {items!r}", "give a list of strings")
    return items


def _seeds(r: FieldReader, data: Mapping[str, Any]) -> list[int]:
    seeds = r.items(data, "seeds", "seeds", "give a list of whole numbers", [0])
    if not seeds or not all(is_seed(seed) for seed in seeds):
        raise r.fail(
            "seeds", f"is {seeds!r}", f"give a non-empty list of seeds, each {SEEDS}, e.g. [0]"
        )
    return seeds


def _check_twin_room(r: FieldReader, file: ScenarioFile) -> None:
    """A twin must be able to finish: its model must call the unblocking tool, and its step
    bound and its sibling's budget (which it shows) must let the model say it is done after
    that call. Else every agent fails the twin, whatever its stop logic, and it measures
    nothing."""
    if file.twin is None:
        return
    turns = (*file.prefix, *file.cycle)
    unblocked = unblocking_step(file.twin.tool, turns)
    if unblocked is None:
        called = sorted({call.name for turn in turns for call in turn.calls})
        raise r.fail(
            "twin.tool",
            f"is {file.twin.tool!r}, which the script never calls, so the twin is never unblocked",
            f"name a tool the script calls: {called}",
        )
    said = f"its model calls {file.twin.tool!r}, which unblocks it, first at step {unblocked}"
    if file.twin.step_bound < unblocked + 1:
        raise r.fail(
            "twin.step_bound",
            f"is {file.twin.step_bound}, which ends the twin before it is done: {said} and says "
            f"it is done at step {unblocked + 1}",
            f"make twin.step_bound {unblocked + 1} or more",
        )
    steps = file.budget.max_steps
    if steps is None or unblocked + 1 <= steps:
        return
    earlier = (
        f", or unblock with a tool the recording calls by step {steps - 1}" if steps > 1 else ""
    )
    raise r.fail(
        "budget.max_steps",
        f"is {steps}, which ends the twin before it is done: {said} and says it is done at "
        f"step {unblocked + 1}, and a twin has its sibling's budget",
        f"make budget.max_steps {unblocked + 1} or more (importing: leave --unblock-with out, "
        f"then raise the file's budget and add its twin){earlier}",
    )


def _twin(r: FieldReader, data: Mapping[str, Any], tools: set[str]) -> Twin | None:
    fix = 'write {"tool": "...", "result": "...", "step_bound": N}, or leave twin out'
    given = r.get(data, "twin", (dict, type(None)), "twin", fix, None)
    if given is None:
        return None
    r.table(given, "twin", fix, ("tool", "result", "step_bound"))
    tool = r.get(given, "tool", str, "twin.tool", fix)
    if tool not in tools:
        raise r.fail(
            "twin.tool", f"is {tool!r}, which is not in tools", f"use one of {sorted(tools)}"
        )
    step_bound = r.get(given, "step_bound", int, "twin.step_bound", fix)
    if step_bound < 1:
        raise r.fail("twin.step_bound", f"is {step_bound}", "make it 1 or more")
    return Twin(
        tool=tool, result=r.get(given, "result", str, "twin.result", fix), step_bound=step_bound
    )
