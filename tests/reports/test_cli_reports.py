"""``unsolvable run``'s report flags, run as users run them: in a subprocess.

Reports and JSON, workers that change nothing in the bytes, the baseline gate's exit status and
message, progress that stays quiet in a CI log.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from decimal import Decimal
from html import unescape
from pathlib import Path

import pytest

from unsolvable import SCHEMA_VERSION, TerminationRecord, scenarios
from unsolvable.reports._files import RecordStream

ROOT = Path(__file__).parents[2]
FAMILIES = ("--scenario", "missing-permission", "long-healthy")
SCENARIOS = len(scenarios.select(FAMILIES[1:]))
RUNS = 2 * SCENARIOS
"""Both reference agents, one seed each."""
GROUPS = 2 * (1 + len(FAMILIES[1:]) + SCENARIOS)
"""Per agent: all runs, each family, each scenario."""
PYTEST = (sys.executable, "-m", "pytest", "-p", "no:cacheprovider")
QUIET_PLUGINS = ("-p", "no:langsmith_plugin", "-p", "no:hypothesispytest")
"""Autoloaded plugins that cost seconds at start-up and play no part here."""


def _unsolvable(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "unsolvable.cli", *args]
    return subprocess.run(
        command, capture_output=True, text=True, cwd=ROOT, timeout=120, check=False
    )


def test_reports_are_written_and_the_metrics_table_is_printed(tmp_path: Path) -> None:
    out = {kind: tmp_path / f"report.{kind}" for kind in ("json", "md", "html")}
    result = _unsolvable(
        "run", *FAMILIES, "--json", str(out["json"]), "--markdown", str(out["md"]),
        "--html", str(out["html"]),
    )  # fmt: skip
    assert result.returncode == 1, result.stderr  # naive fails by design
    lines = result.stdout.splitlines()
    assert "missing-permission  contract  5     5/5     1/1/1" in result.stdout
    assert lines[-4].startswith(f"unsolvable: {RUNS} runs, ")
    assert lines[-3:] == [
        f"unsolvable: wrote {RUNS} records to {out['json']}",
        f"unsolvable: wrote Markdown report to {out['md']}",
        f"unsolvable: wrote HTML report to {out['html']}",
    ]
    data = json.loads(out["json"].read_text())
    assert len(data["records"]) == RUNS and data["metrics"]["runs"] == RUNS
    assert out["md"].read_text().startswith(f"## unsolvable: {RUNS} runs")
    assert "<svg" in out["html"].read_text()


def test_json_bytes_do_not_depend_on_the_number_of_workers(tmp_path: Path) -> None:
    paths = [tmp_path / "serial.json", tmp_path / "pooled.json"]
    for workers, path in zip(("1", "2"), paths, strict=True):
        result = _unsolvable("run", "--all-seeds", *FAMILIES, "-n", workers, "--json", str(path))
        assert result.returncode == 1, result.stderr
    assert paths[0].read_bytes() == paths[1].read_bytes()
    assert '"wall_seconds"' not in paths[0].read_text()


def test_the_gate_passes_on_its_own_baseline_and_fails_naming_the_regression(
    tmp_path: Path,
) -> None:
    baseline = tmp_path / "baseline.json"
    blessed = _unsolvable("run", "--agent", "contract", *FAMILIES, "--baseline", str(baseline),
                          "--update-baseline")  # fmt: skip
    assert (
        blessed.returncode == 0
        and f"wrote baseline of {GROUPS // 2} groups to {baseline}" in blessed.stdout
    )
    data = json.loads(baseline.read_text())
    data["agents"]["contract"]["family"]["missing-permission"]["lag_steps_p95"] = -1
    baseline.write_text(json.dumps(data))
    gated = _unsolvable("run", "--agent", "contract", *FAMILIES, "--baseline", str(baseline))
    assert gated.returncode == 1, gated.stdout
    assert "unsolvable: baseline gate FAILED: 1 regression(s)" in gated.stdout
    assert "family missing-permission × contract: lag_steps_p95 -1 → 1 steps" in gated.stdout
    loose = ("--baseline-margin", "2")  # from -1 to 1
    passed = _unsolvable(
        "run", "--agent", "contract", *FAMILIES, "--baseline", str(baseline), *loose
    )
    assert (
        passed.returncode == 0
        and f"baseline gate passed: {GROUPS // 2} groups compared" in passed.stdout
    )


@pytest.mark.parametrize("lag", [1, 0], ids=["passed", "failed"])
def test_every_form_names_the_baseline_its_gate_read(tmp_path: Path, lag: int) -> None:
    """The terminal, the Markdown and the HTML report say which file the gate compared with,
    passed or failed: a CI job that gates on several baselines is read from any of them."""
    baseline = tmp_path / "base line.json"
    chosen = ("--agent", "contract", "--scenario", "oscillation/plain", "--baseline", str(baseline))
    assert _unsolvable("run", *chosen, "--update-baseline").returncode == 0
    data = json.loads(baseline.read_text())
    data["agents"]["contract"]["agent"]["all"]["lag_steps_p95"] = lag
    baseline.write_text(json.dumps(data))
    summary, page = tmp_path / "summary.md", tmp_path / "report.html"
    gated = _unsolvable("run", *chosen, "--markdown", str(summary), "--html", str(page))
    assert gated.returncode == 1 - lag, gated.stdout
    said = "3 groups compared" if lag else "1 regression(s)"
    assert f"{said} against {baseline} (" in gated.stdout
    assert f"{said} against `{baseline}` (" in summary.read_text()
    assert f"{said} against {baseline} (" in unescape(page.read_text())


@pytest.mark.parametrize(
    "blessed",
    [("--all-seeds",), ()],
    ids=["fewer-seeds-than-blessed", "other-seeds-than-blessed"],
)
def test_a_run_of_seeds_the_baseline_did_not_bless_is_not_compared_with_it(
    tmp_path: Path, blessed: tuple[str, ...]
) -> None:
    """Seed 2 alone is a part of the runs blessed over three seeds, and other runs than the seed
    0 blessed, though as many: the same stop logic lags otherwise on them (lag_cost_usd_p95
    0.007464 → 0.009375 for the family against seed 0), which is no regression."""
    baseline, chosen = str(tmp_path / "baseline.json"), ("--agent", "contract", "--scenario",
                                                         "constant-return")  # fmt: skip
    _unsolvable("run", *chosen, *blessed, "--baseline", baseline, "--update-baseline")
    gated = _unsolvable("run", *chosen, "--seed", "2", "--baseline", baseline)
    assert "regression" not in gated.stdout, gated.stdout
    groups = len(scenarios.select(["constant-return"])) + 2
    assert (
        f"compared no group against {baseline}; {groups} groups this run covers only in part"
        in gated.stdout
    )
    assert gated.returncode == 1, "a gate that compares nothing fails"


def test_every_report_counts_the_groups_the_gate_left_out(tmp_path: Path) -> None:
    baseline, reports = str(tmp_path / "baseline.json"), tmp_path / "report"
    chosen = ("--agent", "contract", "--scenario", "constant-return")
    _unsolvable("run", *chosen, "--baseline", baseline, "--update-baseline")
    gated = _unsolvable("run", *chosen[:-1], "constant-return/plain", "constant-return/repeat",
                        "--baseline", baseline, "--markdown", f"{reports}.md", "--html",
                        f"{reports}.html")  # fmt: skip
    assert gated.returncode == 0, gated.stdout
    left_out = "2 groups this run covers only in part were not compared"  # all, the family
    assert f"2 groups compared against {baseline} (" in gated.stdout and left_out in gated.stdout
    assert left_out in Path(f"{reports}.md").read_text()
    assert left_out in Path(f"{reports}.html").read_text()


def test_a_number_exactly_at_the_baseline_plus_its_margin_passes(tmp_path: Path) -> None:
    """Allowed up to 0.007464 means 0.007464 passes, however the baseline and the margin add up
    in binary (0.006264 + 0.0012 is 0.007463999999999999 there)."""
    baseline, chosen = tmp_path / "baseline.json", ("--agent", "contract", "--scenario",
                                                     "constant-return")  # fmt: skip
    _unsolvable("run", *chosen, "--baseline", str(baseline), "--update-baseline")
    data = json.loads(baseline.read_text())
    entry = data["agents"]["contract"]["agent"]["all"]
    now = entry["lag_cost_usd_p95"]
    margins = (Decimal(m) / 10_000 for m in range(1, 100))
    margin = next(m for m in margins if float(Decimal(str(now)) - m) + float(m) < now)
    entry["lag_cost_usd_p95"] = float(Decimal(str(now)) - margin)
    baseline.write_text(json.dumps(data))
    gated = _unsolvable("run", *chosen, "--baseline", str(baseline), "--baseline-cost-margin",
                        str(margin))  # fmt: skip
    assert gated.returncode == 0 and "baseline gate passed" in gated.stdout, gated.stdout


def test_baseline_misuse_is_a_usage_error(tmp_path: Path) -> None:
    update = _unsolvable("run", "--update-baseline")
    assert update.returncode == 2 and "add --baseline PATH" in update.stderr
    missing = _unsolvable("run", "--baseline", str(tmp_path / "none.json"))
    assert missing.returncode == 2 and "does not exist; create it with" in missing.stderr
    assert missing.stdout == "", "nothing ran"
    workers = _unsolvable("run", "-n", "0")
    assert workers.returncode == 2 and "1 or more" in workers.stderr


@pytest.mark.parametrize(
    ("flag", "value"),
    [("--baseline-margin", "-1"), ("--baseline-false-stop-margin", "nan"),
     ("--baseline-cost-margin", "-0.01"), ("--baseline-cost-margin", "inf")],
)  # fmt: skip
def test_a_margin_below_zero_is_a_usage_error_naming_its_flag(
    tmp_path: Path, flag: str, value: str
) -> None:
    baseline = tmp_path / "baseline.json"
    result = _unsolvable("run", "--baseline", str(baseline), "--update-baseline", flag, value)
    assert result.returncode == 2 and result.stdout == "", result.stdout
    assert f"argument {flag}: {value!r}: a margin must be " in result.stderr
    assert "(0: no worse than the baseline)" in result.stderr
    assert not baseline.exists()


def test_a_rate_margin_above_one_is_a_usage_error_saying_it_is_a_share(tmp_path: Path) -> None:
    """5 meant as five percent would let any false-stop rate through the gate."""
    baseline = tmp_path / "baseline.json"
    flag = "--baseline-false-stop-margin"
    result = _unsolvable("run", "--baseline", str(baseline), "--update-baseline", flag, "5")
    assert result.returncode == 2 and result.stdout == "", result.stdout
    said = f"argument {flag}: '5': a margin must be 1 at most, or any rate would pass"
    assert said in result.stderr
    assert not baseline.exists()


def test_a_short_run_prints_no_progress_into_a_log() -> None:
    result = _unsolvable(
        "run", "--agent", "contract", "--all-seeds", "--scenario", "constant-return"
    )
    assert result.returncode == 0 and result.stderr == ""


def test_report_rereads_records_to_the_same_bytes_and_gates_them(tmp_path: Path) -> None:
    first, again = tmp_path / "run.json", tmp_path / "report.json"
    _unsolvable("run", *FAMILIES, "--json", str(first))
    baseline = str(tmp_path / "baseline.json")
    report = _unsolvable("report", str(first), "--json", str(again), "--baseline", baseline,
                         "--update-baseline")  # fmt: skip
    assert report.returncode == 1, report.stderr  # naive's verdicts failed when they were made
    assert again.read_bytes() == first.read_bytes()
    assert (
        report.stdout.startswith("family ")
        and f"wrote baseline of {GROUPS} groups" in report.stdout
    )
    gated = _unsolvable("report", str(first), "--baseline", baseline)
    assert gated.returncode == 1 and "baseline gate passed" in gated.stdout


def test_report_exits_1_on_a_failed_verdict_and_0_when_every_verdict_passed(
    tmp_path: Path,
) -> None:
    both, contract = tmp_path / "both.json", tmp_path / "contract.json"
    _unsolvable("run", *FAMILIES, "--json", str(both))
    _unsolvable("run", "--agent", "contract", *FAMILIES, "--json", str(contract))
    failed = _unsolvable("report", str(both))
    assert failed.returncode == 1 and f"{RUNS} runs, " in failed.stdout
    assert " 0 failed" not in failed.stdout
    assert _unsolvable("report", str(contract)).returncode == 0


def test_the_plugin_summarises_metrics_and_report_reads_its_json(tmp_path: Path) -> None:
    plugin = ("--unsolvable-agent=contract", "--unsolvable-family=missing-permission",
              "--unsolvable-no-snapshot", "--unsolvable-json=records.json")  # fmt: skip
    pytest_run = subprocess.run(
        [*PYTEST, *QUIET_PLUGINS, *plugin],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert pytest_run.returncode == 0, pytest_run.stdout[-2000:]
    row = "missing-permission  contract  15    5/5     1/1/1"
    assert row in pytest_run.stdout, "the plugin's terminal summary has the metrics table"
    markdown = tmp_path / "summary.md"
    report = _unsolvable("report", str(tmp_path / "records.json"), "--markdown", str(markdown))
    assert report.returncode == 0, report.stderr
    assert row in report.stdout
    runs = sum(len(s.seeds) for s in scenarios.select(["missing-permission"]))
    assert markdown.read_text().startswith(f"## unsolvable: {runs} runs, {runs} passed, 0 failed")


@pytest.mark.parametrize("flag", ["--markdown", "--html", "--json", "--otel"])
def test_a_report_given_the_records_file_it_reads_is_refused_and_the_records_kept(
    tmp_path: Path, flag: str
) -> None:
    records = tmp_path / "records.json"
    _unsolvable("run", "--agent", "contract", "--scenario", "oscillation/plain", "--json",
                str(records))  # fmt: skip
    made = records.read_bytes()
    result = _unsolvable("report", str(records), flag, str(records))
    assert result.returncode == 2 and result.stdout == "", result.stdout
    assert f"{flag} names {str(records)!r}, a file this command reads" in result.stderr
    assert records.read_bytes() == made


def test_a_report_of_no_records_says_there_is_no_pass_k(tmp_path: Path) -> None:
    """What a pytest session whose every test errored leaves: every face says so in words."""
    path, markdown = tmp_path / "none.json", tmp_path / "none.md"
    path.write_text('{"records": []}')
    result = _unsolvable("report", str(path), "--markdown", str(markdown))
    assert result.returncode == 0, result.stderr
    assert "unsolvable: no runs, so no pass^k" in result.stdout.splitlines()
    assert "\nno runs, so no pass^k. Lag is in steps" in markdown.read_text()


def test_report_of_a_file_that_is_not_records_is_a_usage_error(tmp_path: Path) -> None:
    path = tmp_path / "other.json"
    path.write_text('{"not": "records"}')
    result = _unsolvable("report", str(path))
    assert (
        result.returncode == 2 and "pass a file written by unsolvable run --json" in result.stderr
    )


@pytest.mark.parametrize("version", [SCHEMA_VERSION + 1, 3])
def test_records_of_a_schema_this_harness_does_not_read_are_a_usage_error(
    tmp_path: Path, version: int
) -> None:
    path = tmp_path / "records.json"
    _unsolvable("run", "--agent", "contract", "--scenario", "constant-return/plain",
                "--json", str(path))  # fmt: skip
    data = json.loads(path.read_text())
    data["records"][0]["schema_version"] = version
    path.write_text(json.dumps(data))
    result = _unsolvable("report", str(path))
    assert result.returncode == 2 and result.stdout == "", result.stdout
    assert f"schema_version is {version}, and this harness reads 4 to {SCHEMA_VERSION}" in (
        result.stderr
    )
    assert ("upgrade pytest-unsolvable" if version > SCHEMA_VERSION else "run again") in (
        result.stderr
    )
    assert "pass a file written by" not in result.stderr  # it was: by another version


def test_a_stream_line_of_a_schema_this_harness_does_not_read_says_only_that(
    tmp_path: Path,
) -> None:
    path = tmp_path / "records.json"
    _unsolvable("run", "--agent", "contract", "--scenario", "constant-return/plain",
                "--json", str(path))  # fmt: skip
    record = json.loads(path.read_text())["records"][0]
    stream = tmp_path / "records.json.jsonl"
    stream.write_text(json.dumps({**record, "schema_version": 3}) + "\n")
    result = _unsolvable("report", str(stream))
    assert result.returncode == 2
    assert "line 1: schema_version is 3, and this harness reads 4" in result.stderr
    assert "as a run wrote it" not in result.stderr  # it was: by another version


def test_otel_and_trace_dir_are_written_and_checked_before_anything_runs(tmp_path: Path) -> None:
    otel, traces = tmp_path / "spans.json", tmp_path / "traces"
    result = _unsolvable("run", "--scenario", "missing-permission/retry-403", "--agent", "contract",
                         "--otel", str(otel), "--trace-dir", str(traces))  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-2:] == [
        f"unsolvable: wrote OpenTelemetry spans to {otel}",
        f"unsolvable: wrote ATIF trajectories of 1 run to {traces}",
    ]
    assert json.loads(otel.read_text())["resourceSpans"]
    assert (traces / "contract/missing-permission/retry-403-seed0.json").is_file()
    blocked = tmp_path / "file"
    blocked.write_text("")
    refused = _unsolvable("run", "--scenario", "missing-permission/retry-403", "--trace-dir",
                          str(blocked / "traces"))  # fmt: skip
    assert refused.returncode == 2 and "--trace-dir" in refused.stderr


def _html_cells(html: str) -> set[str]:
    """Every header and cell of the HTML report's tables, as text."""
    found = re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", html, re.S)
    return {unescape(re.sub(r"<[^>]+>", "", cell)).strip() for cell in found}


