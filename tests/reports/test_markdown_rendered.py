"""``--markdown`` as GitHub renders it, read back through a CommonMark renderer with the GFM table
rule: labels that hold Markdown or HTML come out as the text they are, in the cell they belong
to, and every table keeps its columns."""

from __future__ import annotations

import dataclasses
import re
from html import unescape
from pathlib import Path

import markdown_it
import pytest

from tests.reports._records import record
from unsolvable.reports._baseline import Baseline, gate
from unsolvable.reports._markdown import to_markdown
from unsolvable.reports._metrics import measure

HOSTILE = (
    "a|b",
    "c\\|d",
    "x*y*z",
    "`tick`",
    "~~gone~~",
    "_lead",
    "<img src=x onerror=alert(1)>",
    "# heading",
    "1. listed",
    "w" * 300,
)
"""Agent labels and scenario variants that would split a cell, emphasise, strike through, make
code, inject an element, start a heading or a list, or run very long."""


def _rendered(text: str) -> str:
    return str(markdown_it.MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(text))


def _tables(page: str) -> list[list[list[str]]]:
    """Each table as rows of cell texts, the markup in a cell kept."""
    return [
        [
            re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row)
            for row in re.findall(r"<tr>(.*?)</tr>", t, re.S)
        ]
        for t in re.findall(r"<table>(.*?)</table>", page, re.S)
    ]


def _summary(passed: bool) -> str:
    records = [record(agent=h, scenario=f"fam/{h}", passed=passed) for h in HOSTILE]
    return to_markdown(records, measure(records))


@pytest.mark.parametrize("passed", [True, False])
def test_every_label_is_one_cell_of_plain_text_and_every_table_keeps_its_columns(
    passed: bool,
) -> None:
    tables = _tables(_rendered(_summary(passed)))
    assert len(tables) == (3 if passed else 4), "per agent, per family, per scenario, failing"
    for table in tables:
        assert all(len(row) == len(table[0]) for row in table), table[0]
        assert all("<" not in cell for row in table for cell in row), "no markup in a cell"
    agents = {unescape(row[0]) for row in tables[-3][1:]}
    assert agents == set(HOSTILE)
    if not passed:
        assert [unescape(cell) for cell in tables[0][0][1:]] == sorted(HOSTILE)


def test_the_headline_is_one_paragraph_of_the_labels_as_they_are() -> None:
    page = _rendered(_summary(True))
    first = re.search(r"<p>(.*?)</p>", page, re.S)
    assert first is not None and "<" not in first.group(1)
    assert unescape(first.group(1)).startswith("a|b pass^1 1/1 scenarios; c\\|d pass^1")
    assert "<img" not in page and "<h1>" not in page and "<ol" not in page


def test_the_step_cap_sentence_names_the_agent_as_it_is() -> None:
    agent = HOSTILE[6]
    control = record(agent=agent, scenario="ctl/b", solvable=True, code=None, world_complete=True)
    records = [record(agent=agent), control]
    page = _rendered(to_markdown(records, measure(records)))
    (sentence,) = re.findall(r"<p>([^<]*does not beat the calibrated step cap[^<]*)</p>", page)
    assert unescape(sentence).startswith(f"{agent} does not beat")
    assert "<img" not in page


def test_a_gate_that_compares_nothing_lists_both_sides_agents_as_they_are() -> None:
    blessed, now = [record(agent=HOSTILE[6])], [record(agent=HOSTILE[2])]
    empty = gate(measure(now), Baseline.from_metrics(measure(blessed)))
    page = _rendered(to_markdown(now, measure(now), empty))
    items = [unescape(item) for item in re.findall(r"<li>([^<]*)</li>", page)]
    assert items == [
        f"the baseline has agents: {HOSTILE[6]}",
        f"this run has agents: {HOSTILE[2]}",
    ]
    assert "<p><strong>Baseline gate: FAILED</strong> — compared no group against the" in page
    assert "<img" not in page


@pytest.mark.parametrize(
    "label", ["# heading", "1. listed", "2) listed", "- item", "+ item", "    indented"]
)
def test_a_label_that_begins_the_headline_leaves_it_a_paragraph(label: str) -> None:
    records = [record(agent=label)]
    page = _rendered(to_markdown(records, measure(records)))
    headline = page.split("</h2>\n", 1)[1]
    assert headline.startswith("<p>"), headline[:80]
    assert unescape(headline[3:]).startswith(f"{label} pass^1 1/1 scenarios")


@pytest.mark.parametrize("path", ["ci/base`line.json", "`ci`/baseline.json", "ci/<b>.json"])
def test_the_gate_names_its_baseline_file_as_it_is(path: str) -> None:
    records = [record()]
    blessed = gate(measure(records), Baseline.from_metrics(measure(records)))
    page = _rendered(
        to_markdown(records, measure(records), dataclasses.replace(blessed, path=Path(path)))
    )
    (code,) = re.findall(r"groups compared against <code>(.*?)</code>", page)
    assert unescape(code) == path
