"""The source of an agent module whose import waits on what never answers (a connection made at
import), for the tests of the allowance for loading an agent, each of which lowers it."""

from __future__ import annotations

HANGS_AT_IMPORT = (
    "import threading\n\n"
    "# A guard that let the import go on fails its test after a minute, rather than hang it.\n"
    "if not threading.Event().wait(60):\n"
    "    raise RuntimeError('the load was not interrupted')\n\n\n"
    "def agent(session):\n    return None\n"
)
