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
from unsolvable.reports._baseline import Baseline, Margins, gate
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
    "a$x$b",
    "$$display$$",
)
"""Agent labels and scenario variants that would split a cell, emphasise, strike through, make
code, inject an element, start a heading or a list, run very long, or make math on GitHub."""
DOLLAR = "<span>$</span>"
"""A literal ``$`` as GitHub's docs write one outside math: a bare one pairs with the next."""


def _rendered(text: str) -> str:
    return str(markdown_it.MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(text))


def _shown(page: str) -> str:
    """The rendered page as GitHub shows it: every ``$`` outside code (where GitHub makes no
    math) is a `DOLLAR`, which becomes a plain ``$`` here; a bare one fails the test."""
    prose = re.sub(r"<pre>.*?</pre>|<code>.*?</code>", "", page, flags=re.S)
    assert "$" not in prose.replace(DOLLAR, ""), re.findall(r".{40}(?<!<span>)\$.{40}", prose)
    return page.replace(DOLLAR, "$")


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
    tables = _tables(_shown(_rendered(_summary(passed))))
    assert len(tables) == (3 if passed else 4), "per agent, per family, per scenario, failing"
    for table in tables:
        assert all(len(row) == len(table[0]) for row in table), table[0]
        assert all("<" not in cell for row in table for cell in row), "no markup in a cell"
    agents = {unescape(row[0]) for row in tables[-3][1:]}
    assert agents == set(HOSTILE)
    if not passed:
        assert [unescape(cell) for cell in tables[0][0][1:]] == sorted(HOSTILE)


def test_the_headline_is_one_paragraph_of_the_labels_as_they_are() -> None:
    page = _shown(_rendered(_summary(True)))
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


def test_every_dollar_sign_shows_as_one_and_none_makes_math() -> None:
    """Labels and a verdict's message holding ``$…$``, a dollar amount past a dollar budget and
    the gate's dollar margin: GitHub would render the text between two bare ``$`` as math, so
    the raw Markdown writes each as `DOLLAR`, and the page reads as the text it is."""
    over = record(agent="a$x$b", scenario="fam/$$display$$", passed=False)
    over = dataclasses.replace(
        over,
        budget={"max_steps": 10, "max_cost_usd": 0.001},
        observed=dataclasses.replace(over.observed, overshoot_cost_usd=0.02603),
        verdict=dataclasses.replace(
            over.verdict,
            failures=tuple(
                dataclasses.replace(failure, message="spent $5 of $1")
                for failure in over.verdict.failures
            ),
        ),
    )
    records = [over, record(agent="a$x$b", scenario="fam/b")]
    metrics = measure(records)
    margins = Margins(lag_cost_usd=0.01)
    markdown = to_markdown(records, metrics, gate(metrics, Baseline.from_metrics(metrics), margins))
    assert f"| a{DOLLAR}x{DOLLAR}b |" in markdown and f"max {DOLLAR}0.02603 |" in markdown
    assert f"lag cost p95 +{DOLLAR}0.01" in markdown
    page = _shown(_rendered(markdown))
    assert "<strong>Baseline gate: passed</strong> — 4 groups compared (lag p95 +0 steps" in page
    assert "lag cost p95 +$0.01)." in page
    rules, agents, *_ = _tables(page)
    assert [unescape(cell) for cell in rules[0]] == ["rule broken", "a$x$b"]
    assert [unescape(cell) for cell in agents[1][:3]] == ["a$x$b", "2", "1/2"]
    assert unescape(agents[0][6]) == "lag $ p50/p95"
    assert unescape(agents[1][8]) == "1, max $0.02603"
    (summary,) = re.findall(r"<summary>(fam/.*?)</summary>", page)
    assert unescape(summary) == "fam/$$display$$ (seed 0) × a$x$b: FAIL: spent $5 of $1"
