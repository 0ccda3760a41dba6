"""``--trace-dir`` given a folder that holds an earlier run's trajectories: they never read as
this run's, and nothing else kept there is touched."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_cli import _unsolvable
from tests.reports._records import record

INTERRUPTED = 130


def _report(tmp_path: Path, name: str, seeds: list[int], *, interrupted: bool = False) -> str:
    """``unsolvable report`` of records of ``seeds``, trajectories to ``tmp_path/traces``; the
    line that says where they went."""
    records = tmp_path / f"{name}.json"
    data = {"records": [record(seed=seed).to_dict() for seed in seeds]}
    records.write_text(json.dumps({**data, "interrupted": interrupted}))
    result = _unsolvable("report", str(records), "--trace-dir", str(tmp_path / "traces"))
    assert result.returncode == (INTERRUPTED if interrupted else 0), result.stderr
    (line,) = (line for line in result.stdout.splitlines() if "ATIF" in line)
    return line


def _files(folder: Path) -> list[str]:
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*") if path.is_file())


def test_an_earlier_runs_trajectories_are_replaced_and_nothing_else(tmp_path: Path) -> None:
    """Seed 1 is no longer run: its trajectory goes with the run that wrote it; a note, another
    JSON file and a folder of the user's stay, and so does a trajectory a link leads to."""
    _report(tmp_path, "before", [0, 1])
    traces = tmp_path / "traces"
    kept = {"README.md": "mine", "a/notes.json": "{}", "a/fam/mine.json": '{"extra": {}}'}
    for name, text in kept.items():
        (traces / name).write_text(text)
    (traces / "b" / "fam").mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere" / "fam"
    elsewhere.mkdir(parents=True)
    (elsewhere / "a-seed1.json").write_text((traces / "a" / "fam" / "a-seed1.json").read_text())
    (traces / "linked").symlink_to(elsewhere.parent)
    line = _report(tmp_path, "after", [0])
    assert _files(traces) == sorted([*kept, "a/fam/a-seed0.json"])
    assert (traces / "b" / "fam").is_dir() and (elsewhere / "a-seed1.json").exists()
    assert line == (
        f"unsolvable: wrote ATIF trajectories of 1 run to {traces}, removing 1 file of an "
        "earlier run"
    )


def test_an_interrupted_session_never_replaces_more_trajectories_than_it_writes(
    tmp_path: Path,
) -> None:
    _report(tmp_path, "whole", [0, 1, 2])
    traces, partial = tmp_path / "traces", tmp_path / "traces.partial"
    line = _report(tmp_path, "cut", [0], interrupted=True)
    assert _files(traces) == [f"a/fam/a-seed{seed}.json" for seed in (0, 1, 2)]
    assert _files(partial) == ["a/fam/a-seed0.json"]
    assert line == (
        f"unsolvable: kept the larger {traces}; wrote ATIF trajectories of 1 run to {partial}"
    )


def test_a_session_of_no_run_names_no_folder_as_written_to(tmp_path: Path) -> None:
    """A records file of no run said "kept the larger traces; wrote ATIF trajectories of 0
    runs to traces.partial", a folder never made; where there was none, it named
    ``--trace-dir``, not made either."""
    line = _report(tmp_path, "none", [])
    assert line == "unsolvable: wrote no ATIF trajectory: there was no run"
    assert not (tmp_path / "traces").exists()
    _report(tmp_path, "whole", [0, 1])
    line = _report(tmp_path, "none", [])
    traces = tmp_path / "traces"
    assert (
        line == f"unsolvable: kept the larger {traces}; wrote no ATIF trajectory: there was no run"
    )
    assert _files(traces) == ["a/fam/a-seed0.json", "a/fam/a-seed1.json"]
    assert not (tmp_path / "traces.partial").exists()


def test_the_shards_of_one_run_keep_each_others_trajectories(tmp_path: Path) -> None:
    """Shards run one after another into one folder (a matrix's jobs sharing a workspace): each
    writes a part of its whole run's trajectories, and none removes another's."""
    traces = tmp_path / "traces"
    for shard in ("1/2", "2/2"):
        result = _unsolvable(
            "run", "--agent", "naive", "--scenario", "constant-return/repeat", "--all-seeds",
            "--shard", shard, "--json", str(tmp_path / f"part{shard[0]}.json"),
            "--trace-dir", str(traces),
        )  # fmt: skip
        assert result.returncode == 1, result.stderr
        assert "removing" not in result.stdout
    seeds = (0, 1, 2)
    assert _files(traces) == [f"naive/constant-return/repeat-seed{seed}.json" for seed in seeds]
