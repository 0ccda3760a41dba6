"""Reports and the baseline gate from the plugin, as ``unsolvable run`` makes them: files written
once by the controller, a gate that fails a session whose tests passed and names what regressed,
a baseline rewritten only on request and only from a whole session, and usage errors up front."""

from __future__ import annotations

import json

import pytest

from tests.plugin._helpers import Run, cases, outcomes
from unsolvable import scenarios
from unsolvable.cli import main
from unsolvable.plugin._options import (
    AGENT_OPTION,
    BASELINE_COST_MARGIN_OPTION,
    BASELINE_FALSE_STOP_MARGIN_OPTION,
    BASELINE_MARGIN_OPTION,
    BASELINE_OPTION,
    FAMILY_OPTION,
    HTML_OPTION,
    JSON_OPTION,
    MARKDOWN_OPTION,
    NO_SNAPSHOT_OPTION,
    PREFIX,
    UPDATE_BASELINE_OPTION,
)
from unsolvable.reports._blessed import BASELINE_VERSION

FAMILIES = ("missing-permission", "long-healthy")
"""Unsolvable tasks and solvable controls, so both gated numbers have values: 15 quick runs."""
GROUPS = 1 + len(FAMILIES) + len(scenarios.select(FAMILIES))
"""Their groups in a baseline: the agent's ``all``, each family, each scenario."""
BASELINE = "ci/unsolvable-baseline.json"
GATE = f"{BASELINE_OPTION}={BASELINE}"


def _agent(pytester: pytest.Pytester, built_in: str) -> None:
    """``mine:agent`` stops as the built-in ``contract`` or ``naive``: a user changing stop
    logic, under one label (the spec: a user's function has no name of its own)."""
    code = f"from unsolvable.agents import {built_in}\n\ndef agent(session):\n"
    pytester.makepyfile(mine=f"{code}    return {built_in}(session)\n")


def _suite(run: Run, *args: str) -> pytest.RunResult:
    families = [f"{FAMILY_OPTION}={name}" for name in FAMILIES]
    return run(f"{AGENT_OPTION}=mine:agent", *families, NO_SNAPSHOT_OPTION, *args)


def _gate_lines(result: pytest.RunResult) -> list[str]:
    return [line for line in result.outlines if line.startswith("unsolvable: baseline gate ")]


