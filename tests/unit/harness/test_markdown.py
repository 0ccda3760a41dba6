"""The Markdown report: headline, gate, well-formed tables, failures folded with their tail."""

from __future__ import annotations

import dataclasses
import re

import unsolvable
from tests.reports._records import library_records, record
from unsolvable import Code, Outcome, scenarios
from unsolvable.reports._baseline import gate
from unsolvable.reports._blessed import Baseline
from unsolvable.reports._cells import COLUMNS
from unsolvable.reports._html import to_html
from unsolvable.reports._markdown import MAX_FAILURES, SUMMARY_LIMIT, to_markdown
from unsolvable.reports._metrics import measure

UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")


def _tables(markdown: str) -> list[list[str]]:
    """Each table's lines, in order."""
    tables: list[list[str]] = [[]]
    for line in markdown.splitlines():
        if line.startswith("|"):
            tables[-1].append(line)
        elif tables[-1]:
            tables.append([])
    return [table for table in tables if table]


def test_headline_tables_and_failures_of_the_library() -> None:
    records = library_records()
    markdown = to_markdown(records, measure(records))
    assert markdown.startswith("## unsolvable: 114 runs, 72 passed, 42 failed")
    rules, agents, families, scenarios = _tables(markdown)
    assert rules[0] == "| rule broken | naive |"
    assert len(agents) == 2 + 2 and len(families) == 2 + 6 and len(scenarios) == 2 + 38
    for table in (rules, agents, families, scenarios):
        widths = {len(UNESCAPED_PIPE.findall(line)) for line in table}
        assert widths == {len(table[0].split("|")) - 1}, "every row has the header's cells"
    header = " | ".join(COLUMNS).replace("$", "<span>$</span>")  # never a math delimiter
    assert agents[0] == f"| {header} |"
    assert (
        "**FAIL: verdicts failed** — **42/114 runs failed** · **3 false completions**" in markdown
    )
    assert "### Failing runs (42)" in markdown
    assert "contract beats the calibrated step cap" in markdown
    assert "naive does not beat the calibrated step cap" in markdown
    assert markdown.count("<details><summary>") == 1 + MAX_FAILURES
    first = "<details><summary>[false completion] constant-return/claims-success (seed 0) × naive"
    assert markdown.index(first) < markdown.index("### Per agent"), "what broke comes first"


def test_cells_escape_pipes_and_summaries_escape_html() -> None:
    records = [record(scenario="fam/a|b", passed=False)]
    markdown = to_markdown(records, measure(records))
    assert "| fam/a\\|b |" in markdown
    assert "<summary>fam/a|b (seed 0) × a: FAIL: it | broke</summary>" in markdown
    assert markdown.startswith("## unsolvable: 1 run, 0 passed, 1 failed")
    assert "&lt;b&gt;" not in markdown.split("```text")[1], "code blocks stay verbatim"


def test_only_the_first_failures_are_spelt_out() -> None:
    records = [record(scenario=f"fam/{i}", passed=False) for i in range(MAX_FAILURES + 2)]
    markdown = to_markdown(records, measure(records))
    assert markdown.count("```text") == MAX_FAILURES
    assert "…and 2 more: `unsolvable run --explain`." in markdown


def test_the_gate_shows_on_top_passed_or_as_a_table_of_regressions() -> None:
    before = measure([record(steps=3)])
    after_records = [record(steps=7)]
    after = measure(after_records)
    passed = to_markdown(after_records, after, gate(after, Baseline.from_metrics(after)))
    assert "**Baseline gate: passed** — 3 groups compared" in passed
    failed = to_markdown(after_records, after, gate(after, Baseline.from_metrics(before)))
    assert "**Baseline gate: FAILED** — 3 regression(s)" in failed
    assert "| family fam | a | lag_steps_p95 | 1 | 5 | 1 |" in failed


def test_a_failed_gate_counts_the_groups_it_left_out_in_either_report() -> None:
    blessed = measure([record(scenario="fam/a", steps=3), record(scenario="fam/b", steps=3)])
    narrowed = [record(scenario="fam/a", steps=9)]
    now = measure(narrowed)
    result = gate(now, Baseline.from_metrics(blessed))
    assert not result.passed and result.partial == 2
    left_out = "2 groups this run covers only in part were not compared"
    assert left_out in to_markdown(narrowed, now, result)
    assert left_out in to_html(narrowed, now, result)


def test_a_full_run_of_several_agents_fits_a_github_job_summary() -> None:
    """Every scenario and seed, four agents: far below GitHub's 1 MiB step-summary limit."""
    runs = [
        unsolvable.run(agent, scenario, seed=seed)
        for scenario in scenarios.SCENARIOS
        for seed in scenario.seeds
        for agent in ("naive", "contract")
    ]
    records = [*runs, *(dataclasses.replace(r, agent=f"{r.agent}-again") for r in runs)]
    markdown = to_markdown(records, measure(records))
    assert len(markdown.encode()) < SUMMARY_LIMIT // 4


def test_both_reports_say_a_negative_lag_is_a_premature_stop_only_where_they_count_one() -> None:
    """A claim of completion at step 1 of a run stagnant from step 3 lags -2 and is no premature
    stop (a false completion): the notes under the lag said every negative lag was one, beside
    a 0; a crash there is one, as the notes say."""
    claimed = record(scenario="fam/a", steps=1, stagnant=3, code=Code.COMPLETED)
    crashed = record(scenario="fam/b", steps=1, stagnant=3, code=None, outcome=Outcome.CRASHED)
    metrics = measure([claimed, crashed])
    assert metrics.agents[0].lag_steps is not None
    assert (metrics.agents[0].lag_steps.p50, metrics.agents[0].premature_stops) == (-2, 1)
    for text in (to_markdown([claimed], metrics), to_html([claimed], metrics)):
        assert "is a premature stop" not in text
        assert "by a crash too" in text and "a claim of completion counts as what it is" in text


def test_a_report_of_no_run_does_not_say_every_verdict_passed() -> None:
    """An empty shard of a CI matrix writes a report of no run: it passes, as its exit status
    says, but it judged nothing, and said "every verdict passed" of no verdict."""
    for text in (to_markdown([], measure([])), to_html([], measure([]))):
        assert "every verdict passed" not in text
        assert "PASS: no run was made, so no verdict was judged" in text


def test_the_headline_gives_no_figure_where_the_tables_say_none_applies() -> None:
    """With no control run there is no false-stop figure, and with no unsolvable run no
    premature one: the tables say ``-``, and the headline said ``0/0`` and ``0``, green."""
    unsolvable_only = [record(scenario="fam/a"), record(scenario="fam/b")]
    controls_only = [record(scenario="ctl/c", solvable=True, code=None, world_complete=True)]
    first = to_markdown(unsolvable_only, measure(unsolvable_only)).splitlines()[4]
    second = to_markdown(controls_only, measure(controls_only)).splitlines()[4]
    assert "· - false stops on controls ·" in first and "0/0" not in first
    assert second.endswith("· - premature stops")


def test_the_headline_counts_blind_stops_as_the_tables_do() -> None:
    """The tables write premature stops with the blind among them (``2 (1 blind)``); the
    headline wrote the same figure without them."""
    early = record(scenario="fam/a", steps=1, stagnant=3)
    blind = dataclasses.replace(
        record(scenario="fam/b", steps=1, stagnant=3),
        observed=dataclasses.replace(early.observed, tool_calls=0),
    )
    records = [early, blind]
    markdown = to_markdown(records, measure(records))
    assert markdown.splitlines()[4].endswith("· 2 (1 blind) premature stops")
    assert "| 2 (1 blind) |" in markdown
