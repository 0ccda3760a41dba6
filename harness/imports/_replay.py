"""Consumes a checked `ScenarioFile`, produces the `Scenario` (and its solvable twin) that the
engine runs like a built-in one: the recorded turns as the scripted model's policy, the recorded
answers as the fake tools, a `FakeWorld` that moves only as the recording says it moved.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from unsolvable._model import ScriptedModel
from unsolvable._scenario import Scenario, Setup, Stagnation
from unsolvable._stop import Code
from unsolvable._types import (
    CHECK_TOOL,
    ModelRequest,
    ModelResponse,
    ToolCall,
    ToolResult,
    ToolSpec,
)
from unsolvable.fake_tools import FakeWorld, Tool, ToolRouter, check_tool, requires
from unsolvable.fake_tools.tools.permission import DENIED
from unsolvable.imports._sameness import answer_key, call_key
from unsolvable.imports._scenario_file import (
    Answer,
    FileTurn,
    Result,
    ScenarioFile,
    unblocking_step,
)
from unsolvable.scenarios.catalog._common import CHECK

__all__ = ["BLOCKER", "DONE", "Replay", "build"]

BLOCKER = "the recorded blocker still stands"
"""The completion criterion of a replayed world: only the twin's unblocking answer lifts it."""
DONE = "Done: the task is complete."
"""What the twin's model says once the unblocking answer has come back."""
UNBLOCKED = "unblocked"
"""The world's record the unblocking answer sets."""
STATE = "recorded_world"
"""The world's record that carries the recorded world fingerprint, so the replayed world changes
(and comes back) exactly where the recorded one did."""
UNKNOWN_STATUS = 404
DENIED_STATUS = 403


class Replay:
    """The recorded turns: the prefix once, then the cycle for ever, so a replayed loop never
    runs out. With ``done_marker`` (the twin), once a tool result holds it the model says the
    task is done. Stateful (it remembers the marker), so one instance serves one run.
    """

    def __init__(
        self, *, prefix: Sequence[FileTurn], cycle: Sequence[FileTurn], done_marker: str = ""
    ) -> None:
        self.prefix, self.cycle, self.done_marker = tuple(prefix), tuple(cycle), done_marker
        self._done = False

    def reply(self, request: ModelRequest, rng: random.Random) -> ModelResponse:
        if self.done_marker and any(self.done_marker in result for result in request.results):
            self._done = True
        if self._done:
            return ModelResponse(content=DONE)
        index = (request.agent_step or request.step) - 1
        if index < len(self.prefix):
            turn = self.prefix[index]
        else:
            turn = self.cycle[(index - len(self.prefix)) % len(self.cycle)]
        calls = tuple(
            ToolCall(id=f"call_{request.step}_{i}", name=call.name, arguments=dict(call.arguments))
            for i, call in enumerate(turn.calls)
        )
        return ModelResponse(content=turn.text or None, tool_calls=calls)


def _unrecorded(file: ScenarioFile, name: str, arguments: Mapping[str, Any]) -> Result:
    if file.unrecorded == "refusal":
        message = file.unrecorded_text or f"403 Forbidden: {name} may not be called here"
        return Result(text=_error(DENIED_STATUS, message), refusal=DENIED)
    message = file.unrecorded_text or (
        f"unknown call: {name} was never called with these arguments in the recording"
    )
    return Result(text=_error(UNKNOWN_STATUS, message, arguments=dict(arguments)))


def _error(status: int, message: str, **details: Any) -> str:
    return json.dumps({"error": {"status": status, "message": message, **details}}, sort_keys=True)


def _recorded_tool(spec: ToolSpec, file: ScenarioFile, answers: Sequence[Answer]) -> Tool:
    """Answers each call with the next recorded answer for its key; the last one again after."""
    by_key = {call_key(a.tool, a.arguments): a.results for a in answers}
    served: Counter[str] = Counter()

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        key = call_key(spec.name, arguments)
        results = by_key.get(key)
        if results is None:
            result = _unrecorded(file, spec.name, arguments)
        else:
            result = results[min(served[key], len(results) - 1)]
            served[key] += 1
        if result.world:
            world.put(STATE, result.world)
        return ToolResult(
            text=result.text, observation=answer_key(result.text), refusal=result.refusal
        )

    return Tool(spec=spec, handler=handle)


