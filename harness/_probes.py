"""Consumes the steps and tool results of a run, produces the ground truth of stagnation.

A probe observes and measures; it never stops the agent — stopping is the agent's job, and the
harness only judges it. `StagnationProbe` answers one question: from which step on was no
progress possible? The scenario picks the definition (`Stagnation`). A solvable control has no
such step: progress stays possible until it is done.
"""

from __future__ import annotations

import math
from array import array
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from operator import add

from unsolvable._scenario import Scenario, Stagnation
from unsolvable._types import CriteriaWorld, ToolResult, World

__all__ = ["Spend", "StagnationProbe", "Truth"]


@dataclass(frozen=True, kw_only=True)
class Spend:
    """One quantity spent over a run (tokens, dollars), step by step: what the budget-spent
    ground truth and the lag in tokens and dollars read.

    Spend past the last step made is *projected* at the last step's spend: a conversation only
    grows, so each later step costs at least that much and the projection is a floor.
    A run with no step has nothing to project from: its later steps are taken to cost nothing.
    """

    before: Sequence[float]
    """``before[i]``: spent before step ``i + 1`` began."""
    total: float
    """Spent by the end of the run."""

    @property
    def _last(self) -> float:
        """What the last step made cost (0 without a step)."""
        return self.total - self.before[-1] if self.before else 0.0

    def at_start(self, step: int) -> float:
        """Spent before ``step`` began: observed for the steps made, projected after them."""
        made = len(self.before)
        if step <= made:
            return self.before[step - 1]
        return self.total + (step - 1 - made) * self._last

    def spent_at(self, limit: float | None) -> int | None:
        """The step during which the spend reached ``limit`` (observed, else projected);
        ``None`` for no limit, or no spend to project from."""
        if limit is None or not self.before:
            return None
        ends = [*self.before[1:], self.total]
        reached = next((step for step, end in enumerate(ends, 1) if end >= limit), None)
        if reached is not None or self._last <= 0:
            return reached
        return len(self.before) + math.ceil((limit - self.total) / self._last)


@dataclass(frozen=True, kw_only=True)
class Truth:
    """The ground truth of a finished run and the lag measured against it; all ``None`` on a
    solvable control, which has no stagnant step."""

    first_stagnant_step: int | None
    lag_tokens: int | None
    """Signed, as the lag in steps: tokens spent from the start of the first stagnant step to
    the stop; for a stop before it, minus the (projected) tokens of the steps skipped before it."""
    lag_cost_usd: float | None


