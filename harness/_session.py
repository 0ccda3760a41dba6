"""Consumes an agent's model and tool calls, produces what the harness observed of the run.

`Session` is the only place that records anything: every model call and tool call passes through
it, is counted against the harness ceilings, and feeds the ground truth of stagnation.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from operator import methodcaller
from typing import Any

from unsolvable._errors import CeilingHit, SessionClosed
from unsolvable._json import canonical_json, sorted_json
from unsolvable._model import (
    estimate_assistant_tokens,
    estimate_message_tokens,
    estimate_tool_tokens,
    openai_usage,
    text_sizes,
)
from unsolvable._probes import StagnationProbe
from unsolvable._record import Observed, ToolTrace, TraceStep
from unsolvable._scenario import Budget, Ceilings, Scenario, Setup
from unsolvable._text import cut, cut_counted
from unsolvable._types import GIVE_UP_TOOL, JSON, SCALARS, ModelRequest, ToolResult, ToolSpec

__all__ = ["Session"]

TAIL_STEPS = 6
"""Steps kept for failure messages: enough to show a loop's period (A/B needs 2, todo-spawn 3+)."""
TEXT_CUT = 160
"""Characters of model text and tool results kept per trace entry: one readable line."""
TRAJECTORY_CUT = 4000
"""Characters of model text and tool results kept per step of the full trajectory: whole API
answers (a 403 body is about 250), so an exported trace replays as it ran."""


PROMPT_ROLES = frozenset({"system", "developer"})
"""Roles of the messages that make up an agent's own prompt, as opposed to the task's."""

BAD_ARGUMENTS_STATUS = 400
"""Arguments that are not a JSON object get the answer an HTTP API gives a malformed body."""
CANONICAL_MEMO = 256
"""Argument strings whose reading a session remembers: an agent repeating a call sends the same
string every step, and a runaway of distinct ones cannot grow the memo past this."""


def parse_arguments(arguments: Mapping[str, Any] | str | None) -> JSON:
    """Arguments as a dict; tool-call arguments often arrive as a JSON string. Raises
    `ValueError` saying why when they are not a JSON object (``"{not json"``, ``[1]``, ``3``)."""
    if arguments is None:
        return {}
    if not isinstance(arguments, str):
        return dict(arguments)
    try:
        parsed = json.loads(arguments) if arguments.strip() else {}
    except json.JSONDecodeError as error:
        raise ValueError(f"arguments are not a JSON object: {error}: {arguments!r}") from None
    if not isinstance(parsed, dict):
        raise ValueError(
            f"arguments are not a JSON object: a {type(parsed).__name__}: {arguments!r}"
        )
    return parsed


def canonical_arguments(arguments: Mapping[str, Any] | str | None) -> str:
    """Arguments as canonical JSON (sorted keys); arguments that are not a JSON object are kept
    as given, for the trace."""
    try:
        return canonical_json(parse_arguments(arguments))
    except ValueError:
        return str(arguments)


def _bad_arguments(problem: ValueError) -> ToolResult:
    """What the agent sees for arguments the tool cannot read: an error it can act on, as the
    other fake tool errors are written, rather than a tool run on ``{"_unparsed": ...}``."""
    body = {"error": {"status": BAD_ARGUMENTS_STATUS, "message": str(problem)}}
    text = sorted_json(body)
    return ToolResult(text=text, observation=text)


_TO_OPENAI = methodcaller("to_openai")
"""`ToolCall.to_openai` of each call, mapped in C: a comprehension is a frame of its own."""
_NAMES_ONLY = frozenset({str})
"""The types of a tool list of names alone (`_tool_names`)."""


def _tool_names(tools: Iterable[Any] | None) -> tuple[str, ...]:
    """Accepts `ToolSpec`s, OpenAI tool dicts, ``{"name": ...}`` dicts or plain names."""
    if type(tools) is tuple and set(map(type, tools)) == _NAMES_ONLY:
        return tools  # what the wire offers: the names it read from the request
    names = []
    for tool in tools or ():
        if type(tool) is str:
            names.append(tool)
        elif isinstance(tool, ToolSpec):
            names.append(tool.name)
        elif isinstance(tool, Mapping):
            names.append(str(tool.get("function", tool).get("name", "")))
        else:
            names.append(str(tool))
    return tuple(names)


