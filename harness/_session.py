"""Consumes an agent's model and tool calls, produces what the harness observed of the run.

`Session` is the only place that records anything: every model call and tool call passes through
it, is counted against the harness ceilings, and feeds the ground truth of stagnation. It is the
face agents use; the work is its parts': the `Meter` (counts and ceilings), the `Accounts` (each
agent's exact token counts and share), the `ToolDispatch`, the `Trajectory`, the
`SubtaskTable` of a run of several agents, the `Callers` (who called, and who called late) and
the `Observer` (the ground truth as it stands, and what was observed when the run ends).
"""

from __future__ import annotations

import copy
import dataclasses
import math
import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NoReturn

from unsolvable._accounts import Accounts
from unsolvable._answer import Answer, assistant_message, calls_of
from unsolvable._asked import Asked
from unsolvable._callers import Callers
from unsolvable._dispatch import ToolDispatch
from unsolvable._errors import CeilingHit, ContextOverflow, HarnessFailure
from unsolvable._meter import Meter
from unsolvable._observed import CONTEXT_WINDOW, Observed
from unsolvable._observer import Observer
from unsolvable._offered import OfferedTool, offered_tools
from unsolvable._probes import StagnationProbe
from unsolvable._scenario import Budget, Ceilings, Pricing, Scenario, Setup
from unsolvable._seen import Seen
from unsolvable._stop import Code
from unsolvable._subtasks import SubtaskTable
from unsolvable._traceback import error_text
from unsolvable._trajectory import Trajectory
from unsolvable._types import JSON, ModelRequest, ToolSpec

__all__ = ["Answer", "Session", "end_at_ceiling", "scenario_of", "specs_of"]


