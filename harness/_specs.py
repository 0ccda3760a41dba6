"""Consumes nothing, produces what an agent spec may be, in the one wording both faces' help
gives for their agent option (``unsolvable run --agent``, ``--unsolvable-agent``): kept apart
from `unsolvable._loading`, which reads specs, so that building either parser imports nothing."""

from __future__ import annotations

__all__ = ["AGENT_SPECS"]

AGENT_SPECS = (
    "naive, contract, a registered name (claude-code, codex, gemini-cli, claude-agent-sdk, "
    "llamaindex, autogen, crewai, or one an installed package registers), "
    "package.module:attribute, 'exec:COMMAND ARGS' or 'acp:COMMAND ARGS'; "
    "NAME=SPEC labels its runs NAME"
)
"""Every form `unsolvable._loading.load_agent` takes, the registered names of
`unsolvable.adapters.registry.BUILTIN_ADAPTERS` among them."""