class StagnationProbe:
    """Tracks novelty, refusals, criteria moves and spend, step by step.

    Definitions (see `Stagnation`): ``novelty`` — after the last step with a new world state or a
    new observation; ``first_refusal`` — the first denied or unavailable call; ``criteria`` —
    after the last step that changed which criteria fail; ``budget_spent`` — the step during
    which the step, token or cost budget ran out.
    """

    def __init__(self, scenario: Scenario, world: World) -> None:
        self.scenario = scenario
        self.world = world
        self.seen_worlds = {world.fingerprint()}
        self.seen_observations: set[tuple[str, str]] = set()
        """Tool names and the observations they gave."""
        self.last_productive_step = 0
        self.first_refusal_step = 0
        """The step of the first refused call; 0 while none was refused."""
        self.refusals: Counter[str] = Counter()
        """Refused calls by kind (`ToolResult.refusal`)."""
        # Decided once: a Protocol isinstance check on every tool call cost 12 % of a step, and
        # only the criteria rule reads the criteria (reading them encodes them, every call).
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

    def _criteria(self) -> str | None:
        return None if self._read_criteria is None else self._read_criteria()

    def on_step(self, tokens_so_far: int, inputs_so_far: int, outputs_so_far: int) -> None:
        """What was spent when a step began: budget tokens, and input and output tokens."""
        self.tokens_before_step.append(tokens_so_far)
        self.inputs_before_step.append(inputs_so_far)
        self.outputs_before_step.append(outputs_so_far)

    @property
    def cost_before_step(self) -> array[float]:
        """Dollars spent before each step, at the scenario's prices."""
        cost = self.scenario.pricing.cost
        return array("d", map(cost, self.inputs_before_step, self.outputs_before_step))

    @property
    def sent_before_step(self) -> array[int]:
        """Tokens sent before each step, the fixed prompt included: what lag is counted in."""
        return array("q", map(add, self.inputs_before_step, self.outputs_before_step))

    def on_tool(self, step: int, name: str, result: ToolResult, fingerprint: str) -> None:
        """``fingerprint`` is the world's after the call (the session computes it once)."""
        observation = (name, result.observation)
        if fingerprint not in self.seen_worlds:
            self.seen_worlds.add(fingerprint)
            self.last_productive_step = step
        if observation not in self.seen_observations:
            self.seen_observations.add(observation)
            self.last_productive_step = step
        if self._read_criteria is not None:
            criteria = self._read_criteria()
            if criteria != self.criteria:
                self.criteria, self.last_criteria_move = criteria, step
        if result.refusal is not None:
            self.refusals[result.refusal] += 1
            self.first_refusal_step = self.first_refusal_step or step

    def first_stagnant_step(self, *, tokens: int, cost: float) -> int:
        """The step from which no progress was possible (after the last step of a run that
        never stagnated); ``tokens`` and ``cost`` are the run's totals at its end."""
        return self._stagnant_at(tokens, Spend(before=self.cost_before_step, total=cost))

    def _stagnant_at(self, tokens: int, spent_cost: Spend, role_spent: int | None = None) -> int:
        """`first_stagnant_step`, the dollars spent step by step priced by the caller, which
        reads them again for the lag (`truth`): priced once per run. ``role_spent`` is the step
        during which a role's own step budget ran out, when the scenario gives roles one."""
        rule = self.scenario.stagnation
        if rule is Stagnation.FIRST_REFUSAL and self.first_refusal_step:
            return self.first_refusal_step
        if rule is Stagnation.CRITERIA:
            return self.last_criteria_move + 1
        if rule is Stagnation.BUDGET_SPENT:
            spent = self._budget_spent_at(
                Spend(before=self.tokens_before_step, total=tokens), spent_cost
            )
            return spent if role_spent is None else min(spent, role_spent)
        return self.last_productive_step + 1

    def truth(self, *, tokens: int, cost: float, sent: int, role_spent: int | None = None) -> Truth:
        """The first stagnant step and the signed lag in tokens (sent, the agent's fixed prompt
        included) and dollars of a run that ended with these totals (``role_spent``: see
        `_stagnant_at`)."""
        if self.scenario.solvable:
            return Truth(first_stagnant_step=None, lag_tokens=None, lag_cost_usd=None)
        spent_cost = Spend(before=self.cost_before_step, total=cost)
        stagnant = self._stagnant_at(tokens, spent_cost, role_spent)
        spent_sent = Spend(before=self.sent_before_step, total=sent)
        return Truth(
            first_stagnant_step=stagnant,
            lag_tokens=round(sent - spent_sent.at_start(stagnant)),
            lag_cost_usd=round(cost - spent_cost.at_start(stagnant), 6),
        )

    def steps_past_token_budget(self) -> int:
        """Steps begun after the token budget was already spent: spend the agent was told not to
        make."""
        limit = self.scenario.budget.max_tokens
        return 0 if limit is None else sum(t >= limit for t in self.tokens_before_step)

    def _budget_spent_at(self, tokens: Spend, cost: Spend) -> int:
        """The step during which a budget ran out: the step budget's last step, or the step whose
        spend reached the token or cost budget, whichever comes first — an agent that stops
        there stops on the spot (lag 0)."""
        budget = self.scenario.budget
        spent = (tokens.spent_at(budget.max_tokens), cost.spent_at(budget.max_cost_usd))
        return min([budget.max_steps, *(step for step in spent if step is not None)])
