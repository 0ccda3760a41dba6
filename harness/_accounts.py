"""Consumes each agent's conversations and the model's replies to them, produces what each step
costs — the tokens sent (the conversation and the tools offered), the tokens said, the agent's
own prompt among them — and each agent's share of the run.

The session owns one `Accounts` and calls it under its lock; it takes none.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from unsolvable._json import canonical_json
from unsolvable._meter import Meter
from unsolvable._model import (
    Usage,
    estimate_json_tokens,
    estimate_message_tokens,
    estimate_tokens,
    estimate_tool_tokens,
)
from unsolvable._observed import AgentTally
from unsolvable._offered import OfferedTool
from unsolvable._scenario import Pricing
from unsolvable._spend import AgentSpend
from unsolvable._tally import Counted, Tally
from unsolvable._types import JSON, ToolSpec

__all__ = ["Accounts", "Sent"]

PROMPT_ROLES = frozenset({"system", "developer"})
"""Roles of the messages that make up an agent's own prompt, as opposed to the task's."""


class _Prompt(NamedTuple):
    """An agent's own prompt as its first call sent it."""

    messages: tuple[JSON, ...]
    """Its opening system or developer messages, frozen."""
    each: tuple[int, ...]
    """Their tokens, message by message."""
    tools: int
    """Tokens of the tools it offered."""
    owed: int
    """Tokens of its opening messages its first call was not credited, until it sends them
    again."""

    @property
    def tokens(self) -> int:
        """The prompt's tokens: the agent's overhead."""
        return sum(self.each) + self.tools


class Sent(NamedTuple):
    """What a step sends, counted: its conversation and the tools it offers."""

    counted: Counted
    tools: int
    """Tokens of the scenario's tools among those offered, each as it was sent."""

    @property
    def tokens(self) -> int:
        """All the tokens the step sends."""
        return self.counted.total + self.tools


