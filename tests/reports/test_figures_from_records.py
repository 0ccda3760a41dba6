"""Every figure the reports print, computed again here from the ``--json`` records themselves with
plain loops over the documented definitions (docs/metrics.md), never with the code under test,
and compared with what the terminal table, the Markdown and the HTML report and the JSON
metrics say of the same runs of the real command."""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterable
from html import unescape
from typing import Any

import pytest

from tests.cli.test_cli import ROOT

Record = dict[str, Any]

FAMILIES = (
    "constant-return",
    "context-overflow",
    "endless-wait",
    "nested-delegation",
    "dollar-budget",
    "long-healthy",
)
"""Controls and twins, a scenario of one seed, crashes, premature stops, did_not_stop, a budget
in dollars and none in tokens."""
AGENTS = ("naive", "contract", "tests.cli.faulty_agents:exits_at_once")
"""The reference agents, and one whose worker is lost before its first step: a run with no
stagnant step that counts as a premature stop."""
COLUMNS = (
    "runs", "pass^k", "lag p50/p95/max", "premature", "lag tokens p50/p95", "lag $ p50/p95",
    "step/N p95", "false stops", "finished, reported otherwise", "false compl.", "did_not_stop",
    "ended",
)  # fmt: skip
"""The columns recomputed here (the calibrated step cap and past budget have tests of their own)."""


def _nearest_rank(values: list[float], q: int) -> float:
    return sorted(values)[math.ceil(q * len(values) / 100) - 1]


