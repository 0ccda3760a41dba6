"""The Markdown summary within GitHub's limit for a step summary: a run too large for it keeps its
headline and failures, the per-scenario table's failing rows first and as many rows as fit, and
says how many it left out and where they all are; a run that fits is written as it always was."""

from __future__ import annotations

import re
from pathlib import Path

import markdown_it

from tests.reports._records import record
from unsolvable import TerminationRecord
from unsolvable.reports._markdown import SUMMARY_LIMIT, to_markdown
from unsolvable.reports._metrics import measure
from unsolvable.reports._publish import ReportOptions, publish

SCENARIOS = 6000
"""Scenario × agent rows of about 260 bytes each: half as much again as the limit holds."""
FAILING = range(3, SCENARIOS, 5)
"""Every fifth scenario fails, spread over the whole table, the last of them near its end."""


def _records(count: int) -> list[TerminationRecord]:
    return [
        record(scenario=f"fam/{i:05d}-{'x' * 150}", passed=i not in FAILING) for i in range(count)
    ]


def _rows(markdown: str) -> list[str]:
    """The per-scenario table's rows as GitHub shows them: the first cell of each."""
    page = str(markdown_it.MarkdownIt("commonmark").enable("table").render(markdown))
    table = page.split("<summary>Per scenario", 1)[1]
    return re.findall(r"<tr>\s*<td>fam/(\d+)-x+</td>", table)


def test_a_run_too_large_keeps_its_failing_rows_first_and_counts_the_rest() -> None:
    records = _records(SCENARIOS)
    elsewhere = [Path("out/unsolvable.html"), Path("out/unsolvable.json")]
    markdown = to_markdown(records, measure(records), elsewhere=elsewhere)
    size = len(markdown.encode())
    assert size <= SUMMARY_LIMIT
    row = max(len(line.encode()) + 1 for line in markdown.splitlines() if line.startswith("| fam/"))
    assert SUMMARY_LIMIT - size < row + len("9"), "as many rows as fit (counts one digit short)"
    assert markdown.startswith("## unsolvable: 6000 runs, 4800 passed, 1200 failed")
    assert "### Failing runs (1200)" in markdown and "### Per family" in markdown
    shown = [int(scenario) for scenario in _rows(markdown)]
    failing = [scenario for scenario in shown if scenario in FAILING]
    assert shown[: len(FAILING)] == list(FAILING), "every failing row, before any passing one"
    assert len(failing) == len(FAILING) < len(shown) < SCENARIOS
    left_out = SCENARIOS - len(shown)
    assert f"<summary>Per scenario ({len(shown)} of {SCENARIOS} rows)</summary>" in markdown
    assert markdown.endswith(
        f"**{left_out} scenario rows left out** (the failing ones are shown first) to keep this "
        "summary within GitHub's 1 MiB limit for a step summary; every row is in "
        "`out/unsolvable.html` and `out/unsolvable.json`.\n"
    )


def test_with_no_report_that_holds_every_row_it_names_the_flags_that_write_one() -> None:
    records = _records(SCENARIOS)
    markdown = to_markdown(records, measure(records), prefix="--unsolvable-")
    assert markdown.endswith(
        "write the `--unsolvable-html` or `--unsolvable-json` report to keep every row.\n"
    )


def test_a_summary_that_fits_is_written_whole_and_one_byte_less_is_cut() -> None:
    """At its own size as the limit, the summary is the one written under the default limit,
    byte for byte; a byte less, and it is cut to fit that."""
    records = _records(40)
    metrics = measure(records)
    whole = to_markdown(records, metrics)
    size = len(whole.encode())
    assert to_markdown(records, metrics, limit=size) == whole
    assert "left out" not in whole and "<summary>Per scenario (40 rows)</summary>" in whole
    cut = to_markdown(records, metrics, limit=size - 1)
    assert len(cut.encode()) <= size - 1
    assert "scenario rows left out** (the failing ones are shown first)" in cut
    assert _rows(cut)[: len(range(3, 40, 5))] == [f"{i:05d}" for i in range(3, 40, 5)]


def test_publish_names_the_reports_it_wrote_beside_a_summary_it_cut(tmp_path: Path) -> None:
    """The HTML page and the records file hold every row; a Markdown file does not."""
    paths = {suffix: tmp_path / f"unsolvable.{suffix}" for suffix in ("md", "html", "json")}
    options = ReportOptions(markdown=paths["md"], html=paths["html"], json=paths["json"])
    published = publish(_records(SCENARIOS), options)
    assert len(paths["md"].read_bytes()) <= SUMMARY_LIMIT
    summary = paths["md"].read_text()
    assert summary.endswith(f"every row is in `{paths['html']}` and `{paths['json']}`.\n")
    assert published.notes[1:] == (
        f"unsolvable: wrote Markdown report to {paths['md']}",
        f"unsolvable: wrote HTML report to {paths['html']}",
    )
