"""Consumes the steps and tool results of a run, produces the ground truth of stagnation.

A probe observes and measures; it never stops the agent — stopping is the agent's job, and the
harness only judges it. `StagnationProbe` answers one question: from which step on was no
progress possible? The scenario picks the definition (`Stagnation`).
"""

from __future__ import annotations

from collections import Counter

from harness._scenario import Scenario, Stagnation
from harness._types import CriteriaWorld, ToolResult, World

__all__ = ["StagnationProbe"]


class StagnationProbe:
    """Tracks novelty, refusals, criteria moves and spend, step by step.

    Definitions (see `Stagnation`): ``novelty`` — after the last step with a new world state or a
    new observation; ``first_refusal`` — the first denied or unavailable call; ``criteria`` —
    after the last step that changed which criteria fail; ``budget_spent`` — the first step
    begun with the token budget spent.
    """

    def __init__(self, scenario: Scenario, world: World) -> None:
        self.scenario = scenario
        self.world = world
        self.seen_worlds = {world.fingerprint()}
        self.seen_observations: set[str] = set()
        self.last_productive_step = 0
        self.first_refusal_step: int | None = None
        self.refusals: Counter[str] = Counter()
        """Refused calls by kind (`ToolResult.refusal`)."""
        # Decided once: a Protocol isinstance check on every tool call cost 12 % of a step, and
        # only the criteria rule reads the criteria (reading them encodes them, every call).
        by_criteria = scenario.stagnation is Stagnation.CRITERIA
        read = world.criteria if by_criteria and isinstance(world, CriteriaWorld) else None
        self._read_criteria = read
        self.criteria = self._criteria()
        self.last_criteria_move = 0
        self.tokens_before_step: list[int] = []

    def _criteria(self) -> str | None:
        return None if self._read_criteria is None else self._read_criteria()

    def on_step(self, tokens_so_far: int) -> None:
        self.tokens_before_step.append(tokens_so_far)

    def on_tool(self, step: int, name: str, result: ToolResult, fingerprint: str) -> None:
        """``fingerprint`` is the world's after the call (the session computes it once)."""
        observation = f"{name}:{result.observation}"
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

    def first_stagnant_step(self) -> int:
        """The step from which no progress was possible (after the last step of a run that
        never stagnated)."""
        rule = self.scenario.stagnation
        if rule is Stagnation.FIRST_REFUSAL and self.first_refusal_step:
            return self.first_refusal_step
        if rule is Stagnation.CRITERIA:
            return self.last_criteria_move + 1
        if rule is Stagnation.BUDGET_SPENT:
            return self._first_step_over_budget()
        return self.last_productive_step + 1

    def steps_past_token_budget(self) -> int:
        """Steps begun after the token budget was already spent: spend the agent was told not to
        make."""
        limit = self.scenario.budget.max_tokens
        return 0 if limit is None else sum(t >= limit for t in self.tokens_before_step)

    def _first_step_over_budget(self) -> int:
        budget = self.scenario.budget
        first = budget.max_steps + 1
        if budget.max_tokens is not None:
            spent = (i for i, t in enumerate(self.tokens_before_step, 1) if t >= budget.max_tokens)
            first = min(first, next(spent, first))
        return first
