"""Consumes the calls each step of a session asks for and the counts its parts keep, produces the
ground truth of the run as it stands (shown to the harness after each call) and, when the run
ends, what the harness observed of it (`Observed`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from unsolvable._accounts import Accounts
from unsolvable._answer import calls_of
from unsolvable._asked import Asked, Unmade
from unsolvable._dispatch import ToolDispatch, canonical_arguments
from unsolvable._meter import Meter
from unsolvable._observed import Observed
from unsolvable._probes import StagnationProbe
from unsolvable._seen import Seen
from unsolvable._spent import JUDGED_EXHAUSTION, could_cover_next_step
from unsolvable._stop import Code
from unsolvable._subtasks import SubtaskTable
from unsolvable._trajectory import Trajectory
from unsolvable._truth import COST_DIGITS, Truth
from unsolvable._types import GIVE_UP_TOOL, JSON, PROTOCOL_TOOLS, World

__all__ = ["Observer"]


class Observer:
    """The ground truth's bookkeeping of one `Session`: it reads the parts the session owns, and
    is called under the session's lock, as they are."""

    def __init__(
        self,
        *,
        meter: Meter,
        accounts: Accounts,
        dispatch: ToolDispatch,
        trajectory: Trajectory,
        probe: StagnationProbe,
        subtasks: SubtaskTable,
        asked: Asked,
        world: World,
        seen: Seen | None,
    ) -> None:
        self._meter = meter
        self._accounts = accounts
        self._dispatch = dispatch
        self._trajectory = trajectory
        self._probe = probe
        self._subtasks = subtasks
        self._asked = asked
        self._world = world
        self._seen = seen
        """Where a worker process shows the harness the truth as it stands after each call."""
        self._gave_up_at_step: int | None = None

    def note(self, step: int, message: JSON, agent: str, *, subtask: str | None = None) -> None:
        """The step in the trajectory, made in ``agent``'s conversation on ``subtask``, and the
        first step that asked to give up."""
        calls = calls_of(message)
        asked = [(c["function"]["name"], c["function"]["arguments"]) for c in calls]
        external = [
            (name, canonical_arguments(a)) for name, a in asked if name not in PROTOCOL_TOOLS
        ]
        self._probe.on_asked(len(external))
        self._probe.on_reply(call.get("id") for call in calls)
        self._unmade(self._asked.ask(agent, step, external, subtask=subtask))
        if self._gave_up_at_step is None and any(name == GIVE_UP_TOOL for name, _ in asked):
            self._gave_up_at_step = step
        self._trajectory.step(step, message["content"], asked, agent=agent)

    def _unmade(self, unmade: Iterable[Unmade], *, pending: bool = False) -> None:
        """Calls the model asked for that the agent never made, for the ground truth;
        ``pending``: the run ended before the agent moved on from them (`on_unmade`)."""
        for call in self._never_made(unmade):
            self._probe.on_unmade(call.step, call.tool, pending=pending)

    def moved_on(self, agent: str) -> None:
        """``agent`` asked for another step, which a ceiling refused: it had passed over the
        calls still asked of it, which the ceiling did not cut short."""
        self._unmade(self._asked.passed_over(agent))
        self.show_truth()

    def _never_made(self, unmade: Iterable[Unmade]) -> list[Unmade]:
        """Each of ``unmade`` but one made before, the same tool with the same arguments, whose
        answer is known."""
        return [call for call in unmade if not self._dispatch.has_made(call.tool, call.arguments)]

    def _truth(self, *, may_guess: bool) -> Truth:
        """The ground truth and the lag of the run, were it to end now (``may_guess``: by a
        stop that may be a guess, `StagnationProbe.truth`)."""
        meter = self._meter
        return self._probe.truth(
            tokens=meter.charged,
            cost=self._accounts.cost,
            sent=meter.sent,
            clock=meter.simulated,
            calls=meter.external_calls,
            role_spent=self._subtasks.budget_spent_at(meter.steps),
            finished_at=self._subtasks.last_success,
            may_guess=may_guess,
        )

    def show_truth(self) -> None:
        """Shows the harness the truth as it stands (`Seen`), from the first step on, the calls
        asked for and not made yet counted as unmade, as the end of the run counts them: it
        records it if it loses the worker, as the run's record would have had it, whether it
        kills the worker at its wall ceiling or the worker died."""
        if self._seen is None or not self._meter.steps:
            return
        with self._probe.supposing_unmade(self._never_made(self._asked.pending())):
            self._seen.stood(self._truth(may_guess=True), no_guess=self._truth(may_guess=False))

    def finish(
        self, *, late_call: str | None, error: str | None, code: Code | None = None
    ) -> Observed:
        """What was observed of the run, which ended with ``late_call`` the first call after the
        agent returned, ``error`` its crash and ``code`` its stop's code, if any; reads the
        world one last time."""
        meter = self._meter
        # only a ceiling cuts calls short: an agent that stopped chose to leave them unmade
        self._unmade(self._asked.close(), pending=meter.ceiling is not None)
        tail, trajectory = self._trajectory.traces()
        cost = self._accounts.cost
        probe, clock, calls = self._probe, meter.simulated, meter.external_calls
        complete = self._world.is_complete()
        truth = self._truth(may_guess=meter.ceiling is None)
        overrun = self._probe.overrun(tokens=meter.charged, cost=cost, sent=meter.sent)
        observed = Observed(
            steps=meter.steps,
            tool_calls=meter.tool_calls,
            transport_attempts=meter.transport_attempts,
            first_stagnant_step=truth.first_stagnant_step,
            input_tokens=meter.input_tokens,
            output_tokens=meter.output_tokens,
            overhead_tokens=next(iter(meter.overhead.values()), 0),
            uncharged_tokens=meter.uncharged_tokens,
            cost_usd=round(cost, COST_DIGITS),
            lag_tokens=truth.lag_tokens,
            lag_cost_usd=truth.lag_cost_usd,
            evidence_step=truth.evidence_step,
            read_a_result=self._probe.read_a_result,
            completed_at_step=self._probe.completed_at_step,
            next_step_tokens=overrun.next_step_tokens,
            next_step_cost_usd=overrun.next_step_cost_usd,
            overshoot_tokens=overrun.overshoot_tokens,
            overshoot_cost_usd=overrun.overshoot_cost_usd,
            max_repeated_action=self._dispatch.max_repeated_action,
            distinct_world_states=len(self._probe.seen_worlds),
            refusals=dict(sorted(self._probe.refusals.items())),
            steps_past_token_budget=self._probe.steps_past_token_budget(),
            final_answer_calls=meter.final_answer_calls,
            gave_up_at_step=self._gave_up_at_step,
            steps_by_agent=dict(sorted(meter.agent_steps.items())),
            slept_seconds=round(meter.slept, 6),
            tool_seconds=round(meter.tool_seconds, 6),
            idle_seconds=round(probe.idle_at(clock), 6),
            external_calls=calls,
            calls_past_budget=probe.calls_past_budget(calls),
            steps_past_time_budget=probe.steps_past_time_budget(),
            unaffordable_steps=probe.unaffordable_steps(cost),
            irreversible_calls=meter.irreversible_calls,
            agents=self._accounts.shares(),
            subtasks=self._subtasks.finish(meter.steps, world_complete=complete),
            steps_by_role=dict(sorted(self._subtasks.role_steps.items())),
            steps_past_role_budget=dict(sorted(self._subtasks.past_role_budget.items())),
            roles_spent=tuple(sorted(self._subtasks.role_spent_at)),
            steps_past_cost_budget=self._accounts.steps_past_cost_budget(),
            world_complete=complete,
            ceiling=meter.ceiling,
            late_call=late_call,
            error=error,
            tail=tail,
            trajectory=trajectory,
        )
        if meter.ceiling is not None:
            return observed
        return self._unless_no_guess(observed, truth, code)

    def _unless_no_guess(self, observed: Observed, truth: Truth, code: Code | None) -> Observed:
        """``observed``, whose ``truth`` is a guess's, with the truth of an end that is no guess
        where it is none: the agent had the evidence by that truth (`Truth.had_the_evidence`),
        or its code names a step or cost budget that could not cover the next step
        (`could_cover_next_step`: the budget chose the step). The steps that offered no tool and
        the calls left unmade keep a guess from reading as a detection; held open for a stop
        that is none, they hid its lag: an agent that skipped its model's calls until its last
        step, whose calls answered nothing new, lagged 0, and one that called its model to the
        end of its budget making none of them lagged 0 too."""
        if truth.evidence_step is None:  # a solvable control
            return observed
        spent = code in JUDGED_EXHAUSTION and not could_cover_next_step(
            observed, self._probe.scenario.budget
        )
        if not (spent or truth.had_the_evidence(observed.steps)):
            return observed
        seen = self._truth(may_guess=False)
        return dataclasses.replace(
            observed,
            first_stagnant_step=seen.first_stagnant_step,
            lag_tokens=seen.lag_tokens,
            lag_cost_usd=seen.lag_cost_usd,
            evidence_step=seen.evidence_step,
        )