def test_reports_are_the_clis_and_the_same_bytes_under_xdist(
    run: Run, pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    _agent(pytester, "contract")
    files = {}
    for folder, args in (("serial", ()), ("xdist", ("-n", "2"))):
        reports = (f"{folder}/records.json", f"{folder}/summary.md", f"{folder}/report.html")
        flags = (JSON_OPTION, MARKDOWN_OPTION, HTML_OPTION)
        given = [f"{flag}={path}" for flag, path in zip(flags, reports, strict=True)]
        result = _suite(run, *given, *args)
        assert result.ret == 0, result.stdout.str()
        result.stdout.fnmatch_lines(
            [
                f"unsolvable: wrote {cases(*FAMILIES)} records to {reports[0]}",
                f"unsolvable: wrote Markdown report to {reports[1]}",
                f"unsolvable: wrote HTML report to {reports[2]}",
            ]
        )
        files[folder] = [(pytester.path / path).read_bytes() for path in reports]
    assert files["serial"] == files["xdist"]
    records, markdown, html = files["serial"]
    data = json.loads(records)
    assert sorted(data) == ["metrics", "records", "schema_version"]
    assert len(data["records"]) == data["metrics"]["runs"] == cases(*FAMILIES)
    assert markdown.decode().startswith(f"## unsolvable: {cases(*FAMILIES)} runs, ")
    assert b"<svg" in html
    again = pytester.path / "again.json"
    assert main(["report", str(pytester.path / "serial/records.json"), "--json", str(again)]) == 0
    assert again.read_bytes() == records, "unsolvable report reads and writes it alike"
    capsys.readouterr()


def test_the_gate_passes_on_its_baseline_and_fails_a_passing_session_naming_the_regression(
    run: Run, pytester: pytest.Pytester, xdist_args: tuple[str, ...]
) -> None:
    _agent(pytester, "contract")
    blessed = _suite(run, GATE, UPDATE_BASELINE_OPTION, *xdist_args)
    assert blessed.ret == 0 and not _gate_lines(blessed)
    blessed.stdout.fnmatch_lines([f"unsolvable: wrote baseline of {GROUPS} groups to {BASELINE}"])
    path = pytester.path / BASELINE
    written = path.read_bytes()

    passed = _suite(run, GATE, *xdist_args)
    assert passed.ret == 0
    assert _gate_lines(passed) == [
        f"unsolvable: baseline gate passed: {GROUPS} groups compared against {BASELINE} "
        "(lag p95 +0 steps, false-stop rate +0)"
    ]

    data = json.loads(written)
    family = data["agents"]["mine:agent"]["family"]["missing-permission"]
    now = family["lag_steps_p95"]
    family["lag_steps_p95"] = now - 1
    path.write_text(json.dumps(data))
    failed = _suite(run, GATE, *xdist_args)
    assert failed.ret == pytest.ExitCode.TESTS_FAILED
    assert outcomes(failed) == {"passed": cases(*FAMILIES)}, "only the gate failed"
    failed.stdout.fnmatch_lines(
        [
            f"unsolvable: baseline gate FAILED: 1 regression(s) against {BASELINE} *",
            f"  - family missing-permission × mine:agent: lag_steps_p95 {now - 1} → {now} steps "
            f"(allowed up to {now - 1})",
            f"  fix the stop logic, or accept the new numbers with {UPDATE_BASELINE_OPTION}",
        ],
        consecutive=True,
    )
    assert len(_gate_lines(failed)) == 1, "printed once, by the controller"

    assert _suite(run, GATE, f"{BASELINE_MARGIN_OPTION}=1", *xdist_args).ret == 0
    assert _suite(run, GATE, UPDATE_BASELINE_OPTION, *xdist_args).ret == 0
    assert path.read_bytes() == written


def test_a_worse_agent_fails_on_lag_its_cost_and_false_stops(
    run: Run, pytester: pytest.Pytester
) -> None:
    _agent(pytester, "contract")
    assert _suite(run, GATE, UPDATE_BASELINE_OPTION).ret == 0
    _agent(pytester, "naive")
    result = _suite(run, GATE, "-n", "2")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "unsolvable: baseline gate FAILED: *",
            "  - all runs × mine:agent: lag_steps_p95 1 → * steps (allowed up to 1)",
            "  - all runs × mine:agent: false_stop_rate 0 → 0.3333 (allowed up to 0)",
            "  - all runs × mine:agent: lag_cost_usd_p95 * → * USD (allowed up to *)",
            "  - family missing-permission × mine:agent: lag_steps_p95 1 → * steps *",
            "  - family missing-permission × mine:agent: lag_cost_usd_p95 * USD *",
            "  - family long-healthy × mine:agent: false_stop_rate 0 → 0.5 (allowed up to 0)",
        ],
        consecutive=True,
    )
    loose = (
        f"{BASELINE_MARGIN_OPTION}=100",
        f"{BASELINE_FALSE_STOP_MARGIN_OPTION}=1",
        f"{BASELINE_COST_MARGIN_OPTION}=1",
    )
    passed = _gate_lines(_suite(run, GATE, *loose))
    assert passed[0].startswith("unsolvable: baseline gate passed: "), "the margins loosen it"


def test_the_baseline_is_rewritten_only_from_a_whole_session(
    run: Run, pytester: pytest.Pytester
) -> None:
    _agent(pytester, "naive")
    stopped = _suite(run, GATE, UPDATE_BASELINE_OPTION, "-x")
    stopped.stdout.fnmatch_lines(
        [f"unsolvable: warning: {BASELINE} not rewritten: the session stopped early"]
    )
    empty = _suite(run, GATE, UPDATE_BASELINE_OPTION, "-k", "no-such-test")
    empty.stdout.fnmatch_lines(
        [f"unsolvable: warning: {BASELINE} not rewritten: the session made no termination records"]
    )
    assert not (pytester.path / BASELINE).exists()


