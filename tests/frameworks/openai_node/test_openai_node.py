"""An agent in Node on the official ``openai`` npm package (`agent.mjs`), run unmodified as an
``exec:`` agent with loopback only: Chat Completions, streamed or not, and the Responses API, the
SDK's own retries and its error classes on the wire. Skipped when ``node`` or the package is not
found (.ci/run installs the package with npm, its ``node_modules/.bin`` on PATH)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.frameworks._glue import counted_alike, node_modules_of, node_project, run_counted
from tests.frameworks.exec.test_exec import NEEDS_UNSHARE
from unsolvable import Code, Outcome, TerminationRecord

NODE_MODULES = node_modules_of("openai")
if shutil.which("node") is None or NODE_MODULES is None:
    pytest.skip(
        "node, or the openai npm package beside a node_modules/.bin on PATH, is missing "
        "(npm i openai@7.60.0)",
        allow_module_level=True,
    )

pytestmark = NEEDS_UNSHARE
HERE = Path(__file__).parent
FACES = ["chat", "stream", "responses"]
"""Chat Completions, the same streamed (``stream_options.include_usage``), the Responses API."""


@pytest.fixture(scope="module")
def agent(tmp_path_factory: pytest.TempPathFactory) -> Path:
    assert NODE_MODULES is not None
    return node_project(tmp_path_factory.mktemp("node-agent"), HERE / "agent.mjs", NODE_MODULES)


def _run(
    agent: Path, face: str, name: str, capsys: pytest.CaptureFixture[str], **wire: Any
) -> tuple[TerminationRecord, dict[str, int]]:
    """The record of a run of ``name`` by the agent on ``face``, and its own counts."""
    return run_counted(["node", str(agent), face], name, capsys, **wire)


@pytest.mark.parametrize("face", FACES)
@pytest.mark.parametrize(
    ("name", "code"),
    [("constant-return/repeat", Code.NO_PROGRESS), ("constant-return/twin-cursor-paging", None)],
)
def test_it_stops_on_a_stuck_search_finishes_its_twin_and_is_counted_as_it_counts_itself(
    agent: Path, face: str, name: str, code: Code | None, capsys: pytest.CaptureFixture[str]
) -> None:
    record, own = _run(agent, face, name, capsys)
    assert (record.code, record.verdict.passed) == (code or Code.COMPLETED, True)
    counted_alike(own, record)
    assert record.observed.transport_attempts == record.observed.steps


def test_a_refusal_is_blocked_input_naming_the_permission(
    agent: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record, own = _run(agent, "chat", "missing-permission/retry-403", capsys)
    assert (record.code, record.verdict.passed, record.observed.refusals) == (
        Code.BLOCKED_INPUT,
        True,
        {"denied": 1},
    )
    counted_alike(own, record)


@pytest.mark.parametrize("face", FACES)
def test_the_sdks_own_retries_of_a_503_are_transport_attempts_never_steps(
    agent: Path, face: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The SDK retries a 5xx twice by itself (``maxRetries`` 2, after the ``retry-after-ms`` the
    wire asks for), as the Python SDK does: three requests, one step."""
    record, own = _run(agent, face, "missing-permission/retry-403", capsys, transient_failures=2)
    assert (record.code, record.observed.steps, record.observed.transport_attempts) == (
        Code.BLOCKED_INPUT,
        1,
        3,
    )
    counted_alike(own, record)


@pytest.mark.parametrize("face", FACES)
def test_the_context_window_refusal_is_the_sdks_bad_request_with_its_code(
    agent: Path, face: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The agent compacts once on ``BadRequestError`` with ``code`` ``context_length_exceeded``,
    streamed or not, and so finishes the twin that one compaction finishes."""
    record, own = _run(agent, face, "context-overflow/twin-compacts-once", capsys)
    assert (record.code, record.verdict.passed) == (Code.COMPLETED, True)
    assert record.observed.refusals == {"context_window": 1}
    counted_alike(own, record)


def test_the_usage_it_reads_ends_a_runaway_on_its_token_budget(
    agent: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record, own = _run(agent, "stream", "cost-runaway/plain", capsys)
    assert (record.code, record.verdict.passed) == (Code.BUDGET_COST, True)
    counted_alike(own, record)


def test_an_error_it_does_not_catch_is_a_crash_naming_the_error_not_nodes_version(
    agent: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Past its retries the SDK throws, and Node's report of an uncaught error ends with its own
    version (``Node.js v20.20.2``): the record names the error thrown."""
    record, _ = _run(agent, "chat", "missing-permission/retry-403", capsys, transient_failures=3)
    assert (record.outcome, record.observed.transport_attempts) == (Outcome.CRASHED, 3)
    error = str(record.observed.error)
    assert "its stderr says: InternalServerError: 503 unsolvable: transient failure" in error