class Accounts:
    """The token accounts of one run: a `Tally` and an `AgentSpend` for each agent, their
    steps charged to the run's `Meter` and priced by the scenario's `Pricing`."""

    def __init__(
        self,
        meter: Meter,
        specs: Sequence[ToolSpec],
        pricing: Pricing,
        *,
        max_cost_usd: float | None,
    ) -> None:
        self._meter = meter
        self._spec_tokens = {spec.name: estimate_tool_tokens(spec) for spec in specs}
        """The tokens of each of the scenario's tools as its spec reads, measured once per run:
        what a tool named alone costs."""
        self._pricing = pricing
        self._max_cost_usd = max_cost_usd
        self._tallies: dict[str, Tally] = {}
        """One per agent: each agent re-sends its own conversation."""
        self._spent_by: dict[str, AgentSpend] = {}
        self._first_prompts: dict[str, _Prompt] = {}
        """Each agent's prompt as its first call sent it."""

    @property
    def cost(self) -> float:
        """Dollars of every token sent and said so far."""
        return self._pricing.cost(self._meter.input_tokens, self._meter.output_tokens)

    def begin_step(self, agent: str) -> None:
        """A step ``agent`` began: one past the dollar budget when that is spent already."""
        if self._max_cost_usd is not None and self.cost >= self._max_cost_usd:
            self._spend_of(agent).past_cost_budget += 1

    def sent(self, agent: str, messages: Sequence[JSON], offered: Sequence[OfferedTool]) -> Sent:
        """``messages`` as ``agent`` sent them, counted (`Tally.count`), and the tools
        ``offered``."""
        if agent not in self._tallies:
            self._tallies[agent] = Tally()
        return Sent(self._tallies[agent].count(messages), self._tools_tokens(offered))

    def measure(self, messages: Sequence[JSON], offered: Sequence[OfferedTool]) -> int:
        """The tokens a step sending ``messages`` and offering ``offered`` would send now
        (`Sent.tokens`), counted afresh: `Tally.count` gives every message the count it gives
        here, and no agent's tally is read or changed, so its next step counts as it would
        have."""
        return estimate_tokens(messages) + self._tools_tokens(offered)

    def _tools_tokens(self, offered: Sequence[OfferedTool]) -> int:
        """Tokens of the scenario's tools among those ``offered``, each as it was sent: a
        definition counted from its canonical JSON text, which the agent's request was read
        into once (a definition sent again unchanged is the same text, and never compared by
        ``==`` on parsed values, which takes ``1`` for ``true``), and a tool named alone as the
        scenario's spec of it. A tool the scenario does not have costs nothing: no tool of a
        framework's own is charged."""
        return sum(self._tool_tokens(tool) for tool in offered)

    def _tool_tokens(self, tool: OfferedTool) -> int:
        spec = self._spec_tokens.get(tool.name)
        if spec is None:
            return 0
        return spec if tool.definition is None else estimate_json_tokens(tool.definition)

    def charge(self, agent: str, sent: Sent, message: JSON) -> Usage:
        """The step's tokens, charged: ``sent`` in, the reply ``message`` out; the agent's own
        prompt (its opening system messages and the tools) is its overhead (`Meter.charge`)."""
        usage = Usage(input_tokens=sent.tokens, output_tokens=estimate_message_tokens(message))
        prompt, credit = self._prompt(agent, sent)
        self._meter.charge(
            agent, sent=usage.input_tokens, said=usage.output_tokens, prompt=prompt, credit=credit
        )
        self._spend_of(agent).on_step(usage.input_tokens, usage.output_tokens)
        return usage

    def _prompt(self, agent: str, sent: Sent) -> tuple[int, int]:
        """The tokens of ``agent``'s prompt as its first call sent it (its overhead), and what
        this call is credited of it: its opening messages as far as they are the first call's,
        unchanged, and the tools it offers up to the first call's.

        Only a prompt sent again is overhead: one sent once, or rewritten, is part of the task's
        spend, else a long first prompt would make every later call free. The run's first agent
        is credited its prompt from its first call, measured before any work; any other agent
        its tools on its first call, and its opening messages from its second, which makes up
        for the first call's when it sends them again: else an agent making each call under a
        new name, its conversation in its prompt, would run uncharged."""
        counted, tools = sent.counted, sent.tools
        opening = _prompt_length(counted)
        messages = counted.messages[:opening]
        first = self._first_prompts.get(agent)
        if first is None:
            each = counted.tokens[:opening]
            owed = sum(each) if self._first_prompts else 0
            first = _Prompt(messages=messages, each=each, tools=tools, owed=owed)
            self._first_prompts[agent] = first
            return first.tokens, first.tokens - owed
        same = _same_opening(messages, first.messages)
        credit = sum(counted.tokens[:same]) + min(tools, first.tools)
        if first.owed:
            self._first_prompts[agent] = first._replace(owed=0)
            credit += sum(first.each[:same])
        return first.tokens, credit

    def refused(self, agent: str) -> None:
        """A step of ``agent``'s that was refused unanswered: taken, and costing nothing."""
        self._spend_of(agent).on_step(0, 0)

    def tool_called(self, agent: str, refusal: str | None) -> None:
        self._spend_of(agent).on_tool(refusal)

    def shares(self) -> dict[str, AgentTally]:
        """Each agent's share of the run, by name."""
        cost = self._pricing.cost
        return {name: spend.tally(cost) for name, spend in sorted(self._spent_by.items())}

    def steps_past_cost_budget(self) -> dict[str, int]:
        """The steps each agent began with the dollar budget spent, for those that did."""
        return {
            name: spend.past_cost_budget
            for name, spend in sorted(self._spent_by.items())
            if spend.past_cost_budget
        }

    def _spend_of(self, agent: str) -> AgentSpend:
        if agent not in self._spent_by:
            self._spent_by[agent] = AgentSpend()
        return self._spent_by[agent]


def _prompt_length(counted: Counted) -> int:
    """How many messages make the agent's own prompt: the system or developer messages it opens
    with."""
    prompt = 0
    for message in counted.messages:
        if message.get("role") not in PROMPT_ROLES:
            break
        prompt += 1
    return prompt


def _same_opening(messages: Sequence[JSON], first: Sequence[JSON]) -> int:
    """How many of ``messages`` are, from the first on, the messages of ``first``: the same
    frozen message, or one whose canonical JSON is theirs (``==`` takes ``1`` for ``true``)."""
    same = 0
    for mine, theirs in zip(messages, first, strict=False):
        if mine is not theirs and canonical_json(mine) != canonical_json(theirs):
            break
        same += 1
    return same