def test_a_session_that_runs_no_agent_skips_the_ini_baselines_gate(
    run: Run, pytester: pytest.Pytester
) -> None:
    """A baseline in the ini file serves every session of pytest: one of other tests alone, or
    one that only collects, made no record and failed, its tests passed, as a gate that
    compares nothing."""
    blessed = ["run", "--agent", "contract", "--scenario", "constant-return/repeat"]
    baseline = ["--baseline", str(pytester.path / BASELINE), "--update-baseline"]
    assert main([*blessed, *baseline, "--no-progress"]) == 0
    pytester.makeini(f"[pytest]\nunsolvable_baseline = {BASELINE}\n")
    pytester.makepyfile(test_other="def test_other():\n    pass\n")
    for args in ((), ("--collect-only",)):
        result = run(*args)
        assert result.ret == 0, result.stdout.str()
        result.stdout.fnmatch_lines(["unsolvable: baseline gate skipped: the session ran no *"])


@pytest.mark.parametrize(
    ("args", "ini", "message"),
    [
        pytest.param(
            (f"{BASELINE_OPTION}=none.json",),
            "",
            f"ERROR: {BASELINE_OPTION}: baseline 'none.json' does not exist; create it with "
            f"{BASELINE_OPTION} none.json {UPDATE_BASELINE_OPTION} and commit it *",
            id="missing",
        ),
        pytest.param(
            (),
            "unsolvable_baseline = none.json",
            f"ERROR: {BASELINE_OPTION}: baseline 'none.json' does not exist; *",
            id="missing-in-ini",
        ),
        pytest.param(
            (f"{BASELINE_OPTION}=broken.json",),
            "",
            f"ERROR: {BASELINE_OPTION}: baseline 'broken.json' is not JSON (*",
            id="broken",
        ),
        pytest.param(
            (f"{BASELINE_OPTION}=unrated.json",),
            "",
            f"ERROR: {BASELINE_OPTION}: baseline 'unrated.json': agents.mine:agent.agent.all has "
            "no false_stop_rate, which every entry has *; restore it, or rewrite the file with "
            f"{UPDATE_BASELINE_OPTION} *",
            id="missing-figure",
        ),
        pytest.param(
            (UPDATE_BASELINE_OPTION,),
            "",
            f"ERROR: {UPDATE_BASELINE_OPTION} needs the file to write: add {BASELINE_OPTION} PATH*",
            id="update-without-file",
        ),
        pytest.param(
            (GATE, f"{BASELINE_MARGIN_OPTION}=-1"),
            "",
            f"ERROR: {BASELINE_MARGIN_OPTION}=-1: must be 0 or more (also as ini "
            "unsolvable_baseline_margin)*",
            id="negative-margin",
        ),
    ],
)
def test_an_unusable_baseline_is_a_usage_error_before_anything_runs(
    run: Run, pytester: pytest.Pytester, args: tuple[str, ...], ini: str, message: str
) -> None:
    _agent(pytester, "contract")
    (pytester.path / "broken.json").write_text("{")
    unrated = {"runs": 1, "scenarios": 1, "lag_steps_p95": 0, "lag_cost_usd_p95": 0, "seeds": [0]}
    agents = {"mine:agent": {"agent": {"all": unrated}}}  # no false_stop_rate
    data = {"baseline_version": BASELINE_VERSION, "agents": agents}
    (pytester.path / "unrated.json").write_text(json.dumps(data))
    if ini:
        pytester.makeini(f"[pytest]\n{ini}\n")
    result = _suite(run, *args, "-n", "2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert "passed" not in result.stdout.str() and "bringing up nodes" not in result.stdout.str()


def test_a_report_path_ending_in_a_slash_is_a_usage_error_before_anything_runs(
    run: Run, pytester: pytest.Pytester
) -> None:
    _agent(pytester, "contract")
    result = _suite(run, f"{JSON_OPTION}=reports/", "-n", "2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [f"ERROR: {JSON_OPTION} 'reports/' names a folder (it ends in '/'); name a file in it*"]
    )
    assert "bringing up nodes" not in result.stdout.str()
    assert not (pytester.path / "reports").exists()


def test_an_empty_report_path_is_a_usage_error_not_ignored(
    run: Run, pytester: pytest.Pytester
) -> None:
    """``--unsolvable-json="$REPORT"`` with the variable unset: the session wrote no report and
    said nothing, where the command line refuses the same flag."""
    _agent(pytester, "contract")
    result = _suite(run, f"{JSON_OPTION}=", "-n", "2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {JSON_OPTION} '' names no path (is a variable unset?)*"])
    assert "bringing up nodes" not in result.stdout.str()


