"""An agent on the OpenAI Agents SDK for TypeScript (`agent.mjs`: ``@openai/agents``), run
unmodified as an ``exec:`` agent with loopback only: the SDK's own loop (``run(agent, task,
{ maxTurns })``, streamed or not) on its default model, the Responses API, and on Chat Completions
(``setOpenAIAPI('chat_completions')``), its ``MaxTurnsExceededError``, its ``toolUseBehavior``
and its client's retries on the wire; and a handoff system on it (`handoff.mjs`), two agents each
on a client of its own under ``UNSOLVABLE_AGENTS_URL``. Skipped when ``node`` or the packages
are not found (.ci/run installs them with npm, their ``node_modules/.bin`` on PATH)."""

from __future__ import annotations

from pathlib import Path

import pytest

import unsolvable
from tests.frameworks._glue import CHILD_CEILINGS, counted_alike, node_project
from tests.frameworks._node_agents import AGENTS
from tests.frameworks.exec.test_exec import NEEDS_UNSHARE
from unsolvable import Code, Outcome, scenarios
from unsolvable.adapters.process import ProcessAdapter

SDK = AGENTS[2]
FACES = SDK.faces
pytestmark = NEEDS_UNSHARE


@pytest.fixture(scope="module")
def agent(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return SDK.project(tmp_path_factory.mktemp(SDK.sdk))


@pytest.fixture(scope="module")
def handoffs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("agents-js-handoffs")
    return node_project(folder, SDK.script.with_name("handoff.mjs"), SDK.skip_if_missing())


@pytest.mark.parametrize("face", [FACES[1], FACES[2]])
def test_max_turns_at_its_step_budget_ends_a_run_on_budget_steps(
    agent: Path, face: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """``maxTurns`` set to ``max_steps`` throws ``MaxTurnsExceededError`` before a call past it."""
    record, own = SDK.run(agent, face, "forced-final-answer/plain", capsys)
    assert (record.code, record.verdict.passed, record.observed.steps) == (
        Code.BUDGET_STEPS,
        True,
        4,
    )
    counted_alike(own, record)


def test_past_its_clients_retries_the_crash_names_the_clients_error(
    agent: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record, _ = SDK.run(
        agent, FACES[0], "missing-permission/retry-403", capsys, transient_failures=3
    )
    assert (record.outcome, record.observed.transport_attempts) == (Outcome.CRASHED, 3)
    error = str(record.observed.error)
    assert "its stderr says: InternalServerError: 503 unsolvable: transient failure" in error


@pytest.mark.parametrize("face", ["responses", "chat"])
@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("role-ping-pong/handoff-bounce", Code.NO_PROGRESS),
        ("role-ping-pong/twin-handoff-converges", None),
    ],
)
def test_its_handoffs_are_each_agents_steps_and_a_bounce_stops_it(
    handoffs: Path, face: str, name: str, code: Code | None, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each agent's calls reach the wire at its own base URL, so they are its steps; the handoff
    its ``onHandoff`` tells the world of is the scenario's, so the bounce's first stagnant step is
    the scenario's own (its second ``transfer_to_producer``, step 3), where the agent stops."""
    record, own = SDK.run(handoffs, (face,), name, capsys)
    assert (record.code, record.verdict.passed) == (code or Code.COMPLETED, True)
    assert set(record.observed.steps_by_agent) == {"reviewer", "producer"}
    if code is Code.NO_PROGRESS:
        assert (record.observed.first_stagnant_step, record.observed.steps) == (3, 3)
    counted_alike(own, record)


def test_its_tracing_is_off_though_the_agent_leaves_it_on(
    agent: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The SDK exports its traces to a fixed address of OpenAI's; the harness gives every child
    ``OPENAI_AGENTS_DISABLE_TRACING=1``, so none is attempted (with loopback only, each run
    wrote three failed exports to stderr and waited 3.5 s for them)."""
    adapter = ProcessAdapter(["node", str(agent)], isolate_network=True)
    record = unsolvable.run(
        adapter, scenarios.get("constant-return/repeat"), ceilings=CHILD_CEILINGS
    )
    assert record.code is Code.NO_PROGRESS
    assert "Tracing" not in capsys.readouterr().err
