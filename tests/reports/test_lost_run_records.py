"""A lost run's record (what only its worker counted reads null) read by every command that
reads records files: ``report`` of a file and of a stream, ``merge`` of shards, the baseline
gate on either side, ``import``, and a version 5 file beside version 6 records."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_cli import _unsolvable
from tests.reports.test_cli_reports import left_by_a_kill
from unsolvable._record import Observed
from unsolvable._unseen import WORKER_COUNTED

EXITS = "tests.cli.faulty_agents:exits"
EXITS_AT_ONCE = "tests.cli.faulty_agents:exits_at_once"
"""Lost before its first step: no stagnant step and no lag."""
RAISES_AT_ONCE = "tests.cli.faulty_agents:raises_at_once"
"""Ends as early, by raising: its worker lives on, and its record has a stagnant step."""
SCENARIOS = (
    "--scenario",
    "constant-return/repeat",
    "--scenario",
    "constant-return/twin-cursor-paging",
)
"""An unsolvable scenario and its solvable control: a run lost before its first step has no lag
on the one, and a lost run is a false stop on the other."""
RUN = ("run", "--agent", EXITS, "--agent", "contract", *SCENARIOS, "--no-progress")
VERSION_5_LOST = {"max_repeated_action": 0, "distinct_world_states": 1, "world_complete": False}
"""What version 5 wrote for a lost run where its `Observed` has no default."""


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``--json`` file of one run with a lost run on each scenario beside contract's."""
    out = tmp_path_factory.mktemp("whole") / "records.json"
    result = _unsolvable(*RUN, "--json", str(out))
    assert result.returncode == 1, result.stderr
    return out


