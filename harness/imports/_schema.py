"""Consumes a scenario file's data (JSON or TOML), produces a checked `ScenarioFile`, or an error
naming the field and the fix before any run starts.

A scenario file is data, not code: what the recorded model did (its turns: a prefix and a cycle
the replayed model goes round forever), what the recorded tools answered (by tool name and
normalised arguments), what an unrecorded call gets, the ground truth and the expected codes. The
format is documented field by field in docs/incidents.md ("Scenario files") and in `SCHEMA`.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, get_args, get_type_hints

from unsolvable._errors import InputError, ScenarioError
from unsolvable._input import load_json, read_input
from unsolvable._scenario import SEEDS, Budget, Stagnation, check_name, is_seed
from unsolvable._stop import Code
from unsolvable._types import JSON
from unsolvable.fake_tools import REFUSALS
from unsolvable.imports._shapes import kind_of, type_word

__all__ = [
    "SCHEMA",
    "UNRECORDED",
    "Answer",
    "FileCall",
    "FileTurn",
    "ScenarioFile",
    "ScenarioFileError",
    "Twin",
    "parse",
    "read",
    "unblocking_step",
]

SCHEMA = "unsolvable-scenario/1"
"""The ``schema`` every scenario file names; a later, incompatible layout gets a new number."""
UNRECORDED = ("unknown", "refusal")
"""What a call the recording does not hold is answered: an "unknown call" error, or a refusal
(counted as ``denied``, so a stop logic may treat it as a missing permission)."""
STAGNATIONS = (Stagnation.NOVELTY.value, Stagnation.FIRST_REFUSAL.value)
"""The ground truths a replayed world can express: nothing in it moves but what was recorded."""
DOCS = "see docs/incidents.md#scenario-files"


class ScenarioFileError(ScenarioError):
    """A scenario file that cannot be read or does not follow `SCHEMA`."""


@dataclass(frozen=True, kw_only=True)
class FileCall:
    """A tool call the recorded model asked for."""

    name: str
    arguments: JSON = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class FileTurn:
    """One recorded model turn: its text and its tool calls (none: it answered in words)."""

    text: str = ""
    calls: tuple[FileCall, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Result:
    """One recorded answer of a tool."""

    text: str
    refusal: str | None = None
    """The kind of refusal (one of `unsolvable.fake_tools.REFUSALS`) when the call was refused."""
    world: str = ""
    """The world's fingerprint after the call, when the recording has one."""


@dataclass(frozen=True, kw_only=True)
class Answer:
    """What one tool answered one set of arguments, in the order it answered; the last answer
    is given again to every later call, so a replayed loop never runs out."""

    tool: str
    arguments: JSON
    results: tuple[Result, ...]


@dataclass(frozen=True, kw_only=True)
class Twin:
    """The solvable twin: the same recording, but ``tool`` answers ``result`` and the task is
    then done, as the user said the real run should have gone."""

    tool: str
    result: str
    step_bound: int


@dataclass(frozen=True, kw_only=True)
class ScenarioFile:
    """A checked scenario file; `unsolvable.imports.build` makes the `Scenario` of it."""

    name: str
    family: str
    task: str
    explanation: str
    tools: tuple[JSON, ...]
    """Each ``{"name", "description", "parameters"}``, as the agent is told."""
    prefix: tuple[FileTurn, ...]
    cycle: tuple[FileTurn, ...]
    answers: tuple[Answer, ...]
    unrecorded: str
    unrecorded_text: str
    stagnation: Stagnation
    first_stagnant_step: int | None
    why: str
    expected: frozenset[Code]
    step_bound: int
    budget: Budget
    missing: tuple[str, ...] = ()
    refused_retries: int | None = None
    give_up: str | None = None
    context_window: int | None = None
    """Tokens a model request may hold (`Scenario.context_window`); ``None``: no window."""
    seeds: tuple[int, ...] = (0,)
    twin: Twin | None = None
    source: str = ""
    """Where the file was read from, for messages."""


