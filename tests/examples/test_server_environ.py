"""The wire's page lists what the loopback server's ``environ()`` gives a child process: every
variable by name, the keys (which are fake) together."""

from __future__ import annotations

import re

import unsolvable
from tests._docs import ROOT, TEXTS
from unsolvable import Code, Session, Stop, scenarios
from unsolvable.wire import Wire

SENTENCE = TEXTS[ROOT / "docs" / "frameworks.md"].partition("`server.environ()` gives ")[2]
NAMED = re.findall(r"`([A-Z_]+)`", SENTENCE.partition(", which")[0])
KEYS = "_API_KEY"
"""The end of each key's name: the page says "fake keys" rather than name each."""


def test_the_page_names_every_variable_the_server_gives() -> None:
    given: dict[str, str] = {}

    def agent(session: Session) -> Stop:
        with Wire(session) as wire, wire.serve() as server:
            given.update(server.environ())
        return Stop(code=Code.NEEDS_HUMAN, reason="only looked")

    unsolvable.run(agent, scenarios.get("constant-return/repeat"))
    assert sorted(NAMED) == sorted(name for name in given if not name.endswith(KEYS))
