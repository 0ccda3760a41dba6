"""An agent on the Vercel AI SDK (`agent.mjs`: ``ai`` with ``@ai-sdk/openai`` and
``@ai-sdk/anthropic``), run unmodified as an ``exec:`` agent with loopback only: the SDK's own loop
(``generateText`` or ``streamText``, ``stopWhen``) on the OpenAI provider's default model (the
Responses API), ``openai.chat`` (Chat Completions) and the Anthropic provider (Messages), its own
retries and its own errors on the wire. Skipped when ``node`` or the packages are not found
(.ci/run installs them with npm, their ``node_modules/.bin`` on PATH)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.frameworks._glue import counted_alike
from tests.frameworks._node_agents import AGENTS
from tests.frameworks.exec.test_exec import NEEDS_UNSHARE
from unsolvable import Code, Outcome

SDK = AGENTS[1]
FACES = SDK.faces
pytestmark = NEEDS_UNSHARE


@pytest.fixture(scope="module")
def agent(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return SDK.project(tmp_path_factory.mktemp(SDK.sdk))


@pytest.mark.parametrize("face", [FACES[1], FACES[2]])
def test_its_step_limit_ends_a_run_on_budget_steps(
    agent: Path, face: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """``stopWhen: stepCountIs(max_steps)`` ends the loop with the last step's ``finishReason``
    still ``tool-calls``: the agent reads that as its step budget spent."""
    record, own = SDK.run(agent, face, "forced-final-answer/plain", capsys)
    assert (record.code, record.verdict.passed, record.observed.steps) == (
        Code.BUDGET_STEPS,
        True,
        4,
    )
    counted_alike(own, record)


@pytest.mark.parametrize("face", [FACES[0], FACES[3]])
def test_past_its_retries_the_crash_names_the_sdks_retry_error(
    agent: Path, face: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Node's report of the ``RetryError`` the agent does not catch shows every attempt's
    ``APICallError`` with its request, far more than the stderr the record keeps: the record
    still names the error, the report's first line."""
    record, _ = SDK.run(agent, face, "missing-permission/retry-403", capsys, transient_failures=3)
    assert (record.outcome, record.observed.transport_attempts) == (Outcome.CRASHED, 3)
    assert (
        "its stderr says: RetryError [AI_RetryError]: Failed after 3 attempts. Last error: "
        "AI_APICallError: unsolvable: transient failure injected by the harness "
        "(transient_failures). "
    ) in str(record.observed.error)
