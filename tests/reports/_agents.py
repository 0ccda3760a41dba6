"""Agents the report and batch tests load by ``module:attr`` path."""

from __future__ import annotations

import os

from unsolvable import Session


def exits(session: Session) -> None:
    """Kills its own process, the way a segfaulting extension would."""
    os._exit(3)
