"""An agent that logs with each line's file named (``%(pathname)s``, a common format), says which
file it runs from (``__file__``), more than a record keeps of its output, then calls a library
that raises (pluggy, in site-packages): its run crashes, and its record keeps the end of what it
printed and its traceback."""

import logging

import pluggy

logging.basicConfig(format="%(pathname)s:%(lineno)d %(levelname)s %(message)s")
LINES = 40


def agent(session: object) -> None:
    for number in range(LINES):
        logging.getLogger(__name__).warning("step %d", number)
    print(f"loaded from {__file__}")
    pluggy.HookimplMarker("agent")(1)
