"""Consumes one agent's model and tool calls in a run of several, produces its share of the run
(`AgentTally`): what it spent and the refusals it met, as the harness counted them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from unsolvable._observed import AgentTally
from unsolvable._truth import COST_DIGITS

__all__ = ["AgentSpend"]


class AgentSpend:
    """One agent's counts while the run goes on."""

    def __init__(self) -> None:
        self.steps = self.input_tokens = self.output_tokens = self.tool_calls = 0
        self.past_cost_budget = 0
        """Steps it began with the run's dollar budget already spent."""
        self.refusals: Counter[str] = Counter()

    def on_step(self, sent: int, said: int) -> None:
        self.steps += 1
        self.input_tokens += sent
        self.output_tokens += said

    def on_tool(self, refusal: str | None) -> None:
        self.tool_calls += 1
        if refusal is not None:
            self.refusals[refusal] += 1

    def tally(self, cost: Callable[[int, int], float]) -> AgentTally:
        """Its share, priced by ``cost`` (input and output tokens to dollars)."""
        return AgentTally(
            steps=self.steps,
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            cost_usd=round(cost(self.input_tokens, self.output_tokens), COST_DIGITS),
            tool_calls=self.tool_calls,
            refusals=dict(sorted(self.refusals.items())),
        )