def _lost(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [record for record in data["records"] if record["agent"] == EXITS]


def _unseen(record: dict[str, Any]) -> dict[str, Any]:
    return {name: record["observed"][name] for name in WORKER_COUNTED}


def test_a_report_of_a_file_or_a_stream_keeps_a_lost_runs_nulls(
    whole: Path, tmp_path: Path
) -> None:
    streamed = left_by_a_kill(whole, tmp_path / "streamed.json")
    for source, status in ((whole, 1), (streamed, 130)):
        out = tmp_path / f"{source.name}.report.json"
        result = _unsolvable("report", str(source), "--json", str(out), "--html", f"{out}.html")
        assert result.returncode == status, result.stderr
        lost = _lost(json.loads(out.read_text()))
        assert [_unseen(r) for r in lost] == [dict.fromkeys(WORKER_COUNTED)] * 2


def test_a_run_lost_before_its_first_step_is_a_premature_stop_as_a_crash_there_is(
    tmp_path: Path,
) -> None:
    """An unsolvable run ended before its first step ended before its first stagnant step,
    whether its agent raised or took its worker process down: both are premature stops, the lost
    one though its record has no stagnant step, and no lag, to show it by."""
    out = tmp_path / "records.json"
    agents = ("--agent", EXITS_AT_ONCE, "--agent", RAISES_AT_ONCE)
    result = _unsolvable("run", *agents, *SCENARIOS, "--no-progress", "--json", str(out))
    assert result.returncode == 1, result.stderr
    groups = json.loads(out.read_text())["metrics"]["scenarios"]
    premature = {
        group["agent"]: (group["premature_stops"], group["lag_steps"])
        for group in groups
        if group["name"] == "constant-return/repeat"
    }
    assert premature == {
        EXITS_AT_ONCE: (1, None),
        RAISES_AT_ONCE: (1, {"count": 1, "max": -1, "p50": -1, "p95": -1}),
    }


def test_shards_holding_lost_runs_merge_into_the_bytes_of_one_run(
    whole: Path, tmp_path: Path
) -> None:
    parts = [tmp_path / f"part{k}.json" for k in (1, 2)]
    for k, part in enumerate(parts, start=1):
        _unsolvable(*RUN, "--shard", f"{k}/2", "--json", str(part))
    merged = tmp_path / "merged.json"
    result = _unsolvable("merge", *map(str, parts), "--json", str(merged), *_exports(tmp_path, "m"))
    assert result.returncode == 1, result.stderr
    assert merged.read_bytes() == whole.read_bytes()
    assert _unsolvable("report", str(whole), *_exports(tmp_path, "w")).returncode == 1
    assert (tmp_path / "m.otel").read_bytes() == (tmp_path / "w.otel").read_bytes()
    assert _files(tmp_path / "m") == _files(tmp_path / "w") != {}


def _exports(folder: Path, name: str) -> tuple[str, ...]:
    """The spans and the trajectories, which a lost run holds as its error and its counts."""
    return ("--otel", str(folder / f"{name}.otel"), "--trace-dir", str(folder / name))


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def _gate(agent: str, baseline: Path, *flags: str) -> Any:
    """``run`` of one agent under the label ``x``, so that both sides of the gate are one
    agent's: once it finishes, once its worker is lost."""
    return _unsolvable("run", "--agent", f"x={agent}", *SCENARIOS, "--baseline", str(baseline),
                       "--no-progress", *flags)  # fmt: skip


def _named(side: str) -> str:
    """The gate's line for the lost run of the unsolvable scenario, lost on ``side``."""
    return (
        "  - scenario constant-return/repeat seed 0 × x: its lag was not compared, its worker "
        f"lost {side} (a run lost before its first step has no lag)"
    )


def test_the_baseline_gate_reads_a_lost_run_on_either_side(tmp_path: Path) -> None:
    """Blessed lost before its first step, the lag is null, not 0: the gate passes and names the
    run it could not compare, as it counts the groups it could not; gated lost against a
    finished baseline, the control it did not finish is a false stop the gate finds, and the lag
    it lost is named."""
    lost_baseline, finished_baseline = tmp_path / "lost.json", tmp_path / "finished.json"
    assert _gate(EXITS_AT_ONCE, lost_baseline, "--update-baseline").returncode == 1
    blessed = json.loads(lost_baseline.read_text())["agents"]["x"]
    assert (
        blessed["agent"]["all"]["lag_steps_p95"],
        blessed["agent"]["all"]["false_stop_rate"],
    ) == (None, 1.0)
    assert blessed["scenario"]["constant-return/repeat"]["lost_seeds"] == [0]
    summary = tmp_path / "summary.md"
    then_finished = _gate("contract", lost_baseline, "--markdown", str(summary))
    assert then_finished.returncode == 0, then_finished.stdout + then_finished.stderr
    lines = then_finished.stdout.splitlines()
    gated = next(i for i, line in enumerate(lines) if "baseline gate passed" in line)
    assert lines[gated].endswith("; the lag of 1 run was not compared, a worker lost:")
    assert lines[gated + 1 :] == [
        _named("in the baseline's run"),
        "  a lost run's lag is compared once the run finishes on both sides: run it again, and "
        "rewrite a baseline blessed on a lost run with --update-baseline",
    ]
    assert _named("in the baseline's run").strip() in summary.read_text().splitlines()
    assert _gate("contract", finished_baseline, "--update-baseline").returncode == 0
    then_lost = _gate(EXITS_AT_ONCE, finished_baseline)
    assert then_lost.returncode == 1, then_lost.stderr
    assert "  - all runs × x: false_stop_rate 0 → 1 (allowed up to 0)" in then_lost.stdout
    assert _named("in this run") in then_lost.stdout.splitlines()


def test_importing_a_lost_runs_record_or_trace_is_refused_as_a_lost_runs(
    whole: Path, tmp_path: Path
) -> None:
    """Its worker took its model's answers with it: there is nothing to replay, said as a usage
    error that names the lost run and what to import instead, not a traceback."""
    traces = tmp_path / "traces"
    assert _unsolvable("report", str(whole), "--trace-dir", str(traces)).returncode == 1
    (trace,) = (traces / EXITS.replace(":", "_") / "constant-return").glob("repeat-seed0.json")
    exported = json.loads(trace.read_text())
    assert exported["extra"]["worker_lost"] is True
    assert exported["steps"][0]["message"] == (
        "none of its 1 step(s) recorded: its worker process was lost (crashed)"
    )
    for form, source in (("record", whole), ("atif", trace)):
        result = _unsolvable("import", "--format", form, "--name", "lost/run", "--record", "0",
                             str(source), "-o", str(tmp_path / f"{form}.json"))  # fmt: skip
        assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
        run = f"constant-return/repeat seed 0 × {EXITS}"
        assert f"{str(source)!r} holds a lost run (" in result.stderr, result.stderr
        assert (
            run in result.stderr
            and "its worker process was lost, so the harness counted "
            "its 1 step(s) but saw none of its model's answers, and every figure its worker "
            "counted is null; there is nothing to replay. Run that agent on that scenario "
            "again until the run finishes"
            in result.stderr
        )


def _as_version_5(record: dict[str, Any], seed: int, **observed: Any) -> dict[str, Any]:
    """A lost run's record as version 5 wrote it: its seed moved, so that it is a run of its
    own, and every figure its worker counted at the zero, one or false it was given; the rest
    of ``observed`` as given."""
    defaults = {
        f.name: VERSION_5_LOST.get(f.name, f.default)
        if f.default_factory is dataclasses.MISSING
        else f.default_factory()
        for f in dataclasses.fields(Observed)
        if f.name in WORKER_COUNTED
    }
    old = json.loads(json.dumps(record))
    old["observed"].update(json.loads(json.dumps({**defaults, **observed})))
    return {**old, "schema_version": 5, "seed": seed}


EARLIEST_VERSION_5 = {
    "steps": 0,
    "tool_calls": 0,
    "input_tokens": 0,
    "output_tokens": 0,
    "cost_usd": 0.0,
    "first_stagnant_step": 1,
    "lag_tokens": 0,
    "lag_cost_usd": 0.0,
}
"""What version 5 wrote of an unsolvable lost run before it counted what the harness admitted:
step 0, and a stagnant step at 1 that no one saw, a lag of -1 made up."""


def test_a_version_5_lost_run_reads_as_a_lost_run_beside_version_6_records(
    whole: Path, tmp_path: Path
) -> None:
    """Only what version 5's lost run record held tells it apart, and it does for certain: its
    worker's text and no traceback. Its figures read null; a crash the agent raised (its
    traceback kept) keeps the same zeros, as its worker counted them."""
    data = json.loads(whole.read_text())
    repeat, control = _lost(data)
    older = [
        _as_version_5(repeat, 1),
        _as_version_5(control, 1),
        _as_version_5(repeat, 2, **EARLIEST_VERSION_5),
        _as_version_5(repeat, 3, traceback="ValueError: the worker process exited"),
    ]
    mixed = tmp_path / "mixed.json"
    mixed.write_text(json.dumps({"records": [*data["records"], *older]}))
    out = tmp_path / "report.json"
    result = _unsolvable("report", str(mixed), "--json", str(out), "--markdown", f"{out}.md")
    assert result.returncode == 1, result.stderr
    assert "unsolvable: 8 runs, 2 passed, 6 failed" in result.stdout
    report = json.loads(out.read_text())
    read = _lost(report)
    assert [(r["schema_version"], _unseen(r) == dict.fromkeys(WORKER_COUNTED)) for r in read] == [
        (6, True),
        (6, True),
        (5, True),
        (5, True),
        (5, True),
        (5, False),
    ]
    assert read[4]["observed"]["first_stagnant_step"] is None
    assert read[4]["observed"]["detection_lag"] is None
    assert _unseen(read[5]) == _unseen(older[3])
    (lost_agent,) = [g for g in report["metrics"]["agents"] if g["agent"] == EXITS]
    # the lags counted: this run's lost run's, as it stood, and the crash that kept its traceback
    assert lost_agent["lag_steps"]["count"] == 2, "the lag of -1 version 5 made up counts nowhere"
