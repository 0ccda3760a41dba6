"""Consumes records, their metrics and the baseline gate, produces one self-contained HTML page
built around what broke: the verdict and the gate first, then every failing run with its
timeline and tail, then the metrics and their charts (`unsolvable.reports._charts`).

Inline CSS and SVG only, no script; a Content-Security-Policy forbids every fetch, so the page
renders the same from a CI artifact, an e-mail or a laptop with no network.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape

from unsolvable._numbers import counted
from unsolvable._record import TerminationRecord
from unsolvable._shard import Shard
from unsolvable._text import html_text
from unsolvable.reports._baseline import GateResult
from unsolvable.reports._broke import broken_rules, counts, headline, tag, worst_first
from unsolvable.reports._cells import COLUMNS, cells, pass_k_line, step_cap_lines
from unsolvable.reports._charts import lag_chart, timeline, tradeoff_chart
from unsolvable.reports._metrics import GroupMetrics, Metrics
from unsolvable.reports._table import INTERRUPTED, explain, part_of_a_run, summary_line

__all__ = ["to_html"]

OPEN_FAILURES = 3
"""Failing runs shown unfolded; the rest are one click away."""

CSS = """
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1f2937;margin:24px auto;
max-width:1240px;padding:0 20px}
h1{font-size:22px;margin:0 0 4px}
h2{font-size:18px;margin:32px 0 8px;border-bottom:1px solid #e5e7eb;padding-bottom:4px}
h3{font-size:15px;margin:20px 0 6px}
.lead{color:#374151;margin:2px 0}.note{color:#4b5563;font-size:13px;margin:4px 0 8px}
.verdict{display:flex;flex-wrap:wrap;gap:10px;margin:14px 0}
.card{border:1px solid #e5e7eb;border-radius:8px;padding:8px 14px;min-width:150px;
background:#f9fafb}.card b{display:block;font-size:22px;line-height:1.2}
.card span{font-size:12.5px;color:#4b5563}
.card.bad{background:#fef2f2;border-color:#f87171}.card.bad b{color:#b91c1c}
.card.warn{background:#fffbeb;border-color:#fbbf24}.card.warn b{color:#b45309}
.card.good{background:#ecfdf5;border-color:#6ee7b7}.card.good b{color:#047857}
.banner{font-size:20px;font-weight:700;padding:10px 16px;border-radius:8px;margin:12px 0 0}
.banner.pass{background:#ecfdf5;color:#047857;border:1px solid #6ee7b7}
.banner.fail{background:#fef2f2;color:#b91c1c;border:1px solid #f87171}
.gate{padding:8px 12px;border-radius:6px;margin:12px 0}
.gate.pass{background:#ecfdf5;border:1px solid #6ee7b7}
.gate.fail{background:#fef2f2;border:1px solid #f87171}
.scroll{overflow-x:auto;max-width:100%;border:1px solid #e5e7eb;border-radius:6px;margin:6px 0}
table{border-collapse:collapse;font-size:12.5px;min-width:100%}
th,td{border-bottom:1px solid #f3f4f6;padding:4px 8px;text-align:left;vertical-align:top;
white-space:nowrap}th{background:#f9fafb;white-space:normal;vertical-align:bottom;min-width:4.5em}
td.wrap{white-space:normal;min-width:14em}
svg{display:block;margin:6px 0;max-width:100%;height:auto}
svg text{font:11px system-ui,sans-serif;fill:#374151}
.legend{margin:6px 0 0;font-size:12.5px;overflow-wrap:anywhere}.legend .key{margin-right:16px}
.legend svg{display:inline-block;vertical-align:-2px;margin:0 4px 0 0}
.axis{stroke:#9ca3af}.grid{stroke:#f3f4f6}details{margin:6px 0;border:1px solid #e5e7eb;
border-radius:6px;padding:6px 10px}summary{cursor:pointer}
pre{background:#f9fafb;border:1px solid #e5e7eb;padding:8px;font-size:12px;overflow-x:auto;
white-space:pre-wrap;overflow-wrap:anywhere}.fail-title{color:#991b1b}
.tag{display:inline-block;font-size:11.5px;padding:0 6px;border-radius:4px;margin-right:6px;
background:#fee2e2;color:#991b1b}
"""
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def _verdict(
    records: Sequence[TerminationRecord], metrics: Metrics, gate: GateResult | None
) -> str:
    passed, words = headline(records, gate)
    banner = f'<div class="banner {"pass" if passed else "fail"}">{html_text(words)}</div>'
    cards = "".join(
        f'<div class="card {count.tone}"><b>{html_text(count.value)}</b>'
        f"<span>{html_text(count.label)}</span></div>"
        for count in counts(records, metrics)
    )
    return banner + f'<div class="verdict">{cards}</div>'


def _gate(gate: GateResult | None) -> str:
    if gate is None:
        return ""
    if gate.is_empty:
        text = " ".join(line.strip() for line in gate.lines())
        return f'<div class="gate {"pass" if gate.passed else "fail"}">{html_text(text)}</div>'
    lost = "".join(f"<li>{html_text(str(run))}</li>" for run in gate.lost)
    against = f" against {gate.path}" if gate.path else ""
    if gate.passed:
        text = (
            f"Baseline gate passed: {counted(gate.compared, 'group')} compared{against} "
            f"({gate.margins})"
            f"{gate.partial_note()}{gate.lost_note()}{':' if lost else '.'}"
        )
        listed = f"<ul>{lost}</ul>" if lost else ""
        return f'<div class="gate pass">{html_text(text)}{listed}</div>'
    items = "".join(f"<li>{html_text(str(r))}</li>" for r in gate.regressions) + lost
    title = (
        f"Baseline gate FAILED: {len(gate.regressions)} regression(s){against} ({gate.margins})"
        f"{gate.partial_note()}{gate.lost_note()}"
    )
    return f'<div class="gate fail"><strong>{html_text(title)}</strong><ul>{items}</ul></div>'


def _failure(record: TerminationRecord, *, open_: bool) -> str:
    named = tag(record)
    title = f"{record.scenario} (seed {record.seed}) × {record.agent}"
    return (
        f"<details{' open' if open_ else ''}><summary>"
        + (f'<span class="tag">{html_text(named)}</span>' if named else "")
        + f"<strong>{html_text(title)}</strong> "
        f'<span class="fail-title">{html_text(record.verdict.summary)}</span></summary>'
        f"{timeline(record)}<pre>{escape(explain(record))}</pre></details>"
    )


def _failures(records: Sequence[TerminationRecord]) -> str:
    failed = worst_first(records)
    if not failed:
        return '<p class="note">Every verdict passed.</p>'
    legend = (
        '<p class="note">Worst first. Grey: steps made while progress was possible; red: the '
        "detection lag, from the first stagnant step to the stop (for a run a ceiling cut "
        "short, the step past N it counts as stopped at); dashed: the bound N.</p>"
    )
    runs = "".join(_failure(r, open_=i < OPEN_FAILURES) for i, r in enumerate(failed))
    return _table(*broken_rules(failed)) + legend + runs


QUALITY = (
    "agent",
    "runs",
    "pass^k",
    "lag p50/p95/max",
    "premature",
    "false stops",
    "finished, reported otherwise",
    "false compl.",
    "did_not_stop",
    "calibrated step cap",
)
"""The `COLUMNS` of a table of stop quality: the two axes and what broke."""
SPEND = (
    "agent",
    "runs",
    "lag tokens p50/p95",
    "lag $ p50/p95",
    "step/N p95",
    "past budget",
    "ended",
)
"""The `COLUMNS` of a table of what the runs spent and how they ended; with `QUALITY`, every
column the terminal and Markdown tables have, so the page shows every number they do."""
WRAPPED = ("calibrated step cap", "ended")
"""Columns of sentences and lists: they wrap rather than widen the table."""


def _table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A table in a box of its own that scrolls sideways when the window is too narrow for it,
    so the page never does."""
    head = "".join(f"<th>{html_text(cell)}</th>" for cell in header)
    body = "".join(
        "<tr>"
        + "".join(
            f"<td{' class=wrap' if name in WRAPPED else ''}>{html_text(cell)}</td>"
            for name, cell in zip(header, row, strict=True)
        )
        + "</tr>"
        for row in rows
    )
    table = f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    return f'<div class="scroll">{table}</div>'


def _groups(first: str | None, groups: Sequence[GroupMetrics], columns: Sequence[str]) -> str:
    """``columns`` of each group's `cells`, after its name unless ``first`` is ``None`` (a table
    of agents, whose name column would only repeat "all")."""
    picked = [COLUMNS.index(column) for column in columns]
    named = first is not None
    rows = (
        [*([group.name] if named else []), *(cells(group)[i] for i in picked)] for group in groups
    )
    return _table([*([first] if first is not None else []), *columns], rows)


def _both(first: str | None, groups: Sequence[GroupMetrics]) -> list[str]:
    return [_groups(first, groups, QUALITY), _groups(first, groups, SPEND)]


def _metrics(metrics: Metrics, records: Sequence[TerminationRecord]) -> list[str]:
    return [
        "<h2>Metrics</h2>",
        "<h3>Lag against false stops, per agent</h3>",
        '<p class="note">Lag: steps past the first stagnant step on unsolvable tasks (p95), '
        "counted from 0 as the step cap comparison counts it: a run ended before it is no "
        "shorter lag but a premature stop where the agent chose to end it, by a crash too, "
        "counted apart (a claim of completion counts as what it is); a run whose worker "
        "process was lost before its first step has none. "
        "False stops: solvable controls and twins ended "
        "without completing them. Hollow grey: the calibrated step cap, the best single step "
        "limit over the same runs; stop logic worth its code sits left of it.</p>",
        tradeoff_chart(metrics),
        *(f'<p class="lead">{html_text(line)}</p>' for line in step_cap_lines(metrics)),
        *_both(None, metrics.agents),
        "<h3>Detection lag per family</h3>",
        '<p class="note">A dot per run, in its agent\'s colour and marker (the legend names '
        "each); the band spans p50 to p95, the bar marks the max; the hollow grey diamond is the "
        "calibrated step cap's lag p95 on the same runs.</p>",
        lag_chart(metrics, records),
        "<h3>Per family</h3>",
        *_both("family", metrics.families),
        f"<details><summary>Per scenario ({len(metrics.scenarios)} rows)</summary>"
        + "".join(_both("scenario", metrics.scenarios))
        + "</details>",
    ]


def to_html(
    records: Sequence[TerminationRecord],
    metrics: Metrics,
    gate: GateResult | None = None,
    *,
    interrupted: bool = False,
    shard: Shard | None = None,
) -> str:
    """The whole page; the same records give the same bytes. ``shard``: the shard of a run
    they are, if so."""
    failed = sum(1 for r in records if not r.verdict.passed)
    body = [
        "<h1>unsolvable report</h1>",
        f'<p class="lead"><strong>{html_text(INTERRUPTED)}</strong></p>' if interrupted else "",
        f'<p class="lead"><strong>{html_text(part_of_a_run(shard))}</strong></p>'
        if shard is not None
        else "",
        f'<p class="lead">{html_text(summary_line(records))}</p>',
        f'<p class="lead">{html_text(pass_k_line(metrics))}</p>',
        _verdict(records, metrics, gate),
        _gate(gate),
        f"<h2>Failing runs ({failed})</h2>",
        _failures(records),
        *_metrics(metrics, records),
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>unsolvable report</title><style>{CSS}</style></head><body>"
        + "\n".join(part for part in body if part)
        + "</body></html>\n"
    )
