"""An A2A agent in Node on the official JavaScript SDK (`@a2a-js/sdk`, `agent.mjs`), reached
through the A2A face as a real child process on loopback, over JSON-RPC streamed and answering
once, and over HTTP+JSON: it stops on a stuck search and finishes its twin, counted as it counts
itself, a refusal is its ``input-required``, and at a ceiling it hears the harness's cancel.
Skipped when ``node`` or its packages are not found (.ci/run installs them with npm, their
``node_modules/.bin`` on PATH)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("a2a")

import unsolvable
from tests.frameworks._glue import CHILD_CEILINGS, counted_alike
from tests.frameworks._node_agents import HERE, NodeAgent
from unsolvable import Ceilings, Code, Outcome, TerminationRecord, scenarios
from unsolvable.adapters.a2a import A2AAdapter

SDK = NodeAgent(
    sdk="a2a-js",
    script=HERE / "a2a_js" / "agent.mjs",
    packages=("@a2a-js/sdk", "express", "openai"),
    install="npm i @a2a-js/sdk@1.3.0 express@5.3.0 openai@7.60.0",
    faces=((), ("--no-streaming",), ("--rest",)),
)
EACH_FACE = [pytest.param(face, id="-".join(face) or "streamed") for face in SDK.faces]


@pytest.fixture(scope="module")
def agent(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return SDK.project(tmp_path_factory.mktemp(SDK.sdk))


def _run(
    agent: Path,
    face: tuple[str, ...],
    name: str,
    folder: Path,
    ceilings: Ceilings = CHILD_CEILINGS,
) -> tuple[TerminationRecord, dict[str, int]]:
    """The record of a run of ``name``, and the counts the agent kept itself (none when it was
    killed before its task rested)."""
    counts = folder / "counts.json"
    adapter = A2AAdapter(["node", str(agent), str(counts), str(folder / "canceled"), *face])
    record = unsolvable.run(adapter, scenarios.get(name), ceilings=ceilings)
    return record, json.loads(counts.read_text()) if counts.exists() else {}


@pytest.mark.parametrize("face", EACH_FACE)
@pytest.mark.parametrize(
    ("name", "code"),
    [("constant-return/repeat", Code.NO_PROGRESS), ("constant-return/twin-cursor-paging", None)],
)
def test_it_stops_on_a_stuck_search_finishes_its_twin_and_is_counted_as_it_counts_itself(
    agent: Path, face: tuple[str, ...], name: str, code: Code | None, tmp_path: Path
) -> None:
    record, own = _run(agent, face, name, tmp_path)
    assert (record.code, record.verdict.passed) == (code or Code.COMPLETED, True)
    counted_alike(own, record)


def test_a_refusal_is_input_required_naming_the_permission(agent: Path, tmp_path: Path) -> None:
    record, own = _run(agent, (), "missing-permission/retry-403", tmp_path)
    assert (record.code, record.verdict.passed, record.observed.refusals) == (
        Code.BLOCKED_INPUT,
        True,
        {"denied": 1},
    )
    assert record.reported.missing == ("publish_report: grant reports:publish",)
    counted_alike(own, record)


@pytest.mark.parametrize("face", EACH_FACE)
def test_at_a_ceiling_the_task_is_canceled_and_the_agent_hears_it(
    agent: Path, face: tuple[str, ...], tmp_path: Path
) -> None:
    """Its model call refused at the step ceiling, it waits for the cancel; answering once, its
    server gave the harness no task to cancel until the task rested, which it never did."""
    ceilings = Ceilings(max_steps=3, max_wall_seconds=60)
    record, _ = _run(agent, face, "long-healthy/16-chapters", tmp_path, ceilings)
    assert (record.outcome, record.observed.ceiling) == (Outcome.DID_NOT_STOP, "steps")
    assert (tmp_path / "canceled").read_text() == "canceled"


def test_a_task_it_ends_by_throwing_is_failed_read_as_error_fatal(
    agent: Path, tmp_path: Path
) -> None:
    """The context-window refusal reaches it as the SDK's error, which it does not catch: the
    A2A SDK fails the task with the error's message, the agent's own stop as A2A has it."""
    record, _ = _run(agent, (), "context-overflow/irreducible-document", tmp_path)
    assert (record.outcome, record.code) == (Outcome.STOPPED, Code.ERROR_FATAL)
    assert record.reported.reason.startswith("a2a task failed: Agent execution error: 400 ")