class Session:
    """What an agent under test is handed: the task, the tools, the model and the budget.

    Agents call `call_model` and `call_tool`; both raise `CeilingHit` (a `BaseException`)
    once a harness ceiling is reached, and keep raising it. A multi-agent system passes
    ``agent="worker-2"`` (any name) so that steps are counted per agent as well as in total.
    Every call holds the session's lock, so agents may call from several threads.
    """

    __test__ = False

    def __init__(
        self,
        scenario: Scenario,
        setup: Setup,
        *,
        seed: int,
        ceilings: Ceilings,
        seen: Seen | None = None,
    ) -> None:
        self._scenario = scenario
        """Private: its name, family, solvability, twin and step bound would tell an agent which
        scenario it is in; the harness's own modules reach it through `scenario_of`."""
        self.seed = seed
        self.ceilings = ceilings
        self._setup = setup
        self._shown_tools = tuple(
            dataclasses.replace(
                spec, denied_permission=None, parameters=copy.deepcopy(spec.parameters)
            )
            for spec in setup.toolbox.specs
        )
        """The tools as `tools` shows them, made once: a run's toolbox does not change. Their
        schemas are the agent's own copies: an agent that edits one in place edits neither the
        scenario's tools, which later runs offer, nor what this run counts."""
        self._task = setup.worded(scenario.task)
        self._lock = threading.RLock()
        self._callers = Callers(f"{scenario.name} (seed {seed})")
        self._meter = Meter(ceilings, seen=seen)
        self._accounts = Accounts(
            self._meter,
            setup.toolbox.specs,
            scenario.pricing,
            max_cost_usd=scenario.budget.max_cost_usd,
        )
        self._dispatch = ToolDispatch(setup.toolbox, setup.world)
        self._trajectory = Trajectory()
        self._probe = StagnationProbe(scenario, setup.world)
        self._subtasks = SubtaskTable(setup.subtasks, setup.world, scenario.role_steps)
        self._asked = Asked(refusing=setup.refusing)
        self._observer = Observer(
            meter=self._meter,
            accounts=self._accounts,
            dispatch=self._dispatch,
            trajectory=self._trajectory,
            probe=self._probe,
            subtasks=self._subtasks,
            asked=self._asked,
            world=setup.world,
            seen=seen,
        )
        self._failure: HarnessFailure | None = None
        """The first exception the scenario's model or one of its tools raised, which the run's
        record is of, whatever the agent did with it (`failure`)."""
        self._step_of: dict[str, int] = {}
        """Each agent's last step: its tool calls are made during it, whatever step another
        agent began since (as the trajectory places them)."""

    # -- what the agent sees --------------------------------------------------------------
    @property
    def task(self) -> str:
        return self._task

    @property
    def tools(self) -> list[ToolSpec]:
        """The tools as an agent is told of them: a permission a tool lacks shows only in its
        refusals, as in production, and a twin's tools differ from its sibling's only there."""
        return list(self._shown_tools)

    @property
    def openai_tools(self) -> list[JSON]:
        """The tools in the Chat Completions ``tools=`` shape."""
        return [spec.to_openai() for spec in self.tools]

    @property
    def budget(self) -> Budget:
        return self._scenario.budget

    @property
    def pricing(self) -> Pricing:
        """The dollar prices of the scenario's model, for an agent that keeps a dollar ledger."""
        return self._scenario.pricing

    @property
    def context_window(self) -> int | None:
        """Tokens a model request may hold; a longer one raises `ContextOverflow`."""
        return self._scenario.context_window

    @property
    def role_steps(self) -> dict[str, int]:
        """Steps each role may take, its workers together (a role's own budget, beside the
        run's); a subtask's role is the one the scenario's task graph gives it (`SubtaskSpec`),
        which its scripted ``delegate`` calls name too."""
        return dict(self._scenario.role_steps)

    def call_model(
        self, messages: Sequence[JSON], tools: Iterable[Any] | None = None, *, agent: str = "main"
    ) -> JSON:
        """One step: returns an OpenAI Chat Completions assistant message plus ``usage``.

        Offer no tools and the model gives its final answer instead of calling one. A request
        longer than the scenario's context window raises `ContextOverflow`, unanswered.
        """
        answer = self.answer(messages, tools, agent=agent)
        return {**answer.message, "usage": answer.usage.to_openai()}

    def answer(
        self, messages: Sequence[JSON], tools: Iterable[Any] | None = None, *, agent: str = "main"
    ) -> Answer:
        """`call_model`'s step, its reply and its token counts apart: for the wire, which
        writes them into each format's own reply."""
        with self._lock:
            self._callers.enter(f"a model call by {agent}")
            offered = offered_tools(tools)
            try:
                step, agent_step = self._meter.admit_step(agent, offered=bool(offered))
            except CeilingHit:
                self._observer.moved_on(agent)
                raise
            try:
                return self._answer(step, agent_step, messages, offered, agent)
            finally:  # a refused request is a step too, and may be the first refusal
                self._observer.show_truth()

    def _answer(
        self,
        step: int,
        agent_step: int,
        messages: Sequence[JSON],
        offered: tuple[OfferedTool, ...],
        agent: str,
    ) -> Answer:
        """The admitted step ``step`` of `answer`, under the session's lock."""
        sent = self._accounts.sent(agent, messages, offered)  # before the model can read it
        # the conversation this step carries on, whose growth estimates the next step's
        continues = self._step_of.get(agent, 0) if sent.counted.continued else 0
        self._step_of[agent] = step
        self._accounts.begin_step(agent)
        meter = self._meter
        self._probe.on_step(
            meter.charged,
            meter.input_tokens,
            meter.output_tokens,
            clock=meter.simulated,
            calls=meter.external_calls,
            offered=bool(offered),
            continues=continues,
        )
        self._probe.on_request(sent.counted.messages)
        window = self._scenario.context_window
        if window is not None and sent.tokens > window:
            self._refuse(step, sent.tokens, window, agent, sent.counted.messages)
        request = ModelRequest(
            messages=sent.counted.messages,
            tools=tuple(tool.name for tool in offered),
            step=step,
            agent=agent,
            agent_step=agent_step,
            results=self._dispatch.results_since(agent),
        )
        try:
            message = assistant_message(self._setup.model.respond(request))
        except Exception as error:
            self._failed(f"the scenario's model, answering step {step},", error)
            raise
        usage = self._accounts.charge(agent, sent, message)
        self._subtasks.on_model_call(step, agent, sent.counted.messages, calls_of(message))
        self._observer.note(step, message, agent, subtask=self._subtasks.named_at(step))
        return Answer(message=message, usage=usage)

    def count_tokens(
        self, messages: Sequence[JSON], tools: Iterable[Any] | None = None, *, agent: str = "main"
    ) -> int:
        """The input tokens `call_model` would report (``usage.prompt_tokens``) for these
        ``messages`` and ``tools`` from ``agent`` now — the conversation and the tools offered —
        without a step: nothing is charged, kept or counted, so the run is recorded as it would
        be without the count. A request over the context window is counted all the same (the
        tokens `ContextOverflow` would name), as the APIs count one. Refused after the agent
        returned and past a ceiling, as any call."""
        with self._lock:
            self._callers.enter(f"a token count by {agent}")
            self._meter.check()
            return self._accounts.measure(messages, offered_tools(tools))

    def call_tool(
        self, name: str, arguments: Mapping[str, Any] | str | None = None, *, agent: str = "main"
    ) -> str:
        """Runs one tool against the world and returns the text the agent would see."""
        with self._lock:
            self._callers.enter(f"{name} called by {agent}")
            self._meter.admit_tool_call()
            try:
                made = self._dispatch.call(name, arguments, agent)
            except Exception as error:
                self._failed(f"the scenario's tool {name!r}", error)
                raise
            self._meter.tool_done(name, made.result)
            # the step whose model asked for the call: its agent's latest only when it holds
            # one conversation at a time
            asked = self._asked.take(agent, name, made.arguments)
            step = self._step_of.get(agent, self._meter.steps) if asked is None else asked.step
            clock = self._meter.simulated
            self._probe.on_tool(
                step,
                name,
                made.result,
                made.world,
                clock=clock,
                asked=asked is not None,
                reached=made.reached,
                passed_over=0 if asked is None else asked.since,
            )
            self._accounts.tool_called(agent, made.result.refusal)
            # the work of the conversation that asked for it, whatever name the call is made under
            worker = agent if asked is None else asked.agent
            self._subtasks.on_tool(
                step, worker, name, made.result, made_at=self._meter.steps, world=made.world
            )
            self._trajectory.tool(
                step, name, made.arguments, made.result.text, made.world, agent=agent
            )
            self._observer.show_truth()
        if made.result.error is not None:
            raise made.result.error
        return made.result.text

    def sleep(self, seconds: float) -> None:
        """Waits ``seconds`` on the session clock, at once: honour a Retry-After here and the
        wait counts against the wall and idle budgets (`clock`) without costing real time, so
        a run never hits the harness's wall ceiling for being polite. A wait that is not a
        finite number is the agent's bug: a `ValueError` says so, and the clock is unchanged."""
        if not math.isfinite(float(seconds)):
            raise ValueError(f"session.sleep({seconds!r}): give a finite number of seconds")
        with self._lock:
            self._callers.check("a sleep on the session clock")
            self._meter.sleep(seconds)
            # the time and idle budgets' stagnant step moves with the clock
            self._observer.show_truth()

    @property
    def clock(self) -> float:
        """Seconds on the session clock: real time since the run began plus the time slept and
        the time the tools took."""
        with self._lock:
            return self._meter.clock

    def count_transport_attempt(self) -> None:
        """One HTTP request reached a fake model on the wire: SDK retries and transient
        failures are counted here, apart from steps, which only `call_model` counts."""
        with self._lock:
            self._callers.check("a model request")
            self._meter.transport_attempts += 1

    # -- what the harness keeps -----------------------------------------------------------
    @property
    def ceiling(self) -> str | None:
        """The ceiling that ended the run, if any."""
        with self._lock:
            return self._meter.ceiling

    @property
    def elapsed(self) -> float:
        return self._meter.elapsed

    def time_left(self) -> float:
        """Seconds until the wall ceiling."""
        return max(0.0, self.ceilings.max_wall_seconds - self.elapsed)

    def returned(self) -> None:
        """The agent is back (or its process ended): a call after this comes from work it left
        running — a thread, a task, a process it started. The first is noted for the record
        (`late_call`) and each is refused with `SessionClosed`, so nothing it does is counted."""
        with self._lock:
            self._callers.returned()

    @property
    def late_call(self) -> str | None:
        """The first call made after the agent returned, if one was."""
        with self._lock:
            return self._callers.late_call

    def wait_for_late_call(self, timeout: float) -> bool:
        """Waits up to ``timeout`` seconds for a call after the agent returned; whether one came."""
        return self._callers.wait_for_late_call(timeout)

    @property
    def callers(self) -> frozenset[int]:
        """The idents of the threads that called the model or a tool during the run."""
        with self._lock:
            return self._callers.threads

    @property
    def failure(self) -> HarnessFailure | None:
        """The harness's own failure in the run, if it had one: the first exception the
        scenario's model or one of its tools raised (its ``__cause__``). The agent was handed
        it as any exception, and may have swallowed it; what it did after answered no
        scenario, so the run is recorded ``crashed`` with this, not judged."""
        with self._lock:
            return self._failure

    def _failed(self, where: str, error: Exception) -> None:
        if self._failure is None:
            self._failure = HarnessFailure(
                f"unsolvable: {where} raised {error_text(error)}, so what the agent did after "
                "it answered no scenario; fix the scenario (the traceback shows where)"
            )
            self._failure.__cause__ = error

    def _refuse(
        self, step: int, tokens: int, window: int, agent: str, messages: Sequence[JSON]
    ) -> NoReturn:
        """A request over the context window, refused as a provider refuses one, before the
        model sees it: a step the agent made (the step ceiling bounds a retry loop) that costs
        nothing, as a refused request is not billed. It is a step of that agent's share and of
        its role's, as of the run's, so that every face counts it alike."""
        self._probe.on_refused(step, CONTEXT_WINDOW)
        self._accounts.refused(agent)
        self._subtasks.on_model_call(step, agent, messages, ())
        self._trajectory.step(step, "", [], agent=agent)
        raise ContextOverflow(tokens=tokens, window=window)

    def finish(self, *, error: str | None = None, code: Code | None = None) -> Observed:
        """Closes the run, which ended with the crash ``error`` or the stop code ``code`` if
        either, and returns what was observed; reads the world one last time. Calls made after
        this raise `SessionClosed`."""
        with self._lock:
            late_call = self._callers.finish()
            return self._observer.finish(late_call=late_call, error=error, code=code)


def scenario_of(session: Session) -> Scenario:
    """The scenario ``session`` runs, for the harness's own modules: not part of what an agent
    is handed, since a twin and its sibling would differ there."""
    return session._scenario


def end_at_ceiling(session: Session, which: str) -> None:
    """Marks the run of ``session`` as ended by the ceiling ``which``; every later call raises
    `CeilingHit`. For the harness's own watchdogs, not part of what an agent is handed: an agent
    that could mark one would be recorded ``did_not_stop`` wherever it stopped, and a control it
    stopped too early would be no false stop."""
    with session._lock:
        session._meter.hit(which)


def specs_of(session: Session) -> Sequence[ToolSpec]:
    """The tools of ``session`` as the scenario declares them, `ToolSpec.denied_permission`
    included: for a face that refuses a denied tool before it is called (ACP)."""
    return session._setup.toolbox.specs
