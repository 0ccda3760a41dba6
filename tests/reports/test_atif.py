"""``--trace-dir``: one ATIF-v1.7 file per run where its name says, holding the shape Harbor's
models accept (sequential step ids, tool calls answered by observations of the same step, only
known keys at the top), the tail only and saying so."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import unsolvable
from tests.reports._records import library_records, record
from unsolvable import Code, Session, Stop, TraceStep, scenarios
from unsolvable.cli import main
from unsolvable.reports._atif import to_atif, trace_files

ROOT_KEYS = {
    "schema_version", "session_id", "trajectory_id", "agent", "steps", "notes", "final_metrics",
    "continued_trajectory_ref", "extra", "subagent_trajectories",
}  # fmt: skip
"""Every key of Harbor's ATIF-v1.7 ``Trajectory``; it forbids any other."""


def test_one_file_per_run_at_agent_family_variant_seed() -> None:
    runs = [record(scenario="fam/a", agent="unsolvable.agents:contract", seed=2)]
    ((path, text),) = trace_files(runs, Path("traces"))
    assert path == Path("traces/unsolvable.agents_contract/fam/a-seed2.json")
    assert json.loads(text)["schema_version"] == "ATIF-v1.7"


def test_steps_count_from_one_and_each_observation_answers_a_call_of_its_step() -> None:
    for run in library_records():
        trajectory = to_atif(run)
        assert set(trajectory) <= ROOT_KEYS
        steps = trajectory["steps"]
        assert [step["step_id"] for step in steps] == list(range(1, len(steps) + 1))
        for step in steps:
            calls = {call["tool_call_id"] for call in step.get("tool_calls", ())}
            answered = [r["source_call_id"] for r in step.get("observation", {}).get("results", ())]
            assert set(answered) == calls and len(answered) == len(calls)
            assert all(isinstance(c["arguments"], dict) for c in step.get("tool_calls", ()))


def test_the_tail_is_said_to_be_a_tail_and_the_ending_kept_in_extra() -> None:
    tail = tuple(TraceStep(step=n, said=f"step {n}") for n in (8, 9, 10))
    run = record(steps=10, stagnant=4)
    run = dataclasses.replace(run, observed=dataclasses.replace(run.observed, tail=tail))
    trajectory = to_atif(run)
    assert [step["extra"]["step"] for step in trajectory["steps"]] == [8, 9, 10]
    assert trajectory["notes"].startswith("the last 3 of 10 steps")
    assert trajectory["final_metrics"]["total_steps"] == 10
    assert trajectory["extra"]["detection_lag"]["steps"] == 6
    assert (
        trajectory["extra"]["code"] == "NO_PROGRESS" and "finish_reason" not in trajectory["extra"]
    )


def _gives_up_at_once(session: Session) -> Stop:
    return Stop(code=Code.NO_PROGRESS, reason="gave up before asking the model anything")


def test_a_run_of_no_step_says_it_made_none_not_that_its_record_kept_a_tail() -> None:
    """Its record holds every step the run made, none: the file's one step is the harness's,
    and ``total_steps`` 0 is what ATIF asks the notes to account for."""
    run = unsolvable.run(_gives_up_at_once, scenarios.get("constant-return/repeat"))
    assert run.observed.steps == 0 and run.observed.distinct_world_states is not None
    trajectory = to_atif(run)
    assert trajectory["final_metrics"]["total_steps"] == 0
    assert [step["source"] for step in trajectory["steps"]] == ["system"]
    assert trajectory["notes"] == (
        "no steps: the run made no model call; the one step here is the harness's, saying so"
    )


def test_a_case_run_twice_in_a_session_keeps_two_files_of_two_sessions() -> None:
    files = list(trace_files([record(), record(), record(seed=1)], Path("t")))
    paths = [path for path, _ in files]
    assert paths == [Path("t/a/fam/a-seed0.json"), Path("t/a/fam/a-seed0-2.json"),
                     Path("t/a/fam/a-seed1.json")]  # fmt: skip
    sessions = [json.loads(text)["session_id"] for _, text in files]
    assert sessions == ["a|fam/a|seed0", "a|fam/a|seed0|run2", "a|fam/a|seed1"]


UNSAFE_LABELS = [
    record(agent=".."),
    record(agent="."),
    record(agent=""),
    record(scenario="../a", agent="x"),
    record(scenario="./.", agent="x"),
    record(scenario="fam/..", agent="a/b"),
    record(scenario="/x", agent="..\\.."),
    record(scenario="fam/" + "w" * 300, agent="é" * 200),
    record(scenario="fam/" + "w" * 299 + "x", agent="é" * 200),
]
"""Records whose labels, taken as they are, would put a file above the trace folder or in it, or
name a file or a folder longer than a file system holds (255 bytes)."""