def _plain(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _code(record: Record) -> str | None:
    return record["reported"]["code"] if record["reported"] else None


def _completes(record: Record) -> bool:
    return record["reported"] is not None and record["reported"]["exit"] == "complete"


def _room(spent: float, next_step: float | None, limit: float | None) -> bool:
    return limit is None or (next_step is not None and spent + next_step <= limit)


def _budget_spent(record: Record) -> bool:
    """A step or cost budget stop whose budget could not cover the next step."""
    observed, budget = record["observed"], record["budget"]
    if _code(record) not in ("BUDGET_STEPS", "BUDGET_COST"):
        return False
    tokens = observed["input_tokens"] + observed["output_tokens"]
    return (
        observed["steps"] >= budget["max_steps"]
        or observed["roles_spent"] != []
        or not _room(tokens, observed["next_step_tokens"], budget["max_tokens"])
        or not _room(observed["cost_usd"], observed["next_step_cost_usd"], budget["max_cost_usd"])
    )


def _from_zero(record: Record) -> bool:
    evidence = record["observed"]["evidence_step"]
    had_it = evidence is not None and record["observed"]["steps"] >= evidence
    return had_it or _budget_spent(record)


def _lags(records: list[Record], field: str) -> list[float]:
    """The signed lag of every unsolvable run that has one, counted from 0 where the agent had
    the evidence or the budget was spent."""
    lags = []
    for record in records:
        value = record["observed"][field]
        if not record["solvable"] and value is not None:
            lags.append(max(value, 0) if _from_zero(record) else value)
    return lags


def _false_stop(record: Record) -> bool:
    return record["solvable"] and record["outcome"] != "did_not_stop" and not _completes(record)


def _decided(record: Record) -> bool:
    """A stop decision: a structured stop short of a claim, or an unstructured return."""
    return record["outcome"] in ("stopped", "unstructured") and not _completes(record)


def _blind(record: Record) -> bool:
    """A stop decision on an unsolvable run with no model call or no result read."""
    observed = record["observed"]
    read = (
        observed["tool_calls"]
        or observed["read_a_result"]
        or observed["gave_up_at_step"] is not None
        or "context_window" in (observed["refusals"] or {})
    )
    return not record["solvable"] and _decided(record) and (observed["steps"] == 0 or not read)


def _premature(record: Record) -> bool:
    """A stop decision or a crash before the first stagnant step (a run lost before its first
    step, which has none, ended before it), or a blind stop decision."""
    if record["solvable"]:
        return False
    lags = _lags([record], "detection_lag")
    early = lags[0] < 0 if lags else record["observed"]["steps"] == 0
    ended = _decided(record) or record["outcome"] == "crashed"
    return (ended and early) or _blind(record)


def _stopped(record: Record) -> int:
    """The step a run counts as stopped at: one past N at least for a run that did not stop."""
    steps: int = record["observed"]["steps"]
    return max(steps, record["step_bound"] + 1) if record["outcome"] == "did_not_stop" else steps


def _premature_cell(records: list[Record]) -> str:
    if all(record["solvable"] for record in records):
        return "-"
    blind = sum(map(_blind, records))
    return f"{sum(map(_premature, records))}" + (f" ({blind} blind)" if blind else "")


def _spread(values: list[float], *qs: int) -> str:
    return "/".join(_plain(_nearest_rank(values, q)) for q in qs) if values else "-"


def _expected(records: list[Record]) -> dict[str, str]:
    """The columns of one group, from its records alone."""
    by_scenario: dict[str, list[bool]] = {}
    for record in records:
        by_scenario.setdefault(record["scenario"], []).append(record["verdict"]["passed"])
    controls = [r for r in records if r["solvable"]]
    unreported = [r for r in controls if _false_stop(r) and r["observed"]["world_complete"]]
    false_stops = sum(map(_false_stop, controls)) - len(unreported)
    dollars = [round(value, 6) for value in _lags(records, "lag_cost_usd")]
    ratio = _nearest_rank([_stopped(r) / r["step_bound"] for r in records], 95)
    rules = [{f["rule"] for f in r["verdict"]["failures"]} for r in records]
    ended = Counter(_code(r) or r["outcome"] for r in records)
    return {
        "runs": str(len(records)),
        "pass^k": f"{sum(map(all, by_scenario.values()))}/{len(by_scenario)}",
        "lag p50/p95/max": _spread(_lags(records, "detection_lag"), 50, 95, 100),
        "premature": _premature_cell(records),
        "lag tokens p50/p95": _spread(_lags(records, "lag_tokens"), 50, 95),
        "lag $ p50/p95": _spread(dollars, 50, 95),
        "step/N p95": f"{ratio:.2f}",
        "false stops": f"{false_stops}/{len(controls)} ({false_stops / len(controls):.1%})"
        if controls
        else "-",
        "finished, reported otherwise": str(len(unreported)) if controls else "-",
        "false compl.": str(sum("false_completion" in broke for broke in rules)),
        "did_not_stop": str(sum(r["outcome"] == "did_not_stop" for r in records)),
        "ended": ", ".join(f"{name} {count}" for name, count in sorted(ended.items())),
    }


def _groups(records: list[Record]) -> dict[tuple[str, str], list[Record]]:
    """Each family × agent, then each agent's ``all``: the rows of the terminal table."""
    groups: dict[tuple[str, str], list[Record]] = {}
    for record in records:
        groups.setdefault((record["family"], record["agent"]), []).append(record)
    for record in records:
        groups.setdefault(("all", record["agent"]), []).append(record)
    return groups


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """One real run of `FAMILIES`, every seed, both reference agents: its stdout and reports."""
    folder = tmp_path_factory.mktemp("figures")
    paths = {kind: folder / f"report.{kind}" for kind in ("json", "md", "html")}
    scenarios = [arg for family in FAMILIES for arg in ("--scenario", family)]
    agents = [arg for agent in AGENTS for arg in ("--agent", agent)]
    command = [
        sys.executable, "-m", "unsolvable.cli", "run", "--all-seeds", "-n", "2", *scenarios,
        *agents, "--json", str(paths["json"]), "--markdown", str(paths["md"]),
        "--html", str(paths["html"]),
    ]  # fmt: skip
    environ = {**os.environ, "PYTHONPATH": str(ROOT)}  # where the faulty agent's module is
    done = subprocess.run(
        command, capture_output=True, text=True, cwd=folder, env=environ, timeout=300, check=False
    )
    assert done.returncode == 1, done.stderr  # naive fails by design
    return {"stdout": done.stdout, **{kind: path.read_text() for kind, path in paths.items()}}


def _records(made: dict[str, str]) -> list[Record]:
    records: list[Record] = json.loads(made["json"])["records"]
    return records


def _terminal_rows(stdout: str) -> dict[tuple[str, str], dict[str, str]]:
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("family  "))
    header = re.split(r" {2,}", lines[start])
    rows = {}
    for line in lines[start + 1 :]:
        if not line or line.startswith("unsolvable:"):
            break
        cells = dict(zip(header, re.split(r" {2,}", line), strict=True))
        rows[cells["family"], cells["agent"]] = cells
    return rows


