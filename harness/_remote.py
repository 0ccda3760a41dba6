"""Consumes nothing, produces how an agent spec, and the label of a run it names, say that the
agent runs in a process of its own: what `unsolvable._loading` reads a spec by, the adapters
label their runs with, and the reports read a run's label by."""

from __future__ import annotations

__all__ = ["A2A_PREFIX", "ACP_PREFIX", "EXEC_PREFIX", "REMOTE_PREFIXES"]

EXEC_PREFIX = "exec:"
"""An agent spec starting with this runs the rest as a program (`unsolvable.adapters.process`)."""
ACP_PREFIX = "acp:"
"""An agent spec starting with this runs the rest as an ACP agent (`unsolvable.adapters.acp`)."""
A2A_PREFIX = "a2a:"
"""How an A2A agent's run is labelled when no name is given (`unsolvable.adapters.a2a`)."""
REMOTE_PREFIXES = (EXEC_PREFIX, ACP_PREFIX, A2A_PREFIX)
"""How the label of an agent in a process of its own begins when its spec or adapter named it:
a program, an ACP agent the harness talks to as its editor, an A2A agent's server."""