def test_no_label_leads_a_file_out_of_the_folder_or_onto_another() -> None:
    paths = [path for path, _ in trace_files(UNSAFE_LABELS, Path("t"))]
    assert paths[:3] == [Path("t/_/fam/a-seed0.json"), Path("t/_/fam/a-seed0-2.json"),
                         Path("t/_/fam/a-seed0-3.json")]  # fmt: skip
    assert paths[3:5] == [Path("t/x/_/a-seed0.json"), Path("t/x/_/_-seed0.json")]
    assert all(".." not in path.parts and len(path.parts) == 4 for path in paths)
    assert all(len(part.encode()) <= 255 for path in paths for part in path.parts)
    assert len(set(paths)) == len(paths)


def test_unsolvable_report_writes_every_trajectory_under_the_trace_dir(tmp_path: Path) -> None:
    records = tmp_path / "recs.json"
    records.write_text(json.dumps({"records": [r.to_dict() for r in UNSAFE_LABELS]}))
    traces = tmp_path / "out" / "traces"
    assert main(["report", str(records), "--trace-dir", str(traces)]) == 0
    written = sorted(p for p in tmp_path.rglob("*") if p.is_file() and p != records)
    assert all(path.resolve().is_relative_to(traces.resolve()) for path in written), written
    assert len(written) == len(UNSAFE_LABELS), "each run keeps a file of its own"


def test_a_control_has_no_stagnant_step_or_lag_in_its_trajectory() -> None:
    for run in library_records():
        ending = to_atif(run)["extra"]
        if run.solvable:
            assert "first_stagnant_step" not in ending and "detection_lag" not in ending
        else:
            assert ending["detection_lag"]["steps"] == run.observed.detection_lag


def test_each_sub_agent_has_a_trajectory_of_its_own() -> None:
    record = unsolvable.run("contract", scenarios.get("mixed-fan-out/one-denied"))
    atif = to_atif(record)
    subagents = atif["subagent_trajectories"]
    assert [s["agent"]["name"] for s in subagents] == [f"worker-call_1_{i}" for i in range(4)]
    assert len(atif["steps"]) == record.observed.agents["main"].steps
    mine, run_steps = len(atif["steps"]), len(record.observed.trajectory)
    assert atif["notes"].startswith(
        f"all {run_steps} steps, {mine} of them main's here, the other agents' in "
        "subagent_trajectories;"
    )
    ids = [s["trajectory_id"] for s in subagents]
    assert len(set(ids)) == len(ids), "Harbor resolves an embedded trajectory by a unique id"
    last = subagents[-1]
    assert last["extra"]["subtasks"] == {"audit supplier S-4": "failed"}
    assert [s["step_id"] for s in last["steps"]] == list(range(1, len(last["steps"]) + 1))


def test_a_sub_agent_of_a_tail_says_how_many_of_its_steps_it_holds() -> None:
    """Harbor's ``total_steps``, when it is not the number of steps, must be said in ``notes``."""
    whole = unsolvable.run("naive", scenarios.get("mixed-fan-out/one-denied"))
    tail = dataclasses.replace(whole, observed=dataclasses.replace(whole.observed, trajectory=()))
    subagents = to_atif(tail)["subagent_trajectories"]
    assert subagents, "the tail holds sub-agents' steps"
    for subagent in subagents:
        held, total = len(subagent["steps"]), subagent["final_metrics"]["total_steps"]
        if held == total:
            assert "notes" not in subagent
        else:
            assert subagent["notes"].startswith(f"the last {held} of its {total} steps")
    assert any(s["final_metrics"]["total_steps"] > len(s["steps"]) for s in subagents)


def test_a_tail_that_holds_none_of_the_top_level_agents_steps_says_whose_they_are() -> None:
    whole = unsolvable.run("naive", scenarios.get("fan-out/plain"))
    tail = dataclasses.replace(whole, observed=dataclasses.replace(whole.observed, trajectory=()))
    assert {step.agent for step in tail.observed.tail} == {"worker-8"}
    atif = to_atif(tail)
    ((step,),) = [atif["steps"]]
    assert step["source"] == "system"
    assert step["message"].startswith("none of the 6 steps the record holds is main's: they")
    assert atif["notes"].startswith(f"the last 6 of {whole.observed.steps} steps, 0 of them main's")
    assert [s["agent"]["name"] for s in atif["subagent_trajectories"]] == ["worker-8"]
