"""An agent in Node on the official ``openai`` npm package (`agent.mjs`), run unmodified as an
``exec:`` agent with loopback only: Chat Completions, streamed or not, and the Responses API, the
SDK's own retries and its error classes on the wire. Skipped when ``node`` or the package is not
found (.ci/run installs the package with npm, its ``node_modules/.bin`` on PATH)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.frameworks._node_agents import AGENTS
from tests.frameworks.exec.test_exec import NEEDS_UNSHARE
from unsolvable import Outcome

SDK = AGENTS[0]
pytestmark = NEEDS_UNSHARE


@pytest.fixture(scope="module")
def agent(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return SDK.project(tmp_path_factory.mktemp(SDK.sdk))


def test_an_error_it_does_not_catch_is_a_crash_naming_the_error_not_nodes_version(
    agent: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Past its retries the SDK throws, and Node's report of an uncaught error ends with its own
    version (``Node.js v20.20.2``): the record names the error thrown."""
    record, _ = SDK.run(
        agent, ("chat",), "missing-permission/retry-403", capsys, transient_failures=3
    )
    assert (record.outcome, record.observed.transport_attempts) == (Outcome.CRASHED, 3)
    error = str(record.observed.error)
    assert "its stderr says: InternalServerError: 503 unsolvable: transient failure" in error