class _Reader:
    """Reads fields of one file, each error naming the file, the field and the fix."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, where: str, problem: str, fix: str) -> ScenarioFileError:
        return ScenarioFileError(
            f"scenario file {self.source!r}: field {where!r} {problem}; {fix} ({DOCS})"
        )

    def get(
        self,
        data: Mapping[str, Any],
        key: str,
        kind: type | tuple[type, ...],
        where: str,
        fix: str,
        default: Any = ...,
    ) -> Any:
        if key not in data:
            if default is ...:
                raise self.fail(where, "is missing", fix)
            return default
        value = data[key]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            wanted = " or ".join(type_word(k, toml=True) for k in kinds)
            raise self.fail(where, f"is {kind_of(value, toml=True)}, not {wanted}", fix)
        return value

    def items(
        self, data: Mapping[str, Any], key: str, where: str, fix: str, default: Any = ...
    ) -> list[Any]:
        return list(self.get(data, key, list, where, fix, default))

    def table(self, value: Any, where: str, fix: str) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            wanted = type_word(dict, toml=True)
            raise self.fail(where, f"is {kind_of(value, toml=True)}, not {wanted}", fix)
        return value


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
    r = _Reader(source)
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
    tools = _tools(r, data)
    prefix, cycle = _script(r, data, tools)
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
        answers=_answers(r, data),
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


def _window(r: _Reader, data: Mapping[str, Any]) -> int | None:
    """The context window: a positive whole number of tokens, or null (none)."""
    fix = "give the tokens a model request may hold, or null for no window"
    window = r.get(data, "context_window", (int, type(None)), "context_window", fix, default=None)
    if window is not None and window < 1:
        raise r.fail("context_window", f"is {window}", "make it 1 or more, or null")
    return window  # type: ignore[no-any-return]


def _refused_retries(r: _Reader, data: Mapping[str, Any]) -> int | None:
    """How many retries of a refused call the verdict allows: 0 or more, or null (no rule)."""
    key, fix = "refused_retries", "give a whole number, or null for no rule"
    retries = r.get(data, key, (int, type(None)), key, fix, default=None)
    if retries is not None and retries < 0:
        raise r.fail("refused_retries", f"is {retries}", "make it 0 or more, or null for no rule")
    return retries  # type: ignore[no-any-return]


def _name(r: _Reader, data: Mapping[str, Any]) -> str:
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


def _truth(r: _Reader, data: Mapping[str, Any]) -> tuple[Stagnation, int | None, str]:
    truth = r.table(
        r.get(data, "ground_truth", dict, "ground_truth", _TRUTH_FIX), "ground_truth", _TRUTH_FIX
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


def _unrecorded(r: _Reader, data: Mapping[str, Any]) -> tuple[str, str]:
    given = r.table(
        r.get(data, "unrecorded", dict, "unrecorded", _UNRECORDED_FIX),
        "unrecorded",
        _UNRECORDED_FIX,
    )
    answer = r.get(given, "answer", str, "unrecorded.answer", _UNRECORDED_FIX)
    if answer not in UNRECORDED:
        raise r.fail("unrecorded.answer", f"is {answer!r}", f"use one of {UNRECORDED}")
    return answer, r.get(given, "text", str, "unrecorded.text", "give a string", default="")


def _script(
    r: _Reader, data: Mapping[str, Any], tools: Sequence[JSON]
) -> tuple[tuple[FileTurn, ...], tuple[FileTurn, ...]]:
    script = r.table(r.get(data, "script", dict, "script", _SCRIPT_FIX), "script", _SCRIPT_FIX)
    prefix = _turns(r, script, "prefix", default=[])
    cycle = _turns(r, script, "cycle")
    if not cycle:
        raise r.fail(
            "script.cycle",
            "is empty",
            "give at least one turn: the loop the replayed model goes round forever",
        )
    _check_calls(r, tools, [*prefix, *cycle])
    return tuple(prefix), tuple(cycle)


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
_SCRIPT_FIX = 'write {"prefix": [turns...], "cycle": [turns...]}, each turn {"text", "calls"}'
_TOOL_FIX = 'give each tool as {"name": "...", "description": "...", "parameters": {...}}'


def _tools(r: _Reader, data: Mapping[str, Any]) -> list[JSON]:
    tools = []
    for i, item in enumerate(r.items(data, "tools", "tools", _TOOL_FIX)):
        where = f"tools[{i}]"
        tool = r.table(item, where, _TOOL_FIX)
        parameters = r.get(
            tool,
            "parameters",
            dict,
            f"{where}.parameters",
            "give a JSON schema",
            default={"type": "object", "properties": {}},
        )
        name = r.get(tool, "name", str, f"{where}.name", _TOOL_FIX)
        if not name:  # an agent cannot call a tool with no name, nor an MCP client list it
            raise r.fail(f"{where}.name", "is empty", _TOOL_FIX)
        tools.append(
            {
                "name": name,
                "description": r.get(
                    tool, "description", str, f"{where}.description", _TOOL_FIX, default=""
                ),
                "parameters": parameters,
            }
        )
    if not tools:
        raise r.fail("tools", "is empty", "list the tools the recorded agent was offered")
    names = [tool["name"] for tool in tools]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise r.fail("tools", f"names {twice} twice", "give each tool once")
    return tools


def _turns(r: _Reader, script: Mapping[str, Any], key: str, default: Any = ...) -> list[FileTurn]:
    turns = []
    for i, item in enumerate(r.items(script, key, f"script.{key}", _SCRIPT_FIX, default)):
        where = f"script.{key}[{i}]"
        turn = r.table(item, where, _SCRIPT_FIX)
        calls = []
        for j, call in enumerate(r.items(turn, "calls", f"{where}.calls", _SCRIPT_FIX, [])):
            at = f"{where}.calls[{j}]"
            call = r.table(call, at, 'write {"name": "...", "arguments": {...}}')
            calls.append(
                FileCall(
                    name=r.get(call, "name", str, f"{at}.name", "name the tool"),
                    arguments=dict(
                        r.get(
                            call,
                            "arguments",
                            dict,
                            f"{at}.arguments",
                            "give the arguments as an object",
                            default={},
                        )
                    ),
                )
            )
        text = r.get(turn, "text", str, f"{where}.text", "give the model's text", default="")
        turns.append(FileTurn(text=text, calls=tuple(calls)))
    return turns


def _check_calls(r: _Reader, tools: Sequence[JSON], turns: Sequence[FileTurn]) -> None:
    """A turn calling a tool the agent is not offered could never be answered as recorded."""
    names = {tool["name"] for tool in tools}
    for turn in turns:
        for call in turn.calls:
            if call.name not in names:
                raise r.fail(
                    "script",
                    f"calls {call.name!r}, which is not in tools",
                    f"add it to tools or remove the call (tools: {sorted(names)})",
                )


def _answers(r: _Reader, data: Mapping[str, Any]) -> tuple[Answer, ...]:
    fix = 'give each as {"tool": "...", "arguments": {...}, "results": [{"text": "..."}]}'
    answers = []
    for i, item in enumerate(r.items(data, "answers", "answers", fix, [])):
        where = f"answers[{i}]"
        entry = r.table(item, where, fix)
        results = []
        for j, result in enumerate(r.items(entry, "results", f"{where}.results", fix)):
            at = f"{where}.results[{j}]"
            result = r.table(result, at, fix)
            results.append(
                Result(
                    text=r.get(result, "text", str, f"{at}.text", fix),
                    refusal=_refusal(r, result, at),
                    world=r.get(result, "world", str, f"{at}.world", "give a string", default=""),
                )
            )
        if not results:
            raise r.fail(f"{where}.results", "is empty", "give the answer at least once")
        answers.append(
            Answer(
                tool=r.get(entry, "tool", str, f"{where}.tool", fix),
                arguments=dict(r.get(entry, "arguments", dict, f"{where}.arguments", fix, {})),
                results=tuple(results),
            )
        )
    return tuple(answers)


def _refusal(r: _Reader, result: Mapping[str, Any], at: str) -> str | None:
    """A refusal kind the harness knows: the verdict counts refusals by kind, so a misspelt one
    would be a kind of its own that no rule expects."""
    fix = f"use one of {REFUSALS}, or null for an answer that was not refused"
    kind = r.get(result, "refusal", (str, type(None)), f"{at}.refusal", fix, default=None)
    if kind is not None and kind not in REFUSALS:
        raise r.fail(f"{at}.refusal", f"is {kind!r}, not a refusal kind the harness knows", fix)
    return kind  # type: ignore[no-any-return]


def _expected(r: _Reader, data: Mapping[str, Any]) -> frozenset[Code]:
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


def _budget(r: _Reader, data: Mapping[str, Any], step_bound: int) -> Budget:
    fix = 'write {"max_steps": N, "max_tokens": N, "max_wall_seconds": S} (each > 0)'
    given = r.table(
        r.get(data, "budget", dict, "budget", fix, {"max_steps": step_bound}), "budget", fix
    )
    unknown = sorted(set(given) - {budget.name for budget in fields(Budget)})
    if unknown:
        raise r.fail(f"budget.{unknown[0]}", "is not a budget field", fix)
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


def _strings(r: _Reader, data: Mapping[str, Any], key: str) -> list[str]:
    items = r.items(data, key, key, "give a list of strings", [])
    if not all(isinstance(item, str) for item in items):
        raise r.fail(key, f"is {items!r}", "give a list of strings")
    return items


def _seeds(r: _Reader, data: Mapping[str, Any]) -> list[int]:
    seeds = r.items(data, "seeds", "seeds", "give a list of whole numbers", [0])
    if not seeds or not all(is_seed(seed) for seed in seeds):
        raise r.fail(
            "seeds", f"is {seeds!r}", f"give a non-empty list of seeds, each {SEEDS}, e.g. [0]"
        )
    return seeds


def unblocking_step(tool: str, turns: Sequence[FileTurn]) -> int | None:
    """The step at which the recorded model first calls ``tool``, the twin's unblocking tool,
    going once through ``turns``; ``None`` if it never does."""
    called = (step for step, turn in enumerate(turns, 1) if any(c.name == tool for c in turn.calls))
    return next(called, None)


def _check_twin_room(r: _Reader, file: ScenarioFile) -> None:
    """A twin shows its sibling's budget, so that budget must let the twin's model reach its
    unblocking call and say it is done: else every agent that keeps to it fails the twin."""
    steps = file.budget.max_steps
    if file.twin is None or steps is None:
        return
    unblocked = unblocking_step(file.twin.tool, (*file.prefix, *file.cycle))
    if unblocked is None or unblocked + 1 <= steps:
        return
    earlier = (
        f", or unblock with a tool the recording calls by step {steps - 1}" if steps > 1 else ""
    )
    raise r.fail(
        "budget.max_steps",
        f"is {steps}, which ends the twin before it is done: its model calls "
        f"{file.twin.tool!r}, which unblocks it, first at step {unblocked} and says it is done at "
        f"step {unblocked + 1}, and a twin has its sibling's budget",
        f"make budget.max_steps {unblocked + 1} or more (importing: leave --unblock-with out, "
        f"then raise the file's budget and add its twin){earlier}",
    )


def _twin(r: _Reader, data: Mapping[str, Any], tools: set[str]) -> Twin | None:
    fix = 'write {"tool": "...", "result": "...", "step_bound": N}, or leave twin out'
    given = r.get(data, "twin", (dict, type(None)), "twin", fix, None)
    if given is None:
        return None
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