def test_a_gate_flag_without_a_baseline_is_a_usage_error_but_an_ini_margin_is_not(
    run: Run, pytester: pytest.Pytester
) -> None:
    """``--unsolvable-baseline-margin=2`` with no baseline went ungated without a word; an ini
    file's margin may serve every session, gated or not."""
    _agent(pytester, "contract")
    result = _suite(run, "--unsolvable-baseline-margin=2", "-n", "2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: --unsolvable-baseline-margin tunes a baseline gate: add --unsolvable-baseline*"]
    )
    pytester.makeini("[pytest]\nunsolvable_baseline_margin = 2\n")
    assert _suite(run, "-n", "2").ret == 0


def test_ini_keys_set_the_reports_and_the_gate(run: Run, pytester: pytest.Pytester) -> None:
    """``naive`` false-stops half of long-healthy's controls: blessed at a quarter, the family
    regressed by the ini file's margin exactly, which passes the gate (its verdicts fail)."""
    _agent(pytester, "naive")
    assert _suite(run, GATE, UPDATE_BASELINE_OPTION).ret == 1
    path = pytester.path / BASELINE
    data = json.loads(path.read_text())
    family = data["agents"]["mine:agent"]["family"]["long-healthy"]
    assert family["false_stop_rate"] == 0.5
    family["false_stop_rate"] = 0.25
    path.write_text(json.dumps(data))
    pytester.makeini(
        f"[pytest]\nunsolvable_baseline = {BASELINE}\nunsolvable_markdown = summary.md\n"
        "unsolvable_baseline_false_stop_margin = 0.25\n"
    )
    result = _suite(run)
    assert result.ret == 1
    assert _gate_lines(result) == [
        f"unsolvable: baseline gate passed: {GROUPS} groups compared against {BASELINE} "
        "(lag p95 +0 steps, false-stop rate +0.25)"
    ]
    summary = (pytester.path / "summary.md").read_text(encoding="utf-8")
    assert f"**Baseline gate: passed** — {GROUPS} groups compared against `{BASELINE}`" in summary


