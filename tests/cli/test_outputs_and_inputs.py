"""What ``unsolvable`` writes and reads, against paths and files that would turn it on its user:
links, a second run on the same path, a full disk, a baseline changed during the run, NaN,
inputs that are no files or no JSON, names with escapes, agent text with terminal escapes."""

from __future__ import annotations

import json
import os
import re
import shlex
import socket
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.cli.test_cli import ROOT, _unsolvable

HOSTILE = "tests.cli.hostile_agents"
REPEAT = ("--scenario", "constant-return/repeat")
USAGE, UNWRITTEN = 2, 3
SCENARIO_FILE = {
    "schema": "unsolvable-scenario/1",
    "task": "Find the customer's open ticket and close it.",
    "tools": [{"name": "search_tickets", "parameters": {"type": "object"}}],
    "script": {"prefix": [], "cycle": [{"text": "again", "calls": [{"name": "search_tickets"}]}]},
    "answers": [{"tool": "search_tickets", "arguments": {}, "results": [{"text": "{}"}]}],
    "unrecorded": {"answer": "unknown"},
    "ground_truth": {"stagnation": "novelty", "first_stagnant_step": 2, "why": "the same page"},
    "expected": ["NO_PROGRESS"],
    "step_bound": 12,
}
"""The README's hand-written scenario file, less its name."""


def _can_mount() -> bool:
    try:
        command = ["unshare", "-rm", "true"]
        return subprocess.run(command, capture_output=True, check=False).returncode == 0
    except OSError:
        return False


