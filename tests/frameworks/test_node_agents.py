"""What every agent in Node on an SDK (`_node_agents.AGENTS`) does alike on the wire, run
unmodified as an ``exec:`` agent with loopback only: it stops on a stuck search and finishes its
twin, a 403 is its ``BLOCKED_INPUT``, its client's own retries of a 503 are transport attempts
and never steps, and the context-window refusal reaches it as its SDK's error, on which it
compacts once, and the usage a streamed reply ends with stops a runaway on its token budget; on
each, the steps, tool calls and tokens it counted itself are the record's."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.frameworks._glue import counted_alike
from tests.frameworks._node_agents import AGENTS, NodeAgent
from tests.frameworks.exec.test_exec import NEEDS_UNSHARE
from unsolvable import Code

pytestmark = NEEDS_UNSHARE
EACH_FACE = [
    pytest.param(agent, face, id=f"{agent.sdk}-{'-'.join(face)}")
    for agent in AGENTS
    for face in agent.faces
]
EACH = [pytest.param(agent, agent.faces[0], id=agent.sdk) for agent in AGENTS]


@pytest.fixture(scope="module")
def laid(tmp_path_factory: pytest.TempPathFactory) -> Callable[[NodeAgent], Path]:
    """Lays each agent beside its packages once, as it is first asked for."""
    projects: dict[str, Path] = {}

    def lay(agent: NodeAgent) -> Path:
        if agent.sdk not in projects:
            projects[agent.sdk] = agent.project(tmp_path_factory.mktemp(agent.sdk))
        return projects[agent.sdk]

    return lay


@pytest.mark.parametrize(("agent", "face"), EACH_FACE)
@pytest.mark.parametrize(
    ("name", "code"),
    [("constant-return/repeat", Code.NO_PROGRESS), ("constant-return/twin-cursor-paging", None)],
)
def test_it_stops_on_a_stuck_search_finishes_its_twin_and_is_counted_as_it_counts_itself(
    agent: NodeAgent,
    face: tuple[str, ...],
    name: str,
    code: Code | None,
    laid: Callable[[NodeAgent], Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    record, own = agent.run(laid(agent), face, name, capsys)
    assert (record.code, record.verdict.passed) == (code or Code.COMPLETED, True)
    counted_alike(own, record)
    assert record.observed.transport_attempts == record.observed.steps


@pytest.mark.parametrize(("agent", "face"), EACH)
def test_a_refusal_is_blocked_input_naming_the_permission(
    agent: NodeAgent,
    face: tuple[str, ...],
    laid: Callable[[NodeAgent], Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    project = laid(agent)
    record, own = agent.run(project, face, "missing-permission/retry-403", capsys)
    assert (record.code, record.verdict.passed, record.observed.refusals) == (
        Code.BLOCKED_INPUT,
        True,
        {"denied": 1},
    )
    counted_alike(own, record)


@pytest.mark.parametrize(("agent", "face"), EACH_FACE)
def test_its_clients_own_retries_of_a_503_are_transport_attempts_never_steps(
    agent: NodeAgent,
    face: tuple[str, ...],
    laid: Callable[[NodeAgent], Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Each SDK's client retries a 5xx twice by itself (``maxRetries`` 2, after the
    ``retry-after-ms`` the wire asks for), as the Python SDK does: three requests, one step."""
    project = laid(agent)
    scenario = "missing-permission/retry-403"
    record, own = agent.run(project, face, scenario, capsys, transient_failures=2)
    assert (record.code, record.observed.steps, record.observed.transport_attempts) == (
        Code.BLOCKED_INPUT,
        1,
        3,
    )
    counted_alike(own, record)


@pytest.mark.parametrize(("agent", "face"), EACH_FACE)
def test_the_context_window_refusal_is_its_sdks_error_and_it_compacts_on_it(
    agent: NodeAgent,
    face: tuple[str, ...],
    laid: Callable[[NodeAgent], Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The wire's 400 reaches it as its SDK's error (the openai client's ``BadRequestError``
    with ``code`` ``context_length_exceeded``, the AI SDK's ``APICallError`` whose ``data`` is
    the parsed body), never retried, streamed or not: it compacts once on it, and so finishes
    the twin that one compaction finishes."""
    project = laid(agent)
    record, own = agent.run(project, face, "context-overflow/twin-compacts-once", capsys)
    assert (record.code, record.verdict.passed) == (Code.COMPLETED, True)
    assert record.observed.refusals == {"context_window": 1}
    counted_alike(own, record)


@pytest.mark.parametrize("agent", [pytest.param(agent, id=agent.sdk) for agent in AGENTS])
def test_the_usage_it_reads_streamed_ends_a_runaway_on_its_token_budget(
    agent: NodeAgent, laid: Callable[[NodeAgent], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """The usage a streamed reply ends with is what it keeps its token ledger with."""
    streamed = next(face for face in agent.faces if "stream" in face)
    record, own = agent.run(laid(agent), streamed, "cost-runaway/plain", capsys)
    assert (record.code, record.verdict.passed) == (Code.BUDGET_COST, True)
    counted_alike(own, record)
