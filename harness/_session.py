"""Consumes an agent's model and tool calls, produces what the harness observed of the run.

`Session` is the only place that records anything: every model call and tool call passes through
it, is counted against the harness ceilings, and feeds the ground truth of stagnation.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter, deque
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from harness._errors import CeilingHit
from harness._model import Usage, estimate_tokens
from harness._record import Observed, ToolTrace, TraceStep
from harness._scenario import Budget, Ceilings, Scenario, Setup, Stagnation
from harness._types import JSON, ModelRequest, ToolResult, ToolSpec

__all__ = ["Session"]

TAIL_STEPS = 6
"""Steps kept for failure messages: enough to show a loop's period (A/B needs 2, todo-spawn 3+)."""
TEXT_CUT = 160
"""Characters of model text and tool results kept per trace entry: one readable line."""


def _cut(text: str) -> str:
    return text if len(text) <= TEXT_CUT else text[: TEXT_CUT - 1] + "…"


def canonical_arguments(arguments: Mapping[str, Any] | str | None) -> tuple[JSON, str]:
    """Arguments as a dict and as canonical JSON; tool-call arguments often arrive as a string."""
    if arguments is None:
        arguments = {}
    if isinstance(arguments, str):
        try:
            parsed = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError:
            parsed = {"_unparsed": arguments}
        arguments = parsed if isinstance(parsed, dict) else {"_value": parsed}
    data = dict(arguments)
    return data, json.dumps(data, sort_keys=True, default=str)


def _tool_names(tools: Iterable[Any] | None) -> tuple[str, ...]:
    """Accepts `ToolSpec`s, OpenAI tool dicts, ``{"name": ...}`` dicts or plain names."""
    names = []
    for tool in tools or ():
        if isinstance(tool, ToolSpec):
            names.append(tool.name)
        elif isinstance(tool, Mapping):
            names.append(str(tool.get("function", tool).get("name", "")))
        else:
            names.append(str(tool))
    return tuple(names)