def _markdown_rows(text: str) -> dict[tuple[str, str], dict[str, str]]:
    def split(line: str) -> list[str]:
        """The cells as GitHub shows them: a pipe and a dollar sign unescaped."""
        cells = line.replace("<span>$</span>", "$").strip("|").split(" | ")
        return [cell.strip().replace("\\|", "|") for cell in cells]

    lines = text[text.index("### Per family") :].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| family"))
    header, rows = split(lines[start]), {}
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells = dict(zip(header, split(line), strict=True))
        rows[cells["family"], cells["agent"]] = cells
    return rows


def _html_rows(text: str) -> dict[tuple[str, str], dict[str, str]]:
    """The two per-family tables (stop quality, spend), each row joined to the other's."""
    part = text[text.index("<h3>Per family</h3>") : text.index("Per scenario (")]
    rows: dict[tuple[str, str], dict[str, str]] = {}
    for table in re.findall(r"<table>(.*?)</table>", part):
        header = [unescape(h) for h in re.findall(r"<th>(.*?)</th>", table)]
        for row in re.findall(r"<tr>(<td.*?)</tr>", table):
            cells = [unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]
            named = dict(zip(header, cells, strict=True))
            rows.setdefault((named["family"], named["agent"]), {}).update(named)
    return rows


FORMS: dict[str, Callable[[dict[str, str]], dict[tuple[str, str], dict[str, str]]]] = {
    "terminal": lambda made: _terminal_rows(made["stdout"]),
    "markdown": lambda made: _markdown_rows(made["md"]),
    "html": lambda made: _html_rows(made["html"]),
}


@pytest.mark.parametrize("form", FORMS)
def test_every_form_prints_the_figures_the_records_give(made: dict[str, str], form: str) -> None:
    printed = FORMS[form](made)
    families = {key: rows for key, rows in _groups(_records(made)).items() if key[0] != "all"}
    if form == "terminal":
        families = _groups(_records(made))
    assert set(printed) == set(families)
    for key, members in families.items():
        expected = _expected(members)
        assert {column: printed[key][column] for column in COLUMNS} == expected, key


def _spread_of(values: Iterable[float]) -> dict[str, float]:
    ordered = list(values)
    return {"p50": _nearest_rank(ordered, 50), "p95": _nearest_rank(ordered, 95)}


def test_the_json_metrics_are_the_figures_the_records_give(made: dict[str, str]) -> None:
    records = _records(made)
    metrics = json.loads(made["json"])["metrics"]
    groups = [(group["name"], group["agent"]) for group in metrics["families"]]
    assert sorted(groups) == sorted({(r["family"], r["agent"]) for r in records})
    for group in metrics["families"]:
        members = [
            r for r in records if (r["family"], r["agent"]) == (group["name"], group["agent"])
        ]
        controls = [r for r in members if r["solvable"]]
        lags = _lags(members, "detection_lag")
        assert group["runs"] == len(members)
        if lags:
            assert {q: group["lag_steps"][q] for q in ("p50", "p95")} == _spread_of(lags)
            assert group["lag_steps"]["count"] == len(lags)
        counted = [r for r in controls if _false_stop(r) and not r["observed"]["world_complete"]]
        rate = round(len(counted) / len(controls), 4) if controls else None
        assert (group["false_stops"], group["false_stop_rate"]) == (len(counted), rate)


def _record_row(record: Record) -> list[str]:
    """A record's row of the record table, from the record: tokens charged to the task (every
    token less the agent's own prompt, `uncharged_tokens`), of the token budget if it has one."""
    observed, budget = record["observed"], record["budget"]
    reported = record["reported"]
    lags = _lags([record], "detection_lag")
    charged = observed["input_tokens"] + observed["output_tokens"] - observed["uncharged_tokens"]
    return [
        record["scenario"] + (f" #{record['seed']}" if record["seed"] else ""),
        record["agent"],
        f"{reported['exit']}/{reported['code']}" if reported else record["outcome"],
        f"{observed['steps']}/{record['step_bound']}",
        str(observed["first_stagnant_step"]) if lags else "-",
        _plain(lags[0]) if lags else "-",
        f"{charged}/{budget['max_tokens']}" if budget["max_tokens"] else str(charged),
    ]


def test_the_record_table_prints_each_records_figures(made: dict[str, str]) -> None:
    records = _records(made)
    lines = made["stdout"].splitlines()[1 : len(records) + 1]
    printed = [re.split(r" {2,}", line, maxsplit=7)[:7] for line in lines]
    assert printed == [_record_row(record) for record in records]
    assert any(not r["budget"]["max_tokens"] and r["observed"]["uncharged_tokens"] for r in records)
