"""``unsolvable run --shard K/N`` then ``unsolvable merge``: N jobs of a CI matrix make the same
records, metrics, reports, baseline and gate as one unsharded run, byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_cli import _unsolvable
from unsolvable import scenarios

CHOSEN = ("--scenario", "constant-return", "missing-permission", "long-healthy", "--all-seeds")
REPORTS = ("json", "md", "html", "otel")


def _reports(folder: Path, name: str) -> tuple[str, ...]:
    return ("--json", str(folder / f"{name}.json"), "--markdown", str(folder / f"{name}.md"),
            "--html", str(folder / f"{name}.html"), "--otel", str(folder / f"{name}.otel"),
            "--trace-dir", str(folder / f"{name}-traces"))  # fmt: skip


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The unsharded run's reports and its baseline, blessed by the same command."""
    folder = tmp_path_factory.mktemp("whole")
    baseline = ("--baseline", str(folder / "baseline.json"), "--update-baseline")
    result = _unsolvable("run", *CHOSEN, *_reports(folder, "whole"), *baseline)
    assert result.returncode == 1, result.stderr  # naive fails by design
    return folder


@pytest.mark.parametrize("count", [1, 2, 3])
def test_the_shards_merged_are_the_whole_run_byte_for_byte(
    whole: Path, tmp_path: Path, count: int
) -> None:
    parts = [str(tmp_path / f"part{k}.json") for k in range(1, count + 1)]
    for k, part in enumerate(parts, start=1):
        shard = _unsolvable("run", *CHOSEN, "--shard", f"{k}/{count}", "--json", part, "-n", "2")
        assert shard.returncode in (0, 1), shard.stderr
    baseline = ("--baseline", str(tmp_path / "baseline.json"), "--update-baseline")
    merged = _unsolvable("merge", *reversed(parts), *_reports(tmp_path, "whole"), *baseline)
    assert merged.returncode == 1, merged.stderr  # as the whole run: naive's verdicts failed
    for name in (*(f"whole.{kind}" for kind in REPORTS), "baseline.json"):
        assert (tmp_path / name).read_bytes() == (whole / name).read_bytes(), name
    assert _files(tmp_path / "whole-traces") == _files(whole / "whole-traces")
    gated = _unsolvable("merge", *parts, "--baseline", str(whole / "baseline.json"))
    assert "unsolvable: baseline gate passed: " in gated.stdout


def test_each_shard_holds_its_share_of_the_step_bounds(tmp_path: Path) -> None:
    loads = []
    for k in (1, 2, 3):
        part = tmp_path / f"part{k}.json"
        _unsolvable("run", *CHOSEN, "--shard", f"{k}/3", "--json", str(part))
        records = json.loads(part.read_text())["records"]
        # the balancer weighs each run by its scenario's N (a record's counts from its seed's lead)
        loads.append(sum(scenarios.get(record["scenario"]).step_bound for record in records))
    assert max(loads) - min(loads) <= 30, loads  # no scenario of these has N above 30


@pytest.mark.parametrize(
    ("parts", "says"),
    [
        ([1, 3], "the parts are not shards 1 to 3 once each (missing 2)"),
        ([1, 2, 2, 3], "(twice 2)"),
    ],
)
def test_parts_that_are_not_every_shard_once_are_refused(
    tmp_path: Path, parts: list[int], says: str
) -> None:
    for k in set(parts):
        _unsolvable("run", "--agent", "contract", "--scenario", "oscillation", "--shard",
                    f"{k}/3", "--json", str(tmp_path / f"p{k}.json"))  # fmt: skip
    merged = _unsolvable("merge", *(str(tmp_path / f"p{k}.json") for k in parts))
    assert merged.returncode == 2 and says in merged.stderr and merged.stdout == ""


def test_a_whole_runs_file_and_shard_misuse_are_usage_errors(tmp_path: Path) -> None:
    records = tmp_path / "records.json"
    _unsolvable("run", "--agent", "contract", "--scenario", "oscillation", "--json", str(records))
    merged = _unsolvable("merge", str(records))
    assert merged.returncode == 2 and "holds no shard" in merged.stderr
    bad = _unsolvable("run", "--shard", "4/3")
    assert bad.returncode == 2 and "needs 1 ≤ K ≤ N" in bad.stderr
    gated = _unsolvable("run", "--shard", "1/3", "--baseline", str(tmp_path / "b.json"))
    assert gated.returncode == 2 and "gate on the whole run" in gated.stderr
    assert gated.stdout == ""


@pytest.mark.parametrize(
    "other",
    [
        ("--agent", "naive", "--agent", "contract", "--scenario", "oscillation"),
        ("--agent", "contract", "--agent", "naive", "--scenario", "reconfirm-as-progress"),
    ],
    ids=["agents-in-another-order", "other-scenarios-as-many"],
)
def test_shards_of_two_commands_of_as_many_runs_are_refused(
    tmp_path: Path, other: tuple[str, ...]
) -> None:
    one = ("--agent", "contract", "--agent", "naive", "--scenario", "oscillation")
    first, second = tmp_path / "p1.json", tmp_path / "p2.json"
    _unsolvable("run", *one, "--shard", "1/2", "--json", str(first))
    _unsolvable("run", *other, "--shard", "2/2", "--json", str(second))
    merged = _unsolvable("merge", str(first), str(second), "--json", str(tmp_path / "all.json"))
    assert merged.returncode == 2 and merged.stdout == "", merged.stdout
    assert "the parts were cut from different runs" in merged.stderr
    assert not (tmp_path / "all.json").exists()


