"""An agent's label is shown, never obeyed: in the terminal's pass^k line, escaped as the tables
escape it; in the Markdown summary's headline, escaped as its cells are."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.reports._records import record
from unsolvable.cli import main
from unsolvable.reports._cells import pass_k_line
from unsolvable.reports._markdown import to_markdown
from unsolvable.reports._metrics import measure

LABEL = "\x1b[2J\rbot<script>alert(1)</script>[click](http://e.test)"
"""Clears the screen, returns the cursor, runs a script in a page, links away."""


def test_the_pass_k_line_escapes_what_does_not_print() -> None:
    line = pass_k_line(measure([record(agent=LABEL)]))
    assert "\x1b" not in line and "\r" not in line
    assert line.startswith("unsolvable: \\x1b[2J\\rbot<script>")


def test_the_markdown_headline_renders_no_html_and_no_link() -> None:
    records = [record(agent=LABEL)]
    headline = to_markdown(records, measure(records)).splitlines()[2]
    assert headline.startswith(
        "\\x1b\\[2J\\rbot&lt;script&gt;alert(1)&lt;/script&gt;\\[click\\](http://e.test) pass^1"
    )


def test_unsolvable_report_prints_and_writes_the_label_escaped(tmp_path: Path, capsys: Any) -> None:
    records = tmp_path / "recs.json"
    records.write_text(json.dumps({"records": [record(agent=LABEL).to_dict()]}))
    summary = tmp_path / "summary.md"
    assert main(["report", str(records), "--markdown", str(summary)]) == 0
    out = capsys.readouterr().out
    written = summary.read_text()
    for shown in (out, written):
        assert "\x1b" not in shown and "\r" not in shown, "no control character reaches them"
    assert "<script>" not in written and "&lt;script&gt;" in written
    assert "unsolvable: \\x1b[2J\\rbot<script>alert(1)</script>" in out  # a terminal runs none


def test_a_label_no_utf_8_encodes_is_written_escaped_in_every_report(tmp_path: Path) -> None:
    """A records file may hold a lone surrogate (``"\\ud800"`` in its JSON), and so may a label
    taken from a command line that is no UTF-8: every report is still written, the character
    as its escape."""
    records = tmp_path / "recs.json"
    records.write_text(json.dumps({"records": [record(agent="a\ud800b").to_dict()]}))
    reports = {flag: tmp_path / f"report.{flag}" for flag in ("html", "markdown", "otel")}
    flags = [arg for flag, path in reports.items() for arg in (f"--{flag}", str(path))]
    assert main(["report", str(records), *flags, "--trace-dir", str(tmp_path / "t")]) == 0
    assert "a\\ud800b" in reports["html"].read_text(encoding="utf-8")
    assert "a\\ud800b" in reports["markdown"].read_text(encoding="utf-8")
