"""Consumes a session's budget and what each step cost, produces the admission of the next step or
batch of tool calls: the code of the budget that cannot afford it, for every agent of a run."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable

from unsolvable._series import grown
from unsolvable._session import Session
from unsolvable._stop import Code
from unsolvable._types import JSON

__all__ = ["BudgetLedger"]


class BudgetLedger:
    """The run's budget, shared by every agent of the run: each step is admitted before it is
    dispatched, on an estimate of what it will cost, so a step the budget cannot afford (in
    steps, tokens, dollars, time or calls) never begins; what it cost is settled after. Each
    batch of external tool calls is admitted the same way."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.budget = session.budget
        self.steps = 0
        self.tokens = 0
        self.last = 0
        """Tokens of the run's last step, the estimate's base."""
        self.before_last: int | None = None
        """Tokens of the step before it in the same conversation, whose growth the estimate adds
        (``None``: its conversation had made none), as the harness estimates the next step
        (`unsolvable._series.Spend.next_step`)."""
        self._last_of: dict[Hashable, int] = {}
        """Tokens of each conversation's last step."""
        self.sent = self.said = 0
        self.last_dollars = 0.0
        """What the last step cost: about the least the next one will (a conversation grows)."""
        self.calls = 0
        """External tool calls made (the protocol's tools touch no dependency)."""
        self.changed_at = session.clock
        """The session clock when the state last visibly changed: a completion criterion moved,
        a progress figure rose. Idle time runs from here."""
        self.role_steps: Counter[str] = Counter()
        """Steps each role took: a role's own budget bounds its workers together."""

    @property
    def dollars(self) -> float:
        """Dollars spent, priced from the tokens counted (the model's list prices), not summed
        call by call: the same figure the provider's bill, and the harness, work out."""
        return self.session.pricing.cost(self.sent, self.said)

    def charge(self, reply: JSON, role: str | None = None, conversation: Hashable = "main") -> None:
        """Settles a step of ``conversation``'s (any key the caller tells its conversations
        apart by): what the model's usage says it cost."""
        usage = reply.get("usage", {})
        spent = int(usage.get("total_tokens", 0))
        self.steps += 1
        if role is not None:
            self.role_steps[role] += 1
        self.tokens += spent
        self.before_last = self._last_of.get(conversation)
        self.last = self._last_of[conversation] = spent
        sent, said = int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0))
        self.sent, self.said = self.sent + sent, self.said + said
        self.last_dollars = self.session.pricing.cost(sent, said)

    def refused(self) -> None:
        """A request the model refused (over the context window): a step, and not billed."""
        self.steps += 1

    def next_step(self) -> int:
        """The next step's tokens, as the harness estimates it: the last step's, plus what it
        grew by over its conversation's step before (`grown`)."""
        return self.last if self.before_last is None else round(grown(self.last, self.before_last))

    def exhausted(self, role: str | None = None) -> Code | None:
        """Admits the next step, or says which budget cannot afford it."""
        budget, clock = self.budget, self.session.clock  # waits on the session clock count
        if self.steps >= budget.max_steps or self.role_spent(role):
            return Code.BUDGET_STEPS
        if budget.max_tokens is not None and self.tokens + self.next_step() > budget.max_tokens:
            return Code.BUDGET_COST
        dollars = budget.max_cost_usd
        if dollars is not None and self.dollars + self.last_dollars > dollars:
            return Code.BUDGET_COST
        if budget.max_wall_seconds is not None and clock >= budget.max_wall_seconds:
            return Code.BUDGET_TIME
        idle = budget.max_idle_seconds
        if idle is not None and clock - self.changed_at >= idle:
            return Code.BUDGET_IDLE
        if budget.max_calls is not None and self.calls >= budget.max_calls:
            return Code.BUDGET_CALLS
        return None

    def affords_calls(self, calls: int) -> bool:
        limit = self.budget.max_calls
        return limit is None or self.calls + calls <= limit

    def role_spent(self, role: str | None) -> bool:
        cap = self.session.role_steps.get(role or "")
        return cap is not None and self.role_steps[role or ""] >= cap

    def fraction_left(self) -> float:
        return 1 - self.steps / self.budget.max_steps