def test_a_report_given_a_part_it_merges_is_refused_and_the_part_kept(tmp_path: Path) -> None:
    parts = [tmp_path / f"p{k}.json" for k in (1, 2)]
    for k, part in enumerate(parts, start=1):
        _unsolvable("run", "--agent", "contract", "--scenario", "oscillation", "--shard",
                    f"{k}/2", "--json", str(part))  # fmt: skip
    made = parts[0].read_bytes()
    merged = _unsolvable("merge", *map(str, parts), "--html", str(parts[0]))
    assert merged.returncode == 2 and "--html names " in merged.stderr, merged.stderr
    assert parts[0].read_bytes() == made


@pytest.mark.parametrize(
    ("spoil", "says"),
    [
        ("cut", "is cut short"),
        ("empty", "is empty"),
        ("stream", "a record stream (.jsonl), which a shard leaves when it is killed"),
        ("other-version", "schema_version is 99, and this harness reads"),
    ],
)
def test_a_spoilt_part_is_refused_by_name_and_nothing_is_merged(
    tmp_path: Path, spoil: str, says: str
) -> None:
    """A shard's file cut short by a failed upload, made empty, left as a killed shard's record
    stream, or written by another version: never a merged file short of its records."""
    parts = [tmp_path / f"p{k}.json" for k in (1, 2)]
    for k, part in enumerate(parts, start=1):
        _unsolvable("run", "--agent", "contract", "--scenario", "oscillation", "--shard",
                    f"{k}/2", "--json", str(part))  # fmt: skip
    spoilt, data = parts[0], json.loads(parts[0].read_text())
    if spoil == "cut":
        spoilt.write_text(spoilt.read_text()[: spoilt.stat().st_size // 2])
    elif spoil == "empty":
        spoilt.write_text("")
    elif spoil == "stream":
        spoilt = tmp_path / "p1.json.jsonl"
        spoilt.write_text("".join(json.dumps(record) + "\n" for record in data["records"]))
    else:
        data["records"][0]["schema_version"] = 99
        spoilt.write_text(json.dumps(data))
    out = tmp_path / "all.json"
    merged = _unsolvable("merge", str(spoilt), str(parts[1]), "--json", str(out))
    assert merged.returncode == 2 and merged.stdout == "", merged.stdout
    assert says in merged.stderr and repr(str(spoilt)) in merged.stderr, merged.stderr
    assert not out.exists()


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("order", [[]], 'its shard\'s "order" holds [], not [position (a whole number)]'),
        ("order", [["x"]], "its shard's \"order\" holds ['x'], not [position (a whole number)]"),
        ("index", 1.5, 'its shard\'s "index" is 1.5, not a whole number'),
        ("count", True, 'its shard\'s "count" is True, not a whole number'),
    ],
)
def test_a_part_whose_shard_tag_was_edited_is_refused_by_name(
    tmp_path: Path, field: str, value: object, says: str
) -> None:
    """A tag edited by hand, or by a tool that rewrote the JSON, is a usage error naming the
    part and the field: a key that is no run's position would stop the merge with a traceback,
    and an index of 1.5 or true would be read as shard 1."""
    parts = [tmp_path / f"p{k}.json" for k in (1, 2)]
    for k, part in enumerate(parts, start=1):
        _unsolvable("run", "--agent", "contract", "--scenario", "oscillation", "--shard",
                    f"{k}/2", "--json", str(part))  # fmt: skip
    data = json.loads(parts[0].read_text())
    if field == "order":
        data["shard"]["order"][: len(value)] = value  # type: ignore[arg-type]
    else:
        data["shard"][field] = value
    parts[0].write_text(json.dumps(data))
    out = tmp_path / "all.json"
    merged = _unsolvable("merge", *map(str, parts), "--json", str(out))
    assert merged.returncode == 2 and merged.stdout == "", merged.stdout
    assert merged.stderr == (
        f"unsolvable: error: cannot read {str(parts[0])!r} ({says}); pass the --json files that "
        "unsolvable run --shard K/N or pytest --unsolvable-shard K/N wrote\n"
    )
    assert not out.exists()


def test_a_part_of_no_records_from_another_version_is_refused_as_its_records_would_be(
    tmp_path: Path,
) -> None:
    """A part's own schema_version is read, not only its records': a shard that made no run,
    written by another version, merged where one whose record says the same is refused."""
    parts = [tmp_path / f"p{k}.json" for k in (1, 2)]
    for k, part in enumerate(parts, start=1):
        _unsolvable("run", "--agent", "contract", "--scenario", "constant-return/repeat",
                    "--shard", f"{k}/2", "--json", str(part))  # fmt: skip
    made, data = parts[0].read_text(), json.loads(parts[0].read_text())
    data["records"][0]["schema_version"] = 99
    parts[0].write_text(json.dumps(data))
    by_record = _unsolvable("merge", *map(str, parts)).stderr
    parts[0].write_text(made)
    data = json.loads(parts[1].read_text())
    assert data["records"] == []
    parts[1].write_text(json.dumps({**data, "schema_version": 99}))
    merged = _unsolvable("merge", *map(str, parts), "--json", str(tmp_path / "all.json"))
    assert merged.returncode == 2 and merged.stdout == "", merged.stdout
    assert merged.stderr == by_record.replace(repr(str(parts[0])), repr(str(parts[1])))
    assert "schema_version is 99" in merged.stderr and not (tmp_path / "all.json").exists()