def test_an_ini_files_report_paths_are_from_the_rootdir_wherever_pytest_starts(
    run: Run, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As its scenario and snapshot folders are: started from a subfolder, the session wrote
    the records there and looked for the baseline there, a second one beside the first."""
    _agent(pytester, "contract")
    assert _suite(run, GATE, UPDATE_BASELINE_OPTION).ret == 0
    pytester.makeini(
        f"[pytest]\nunsolvable_baseline = {BASELINE}\nunsolvable_json = out/records.json\n"
    )
    below = pytester.mkdir("sub")
    monkeypatch.chdir(below)
    monkeypatch.setenv("PYTHONPATH", str(pytester.path))  # the agent's module, mine.py
    result = _suite(run, "-n", "2")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(
        [f"unsolvable: wrote {cases(*FAMILIES)} records to ../out/records.json"]
    )
    assert _gate_lines(result) == [
        f"unsolvable: baseline gate passed: {GROUPS} groups compared against ../{BASELINE} "
        "(lag p95 +0 steps, false-stop rate +0)"
    ]
    assert (pytester.path / "out/records.json").is_file()
    assert not (below / "out").exists()


def test_otel_and_trace_dir_are_the_clis_bytes_under_xdist(
    run: Run, pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--unsolvable-otel`` and ``--unsolvable-trace-dir`` come from `REPORT_FLAGS` too: the
    plugin writes what ``unsolvable report`` writes from the same records."""
    _agent(pytester, "contract")
    flags = [f"{JSON_OPTION}=records.json", f"{PREFIX}otel=spans.json", f"{PREFIX}trace-dir=traces"]
    result = _suite(run, *flags, "-n", "2")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(
        [f"unsolvable: wrote ATIF trajectories of {cases(*FAMILIES)} runs to traces"]
    )
    again = pytester.path / "again"
    records = str(pytester.path / "records.json")
    assert (
        main(["report", records, "--otel", str(again / "spans.json"), "--trace-dir", str(again)])
        == 0
    )
    assert (again / "spans.json").read_bytes() == (pytester.path / "spans.json").read_bytes()
    written = sorted(
        p.relative_to(pytester.path / "traces") for p in (pytester.path / "traces").rglob("*.json")
    )
    assert len(written) == cases(*FAMILIES)
    assert all(
        (again / p).read_bytes() == (pytester.path / "traces" / p).read_bytes() for p in written
    )
    capsys.readouterr()


BROKEN_SETUP = """
import pytest

@pytest.fixture(autouse=True)
def broken():
    raise RuntimeError("every test's set-up fails")
"""


def test_a_session_whose_every_test_errors_never_replaces_the_records(
    run: Run, pytester: pytest.Pytester
) -> None:
    out = pytester.path / "records.json"
    args = (
        f"{AGENT_OPTION}=pkg:contract",
        f"{FAMILY_OPTION}=missing-permission",
        NO_SNAPSHOT_OPTION,
    )
    run(*args, f"{JSON_OPTION}={out}").assert_outcomes(passed=cases("missing-permission"))
    whole = out.read_bytes()
    pytester.makeconftest(BROKEN_SETUP)
    errored = run(*args, f"{JSON_OPTION}={out}")
    errored.assert_outcomes(errors=cases("missing-permission"))
    assert out.read_bytes() == whole
    errored.stdout.fnmatch_lines(
        [f"unsolvable: kept the larger {out}; wrote *records.partial.json"]
    )
    errored.stdout.no_fnmatch_line(f"unsolvable: wrote * records to {out}")
    assert json.loads((pytester.path / "records.partial.json").read_text())["records"] == []


def test_a_second_session_on_the_same_json_is_refused_before_any_test(
    run: Run, pytester: pytest.Pytester
) -> None:
    out = pytester.path / "records.json"
    (pytester.path / "records.json.jsonl").write_text("")  # another session's, still streaming
    result = run(f"{AGENT_OPTION}=pkg:contract", f"{JSON_OPTION}={out}", NO_SNAPSHOT_OPTION)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*records.json.jsonl' exists: another run is streaming*"])


def _files(pytester: pytest.Pytester) -> dict[str, bytes]:
    """Every file of the project but pytester's copies of a run's output."""
    files = (p for p in pytester.path.rglob("*") if p.is_file())
    return {str(p): p.read_bytes() for p in files if p.name not in ("stdout", "stderr")}


@pytest.mark.parametrize("nothing", ["--collect-only", "--setup-plan"])
def test_a_session_that_runs_no_test_writes_no_report(
    run: Run, pytester: pytest.Pytester, nothing: str
) -> None:
    """``pytest --co`` with the CI job's report flags ran no agent and wrote reports of 0 runs:
    each beside the last run's (``records.partial.json``), or, where there was none, a report
    that stood for the suite's. It writes none now, nor the records' stream, and says so."""
    _agent(pytester, "contract")
    paths = ("records.json", "summary.md", "report.html", "spans.json")
    flags = (JSON_OPTION, MARKDOWN_OPTION, HTML_OPTION, f"{PREFIX}otel")
    given = [f"{flag}={path}" for flag, path in zip(flags, paths, strict=True)]
    assert _suite(run, *given, f"{PREFIX}trace-dir=traces").ret == 0
    before = _files(pytester)
    result = _suite(run, *given, f"{PREFIX}trace-dir=traces", nothing)
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(
        [f"unsolvable: no report written ({', '.join(flags)}, {PREFIX}trace-dir): the session "
         f"ran no test ({nothing})"]
    )  # fmt: skip
    assert _files(pytester) == before
    (pytester.path / "records.json").unlink()
    assert _suite(run, *given, nothing).ret == 0
    assert not (pytester.path / "records.json").exists()
