"""The reference agents the main job runs: `naive` (how most agents ship) and `contract`.

They speak only the plain face (`Session`), as a user's own agent would.
"""

from unsolvable.agents.contract import ContractAgent, ContractThresholds, contract
from unsolvable.agents.naive import naive

BUILTIN = {"naive": naive, "contract": contract}
"""Agents the CLI knows by name."""

__all__ = ["BUILTIN", "ContractAgent", "ContractThresholds", "contract", "naive"]
