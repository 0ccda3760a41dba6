"""An agent whose module, as it is imported, silences one of its warnings and sends the rest to
`logging` (``logging.captureWarnings``), and with ``TELEMETRY=on`` starts a thread that waits for
ever, as a framework's telemetry does (`unsolvable run` then starts its workers from a fork
server, where each imports the module in its first run): it warns twice in each run and returns
no structured exit (under either of its names), and its record keeps what it logged."""

import logging
import os
import threading
import warnings

logging.basicConfig(format="logged: %(message)s")
logging.captureWarnings(True)
warnings.filterwarnings("ignore", message="this module is internal")
if os.environ.get("TELEMETRY") == "on":
    threading.Thread(target=threading.Event().wait, name="telemetry", daemon=True).start()


def agent(session: object) -> str:
    warnings.warn("this call is going away", UserWarning, stacklevel=1)
    warnings.warn("this module is internal", UserWarning, stacklevel=1)
    return "no structured exit"


also = agent
"""The same agent under a second name, loaded from the module the first one's import set up."""
