"""ATIF import: only ATIF-v1.7 as Harbor's models define it is read; each departure is named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from unsolvable import TerminationRecord, run
from unsolvable.agents import naive
from unsolvable.imports import ImportFailed, read_trace
from unsolvable.plugin.snapshot import behaviour
from unsolvable.reports._atif import to_atif
from unsolvable.reports._otel import root_agent
from unsolvable.scenarios import SCENARIOS, get


@pytest.fixture
def trajectory() -> dict[str, Any]:
    return to_atif(run(naive, get("missing-permission/retry-403"), seed=1))


def _fails(data: dict[str, Any], tmp_path: Path) -> str:
    path = tmp_path / "t.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ImportFailed) as caught:
        read_trace(path, "atif")
    return str(caught.value)


def test_the_whole_run_is_exported_and_read_back(
    trajectory: dict[str, Any], tmp_path: Path
) -> None:
    assert len(trajectory["steps"]) == 25 and trajectory["notes"].startswith("all 25 steps")
    path = tmp_path / "t.json"
    path.write_text(json.dumps(trajectory))
    trace = read_trace(path, "atif")
    assert len(trace.turns) == 25 and trace.step_bound == 7, "N=6 after seed 1's 1 step of lead"
    exported = next(step for step in trajectory["steps"] if step.get("tool_calls"))
    assert exported["tool_calls"][0]["function_name"] == "readBackground", "seed 1's dialect"
    assert trace.turns[0].calls[0].name == "readBackground"
    assert trace.turns[0].calls[0].world  # the world's fingerprint came along


def test_another_version_is_rejected_with_what_to_do(
    trajectory: dict[str, Any], tmp_path: Path
) -> None:
    message = _fails({**trajectory, "schema_version": "ATIF-v1.6"}, tmp_path)
    assert message.startswith(f"{str(tmp_path / 't.json')!r} is not an ATIF-v1.7 trajectory ")
    assert "(--format atif): its schema_version is 'ATIF-v1.6', and this importer reads " in message
    assert "ATIF-v1.7 and ATIF-v1.8 (Harbor's published models)" in message
    assert "export the run again as ATIF-v1.7" in message


def test_harbors_default_version_reads_as_the_one_it_extends(
    trajectory: dict[str, Any], tmp_path: Path
) -> None:
    """ATIF-v1.8, what Harbor writes by default, adds audio parts to v1.7 and nothing else: the
    text parts are read, the audio left."""
    step = next(step for step in trajectory["steps"] if step.get("observation"))
    audio = {"type": "audio", "source": {"media_type": "audio/wav", "path": "a.wav"}}
    step["observation"]["results"][0]["content"] = [{"type": "text", "text": "heard"}, audio]
    path = tmp_path / "t.json"
    path.write_text(json.dumps({**trajectory, "schema_version": "ATIF-v1.8"}))
    trace = read_trace(path, "atif")
    assert len(trace.turns) == len(trajectory["steps"])
    assert trace.turns[trajectory["steps"].index(step)].calls[0].result == "heard"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda t: t.update(surprise=1), "surprise is not a field of an ATIF Trajectory"),
        (lambda t: t["agent"].pop("version"), "agent.version is required"),
        (lambda t: t.update(steps=[]), "steps must be a list of at least one step"),
        (lambda t: t["steps"][1].update(step_id=7), "steps[1].step_id is 7; step ids run 1, 2"),
        (lambda t: t["steps"][0].update(source="robot"), "steps[0].source is 'robot'"),
        (
            lambda t: t["steps"][0]["observation"]["results"][0].update(source_call_id="x"),
            "steps[0].observation.results[0].source_call_id is 'x', which no tool call",
        ),
        (lambda t: t["agent"].update(role="x"), "agent.role is not a field of an ATIF Agent"),
        (
            lambda t: t["final_metrics"].update(total_turns=1),
            "final_metrics.total_turns is not a field of an ATIF FinalMetrics",
        ),
        (
            lambda t: t["steps"][0]["tool_calls"][0].update(name="x"),
            "steps[0].tool_calls[0].name is not a field of an ATIF ToolCall",
        ),
        (
            lambda t: t["steps"][0]["observation"].update(error="x"),
            "steps[0].observation.error is not a field of an ATIF Observation",
        ),
        (
            lambda t: t["steps"][0]["observation"]["results"][0].update(output="x"),
            "steps[0].observation.results[0].output is not a field of an ATIF ObservationResult",
        ),
        (lambda t: t["steps"][1].pop("message"), "steps[1].message is required"),
        (
            lambda t: t["steps"][0].update(source="user"),
            "steps[0].tool_calls is an agent's; this step's source is 'user'",
        ),
    ],
)
def test_a_departure_from_the_models_is_named(
    trajectory: dict[str, Any], tmp_path: Path, change: Any, message: str
) -> None:
    change(trajectory)
    said = _fails(trajectory, tmp_path)
    assert f"{str(tmp_path / 't.json')!r} is not a valid --format atif trace: {message}" in said
    assert said.endswith("correct the file there, or pass the --format it is written in")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda s: s[0].pop("trajectory_id"), "subagent_trajectories[0].trajectory_id is required"),
        (
            lambda s: s[1].update(trajectory_id=s[0]["trajectory_id"]),
            "subagent_trajectories[1].trajectory_id is 'contract|fan-out/plain|seed0|",
        ),
    ],
)
def test_an_embedded_trajectory_needs_an_id_of_its_own(
    tmp_path: Path, change: Any, message: str
) -> None:
    multi = to_atif(run("contract", get("fan-out/plain")))
    path = tmp_path / "t.json"
    path.write_text(json.dumps(multi))
    assert read_trace(path, "atif").turns, "the writer's own file reads back"
    change(multi["subagent_trajectories"])
    assert message in _fails(multi, tmp_path)


def test_the_whole_trajectory_rides_in_the_json_but_not_in_snapshots() -> None:
    """Worker processes and ``--json`` files carry every step, so the trace export and
    ``unsolvable report --trace-dir`` see them all; snapshots keep only the tail."""
    record = run(naive, get("constant-return/repeat"))
    assert "trajectory" not in behaviour(record)["observed"]  # type: ignore[operator]
    back = TerminationRecord.from_dict(record.to_dict())
    assert len(back.observed.trajectory) == 25 == record.observed.steps
    assert back.observed.trajectory == record.observed.trajectory
    assert len(back.observed.tail) == 6


def _turns(record: TerminationRecord) -> list[tuple[Any, ...]]:
    """The top-level agent's steps as a replay reads them: text, and each call made after."""
    steps = [s for s in record.observed.trajectory if s.agent == root_agent(record)]
    return [
        (s.said, [(t.name, json.loads(t.arguments), t.result, t.world) for t in s.tools])
        for s in steps
    ]


@pytest.mark.parametrize("agent", ["naive", "contract"])
def test_every_library_run_reads_back_as_it_was_written(agent: str, tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    for scenario in SCENARIOS:
        for seed in scenario.seeds:
            record = run(agent, scenario, seed=seed)
            path.write_text(json.dumps(to_atif(record)))
            trace = read_trace(path, "atif")
            read = [
                (t.text, [(c.name, c.arguments, c.result, c.world) for c in t.calls])
                for t in trace.turns
            ]
            assert read == _turns(record), f"{scenario.name} seed {seed}"
            assert trace.step_bound == record.step_bound