class _Tally:
    """Token estimates of a conversation that an agent re-sends with messages appended: each
    message is encoded once per run, so a step costs the same at call 10,000 as at call 10.
    The conversation is taken to be the same when its first and its previously last
    message are the same, as objects or by value (the wire parses every request afresh, so its
    messages are new objects each call); otherwise (a new conversation, a sub-agent's, a trimmed
    one) it is counted afresh. An agent that edits an earlier message keeps its old count."""

    def __init__(self, sizes: Mapping[str, int]) -> None:
        self._sizes = sizes
        """Texts whose encoded size is known (`text_sizes`): the task, which the first call
        sends."""
        self._seen: list[JSON] = []
        self._totals = [0]
        """``_totals[i]``: the tokens of the first ``i`` messages of ``_seen``."""
        self.echo: tuple[JSON, int] | None = None
        """The assistant message just returned and its tokens, which the session sets: an agent
        appends it, or a dict equal to it, to its next call. Equal messages of strings, lists
        and dicts encode to the same JSON, so its count is reused rather than encoded a second
        time."""

    def tokens(self, messages: Sequence[JSON]) -> int:
        seen, totals = self._seen, self._totals
        known = len(seen)
        if known and not (
            len(messages) >= known
            and ((head := messages[0]) is seen[0] or head == seen[0])
            and ((tail := messages[known - 1]) is seen[-1] or tail == seen[-1])
        ):
            seen, totals, known = [], [0], 0
            self._seen, self._totals = seen, totals
        total, echo = totals[-1], self.echo
        for message in messages[known:]:
            if echo is not None and type(message) is dict and message == echo[0]:
                total += echo[1]
            else:
                total += estimate_message_tokens(message, self._sizes)
            seen.append(message)
            totals.append(total)
        return totals[len(messages)]

    def prefix(self, count: int) -> int:
        """The tokens of the first ``count`` messages of the conversation `tokens` counted
        last (as many as it held at most)."""
        return self._totals[count]


_OpenStep = tuple[int, str, tuple[tuple[str, str], ...], tuple[tuple[str, str, str, str], ...]]
"""A step as the session notes it while the run goes on: its number, what the model said, the
name and canonical arguments of each tool call the model asked for, and the name, canonical
arguments, result text and world fingerprint of each call made. Plain values (texts cut to
`TRAJECTORY_CUT` as they come) in a plain tuple, made again for each call made (a step makes
one or two): an object built every step was a twentieth of the step. Made into
`TraceStep`s only when the run finishes (`_traced`)."""


def _traced(noted: _OpenStep, limit: int) -> TraceStep:
    """The step, its model text and tool results cut to ``limit`` characters: one line for the
    tail, whole API answers for the trajectory."""
    step, said, calls, tools = noted
    return TraceStep(
        step=step,
        said=cut(said, limit),
        calls=tuple(ToolTrace(name=n, arguments=a, result="") for n, a in calls),
        tools=tuple(
            ToolTrace(name=n, arguments=a, result=cut(r, limit), world=w) for n, a, r, w in tools
        ),
    )