def test_a_linked_stream_path_refuses_the_run_and_its_target_is_untouched(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (tmp_path / "out.json.jsonl").symlink_to(victim)
    result = _unsolvable(
        "run", "--agent", "contract", *REPEAT, "--json", str(tmp_path / "out.json")
    )
    assert result.returncode == USAGE and "out.json.jsonl' exists" in result.stderr
    assert victim.read_text() == "precious"


def _special_files(folder: Path) -> list[Path]:
    """A named pipe, and where the user may make one (root, in a container), a character
    device: /dev/null's, at a path of ``folder``."""
    os.mkfifo(folder / "pipe")
    specials = [folder / "pipe"]
    if os.geteuid() == 0:
        os.mknod(folder / "null", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        specials.append(folder / "null")
    return specials


def test_a_device_or_pipe_at_a_report_path_refuses_the_run_and_stays(tmp_path: Path) -> None:
    """``--json /dev/null``, run as root, would rename a file over /dev/null itself."""
    specials = _special_files(tmp_path)
    for special, flag in zip(specials, ("--json", "--markdown"), strict=False):
        result = _unsolvable("run", "--agent", "contract", *REPEAT, flag, str(special))
        assert result.returncode == USAGE and result.stdout == "", result.stderr
        assert f"{flag} {str(special)!r} cannot be written (it is a " in result.stderr
        assert not stat.S_ISREG(special.stat().st_mode)
    assert sorted(tmp_path.iterdir()) == sorted(specials)


def test_a_linked_report_path_is_replaced_never_written_through(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (tmp_path / "out.json").symlink_to(victim)
    result = _unsolvable(
        "run", "--agent", "contract", *REPEAT, "--json", str(tmp_path / "out.json")
    )
    assert result.returncode == 0 and victim.read_text() == "precious"
    assert json.loads((tmp_path / "out.json").read_text())["records"]


def test_a_second_run_on_the_same_path_is_refused_and_the_first_keeps_its_stream(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out.json"
    command = [
        sys.executable, "-m", "unsolvable.cli", "run", "--agent", f"{HOSTILE}:held",
        "--scenario", "constant-return", "--json", str(out), "--no-progress",
    ]  # fmt: skip
    hold = _Hold(tmp_path / "hold")
    environ = {**os.environ, "HOSTILE_HOLD": str(hold.path)}
    with (
        hold,
        subprocess.Popen(
            command, cwd=ROOT, env=environ, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        ) as first,
    ):
        try:
            assert hold.reached.wait(300), "the first run's agent never began"
            second = _unsolvable("run", "--agent", "contract", *REPEAT, "--json", str(out))
            assert second.returncode == USAGE and "another run is streaming" in second.stderr
        finally:
            hold.release()
            try:
                first.communicate(timeout=300)
            finally:
                first.kill()  # a hung run ends here, reaped as the with block ends
    assert first.returncode != USAGE and len(json.loads(out.read_text())["records"]) > 1


class _Hold:
    """A Unix socket the ``held`` agent waits on, each run, until `release`: the first run is
    under way (`reached`) and stays so while the test starts a second one."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.reached = threading.Event()
        self._released = threading.Event()
        self._socket = socket.socket(socket.AF_UNIX)
        self._socket.bind(str(path))
        self._socket.listen()
        self._answering = threading.Thread(target=self._answer, daemon=True)

    def __enter__(self) -> _Hold:
        self._answering.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
        self._socket.shutdown(socket.SHUT_RDWR)  # ends the accept under way
        self._socket.close()
        self._answering.join()

    def release(self) -> None:
        self._released.set()

    def _answer(self) -> None:
        while True:
            try:
                connection, _ = self._socket.accept()
            except OSError:
                return
            with connection:
                self.reached.set()
                self._released.wait()
                connection.sendall(b"x")


def _on_a_full_disk(disk: Path, script: str) -> subprocess.CompletedProcess[str]:
    """``script`` run in a mount namespace of its own, with a 12 kB tmpfs mounted on ``disk``:
    a disk that fills up after the first few records."""
    mounted = f"mount -t tmpfs -o size=12k tmpfs {disk} && {script}"
    return subprocess.run(
        ["unshare", "-rm", "sh", "-c", mounted],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.skipif(not _can_mount(), reason="needs unshare -rm (Linux user namespaces)")
def test_a_full_disk_is_one_line_and_its_own_status_keeping_what_was_written(
    tmp_path: Path,
) -> None:
    disk = tmp_path / "disk"
    disk.mkdir()
    run = shlex.join([sys.executable, "-m", "unsolvable.cli", "run", "--agent", "contract",
                      "--scenario", "constant-return", "--json", f"{disk}/out.json"])  # fmt: skip
    script = f"printf old > {disk}/out.json && {run}"
    script += f"; status=$?; cat {disk}/out.json; echo; wc -c < {disk}/out.json.jsonl; exit $status"
    result = _on_a_full_disk(disk, script)
    assert result.returncode == UNWRITTEN, result.stderr
    assert "Traceback" not in result.stderr and "No space left on device" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    kept = r"(is|are) kept \(it stopped at \d+ of 12: cannot write .*\.jsonl"
    assert re.search(kept, result.stderr)
    *_, table_end, old, streamed = result.stdout.strip().splitlines()
    assert "unsolvable: " in table_end and old == "old" and int(streamed) > 0


@pytest.mark.skipif(not _can_mount(), reason="needs unshare -rm (Linux user namespaces)")
@pytest.mark.parametrize("command", ["report", "merge"])
def test_a_full_disk_in_report_and_merge_is_their_own_status_as_in_run(
    tmp_path: Path, command: str
) -> None:
    """3, not a usage error: the records were fine, the place to write them was full."""
    disk, shard = tmp_path / "disk", ("--shard", "1/1") if command == "merge" else ()
    disk.mkdir()
    records = tmp_path / "records.json"
    made = _unsolvable("run", "--agent", "contract", "--scenario", "constant-return", *shard,
                       "--json", str(records))  # fmt: skip
    assert made.returncode == 0, made.stderr
    report = shlex.join([sys.executable, "-m", "unsolvable.cli", command, str(records),
                         "--json", f"{disk}/out.json"])  # fmt: skip
    result = _on_a_full_disk(disk, report)
    assert result.returncode == UNWRITTEN, result.stderr
    assert "Traceback" not in result.stderr and "No space left on device" in result.stderr
    assert result.stdout.strip().splitlines()[-1].startswith("unsolvable: 12 runs, 12 passed")


def test_a_baseline_removed_during_the_run_still_gates_it(tmp_path: Path) -> None:
    baseline, out = tmp_path / "baseline.json", tmp_path / "out.json"
    agent = f"{HOSTILE}:removes_the_baseline"
    assert _unsolvable("run", "--agent", agent, *REPEAT, "--baseline", str(baseline),
                       "--update-baseline").returncode == 0  # fmt: skip
    result = subprocess.run(
        [sys.executable, "-m", "unsolvable.cli", "run", "--agent", agent, *REPEAT,
         "--baseline", str(baseline), "--json", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
        env={**os.environ, "HOSTILE_BASELINE": str(baseline)},
    )  # fmt: skip
    assert result.returncode == 0 and "baseline gate passed" in result.stdout
    assert not baseline.exists() and json.loads(out.read_text())["records"]


@pytest.mark.parametrize(
    ("value", "said"),
    [("NaN", "holds NaN"), ("Infinity", "holds Infinity"), ("1e999", "inf is not finite")],
)
def test_a_baseline_number_that_is_not_finite_is_a_usage_error(
    tmp_path: Path, value: str, said: str
) -> None:
    baseline = tmp_path / "baseline.json"
    assert _unsolvable("run", "--agent", "contract", *REPEAT, "--baseline", str(baseline),
                       "--update-baseline").returncode == 0  # fmt: skip
    text = baseline.read_text()
    baseline.write_text(text.replace('"lag_steps_p95": 1', f'"lag_steps_p95": {value}', 1))
    result = _unsolvable("run", "--agent", "contract", *REPEAT, "--baseline", str(baseline))
    assert result.returncode == USAGE and said in result.stderr


@pytest.mark.parametrize("rate", ["1.5", "-0.25"])
def test_a_baseline_rate_that_is_no_share_is_a_usage_error(tmp_path: Path, rate: str) -> None:
    """A false-stop rate is a share of the control runs: a hand-edited 1.5 would pass every
    rate the run measured, and -0.25 fail every one, as the margins above 1 are refused for."""
    baseline = tmp_path / "baseline.json"
    family = ("--agent", "contract", "--scenario", "constant-return")
    assert _unsolvable("run", *family, "--baseline", str(baseline),
                       "--update-baseline").returncode == 0  # fmt: skip
    text = baseline.read_text()
    assert '"false_stop_rate": 0.0' in text
    baseline.write_text(text.replace('"false_stop_rate": 0.0', f'"false_stop_rate": {rate}', 1))
    out = tmp_path / "records.json"
    result = _unsolvable("run", *family, "--baseline", str(baseline), "--json", str(out))
    assert (result.returncode, result.stdout) == (USAGE, "")
    assert (
        f".false_stop_rate = {rate} is not a share of the control runs, 0 to 1, or null; correct "
        "it, or rewrite the file with --update-baseline"
    ) in result.stderr
    assert not out.exists()


def test_a_baseline_missing_a_figure_is_a_usage_error_before_any_run(tmp_path: Path) -> None:
    """naive false-stops one of long-healthy's two controls; blessed as contract, which stops
    none, the gate failed it, and with the baseline's false_stop_rate deleted by hand it passed,
    the rate skipped as one the groups do not have."""
    baseline = tmp_path / "baseline.json"
    family = ("--scenario", "long-healthy", "--baseline", str(baseline))
    assert _unsolvable("run", "--agent", "me=contract", *family,
                       "--update-baseline").returncode == 0  # fmt: skip
    data = json.loads(baseline.read_text())
    for entries in data["agents"]["me"].values():
        for entry in entries.values():
            del entry["false_stop_rate"]
    baseline.write_text(json.dumps(data))
    out = tmp_path / "records.json"
    result = _unsolvable("run", "--agent", "me=naive", *family, "--json", str(out))
    assert (result.returncode, result.stdout) == (USAGE, "")
    assert (
        f"unsolvable: error: baseline {str(baseline)!r}: agents.me.agent.all has no "
        "false_stop_rate, which every entry has (null where the group has no such figure), so "
        "the gate would skip it; restore it, or rewrite the file with --update-baseline"
    ) in result.stderr
    assert not out.exists()


def test_a_key_given_twice_in_an_input_is_a_usage_error(tmp_path: Path) -> None:
    """JSON readers keep the last of two members of one name, so a hand-edited scenario file's
    second ``"expected"`` silently replaced the first, and a baseline's second figure the
    first."""
    scenario = tmp_path / "s.json"
    body = json.dumps({**SCENARIO_FILE, "name": "incidents/twice"})
    scenario.write_text(body.replace('"expected":', '"expected": ["BLOCKED_INPUT"], "expected":'))
    listed = _unsolvable("list", "--scenario-file", str(scenario))
    baseline = tmp_path / "baseline.json"
    assert _unsolvable("run", "--agent", "contract", *REPEAT, "--baseline", str(baseline),
                       "--update-baseline").returncode == 0  # fmt: skip
    text = baseline.read_text()
    baseline.write_text(
        text.replace('"lag_steps_p95": 1', '"lag_steps_p95": 9, "lag_steps_p95": 1')
    )
    gated = _unsolvable("run", "--agent", "contract", *REPEAT, "--baseline", str(baseline))
    for result in (listed, gated):
        assert (result.returncode, "Traceback" in result.stderr) == (USAGE, False)
    assert "gives the key 'expected' twice in one object; keep one" in listed.stderr
    assert "gives the key 'lag_steps_p95' twice in one object; keep one" in gated.stderr


@pytest.mark.parametrize(
    "flags",
    [
        ["--baseline-margin", "2"],
        ["--baseline-false-stop-margin", "0.1"],
        ["--baseline-cost-margin", "0"],
        ["--allow-empty-gate"],
    ],
)
def test_a_gate_flag_without_a_baseline_is_a_usage_error(tmp_path: Path, flags: list[str]) -> None:
    """A margin given with no ``--baseline`` was ignored: the run went ungated, and a typo'd or
    forgotten ``--baseline`` passed a CI job that asked for a gate."""
    records = tmp_path / "records.json"
    run = _unsolvable("run", "--agent", "contract", *REPEAT, "--json", str(records), *flags)
    assert (run.returncode, run.stdout, records.exists()) == (USAGE, "", False)
    assert f"{flags[0]} tunes a baseline gate: add --baseline PATH" in run.stderr
    _unsolvable("run", "--agent", "contract", *REPEAT, "--json", str(records))
    report = _unsolvable("report", str(records), *flags)
    assert (report.returncode, report.stdout) == (USAGE, "")
    assert f"{flags[0]} tunes a baseline gate" in report.stderr


def test_nan_is_never_written(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    _unsolvable("run", "--agent", f"{HOSTILE}:stops_with_nan", *REPEAT, "--json", str(out))
    (record,) = json.loads(out.read_text(), parse_constant=pytest.fail)["records"]
    assert record["reported"]["partial"] == "[nan, inf]"


def test_inputs_that_are_no_file_or_no_record_are_usage_errors(tmp_path: Path) -> None:
    (tmp_path / "folder").mkdir()
    os.mkfifo(tmp_path / "folder" / "pipe.json")
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (tmp_path / "bad.json").write_text('{"records": [{"scenario": 1}]}')
    cases = {
        ("import", "/dev/zero", "--format", "atif", "--name", "a/b"): "character device",
        ("list", "--scenario-file", str(tmp_path / "folder")): "is a FIFO",
        ("report", str(tmp_path / "deep.json")): "nests too deeply",
        ("report", str(tmp_path / "bad.json")): "TerminationRecord.scenario is a int",
        ("import", str(tmp_path / "bad.json"), "--format", "record", "--name", "a/b"): "records",
    }
    for args, said in cases.items():
        result = _unsolvable(*args)
        assert (result.returncode, "Traceback" in result.stderr) == (USAGE, False), args
        assert said in result.stderr, (args, result.stderr)


def test_a_records_file_of_no_records_from_another_version_is_refused_as_its_records_are(
    tmp_path: Path,
) -> None:
    """The file's own schema_version is read, not only its records': a run of no records that
    another version wrote is refused with the words a record of that version gets."""
    records = tmp_path / "records.json"
    _unsolvable("run", "--agent", "contract", *REPEAT, "--json", str(records))
    data = json.loads(records.read_text())
    data["records"][0]["schema_version"] = 99
    records.write_text(json.dumps(data))
    by_record = _unsolvable("report", str(records))
    records.write_text(json.dumps({**data, "records": [], "schema_version": 99}))
    by_file = _unsolvable("report", str(records), "--json", str(tmp_path / "out.json"))
    assert by_file.returncode == by_record.returncode == USAGE, by_file.stderr
    assert by_file.stderr == by_record.stderr and "schema_version is 99" in by_file.stderr
    assert by_file.stdout == "" and not (tmp_path / "out.json").exists()


def test_import_to_a_folder_or_under_an_escaping_name_is_refused_up_front(tmp_path: Path) -> None:
    trace = tmp_path / "records.json"
    _unsolvable("run", "--agent", "naive", *REPEAT, "--json", str(trace))
    into_folder = _unsolvable(
        "import", str(trace), "--format", "record", "--name", "a/b", "-o", str(tmp_path)
    )
    assert into_folder.returncode == USAGE and "it is a directory" in into_folder.stderr
    escaping = _unsolvable("import", str(trace), "--format", "record", "--name", "a/../../x")
    assert escaping.returncode == USAGE and "'..'" in escaping.stderr


@pytest.mark.parametrize(
    ("flag", "example"),
    [
        ("--json", "records.json"),
        ("--markdown", "report.md"),
        ("--html", "report.html"),
        ("--otel", "spans.json"),
        ("-o", "b.json"),
    ],
)
def test_an_output_path_ending_in_a_slash_is_refused_not_written_as_a_file(
    tmp_path: Path, flag: str, example: str
) -> None:
    """``--json reports/`` names a folder: the report was written as a file called ``reports``
    and the run said so."""
    folder = f"{tmp_path / 'reports'}/"
    if flag == "-o":
        trace = tmp_path / "records.json"
        _unsolvable("run", "--agent", "naive", *REPEAT, "--json", str(trace))
        result = _unsolvable(
            "import", str(trace), "--format", "record", "--name", "a/b", "-o", folder
        )
    else:
        result = _unsolvable("run", "--agent", "naive", *REPEAT, flag, folder)
    assert (result.returncode, result.stdout, "Traceback" in result.stderr) == (USAGE, "", False)
    assert f"{flag} {folder!r} names a folder (it ends in '/'); name a file in it" in result.stderr
    assert f"e.g. {folder}{example}" in result.stderr
    assert not (tmp_path / "reports").exists()


@pytest.mark.parametrize(
    ("flag", "example"),
    [
        ("--json", "e.g. records.json"),
        ("--markdown", "e.g. report.md"),
        ("--html", "e.g. report.html"),
        ("--otel", "e.g. spans.json"),
        ("--trace-dir", "e.g. traces"),
        ("--baseline", "e.g. baseline.json"),
        ("--scenario-file", "give a .json or .toml file"),
        ("-o", "e.g. a.json"),
    ],
)
def test_an_empty_path_is_refused_not_read_as_the_current_folder(
    tmp_path: Path, flag: str, example: str
) -> None:
    """``--trace-dir "$TRACES"`` with the variable unset gives ``''``, which `Path` reads as the
    current folder: the trajectories were written all over it (and ``--scenario-file ''`` read
    the scenario files there) without a word."""
    if flag == "-o":
        trace = tmp_path / "records.json"
        _unsolvable("run", "--agent", "naive", *REPEAT, "--json", str(trace))
        args = ["import", str(trace), "--format", "record", "--name", "a", "-o", ""]
    else:
        args = ["run", "--agent", "naive", *REPEAT, flag, ""]
    work = tmp_path / "work"
    work.mkdir()
    result = subprocess.run(
        [sys.executable, "-m", "unsolvable.cli", *args],
        capture_output=True,
        text=True,
        cwd=work,
        timeout=120,
        check=False,
    )
    assert (result.returncode, result.stdout, "Traceback" in result.stderr) == (USAGE, "", False)
    assert "'' names no path (is a variable unset?)" in result.stderr and example in result.stderr
    assert not list(work.iterdir())


@pytest.mark.parametrize("name", ["incidents/..", "incidents/\u001b[31mred", "incidents/a\u0000"])
def test_a_scenario_file_whose_name_escapes_is_refused(tmp_path: Path, name: str) -> None:
    (tmp_path / "s.json").write_text(json.dumps({**SCENARIO_FILE, "name": name}))
    result = _unsolvable("list", "--scenario-file", str(tmp_path / "s.json"))
    assert result.returncode == USAGE and "cannot be used" in result.stderr


def test_agent_text_is_shown_escaped_in_the_table_the_markdown_and_the_html(
    tmp_path: Path,
) -> None:
    summary, page = tmp_path / "summary.md", tmp_path / "report.html"
    result = _unsolvable(
        "run", "--agent", f"{HOSTILE}:writes_over_its_row", *REPEAT,
        "--markdown", str(summary), "--html", str(page),
    )  # fmt: skip
    assert result.returncode == 1 and "\x1b" not in result.stdout and "\r" not in result.stdout
    assert "\\x1b[2K\\x1b[1A" in result.stdout and "FAIL" in result.stdout
    assert not any(
        line.startswith("#") and "all passed" in line for line in summary.read_text().splitlines()
    )
    html = page.read_text()
    assert "\x1b" not in html and "\r" not in html and "crashed: RuntimeError: \\r\\x1b" in html


def test_a_refused_run_leaves_no_folder_its_outputs_would_have_made(tmp_path: Path) -> None:
    """The output paths are checked before the scenarios: a folder made to try a file in is
    removed again, or every refused command would leave empty folders behind."""
    result = _unsolvable(
        "run", "--agent", "contract", "--scenario", "no-such-scenario",
        "--json", str(tmp_path / "out/deeper/records.json"), "--trace-dir", str(tmp_path / "tr/x"),
    )  # fmt: skip
    assert result.returncode == USAGE and "unknown scenario" in result.stderr, result.stderr
    assert list(tmp_path.iterdir()) == []


def test_an_agent_s_name_is_shown_escaped_in_every_part_of_the_html(tmp_path: Path) -> None:
    """The name is in the tables, the charts, their legend and their data attributes: each shows
    it escaped, as the table and the Markdown report do, never its control characters."""
    page = tmp_path / "report.html"
    result = _unsolvable(
        "run", "--agent", f"{HOSTILE}:named_to_erase", *REPEAT, "--html", str(page)
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    html = page.read_text()
    assert not [c for c in html if c < " " and c not in "\t\n\r"], "no control character"
    assert html.count("named\\x07\\x1b[2K\\x1b[31m\\x00") >= 5, "the tables, chart and legend"


@pytest.mark.parametrize("flag", ["--json", "--markdown"])
def test_a_report_given_the_scenario_file_it_runs_is_refused_and_the_file_kept(
    tmp_path: Path, flag: str
) -> None:
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps({**SCENARIO_FILE, "name": "incidents/s"}))
    written = scenario.read_bytes()
    result = _unsolvable("run", "--agent", "contract", "--scenario-file", str(scenario), flag,
                         str(scenario))  # fmt: skip
    assert result.returncode == USAGE and result.stdout == "", result.stdout
    assert f"{flag} names {str(scenario)!r}, a file this command reads" in result.stderr
    assert scenario.read_bytes() == written


@pytest.mark.parametrize(
    ("flag", "under"), [("--json", "out.json"), ("--trace-dir", ""), ("--trace-dir", "traces")]
)
def test_an_output_under_a_file_is_refused_saying_it_is_a_file(
    tmp_path: Path, flag: str, under: str
) -> None:
    """A folder to write in that is a file (``build`` left by another tool): the message names
    that file as the problem, not a bare 'File exists', before anything runs."""
    blocker = tmp_path / "build"
    blocker.write_text("kept")
    path = blocker / under if under else blocker
    result = _unsolvable("run", "--agent", "contract", *REPEAT, flag, str(path))
    assert result.returncode == USAGE and result.stdout == "", result.stdout
    assert f"{str(blocker)!r} is a file, not a folder" in result.stderr, result.stderr
    assert blocker.read_text() == "kept"