def test_the_html_tables_show_every_column_and_number_the_markdown_does(tmp_path: Path) -> None:
    markdown, html = tmp_path / "report.md", tmp_path / "report.html"
    result = _unsolvable("run", "--agent", "naive", "--scenario", "constant-return/plain",
                         "--markdown", str(markdown), "--html", str(html))  # fmt: skip
    assert result.returncode == 1, result.stderr  # naive runs past its token budget
    shown = markdown.read_text().replace("<span>$</span>", "$")  # a dollar sign, as GitHub shows
    rows = [line for line in shown.splitlines() if line.startswith("| ")]
    markdown_cells = {cell.strip() for row in rows for cell in row.strip("|").split("|")}
    assert "past budget" in markdown_cells
    assert markdown_cells - _html_cells(html.read_text()) <= {"rule broken"}


def test_the_exports_give_a_runs_lag_as_the_table_and_the_metrics_count_it(
    tmp_path: Path,
) -> None:
    """A budget stop the budget chose counts its lag from 0, in every face: the spans and the
    trajectory file too."""
    paths = {kind: tmp_path / f"run.{kind}" for kind in ("json", "otel")}
    result = _unsolvable("run", "--agent", "contract", "--scenario", "cost-runaway/plain",
                         "--json", str(paths["json"]), "--otel", str(paths["otel"]),
                         "--trace-dir", str(tmp_path / "traces"))  # fmt: skip
    assert result.returncode == 0, result.stderr
    row = result.stdout.splitlines()[1].split()
    assert row[2] == "exhausted/BUDGET_COST" and row[5] == "0", "the table counts it from 0"
    group = json.loads(paths["json"].read_text())["metrics"]["scenarios"][0]
    counted = {k: group[f"lag_{k}"]["max"] for k in ("steps", "tokens", "cost_usd")}
    spans = json.loads(paths["otel"].read_text())["resourceSpans"][0]["scopeSpans"][0]["spans"]
    attributes = {a["key"]: a["value"] for a in spans[0]["attributes"]}
    spanned = {k: attributes[f"unsolvable.lag.{k}"] for k in ("steps", "tokens", "cost_usd")}
    assert spanned == {"steps": {"intValue": "0"}, "tokens": {"intValue": "0"},
                       "cost_usd": {"doubleValue": 0.0}} and counted["steps"] == 0  # fmt: skip
    trace = tmp_path / "traces/contract/cost-runaway/plain-seed0.json"
    assert json.loads(trace.read_text())["extra"]["detection_lag"] == counted


