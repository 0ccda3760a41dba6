"""An agent whose module takes seconds to import, the way a heavy framework does (AutoGen: about
5 s cold), and whose run then takes most of its wall ceiling: the import is not the run's."""

from __future__ import annotations

import time

from unsolvable import Session
from unsolvable.agents import contract

IMPORT_SECONDS = 2.0
"""Inside the 3 s wall ceiling plus 0.9 s that the batch test's worker gets for the job."""
THINK_SECONDS = 2.5
"""Inside the run's own 3 s wall ceiling, but past the job's deadline when counted from before
the import."""

time.sleep(IMPORT_SECONDS)


def agent(session: Session) -> object:
    time.sleep(THINK_SECONDS)
    return contract(session)