class Session:
    """What an agent under test is handed: the task, the tools, the model and the budget.

    Agents call `call_model` and `call_tool`; both raise `CeilingHit` (a `BaseException`)
    once a harness ceiling is reached, and keep raising it. A multi-agent system passes
    ``agent="worker-2"`` (any name) so that steps are counted per agent as well as in total.
    """

    __test__ = False

    def __init__(self, scenario: Scenario, setup: Setup, *, seed: int, ceilings: Ceilings) -> None:
        self.scenario = scenario
        self.seed = seed
        self.ceilings = ceilings
        self._setup = setup
        self._task = setup.worded(scenario.task)
        self._lock = threading.RLock()
        self._started = time.monotonic()
        self._ceiling: str | None = None
        self._closed = False
        self._steps = 0
        self._tool_calls = 0
        self._transport_attempts = 0
        self._final_answer_calls = 0
        self._gave_up_at_step: int | None = None
        self._input_tokens = 0
        self._output_tokens = 0
        self._actions: Counter[tuple[str, str]] = Counter()
        """Calls by name and canonical arguments: a pair, so no name and arguments run together."""
        self._agent_steps: dict[str, int] = {}
        self._results: dict[str, list[str]] = {}
        self._probe = StagnationProbe(scenario, setup.world)
        self._trajectory: list[_OpenStep] = []
        """Every step, its texts already cut to `TRAJECTORY_CUT` (bounded by the ceilings)."""
        self._tally = _Tally(text_sizes(self._task))
        self._offered_tokens: dict[tuple[str, ...], int] = {}
        names = tuple(spec.name for spec in setup.toolbox.specs)
        self._offered: tuple[Any, tuple[str, ...]] = (names, names)
        """The tool list last offered and its names: agents offer the same list every step
        (the same object, mostly, as the wire does), and at first the whole list as `tools`
        names it."""
        # The whole tool list, which agents mostly offer as `tools` lists it, measured with the
        # set-up rather than by the run's first step.
        self._tools_tokens(names)
        self._canonical: dict[str, tuple[JSON | None, str]] = {}
        self._overhead: dict[str, int] = {}
        """Each agent's fixed input per call, measured from its first call (`_overhead_of`)."""
        self._uncharged = 0
        self._current: _OpenStep | None = None
        self._traced: tuple[tuple[TraceStep, ...], tuple[TraceStep, ...]] | None = None
        """The tail and the trajectory, once `finish` has made them (`_traces`)."""
        self._slept = 0.0

    # -- what the agent sees --------------------------------------------------------------
    @property
    def task(self) -> str:
        return self._task

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

    def call_model(
        self, messages: Sequence[JSON], tools: Iterable[Any] | None = None, *, agent: str = "main"
    ) -> JSON:
        """One step: returns an OpenAI Chat Completions assistant message plus ``usage``.

        Offer no tools and the model gives its final answer instead of calling one.
        """
        message, sent, said = self.answer(messages, tools, agent)
        return {**message, "usage": openai_usage(sent, said)}

    def answer(
        self,
        messages: Sequence[JSON],
        tools: Iterable[Any] | None = None,
        agent: str = "main",
        *,
        transport: bool = False,
    ) -> tuple[JSON, int, int]:
        """`call_model`'s step, its reply apart from its usage: the assistant message, the
        tokens sent and the tokens said. The wire writes these straight into its formats' own
        replies, rather than reading them back from the Chat Completions dict, and
        counts the request that asked (``transport``, `count_transport_attempt`) in the same
        hold of the lock."""
        with self._lock:
            if self._closed:
                self._check_open()
            self._transport_attempts += transport
            if (
                self._ceiling is not None
                or self._steps >= self.ceilings.max_steps
                or time.monotonic() - self._started > self.ceilings.max_wall_seconds
            ):  # one test on the way of every step; the call below says which and raises
                self._check_ceilings(self._steps >= self.ceilings.max_steps, "steps")
            request = self._begin_step(messages, tools, agent)
            response = self._setup.model.respond(request)
            content = response.content
            calls = list(map(_TO_OPENAI, response.tool_calls))
            message: JSON = {"role": "assistant", "content": content}
            if calls:
                message["tool_calls"] = calls
            offered = self._offered_tokens.get(request.tools)
            if offered is None:
                offered = self._tools_tokens(request.tools)
            sent = self._tally.tokens(messages) + offered
            said = estimate_assistant_tokens(content, calls)
            self._tally.echo = (message, said)
            overhead = self._overhead.get(agent)
            if overhead is None:
                overhead = self._overhead_of(request, offered)
            self._uncharged += overhead if overhead < sent else sent
            self._input_tokens += sent
            self._output_tokens += said
            self._note_response(content, calls)
            return message, sent, said

    def call_tool(
        self, name: str, arguments: Mapping[str, Any] | str | None = None, *, agent: str = "main"
    ) -> str:
        """Runs one tool against the world and returns the text the agent would see."""
        with self._lock:
            self._check_open()
            self._check_ceilings(self._tool_calls >= self.ceilings.max_tool_calls, "tool_calls")
            self._tool_calls += 1
            try:
                parsed, canonical = self._read(arguments)
            except ValueError as problem:
                canonical = str(arguments)
                result = _bad_arguments(problem)
            else:  # a tool's own ValueError is the tool's, not the arguments'
                result = self._setup.toolbox.call(name, parsed)
            self._actions[name, canonical] += 1
            world = self._setup.world.fingerprint()
            self._probe.on_tool(self._steps, name, result, world)
            self._results.setdefault(agent, []).append(result.text)
            step, said, asked, made = self._current or (self._steps, "", (), ())
            arguments = cut_counted(canonical, TRAJECTORY_CUT)  # the count above used it whole
            made += ((name, arguments, cut(result.text, TRAJECTORY_CUT), world),)
            self._current = (step, said, asked, made)
        if result.error is not None:
            raise result.error
        return result.text

    def sleep(self, seconds: float) -> None:
        """Waits ``seconds`` on the session clock, at once: honour a Retry-After here and the
        wait counts against the wall and idle budgets (`clock`) without costing real time, so
        a run never hits the harness's wall ceiling for being polite. A wait that is not a
        finite number is the agent's bug: a `ValueError` says so, and the clock is unchanged."""
        if not math.isfinite(float(seconds)):
            raise ValueError(f"session.sleep({seconds!r}): give a finite number of seconds")
        with self._lock:
            self._check_open()
            self._slept += max(0.0, float(seconds))

    @property
    def clock(self) -> float:
        """Seconds on the session clock: real time since the run began plus time slept."""
        return self.elapsed + self._slept

    def count_transport_attempt(self) -> None:
        """One HTTP request reached a fake model on the wire: SDK retries and transient
        failures are counted here, apart from steps, which only `call_model` counts."""
        with self._lock:
            self._check_open()
            self._transport_attempts += 1

    # -- what the harness keeps -----------------------------------------------------------
    @property
    def ceiling(self) -> str | None:
        """The ceiling that ended the run, if any."""
        return self._ceiling

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self._started

    def time_left(self) -> float:
        """Seconds until the wall ceiling."""
        return max(0.0, self.ceilings.max_wall_seconds - self.elapsed)

    def _check_open(self) -> None:
        if self._closed:
            raise SessionClosed(
                f"unsolvable: the run of {self.scenario.name} (seed {self.seed}) has ended; a "
                "call made after it (from a thread or callback the agent left running) is not "
                "counted: join your threads before the agent returns"
            )

    def hit_ceiling(self, which: str) -> None:
        """Marks the run as ended by a ceiling; every later call raises `CeilingHit`."""
        with self._lock:
            self._ceiling = self._ceiling or which

    def _check_ceilings(self, exceeded: bool, which: str) -> None:
        if exceeded:
            self.hit_ceiling(which)
        elif time.monotonic() - self._started > self.ceilings.max_wall_seconds:
            self.hit_ceiling("wall_seconds")
        if self._ceiling is not None:
            raise CeilingHit(f"unsolvable: harness ceiling {self._ceiling} reached")

    def _read(self, arguments: Mapping[str, Any] | str | None) -> tuple[JSON, str]:
        """`parse_arguments` and the canonical form, remembered per argument string
        (`CANONICAL_MEMO`): an agent repeating a call sends the same string every step. The
        parsed dict is remembered only when its values are scalars, so that the tool's copy
        shares nothing with it; nested ones are parsed again."""
        if not isinstance(arguments, str):
            parsed = parse_arguments(arguments)
            return parsed, canonical_json(parsed)
        known = self._canonical.get(arguments)
        if known is not None and known[0] is not None:
            return dict(known[0]), known[1]
        parsed = parse_arguments(arguments)
        if known is not None:
            return parsed, known[1]
        if len(self._canonical) >= CANONICAL_MEMO:
            self._canonical.clear()
        canonical = canonical_json(parsed)
        if canonical == arguments:  # sent canonical already (a scripted call): one string kept
            canonical = arguments
        flat = all(type(value) in SCALARS for value in parsed.values())
        self._canonical[arguments] = (dict(parsed) if flat else None, canonical)
        return parsed, canonical

    def _offered_names(self, tools: Iterable[Any] | None) -> tuple[str, ...]:
        """`_tool_names`, read again only when the list offered holds other tools than the last
        one (compared element by element: an agent may rebuild or edit its list). The tuple
        kept is the one offered last, so the same tuple offered again (the wire's) is known by
        its identity alone (`_begin_step`)."""
        offered = tuple(tools or ())
        names = self._offered[1] if offered == self._offered[0] else _tool_names(offered)
        self._offered = (offered, names)
        return names

    def _begin_step(
        self, messages: Sequence[JSON], tools: Iterable[Any] | None, agent: str
    ) -> ModelRequest:
        if self._current is not None:
            self._close_step()
        step = self._steps = self._steps + 1
        agent_step = self._agent_steps[agent] = self._agent_steps.get(agent, 0) + 1
        inputs, outputs = self._input_tokens, self._output_tokens
        sent = inputs + outputs
        self._probe.on_step(sent - self._uncharged, inputs, outputs)
        results = tuple(self._results.pop(agent, ()))
        offered = self._offered
        names = offered[1] if tools is offered[0] else self._offered_names(tools)
        request = ModelRequest(messages, names, step, agent, agent_step, results)
        self._final_answer_calls += not request.tools
        return request

    def _tools_tokens(self, offered: tuple[str, ...]) -> int:
        """Tokens of the tool list offered (its names), once per distinct list: it rarely
        changes."""
        tokens = self._offered_tokens.get(offered)
        if tokens is None:
            specs = self._setup.toolbox.specs
            tokens = sum([estimate_tool_tokens(s) for s in specs if s.name in offered])
            self._offered_tokens[offered] = tokens
        return tokens

    def _overhead_of(self, request: ModelRequest, offered: int) -> int:
        """The agent's fixed input per call — its system prompt (the leading system or developer
        messages) and the tool list (``offered``: its tokens) — measured on its first call and
        credited on every call after: a scenario's token budget is for the task, not for the
        agent's prompt. A multi-agent system's agents each have their own."""
        overhead = self._overhead.get(request.agent)
        if overhead is None:
            prompt = 0
            for message in request.messages:
                if message.get("role") not in PROMPT_ROLES:
                    break
                prompt += 1
            # Counted by the step that calls this, which has just counted the conversation.
            overhead = self._overhead[request.agent] = self._tally.prefix(prompt) + offered
        return overhead

    def _note_response(self, content: str | None, calls: Sequence[JSON]) -> None:
        """``calls`` are the response's tool calls as sent: their arguments are already the
        canonical JSON (`ToolCall.to_openai` sorts the keys)."""
        asked = tuple([(c["function"]["name"], c["function"]["arguments"]) for c in calls])
        if self._gave_up_at_step is None:
            for name, _ in asked:
                if name == GIVE_UP_TOOL:
                    self._gave_up_at_step = self._steps
        said = content or ""
        if len(said) > TRAJECTORY_CUT:
            said = cut(said, TRAJECTORY_CUT)
        self._current = (self._steps, said, asked, ())

    def _close_step(self) -> None:
        if self._current is not None:
            self._trajectory.append(self._current)
            self._current = None

    def _traces(self) -> tuple[tuple[TraceStep, ...], tuple[TraceStep, ...]]:
        """The tail and every step as `TraceStep`s, made once: each noted step is let go as soon
        as it is made into one (the two share their texts), so a long run's trajectory is never
        held twice, and a second `finish` (an abandoned run's agent coming back) gets
        the same ones, the session being closed since the first."""
        if self._traced is None:
            tail = tuple(_traced(step, TEXT_CUT) for step in self._trajectory[-TAIL_STEPS:])
            noted, self._trajectory = self._trajectory, []
            traced = []
            while noted:
                traced.append(_traced(noted.pop(), TRAJECTORY_CUT))
            self._traced = (tail, tuple(reversed(traced)))
        return self._traced

    def _cost(self) -> float:
        return self.scenario.pricing.cost(self._input_tokens, self._output_tokens)

    def finish(self, *, error: str | None = None) -> Observed:
        """Closes the run and returns what was observed; reads the world one last time. Calls
        made after this raise `SessionClosed`."""
        with self._lock:
            self._closed = True
            self._close_step()
            tail, trajectory = self._traces()
            sent = self._input_tokens + self._output_tokens
            truth = self._probe.truth(tokens=sent - self._uncharged, cost=self._cost(), sent=sent)
            return Observed(
                steps=self._steps,
                tool_calls=self._tool_calls,
                transport_attempts=self._transport_attempts,
                first_stagnant_step=truth.first_stagnant_step,
                input_tokens=self._input_tokens,
                output_tokens=self._output_tokens,
                overhead_tokens=next(iter(self._overhead.values()), 0),
                uncharged_tokens=self._uncharged,
                cost_usd=round(self._cost(), 6),
                lag_tokens=truth.lag_tokens,
                lag_cost_usd=truth.lag_cost_usd,
                max_repeated_action=max(self._actions.values(), default=0),
                distinct_world_states=len(self._probe.seen_worlds),
                refusals=dict(sorted(self._probe.refusals.items())),
                steps_past_token_budget=self._probe.steps_past_token_budget(),
                final_answer_calls=self._final_answer_calls,
                gave_up_at_step=self._gave_up_at_step,
                steps_by_agent=dict(sorted(self._agent_steps.items())),
                slept_seconds=round(self._slept, 6),
                world_complete=self._setup.world.is_complete(),
                ceiling=self._ceiling,
                error=error,
                tail=tail,
                trajectory=trajectory,
            )