class Session:
    """What an agent under test is handed: the task, the tools, the model and the budget.

    Agents call `call_model` and `call_tool`; both raise `CeilingHit` (a `BaseException`)
    once a harness ceiling is reached, and keep raising it.
    """

    __test__ = False

    def __init__(self, scenario: Scenario, setup: Setup, *, seed: int, ceilings: Ceilings) -> None:
        self.scenario = scenario
        self.seed = seed
        self.ceilings = ceilings
        self._setup = setup
        self._lock = threading.RLock()
        self._started = time.monotonic()
        self._ceiling: str | None = None
        self._steps = 0
        self._tool_calls = 0
        self._transport_attempts = 0
        self._input_tokens = 0
        self._output_tokens = 0
        self._tokens_before_step: list[int] = []
        self._costs_before_step: list[float] = []
        self._actions: Counter[str] = Counter()
        self._seen_observations: set[str] = set()
        self._seen_worlds = {setup.world.fingerprint()}
        self._last_productive_step = 0
        self._first_denial_step: int | None = None
        self._denied_calls = 0
        self._tail: deque[TraceStep] = deque(maxlen=TAIL_STEPS)
        self._current: TraceStep | None = None

    # -- what the agent sees --------------------------------------------------------------
    @property
    def task(self) -> str:
        return self.scenario.task

    @property
    def tools(self) -> list[ToolSpec]:
        return list(self._setup.toolbox.specs)

    @property
    def openai_tools(self) -> list[JSON]:
        """The tools in the Chat Completions ``tools=`` shape."""
        return [spec.to_openai() for spec in self.tools]

    @property
    def budget(self) -> Budget:
        return self.scenario.budget

    def call_model(self, messages: Sequence[JSON], tools: Iterable[Any] | None = None) -> JSON:
        """One step: returns an OpenAI Chat Completions assistant message plus ``usage``.

        Offer no tools and the model gives its final answer instead of calling one.
        """
        with self._lock:
            self._check_ceilings(self._steps >= self.ceilings.max_steps, "steps")
            self._close_step()
            self._steps += 1
            self._tokens_before_step.append(self._input_tokens + self._output_tokens)
            self._costs_before_step.append(self._cost())
            request = ModelRequest(
                messages=tuple(dict(m) for m in messages),
                tools=_tool_names(tools),
                step=self._steps,
            )
            response = self._setup.model.respond(request)
            message: JSON = {"role": "assistant", "content": response.content}
            if response.tool_calls:
                message["tool_calls"] = [call.to_openai() for call in response.tool_calls]
            offered = [s.to_openai() for s in self.tools if s.name in request.tools]
            usage = Usage(
                input_tokens=estimate_tokens(request.messages) + estimate_tokens(offered),
                output_tokens=estimate_tokens([message]),
            )
            self._input_tokens += usage.input_tokens
            self._output_tokens += usage.output_tokens
            self._current = TraceStep(
                step=self._steps,
                said=_cut(response.content or ""),
                calls=tuple(
                    ToolTrace(name=c.name, arguments=canonical_arguments(c.arguments)[1], result="")
                    for c in response.tool_calls
                ),
            )
            return {**message, "usage": usage.to_openai()}

    def call_tool(self, name: str, arguments: Mapping[str, Any] | str | None = None) -> str:
        """Runs one tool against the world and returns the text the agent would see."""
        with self._lock:
            self._check_ceilings(self._tool_calls >= self.ceilings.max_tool_calls, "tool_calls")
            self._tool_calls += 1
            parsed, canonical = canonical_arguments(arguments)
            result = self._setup.toolbox.call(name, parsed)
            self._observe(name, canonical, result)
        if result.error is not None:
            raise result.error
        return result.text

    def count_transport_attempt(self) -> None:
        """One HTTP request reached a fake model on the wire (issue 5): SDK retries and transient
        failures are counted here, apart from steps, which only `call_model` counts."""
        with self._lock:
            self._transport_attempts += 1

    # -- what the harness keeps -----------------------------------------------------------
    @property
    def ceiling(self) -> str | None:
        """The ceiling that ended the run, if any."""
        return self._ceiling

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self._started

    def hit_ceiling(self, which: str) -> None:
        """Marks the run as ended by a ceiling; every later call raises `CeilingHit`."""
        with self._lock:
            self._ceiling = self._ceiling or which

    def _check_ceilings(self, exceeded: bool, which: str) -> None:
        if exceeded:
            self.hit_ceiling(which)
        elif self.elapsed > self.ceilings.max_wall_seconds:
            self.hit_ceiling("wall_seconds")
        if self._ceiling is not None:
            raise CeilingHit(f"unsolvable: harness ceiling {self._ceiling} reached")

    def _observe(self, name: str, canonical: str, result: ToolResult) -> None:
        world = self._setup.world.fingerprint()
        observation = f"{name}:{result.observation}"
        if world not in self._seen_worlds or observation not in self._seen_observations:
            self._last_productive_step = self._steps
        self._seen_worlds.add(world)
        self._seen_observations.add(observation)
        self._actions[f"{name}:{canonical}"] += 1
        if result.denied is not None:
            self._denied_calls += 1
            if self._first_denial_step is None:
                self._first_denial_step = self._steps
        trace = ToolTrace(name=name, arguments=canonical, result=_cut(result.text))
        if self._current is None:
            self._current = TraceStep(step=self._steps, said="")
        self._current = TraceStep(
            step=self._current.step,
            said=self._current.said,
            calls=self._current.calls,
            tools=(*self._current.tools, trace),
        )

    def _close_step(self) -> None:
        if self._current is not None:
            self._tail.append(self._current)
            self._current = None

    def _cost(self) -> float:
        return self.scenario.pricing.cost(self._input_tokens, self._output_tokens)

    def _first_stagnant_step(self) -> int:
        if self.scenario.stagnation is Stagnation.FIRST_DENIAL and self._first_denial_step:
            return self._first_denial_step
        return self._last_productive_step + 1

    def finish(self, *, error: str | None = None) -> Observed:
        """Closes the run and returns what was observed; reads the world one last time."""
        with self._lock:
            self._close_step()
            stagnant = self._first_stagnant_step()
            lag_tokens, lag_cost = 0, 0.0
            if stagnant <= self._steps:
                lag_tokens = self._input_tokens + self._output_tokens
                lag_tokens -= self._tokens_before_step[stagnant - 1]
                lag_cost = round(self._cost() - self._costs_before_step[stagnant - 1], 6)
            return Observed(
                steps=self._steps,
                tool_calls=self._tool_calls,
                transport_attempts=self._transport_attempts,
                first_stagnant_step=stagnant,
                input_tokens=self._input_tokens,
                output_tokens=self._output_tokens,
                cost_usd=round(self._cost(), 6),
                lag_tokens=lag_tokens,
                lag_cost_usd=lag_cost,
                max_repeated_action=max(self._actions.values(), default=0),
                distinct_world_states=len(self._seen_worlds),
                denied_calls=self._denied_calls,
                world_complete=self._setup.world.is_complete(),
                ceiling=self._ceiling,
                error=error,
                tail=tuple(self._tail),
            )