def _unblocking_tool(spec: ToolSpec, text: str) -> Tool:
    """The twin's tool: the answer that would have unblocked the recorded run, which does."""

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        world.put(UNBLOCKED, True)
        return ToolResult(text=text, observation=answer_key(text))

    return Tool(spec=spec, handler=handle)


def _setup(file: ScenarioFile, solvable: bool, seed: int) -> Setup:
    world = FakeWorld(failing=requires(UNBLOCKED, BLOCKER), seed=seed)
    tools = []
    for tool in file.tools:
        spec = ToolSpec(**tool)
        if spec.name == CHECK_TOOL:
            tools.append(check_tool(spec))  # the world answers it, as in every built-in
        elif solvable and file.twin is not None and spec.name == file.twin.tool:
            tools.append(_unblocking_tool(spec, file.twin.result))
        else:
            tools.append(
                _recorded_tool(spec, file, [a for a in file.answers if a.tool == spec.name])
            )
    if CHECK_TOOL not in {tool.spec.name for tool in tools}:
        tools.append(check_tool(CHECK))
    marker = file.twin.result if solvable and file.twin is not None else ""
    script = Replay(prefix=file.prefix, cycle=file.cycle, done_marker=marker)
    model = ScriptedModel(script, seed=seed, name=f"replay:{file.name}")
    return Setup(world=world, toolbox=ToolRouter(world, tools), model=model)


def build(file: ScenarioFile) -> tuple[Scenario, ...]:
    """The scenario of ``file``, and its solvable twin when the file has one."""
    turns = f"{len(file.prefix)} recorded turn(s), then a cycle of {len(file.cycle)} for ever"
    explanation = file.explanation or (
        f"The model replays a recorded run: {turns}. The recorded tools answer as they did. "
        f"Ground truth: {file.why or file.stagnation.value}."
    )
    scenario = Scenario(
        name=file.name,
        family=file.family,
        task=file.task,
        explanation=explanation,
        build=partial(_setup, file, False),
        expected=file.expected,
        step_bound=file.step_bound,
        budget=file.budget,
        stagnation=file.stagnation,
        missing=file.missing,
        refused_retries=file.refused_retries,
        give_up=file.give_up,
        context_window=file.context_window,
        seeds=file.seeds,
    )
    if file.twin is None:
        return (scenario,)
    variant = file.name.split("/", 1)[1]
    twin = Scenario(
        name=f"{file.family}/twin-{variant}",
        family=file.family,
        task=file.task,
        explanation=f"The model replays the recorded run of {file.name} until {file.twin.tool} "
        "gives the answer that unblocks it, as the user said the real run should have gone; then "
        "it says the task is done, and the world agrees. Ground truth: none — the task is "
        "solvable, so any exit but complete is a false stop.",
        build=partial(_setup, file, True),
        expected=frozenset({Code.COMPLETED}),
        step_bound=file.twin.step_bound,
        budget=file.budget,  # its sibling's: an agent reads it before its first step
        stagnation=Stagnation.NOVELTY,
        solvable=True,
        seeds=file.seeds,
        context_window=file.context_window,  # its sibling's, as every other thing until it diverges
        twin_of=file.name,
        diverges_at=partial(_unblocked_at, file.twin.tool, (*file.prefix, *file.cycle)),
    )
    return scenario, twin


def _unblocked_at(tool: str, turns: Sequence[FileTurn], seed: int) -> int | None:
    """The step at which the twin's unblocking tool is first called, whose answer is the first
    the twin gives that its recording did not (the same for every seed)."""
    return unblocking_step(tool, turns)
