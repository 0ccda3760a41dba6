"""An agent that, in each run, adds a handler to the root logger and one to its module's logger
(made as the module is imported), logs once, and switches logging off on its way out
(``logging.disable``): if a run kept what the runs before it in its worker configured, only a
worker's first run would log. It returns no structured exit, and its record keeps what it
logged: the one line, through each of the two handlers."""

import logging
import sys

log = logging.getLogger("reconfiguring")


def agent(session: object) -> str:
    logging.getLogger().addHandler(logging.StreamHandler(sys.stderr))
    log.addHandler(logging.StreamHandler(sys.stderr))
    log.warning("this run logs once")
    logging.disable(logging.CRITICAL)
    return "no structured exit"
