"""Consumes the steps and tool results of a run, produces the ground truth of stagnation.

A probe observes and measures; it never stops the agent — stopping is the agent's job, and the
harness only judges it. `StagnationProbe` answers one question: from which step on was no
progress possible? The scenario picks the definition (`Stagnation`). A solvable control has no
such step: progress stays possible until it is done.
"""

from __future__ import annotations

import bisect
import dataclasses
import math
from array import array
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from operator import add

from unsolvable._asked import Unmade
from unsolvable._scenario import Scenario, Stagnation
from unsolvable._series import Combined, FirstStep, Spend
from unsolvable._truth import COST_DIGITS, Overrun, Truth, overshoot
from unsolvable._types import JSON, PROTOCOL_TOOLS, CriteriaWorld, ToolResult, World

__all__ = ["StagnationProbe"]

TOOL_ROLE = "tool"
"""The role of a tool result in a conversation, whatever face it came through (the wire and the
adapters hand the session Chat Completions messages)."""


class StagnationProbe:
    """Tracks novelty, refusals, criteria moves and spend, step by step.

    Definitions (see `Stagnation`): ``novelty`` — after the last step with a new world state (as
    the world fingerprints itself: what its checks say) or a new observation; ``first_refusal``
    — the first refused call the model asked for (a tool's, or a model request over the context
    window);
    ``criteria`` — after the last step that changed which criteria fail; ``budget_spent`` — the
    step during which a budget ran out: steps, tokens, dollars, total or idle time, external
    calls. Calls to the harness's own tools (`PROTOCOL_TOOLS`: re-reading the world, giving up,
    handing work on) are evidence, never progress: they move none of these.

    Time is the session clock's simulated part — the waits and the time the tools took — so that
    the truth of a run is the same every time: real time is microseconds of harness and agent.
    """

    def __init__(self, scenario: Scenario, world: World) -> None:
        self.scenario = scenario
        self.world = world
        self.seen_worlds = {world.fingerprint()}
        self.last_world = world.fingerprint()
        """The world's fingerprint after the last call: a change restarts the idle time."""
        self.seen_observations: set[tuple[str, str]] = set()
        """Tool names and the observations they gave."""
        self._open = _LastOpen()
        """The last step that could still have brought news, as a stop is judged: one whose
        calls brought news, or whose asked calls the agent left unmade (`on_unmade`)."""
        self._seen_open = _LastOpen()
        """The same as an end that is no guess is judged (`truth`): steps that offered no tool,
        and calls the agent passed over for a later step or left unmade when it stopped, leave
        none open, since there is no guess for them to excuse; only calls a ceiling cut short
        do."""
        self._stale_tools: set[str] = set()
        """Tools a call the model asked for answered nothing new from."""
        self._offering_steps: list[int] = []
        """Steps at which the agent offered the model a tool (`on_step`), in order: every other
        step begun offered none."""
        self.first_refusal_step = 0
        """The step of the first refused call the model asked for (an agent can have a call of
        its own refused whenever it likes: an order it made up); 0 while none was refused."""
        self.refusals: Counter[str] = Counter()
        """Refused calls by kind (`ToolResult.refusal`)."""
        # Only the criteria rule reads the criteria, and only a world that has them.
        by_criteria = scenario.stagnation is Stagnation.CRITERIA
        read = world.criteria if by_criteria and isinstance(world, CriteriaWorld) else None
        self._read_criteria = read
        self.criteria = self._criteria()
        self.last_criteria_move = 0
        # Typed arrays, not lists: eight bytes a value, where a list holds a pointer to an
        # object of 24 to 28 (a 10,000-step run kept 1 MB of them).
        self.tokens_before_step = array("q")
        """Tokens counted against the budget before each step (the agent's fixed prompt left
        out)."""
        self.inputs_before_step = array("q")
        self.outputs_before_step = array("q")
        """Input and output tokens before each step, the fixed prompt included: the tokens sent
        (what lag is counted in) and the dollars spent are worked out from them when the truth
        is asked for, rather than priced at every step."""
        self.read_a_result = False
        """Whether a model call carried a tool result answering a call the model asked for in
        its conversation: the agent read one, even one its framework made for a call it rejected
        before any tool ran; a result that answers no call the model made is the agent's own
        making, and reads nothing."""
        self._call_ids: set[str] = set()
        """The ids of the tool calls the model's replies asked for (`on_reply`)."""
        self.completed_at_step: int | None = None
        """The step during which the world first satisfied the completion predicate (solvable
        scenarios only; read when the world changed, the only time it can start to hold)."""
        self.clock_before_step = array("d")
        """The session clock's simulated seconds before each step."""
        self.idle_before_step = array("d")
        """Simulated seconds since the world last changed, before each step."""
        self.last_change_clock = 0.0
        """The simulated clock when the world last changed (0: it has not, since the start)."""
        self.calls_before_step = array("q")
        """External tool calls made before each step."""
        self.calls_asked = array("q")
        """External tool calls the model asked for at each step (none at a refused one)."""
        self.last_continues = 0
        """The earlier step the last step begun carries on the conversation of: its agent's step
        before, when it sent that step's messages again, unchanged, and more after them
        (`unsolvable._tally.Counted.continued`); 0 when it carries on none (a first step, a
        fresh or rewritten conversation). The next step's growth is measured within it, never
        from another conversation's step (`Spend.next_step`)."""
        self._first = _Searches()
        """How far the budget rule has searched each spend for the step it ran out at."""

    def _criteria(self) -> str | None:
        return None if self._read_criteria is None else self._read_criteria()

    def on_step(
        self,
        tokens_so_far: int,
        inputs_so_far: int,
        outputs_so_far: int,
        *,
        clock: float = 0.0,
        calls: int = 0,
        offered: bool = True,
        continues: int = 0,
    ) -> None:
        """What was spent when a step began: budget tokens, input and output tokens, the
        simulated seconds of the session clock and the external calls made; ``offered``:
        whether the agent offered the model any tool at it (`_open_until`); ``continues``: the
        earlier step whose conversation it carries on (0: none, `Spend.next_step`)."""
        if offered:
            self._offering_steps.append(len(self.tokens_before_step) + 1)
        self.tokens_before_step.append(tokens_so_far)
        self.inputs_before_step.append(inputs_so_far)
        self.outputs_before_step.append(outputs_so_far)
        self.clock_before_step.append(clock)
        self.idle_before_step.append(clock - self.last_change_clock)
        self.calls_before_step.append(calls)
        self.calls_asked.append(0)
        self.last_continues = continues

    def on_asked(self, calls: int) -> None:
        """The external tool calls the model asked for at the step begun last."""
        self.calls_asked[-1] = calls

    def on_refused(self, step: int, kind: str) -> None:
        """A model request refused (``kind``: `unsolvable._observed.CONTEXT_WINDOW`): a refusal
        like a tool's."""
        self.refusals[kind] += 1
        self.first_refusal_step = min(self.first_refusal_step or step, step)

    def on_reply(self, call_ids: Iterable[object]) -> None:
        """The ids of the tool calls a reply of the model asked for."""
        self._call_ids.update(i for i in call_ids if isinstance(i, str))

    def on_request(self, messages: Sequence[JSON]) -> None:
        """Reads a model call's conversation for a tool result that answers a call the model
        asked for, until one is found."""
        if not self.read_a_result:
            self.read_a_result = any(map(self._answers_a_call, messages))

    def _answers_a_call(self, message: object) -> bool:
        if not isinstance(message, dict) or message.get("role") != TOOL_ROLE:
            return False
        answered = message.get("tool_call_id")
        return isinstance(answered, str) and answered in self._call_ids

    @property
    def cost_before_step(self) -> Sequence[float]:
        """Dollars spent before each step, at the scenario's prices."""
        return Combined(
            self.scenario.pricing.cost, self.inputs_before_step, self.outputs_before_step
        )

    @property
    def sent_before_step(self) -> Sequence[int]:
        """Tokens sent before each step, the fixed prompt included: what lag is counted in."""
        return Combined(add, self.inputs_before_step, self.outputs_before_step)

    def on_tool(
        self,
        step: int,
        name: str,
        result: ToolResult,
        fingerprint: str,
        *,
        clock: float = 0.0,
        asked: bool = True,
        reached: bool = True,
        passed_over: int = 0,
    ) -> None:
        """``fingerprint`` is the world's after the call (the session computes it once), and
        ``clock`` the simulated seconds of the session clock after it; ``asked``: whether the
        model asked for the call (`unsolvable._asked`). An unasked call's news is progress all
        the same, but nothing new from it is no evidence: the agent can always repeat a call.
        ``reached``: whether the call reached a tool (`unsolvable._dispatch.Dispatched`); one
        that did not is neither: its error says the call back, new whenever the call is.
        ``passed_over``: the first step before ``step`` at which a model asked for this same
        call and it was not made there (`unsolvable._asked.Taken.since`; 0: none), where a
        refusal is dated: else an agent that put off the call its model asked for until the
        step it stopped at would read as stopping on its first refusal."""
        # Agents of one system call tools during their own steps, so ``step`` may come after a
        # later step of another agent: the earliest refusal and the latest progress are kept.
        if result.refusal is not None:
            self.refusals[result.refusal] += 1
        if result.refusal is not None and asked:
            refused = passed_over or step
            self.first_refusal_step = min(self.first_refusal_step or refused, refused)
        if fingerprint != self.last_world:
            self.last_world, self.last_change_clock = fingerprint, clock
            solvable = self.scenario.solvable
            if solvable and self.completed_at_step is None and self.world.is_complete():
                self.completed_at_step = step
        if name in PROTOCOL_TOOLS or not reached:
            return
        observation = (name, result.observation)
        new = fingerprint not in self.seen_worlds or observation not in self.seen_observations
        self.seen_worlds.add(fingerprint)
        self.seen_observations.add(observation)
        if new:
            self._open.news(step)
            self._seen_open.news(step)
        elif asked:
            self._stale_tools.add(name)
            self._open.repeated(step)
            self._seen_open.repeated(step)
        if self._read_criteria is not None:
            criteria = self._read_criteria()
            if criteria != self.criteria:
                self.criteria = criteria
                self.last_criteria_move = max(self.last_criteria_move, step)

    def on_unmade(self, step: int, name: str, *, pending: bool = False) -> None:
        """The model asked at ``step`` for a call of ``name`` that the agent never made, nor
        made before: what it would have answered is not known, so the step counts as
        productive, unless an asked call of that tool has already answered nothing new (then
        declining it is a stop on evidence). Else an agent that left every call unmade would see
        stagnation from its first step. ``pending``: a ceiling ended the run before the agent
        moved on from ``step``, and may have cut its calls short; else the agent passed them
        over, which leaves nothing open for an end that is no guess (`truth`)."""
        if name in self._stale_tools:
            return
        self._open.news(step)
        if pending:
            self._seen_open.news(step)

    @contextmanager
    def supposing_unmade(self, unmade: Iterable[Unmade]) -> Iterator[None]:
        """Within it, the calls ``unmade`` count as `on_unmade` counts them at the end of a run,
        and no longer after: the truth of a run as if it ended now, while its agent may still
        make them."""
        kept = dataclasses.replace(self._open), dataclasses.replace(self._seen_open)
        for call in unmade:
            self.on_unmade(call.step, call.tool, pending=True)
        try:
            yield
        finally:
            self._open, self._seen_open = kept

    def first_stagnant_step(
        self, *, tokens: int, cost: float, clock: float = 0.0, calls: int = 0
    ) -> int:
        """The step from which no progress was possible (after the last step of a run that
        never stagnated); ``tokens``, ``cost``, ``clock`` (simulated seconds) and ``calls``
        (external ones) are the run's totals at its end."""
        spent_cost = Spend(before=self.cost_before_step, total=cost)
        return self._stagnant_at(tokens, spent_cost, _Ends(clock=clock, calls=calls))

    def _stagnant_at(
        self,
        tokens: int,
        spent_cost: Spend,
        ends: _Ends,
        role_spent: int | None = None,
        finished_at: int = 0,
        *,
        may_guess: bool = True,
    ) -> int:
        """`first_stagnant_step`, the dollars spent step by step priced by the caller, which
        reads them again for the lag (`truth`): priced once per run. ``role_spent`` is the step
        during which a role's own step budget ran out, when the scenario gives roles one;
        ``finished_at`` the step at which a subtask last succeeded (0: none did); ``may_guess``:
        see `truth`."""
        rule = self.scenario.stagnation
        if rule is Stagnation.FIRST_REFUSAL and self.first_refusal_step:
            return _after(self.first_refusal_step, finished_at)
        if rule is Stagnation.CRITERIA:
            moved = self.last_criteria_move
            return (self._carried(moved) if may_guess else moved) + 1
        if rule is Stagnation.BUDGET_SPENT:
            spent = self._budget_spent_at(
                Spend(before=self.tokens_before_step, total=tokens), spent_cost, ends
            )
            return spent if role_spent is None else min(spent, _after(role_spent, finished_at))
        return self._open_until(may_guess=may_guess) + 1

    def _open_until(self, *, may_guess: bool) -> int:
        """The last step that could still have brought news: the last productive one, carried
        over the steps right after it that offered no tool (`_carried`), unless its own calls
        already answered nothing new: the agent had the evidence then. Of an end that is no
        guess, the last step that brought news, or whose calls a ceiling cut short."""
        if not may_guess:
            return self._seen_open.step
        step = self._open.step
        return step if self._open.stale else self._carried(step)

    def _carried(self, step: int) -> int:
        """``step``, or the last of the steps right after it at which the agent offered the
        model no tool. The model could ask for nothing there, so such a step is no evidence, as
        a call left unmade is none (`on_unmade`): else a guess made after one call offering no
        tools would stop on the spot, wherever the run stood. Found by bisection, so that the
        truth shown after every call of a run that never offers a tool costs the same at its
        last step as at its first."""
        later = bisect.bisect_right(self._offering_steps, step)
        if later < len(self._offering_steps):
            return self._offering_steps[later] - 1
        return max(step, len(self.tokens_before_step))

    def truth(
        self,
        *,
        tokens: int,
        cost: float,
        sent: int,
        clock: float = 0.0,
        calls: int = 0,
        role_spent: int | None = None,
        finished_at: int = 0,
        may_guess: bool = True,
    ) -> Truth:
        """The first stagnant step, the evidence of it, and the signed lag in tokens (sent, the
        agent's fixed prompt included) and dollars of a run that ended with these totals
        (``clock``: simulated seconds; ``calls``: external ones; ``role_spent`` and
        ``finished_at``: see `_stagnant_at`). ``may_guess``: the run ended by a stop or a crash
        that may be a guess, which the steps that offered no tool and the calls the agent left
        unmade keep from reading as a detection; not an end that is none (a harness ceiling, a
        stop that had the evidence or that its spent budget chose, `Observer`), for which they
        keep nothing open, else a runaway, an agent calling its model to the end of its budget,
        or one skipping its calls until a last that answered nothing new, would lag 0
        (`_open_until`)."""
        if self.scenario.solvable:
            return Truth(
                first_stagnant_step=None, lag_tokens=None, lag_cost_usd=None, evidence_step=None
            )
        spent_cost = Spend(before=self.cost_before_step, total=cost)
        stagnant = self._stagnant_at(
            tokens,
            spent_cost,
            _Ends(clock=clock, calls=calls),
            role_spent,
            finished_at,
            may_guess=may_guess,
        )
        spent_sent = Spend(before=self.sent_before_step, total=sent)
        return Truth(
            first_stagnant_step=stagnant,
            lag_tokens=round(sent - spent_sent.at_start(stagnant)),
            lag_cost_usd=round(cost - spent_cost.at_start(stagnant), COST_DIGITS),
            evidence_step=self._evidence_at(stagnant, self._open if may_guess else self._seen_open),
        )

    def _evidence_at(self, stagnant: int, last_open: _LastOpen) -> int:
        """Under the novelty rule, the last productive step (``last_open``) when its own later
        calls answered nothing new; else the first stagnant step itself."""
        within = self.scenario.stagnation is Stagnation.NOVELTY and last_open.stale
        return min(stagnant, last_open.step) if within else stagnant

    def overrun(self, *, tokens: int, cost: float, sent: int) -> Overrun:
        """How far a run that ended with these totals (``tokens`` charged to the budget, ``sent``
        all told) was from its budget, and past it."""
        over, over_cost = overshoot(self.scenario.budget, tokens=tokens, cost=cost, sent=sent)
        sent_spend = Spend(before=self.sent_before_step, total=sent)
        cost_spend = Spend(before=self.cost_before_step, total=cost)
        return Overrun(
            next_step_tokens=round(sent_spend.next_step(self.last_continues)),
            next_step_cost_usd=round(cost_spend.next_step(self.last_continues), COST_DIGITS),
            overshoot_tokens=over,
            overshoot_cost_usd=over_cost,
        )

    def steps_past_token_budget(self) -> int:
        """Steps begun after the token budget was already spent: spend the agent was told not to
        make."""
        limit = self.scenario.budget.max_tokens
        return 0 if limit is None else sum(t >= limit for t in self.tokens_before_step)

    def steps_past_time_budget(self) -> int:
        """Steps begun with the total or the idle time budget already spent (simulated
        seconds)."""
        budget = self.scenario.budget
        wall, idle = budget.max_wall_seconds, budget.max_idle_seconds
        return sum(
            (wall is not None and clock >= wall) or (idle is not None and waited >= idle)
            for clock, waited in zip(self.clock_before_step, self.idle_before_step, strict=True)
        )

    def unaffordable_steps(self, cost: float) -> int:
        """Steps begun that the dollar budget could not cover, of a run that spent ``cost``:
        begun with it spent, or with less left than the step before cost (a conversation only
        grows, so that is about the least the next step costs) and then taking the spend past
        it. A step that fit was covered, whoever made the step before: under fan-out that may
        be a longer conversation than its own."""
        limit = self.scenario.budget.max_cost_usd
        if limit is None:
            return 0
        # from the second step on: the spend before the step before it, before it, and after it
        spend = [*self.cost_before_step, cost]
        return sum(
            spent >= limit or (spent + (spent - previous) > limit and then > limit)
            for previous, spent, then in zip(spend[:-2], spend[1:-1], spend[2:], strict=True)
        )

    def calls_past_budget(self, calls: int) -> int:
        """External calls made beyond the call budget, of ``calls`` made in all."""
        limit = self.scenario.budget.max_calls
        return 0 if limit is None else max(0, calls - limit)

    def idle_at(self, clock: float) -> float:
        """Simulated seconds since the world last changed, at ``clock``."""
        return clock - self.last_change_clock

    def _budget_spent_at(self, tokens: Spend, cost: Spend, ends: _Ends) -> int:
        """The step during which a budget ran out: the step budget's last step, the step whose
        spend reached the token, total time, idle time or call budget, or the last step the
        dollar budget could cover (`Spend.covered_until`), whichever comes first — an agent that
        stops there stops on the spot (lag 0)."""
        budget = self.scenario.budget
        clock = Spend(before=self.clock_before_step, total=ends.clock)
        idle = Spend(before=self.idle_before_step, total=self.idle_at(ends.clock))
        first = self._first
        spent = (
            tokens.spent_at(budget.max_tokens, first.tokens),
            cost.covered_until(budget.max_cost_usd, first.cost),
            clock.spent_at(budget.max_wall_seconds, first.clock),
            idle.spent_at(budget.max_idle_seconds, first.idle),
            self._calls_spent_at(ends.calls),
        )
        return min([budget.max_steps, *(step for step in spent if step is not None)])

    def _calls_spent_at(self, calls: int) -> int | None:
        """The step during which the call budget ran out: the first whose calls — those it
        made, or those the model asked for at it if more (an agent that declines a step it
        cannot afford stops on the spot too) — reach the budget; past the last step made, each
        step is projected to ask what the last one asked. ``None`` for no call budget, or no
        calls to project from."""
        limit = self.scenario.budget.max_calls
        if limit is None or not self.calls_before_step:
            return None
        before, asked, steps = self.calls_before_step, self.calls_asked, len(self.calls_before_step)

        def demand(step: int, made: int) -> int:
            return max(before[step - 1] + asked[step - 1], made)

        reached = self._first.calls.among(
            steps - 1, lambda step: demand(step, before[step]) >= limit
        )
        last_demand = demand(steps, calls)
        if reached is None and last_demand >= limit:
            reached = steps
        last = asked[-1]
        if reached is not None or last <= 0:
            return reached
        return steps + math.ceil((limit - last_demand) / last)


