"""The `contract` agent: a ReAct loop that implements the termination contract of DESIGN.md.

It stops on evidence, not on a cap: an identical action that keeps bringing nothing new (after
telling the model so once: two-level detection, hint first), observations that stopped being new,
completion criteria that stopped moving while no new information arrived, a denied permission
retried (``BLOCKED_INPUT`` naming it), a dependency that stays down, a model that gives up.
Waiting on a job or a recovering dependency is not stagnation: it spends an idle budget instead.
An action that cannot be undone goes to a person (``NEEDS_HUMAN``); a record that does not exist
blocks once it is looked up twice; a prompt that does not fit the context window is compacted
once, and abandoned when it still does not fit. One budget ledger — steps, tokens, dollars,
total and idle time, external calls — shared by a supervisor and all its workers, is checked
before every model call and every batch of tool calls, and completion is never claimed without
re-reading the system of record.
"""

from __future__ import annotations

from unsolvable._session import Session
from unsolvable._stop import Stop
from unsolvable._types import CHECK_TOOL, DELEGATE_TOOL
from unsolvable.agents._budget_ledger import BudgetLedger
from unsolvable.agents._contract_run import ContractRun
from unsolvable.agents._thresholds import ContractThresholds, Terms

__all__ = ["ContractAgent", "ContractThresholds", "contract"]


class ContractAgent:
    """The reference agent.

    ``verifier`` names the tool that re-reads the system of record; ``delegate`` the tool whose
    calls hand a subtask to a worker (run as another contract on the same budget ledger).
    """

    def __init__(
        self,
        thresholds: ContractThresholds | None = None,
        *,
        verifier: str = CHECK_TOOL,
        delegate: str = DELEGATE_TOOL,
        name: str = "contract",
    ) -> None:
        self.thresholds = thresholds or ContractThresholds()
        self.verifier, self.delegate, self.name = verifier, delegate, name

    def __call__(self, session: Session) -> Stop:
        terms = Terms(thresholds=self.thresholds, verifier=self.verifier, delegate=self.delegate)
        return ContractRun(terms, session, BudgetLedger(session), "main").go()


contract = ContractAgent()
