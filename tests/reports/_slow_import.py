"""An agent whose module takes seconds to import, the way a heavy framework does (AutoGen: about
5 s cold, and more on a loaded machine): longer than the batch test's whole deadline for the job
counted from before the import, so a harness that charged the import to the run would kill the
worker however fast the machine is."""

from __future__ import annotations

import time

from unsolvable import Session
from unsolvable._batch import KILL_MARGIN_SECONDS
from unsolvable._run import GRACE_SECONDS
from unsolvable.agents import contract

WALL_SECONDS = 2.0
"""The run's wall ceiling in the batch test, which gives it as a number: importing this module
waits. The contract's three steps take milliseconds of it on an idle machine."""
IMPORT_SECONDS = WALL_SECONDS + GRACE_SECONDS + KILL_MARGIN_SECONDS + 0.5
"""Past the wall ceiling, the grace and the kill margin together."""

time.sleep(IMPORT_SECONDS)


def agent(session: Session) -> object:
    return contract(session)