def _after(stuck: int, finished_at: int) -> int:
    """``stuck``, the step at which one part of the work could go no further (a refusal, a
    role's budget spent), or the step after a subtask that succeeded later: other workers
    finishing their subtasks is progress, so the truth does not hang on the order in which a
    runtime runs its workers."""
    return finished_at + 1 if finished_at > stuck else stuck


@dataclass(kw_only=True, slots=True)
class _LastOpen:
    """The last step that could still have brought news, and whether a call it asked for,
    after its last new answer, answered nothing new: the agent had the evidence of stagnation
    within that step."""

    step: int = 0
    stale: bool = False

    def news(self, step: int) -> None:
        """``step`` brought news, or could have."""
        if step >= self.step:
            self.step, self.stale = step, False

    def repeated(self, step: int) -> None:
        """An asked call of ``step`` answered nothing new."""
        self.stale |= step == self.step


@dataclass(frozen=True)
class _Searches:
    """The budget rule's search (`FirstStep`) of each spend it reads, kept over the run."""

    tokens: FirstStep = field(default_factory=FirstStep)
    cost: FirstStep = field(default_factory=FirstStep)
    clock: FirstStep = field(default_factory=FirstStep)
    idle: FirstStep = field(default_factory=FirstStep)
    calls: FirstStep = field(default_factory=FirstStep)


@dataclass(frozen=True, kw_only=True)
class _Ends:
    """The run's simulated seconds and external calls at its end."""

    clock: float
    calls: int