def left_by_a_kill(made: Path, json_path: Path) -> Path:
    """The record stream a run killed after writing the records of ``made`` leaves for
    ``json_path``, each a line as it finished."""
    records = [TerminationRecord.from_dict(r) for r in json.loads(made.read_text())["records"]]
    stream = RecordStream(json_path)
    stream.open()
    for record in records:
        stream.add(record)
    stream.close(keep=True)
    assert stream.path is not None
    return stream.path


def test_the_stream_a_killed_run_left_is_reported_as_an_interrupted_run(tmp_path: Path) -> None:
    """The records streamed as they finished, the last line cut short by the kill: every whole
    one reported, marked interrupted, nothing gated."""
    made = tmp_path / "made.json"
    _unsolvable("run", "--agent", "contract", "--scenario", "constant-return", "--json", str(made))
    streamed = left_by_a_kill(made, tmp_path / "records.json")
    with streamed.open("a") as out:  # the kill came in the middle of the next line
        out.write('{"agent": "contract", "scen')
    out_json = tmp_path / "report.json"
    result = _unsolvable("report", str(streamed), "--json", str(out_json))
    assert result.returncode == 130, result.stderr
    records = json.loads(made.read_text())["records"]
    assert f"unsolvable: {len(records)} runs" in result.stdout
    reported = json.loads(out_json.read_text())
    assert reported["interrupted"] is True
    assert [r["scenario"] for r in reported["records"]] == [r["scenario"] for r in records]


