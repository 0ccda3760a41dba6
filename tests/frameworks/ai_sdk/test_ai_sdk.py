"""An agent on the Vercel AI SDK (`agent.mjs`: ``ai`` with ``@ai-sdk/openai`` and
``@ai-sdk/anthropic``), run unmodified as an ``exec:`` agent with loopback only: the SDK's own loop
(``generateText`` or ``streamText``, ``stopWhen``) on the OpenAI provider's default model (the
Responses API), ``openai.chat`` (Chat Completions) and the Anthropic provider (Messages), its own
retries and its own errors on the wire. Skipped when ``node`` or the packages are not found
(.ci/run installs them with npm, their ``node_modules/.bin`` on PATH)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.frameworks._glue import counted_alike, node_modules_of, node_project, run_counted
from tests.frameworks.exec.test_exec import NEEDS_UNSHARE
from unsolvable import Code, Outcome, TerminationRecord

PACKAGES = ("ai", "@ai-sdk/openai", "@ai-sdk/anthropic")
NODE_MODULES = node_modules_of("ai")
if (
    shutil.which("node") is None
    or NODE_MODULES is None
    or not all((NODE_MODULES / package / "package.json").is_file() for package in PACKAGES)
):
    pytest.skip(
        "node, or the AI SDK's npm packages beside a node_modules/.bin on PATH, are missing "
        "(npm i ai@7.0.185 @ai-sdk/openai@4.0.126 @ai-sdk/anthropic@4.0.112)",
        allow_module_level=True,
    )

pytestmark = NEEDS_UNSHARE
HERE = Path(__file__).parent
FACES = [
    ("responses", "whole"),
    ("responses", "stream"),
    ("chat", "whole"),
    ("chat", "stream"),
    ("anthropic", "whole"),
    ("anthropic", "stream"),
]
"""Each provider's model (the OpenAI provider's default, the Responses API; ``openai.chat``,
Chat Completions; the Anthropic provider, Messages) asked by ``generateText`` and ``streamText``."""


@pytest.fixture(scope="module")
def agent(tmp_path_factory: pytest.TempPathFactory) -> Path:
    assert NODE_MODULES is not None
    return node_project(tmp_path_factory.mktemp("ai-sdk-agent"), HERE / "agent.mjs", NODE_MODULES)


def _run(
    agent: Path, face: tuple[str, str], name: str, capsys: pytest.CaptureFixture[str], **wire: Any
) -> tuple[TerminationRecord, dict[str, int]]:
    """The record of a run of ``name`` by the agent on ``face``, and its own counts."""
    return run_counted(["node", str(agent), *face], name, capsys, **wire)


@pytest.mark.parametrize("face", FACES)
@pytest.mark.parametrize(
    ("name", "code"),
    [("constant-return/repeat", Code.NO_PROGRESS), ("constant-return/twin-cursor-paging", None)],
)
def test_it_stops_on_a_stuck_search_finishes_its_twin_and_is_counted_as_it_counts_itself(
    agent: Path,
    face: tuple[str, str],
    name: str,
    code: Code | None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    record, own = _run(agent, face, name, capsys)
    assert (record.code, record.verdict.passed) == (code or Code.COMPLETED, True)
    counted_alike(own, record)
    assert record.observed.transport_attempts == record.observed.steps


def test_a_refusal_is_blocked_input_naming_the_permission(
    agent: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record, own = _run(agent, FACES[0], "missing-permission/retry-403", capsys)
    assert (record.code, record.verdict.passed, record.observed.refusals) == (
        Code.BLOCKED_INPUT,
        True,
        {"denied": 1},
    )
    counted_alike(own, record)


@pytest.mark.parametrize("face", FACES)
def test_the_sdks_own_retries_of_a_503_are_transport_attempts_never_steps(
    agent: Path, face: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """The SDK retries a 5xx twice by itself (``maxRetries`` 2, after the ``retry-after-ms`` the
    wire asks for): three requests, one step."""
    record, own = _run(agent, face, "missing-permission/retry-403", capsys, transient_failures=2)
    assert (record.code, record.observed.steps, record.observed.transport_attempts) == (
        Code.BLOCKED_INPUT,
        1,
        3,
    )
    counted_alike(own, record)


@pytest.mark.parametrize("face", FACES)
def test_the_context_window_refusal_is_an_api_call_error_the_agent_compacts_on(
    agent: Path, face: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """The wire's 400 is the SDK's ``APICallError``, never retried, its body parsed into ``data``
    (OpenAI's ``code`` ``context_length_exceeded``, Anthropic's "prompt is too long"), thrown by
    ``generateText`` and given to ``streamText``'s ``onError``: the agent compacts once on it and
    so finishes the twin that one compaction finishes."""
    record, own = _run(agent, face, "context-overflow/twin-compacts-once", capsys)
    assert (record.code, record.verdict.passed) == (Code.COMPLETED, True)
    assert record.observed.refusals == {"context_window": 1}
    counted_alike(own, record)


@pytest.mark.parametrize("face", [FACES[1], FACES[2]])
def test_its_step_limit_ends_a_run_on_budget_steps(
    agent: Path, face: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """``stopWhen: stepCountIs(max_steps)`` ends the loop with the last step's ``finishReason``
    still ``tool-calls``: the agent reads that as its step budget spent."""
    record, own = _run(agent, face, "forced-final-answer/plain", capsys)
    assert (record.code, record.verdict.passed, record.observed.steps) == (
        Code.BUDGET_STEPS,
        True,
        4,
    )
    counted_alike(own, record)


def test_the_usage_it_reads_ends_a_runaway_on_its_token_budget(
    agent: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record, own = _run(agent, FACES[1], "cost-runaway/plain", capsys)
    assert (record.code, record.verdict.passed) == (Code.BUDGET_COST, True)
    counted_alike(own, record)


@pytest.mark.parametrize("face", [FACES[0], FACES[3]])
def test_past_its_retries_the_crash_names_the_sdks_retry_error(
    agent: Path, face: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Node's report of the ``RetryError`` the agent does not catch shows every attempt's
    ``APICallError`` with its request, far more than the stderr the record keeps: the record
    still names the error, the report's first line."""
    record, _ = _run(agent, face, "missing-permission/retry-403", capsys, transient_failures=3)
    assert (record.outcome, record.observed.transport_attempts) == (Outcome.CRASHED, 3)
    assert (
        "its stderr says: RetryError [AI_RetryError]: Failed after 3 attempts. Last error: "
        "AI_APICallError: unsolvable: transient failure injected by the harness "
        "(transient_failures). "
    ) in str(record.observed.error)