def test_a_stream_with_a_broken_line_before_its_last_is_refused_naming_the_line(
    tmp_path: Path,
) -> None:
    stream = tmp_path / "records.json.jsonl"
    stream.write_text('{"not": "a record"}\n{"cut sh')
    result = _unsolvable("report", str(stream))
    assert result.returncode == 2 and result.stdout == "", result.stdout
    assert f"cannot read records from '{stream}': line 1: " in result.stderr


def test_runs_past_a_dollar_budget_alone_show_no_tokens_past_one(tmp_path: Path) -> None:
    """naive goes past dollar-budget/long-transcript's dollar budget on seeds 0 to 2, which sets
    no token budget: every form wrote ``3, max 0 tokens, max $3.00239``, a count of tokens where
    there is none; the JSON keeps its distribution, 0 throughout."""
    out = {kind: tmp_path / f"report.{kind}" for kind in ("json", "md", "html")}
    result = _unsolvable(
        "run", "--agent", "naive", "--scenario", "dollar-budget/long-transcript", "--all-seeds",
        "--no-progress", "--json", str(out["json"]), "--markdown", str(out["md"]),
        "--html", str(out["html"]),
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    markdown = out["md"].read_text().replace("<span>$</span>", "$")  # $ kept from making math
    shown = (result.stdout, markdown, unescape(out["html"].read_text()))
    assert ["3, max $3.00239" in text and "max 0 tokens" not in text for text in shown] == [
        True
    ] * len(shown)
    (group,) = json.loads(out["json"].read_text())["metrics"]["agents"]
    assert (group["over_budget"], group["overshoot_tokens"]["max"]) == (3, 0)
