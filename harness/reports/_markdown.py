"""Consumes records, their metrics and the baseline gate, produces Markdown for a CI job summary
(GitHub's ``$GITHUB_STEP_SUMMARY`` renders tables and ``<details>``).

In the HTML page's order: the verdict and the gate, then the failing runs worst first with the
rules they broke, then per agent and per family, the scenarios folded away. A reviewer sees what
broke without opening a log. GitHub drops a step summary past 1 MiB whole, so a run too large
for it keeps everything but the per-scenario table whole, and that table its failing rows first,
as many as fit, then says how many it left out and which reports hold them all.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from unsolvable._numbers import counted, plain
from unsolvable._record import TerminationRecord
from unsolvable._shard import Shard
from unsolvable._text import printable
from unsolvable.reports._baseline import GateResult
from unsolvable.reports._broke import broken_rules, counts, headline, tag, worst_first
from unsolvable.reports._cells import COLUMNS, cells, pass_k_line, step_cap_lines
from unsolvable.reports._metrics import GroupMetrics, Metrics, where
from unsolvable.reports._table import INTERRUPTED, explain, part_of_a_run, summary_line

__all__ = ["MAX_FAILURES", "SUMMARY_LIMIT", "to_markdown"]

MAX_FAILURES = 30
"""Failures shown with their trajectory; GitHub caps a step summary at 1 MiB, and thirty tails
of a few kilobytes each stay far below it."""
SUMMARY_LIMIT = 1024 * 1024
"""Bytes GitHub takes in one step's ``$GITHUB_STEP_SUMMARY``: past them the upload is aborted
and the step shows no summary at all."""


_MARKUP = re.compile(r"\\(?=[!-/:-@\[-`{-~])|[`*~\[\]]|(?<![^\W_])_|_(?![^\W_])")
"""What would make markup of an agent's text: a backslash that would escape the character after
it, a backtick, an asterisk, a tilde or a bracket anywhere, an underscore at a word's edge (one
inside a word never emphasises, and stays as it is)."""
_LINE_START = re.compile(r"^(?P<spaces> *)(?:(?P<marker>[#+-])|(?P<number>\d+)(?P<dot>[.)]))?")
"""What would make an indented code block, a heading, a list or a rule of a line that an agent's
text begins."""


_DOLLAR = "<span>$</span>"
"""A dollar sign GitHub shows as one, never as a delimiter of math: it renders the text between
two bare ``$`` (or ``$$``) as LaTeX, and its docs ("Writing mathematical expressions") give this
form for a ``$`` outside a math expression (``\\$`` is their form inside one)."""


def _dollars(text: str) -> str:
    """``text`` (HTML or Markdown outside code) with each ``$`` as `_DOLLAR`: dollar amounts and
    what an agent wrote alike never become math."""
    return text.replace("$", _DOLLAR)


def _escaped(text: str) -> str:
    """What an agent wrote, as the text it is: what does not print is escaped, HTML would be
    rendered, Markdown's own characters would emphasise, strike through, or make code, a link
    or an image of it, and dollar signs math (`_dollars`)."""
    marked = _MARKUP.sub(lambda m: "\\" + m.group(), html.escape(printable(text), quote=False))
    return _dollars(marked)


def _plain_start(match: re.Match[str]) -> str:
    """A `_LINE_START` as text: its spaces as characters, its marker escaped."""
    spaces = "&#32;" * len(match["spaces"])
    if match["number"]:
        return f"{spaces}{match['number']}\\{match['dot']}"
    return spaces + ("\\" + match["marker"] if match["marker"] else "")


def _inline(text: str) -> str:
    """Text that holds what an agent wrote (its label, its reason), which may begin a line:
    `_escaped`, and no block begun by it."""
    return _LINE_START.sub(_plain_start, _escaped(text), count=1)


def _cell(text: str) -> str:
    """A table cell: `_escaped`, and pipes escaped, which would end the cell (a newline, which
    would end the row, `printable` has escaped)."""
    return _escaped(text).replace("|", "\\|")


def _code(text: str) -> str:
    """``text`` as a code span whatever backticks it holds: fenced by a longer run of them, and
    spaced from them where it begins or ends with one."""
    fence = "`" * (max(map(len, re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{printable(text)}{pad}{fence}"


def _table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(map(_cell, header)) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(cell) for cell in row) + " |" for row in rows]
    return lines


def _groups(first: str, groups: Sequence[GroupMetrics]) -> list[str]:
    return _table((first, *COLUMNS), ((group.name, *cells(group)) for group in groups))


def _gate_lines(lines: Sequence[str]) -> list[str]:
    """The lines under the gate's terminal verdict, which name agents: its bullets as a list,
    then the way out as a paragraph of its own."""
    items = [line.strip() for line in lines]
    bullets = [f"- {_inline(item[2:])}" for item in items if item.startswith("- ")]
    return [*bullets, "", *(_inline(item) for item in items if not item.startswith("- "))]


def _gate(gate: GateResult | None) -> list[str]:
    if gate is None:
        return []
    against = f" against {_code(str(gate.path))}" if gate.path else ""
    if gate.is_empty:
        verdict = "passed" if gate.passed else "FAILED"
        first, *rest = gate.lines()
        # ``unsolvable: baseline gate FAILED: compared no group …``: what follows the verdict.
        said = _inline(first.split(": ", 2)[2])
        return [f"**Baseline gate: {verdict}** — {said}", "", *_gate_lines(rest), ""]
    lost = [*(f"- {_inline(str(run))}" for run in gate.lost), ""] if gate.lost else []
    if gate.passed:
        return [
            f"**Baseline gate: passed** — {counted(gate.compared, 'group')} compared{against} "
            f"({_escaped(str(gate.margins))}){gate.partial_note()}{gate.lost_note()}"
            f"{':' if lost else '.'}",
            "",
            *lost,
        ]
    rows = (
        (
            where(r.level, r.name),
            r.agent,
            r.metric,
            plain(r.baseline),
            plain(r.now),
            plain(r.allowed),
        )
        for r in gate.regressions
    )
    header = ("group", "agent", "metric", "baseline", "now", "allowed up to")
    return [
        f"**Baseline gate: FAILED** — {len(gate.regressions)} regression(s){against} "
        f"({_escaped(str(gate.margins))}){gate.partial_note()}{gate.lost_note()}:",
        "",
        *_table(header, rows),
        "",
        *lost,
    ]


def _failure(record: TerminationRecord) -> list[str]:
    named = f"[{tag(record)}] " if tag(record) else ""
    title = (
        f"{named}{record.scenario} (seed {record.seed}) × {record.agent}: {record.verdict.summary}"
    )
    return [
        f"<details><summary>{_dollars(html.escape(printable(title)))}</summary>",
        "",
        "```text",
        explain(record).replace("```", "'''"),
        "```",
        "</details>",
    ]


def _failures(records: Sequence[TerminationRecord]) -> list[str]:
    failed = worst_first(records)
    if not failed:
        return []
    lines = [f"### Failing runs ({len(failed)})", "", *_table(*broken_rules(failed)), ""]
    for record in failed[:MAX_FAILURES]:
        lines += _failure(record)
    if len(failed) > MAX_FAILURES:
        lines.append(f"\n…and {len(failed) - MAX_FAILURES} more: `unsolvable run --explain`.")
    return [*lines, ""]


def _verdict(
    records: Sequence[TerminationRecord], metrics: Metrics, gate: GateResult | None
) -> list[str]:
    """The headline in bold and the verdict's figures, a failure's in bold too."""
    _, words = headline(records, gate)
    figures = (
        f"**{count.value} {count.label}**"
        if count.tone == "bad"
        else f"{count.value} {count.label}"
        for count in counts(records, metrics)
    )
    return [f"**{words}** — " + " · ".join(figures), ""]


def to_markdown(
    records: Sequence[TerminationRecord],
    metrics: Metrics,
    gate: GateResult | None = None,
    *,
    interrupted: bool = False,
    shard: Shard | None = None,
    limit: int = SUMMARY_LIMIT,
    elsewhere: Sequence[Path] = (),
    prefix: str = "--",
) -> str:
    """The whole summary, ending with a newline, in ``limit`` bytes of UTF-8 (`_fitted`):
    ``elsewhere`` are the reports written beside it that hold every row, and ``prefix`` begins
    the face's flags that would write them; ``shard``, the shard of a run they are (if so)."""
    lines = [
        f"## {summary_line(records)}",
        "",
        *([f"**{INTERRUPTED}**", ""] if interrupted else []),
        *([f"**{part_of_a_run(shard)}**", ""] if shard is not None else []),
        f"{_inline(pass_k_line(metrics).removeprefix('unsolvable: '))}. Lag is in steps past the "
        "first stagnant step, signed: negative is a run ended before it, a premature stop where "
        "the agent ended it, by a crash too (a claim of completion counts as what it is); "
        "nearest-rank percentiles over the signed lags of unsolvable runs, of which a run whose "
        "worker process was lost before its first step has none. False stops are over solvable "
        "control runs and twins.",
        "",
        *_verdict(records, metrics, gate),
        *_gate(gate),
        *_failures(records),
        "### Per agent",
        "",
        *_table(COLUMNS, map(cells, metrics.agents)),
        "",
        *(f"{_inline(line)}\n" for line in step_cap_lines(metrics)),
        "### Per family",
        "",
        *_groups("family", metrics.families),
        "",
    ]
    groups = metrics.scenarios
    whole = _joined([*lines, *_scenarios(_groups("scenario", groups), len(groups), len(groups))])
    if _size(whole) <= limit:
        return whole
    return _fitted(lines, groups, limit - _size(_joined(lines)), elsewhere, prefix)


def _joined(lines: Sequence[str]) -> str:
    return "\n".join(lines) + "\n"


def _size(text: str) -> int:
    """What GitHub counts: bytes of UTF-8."""
    return len(text.encode())


def _scenarios(table: Sequence[str], kept: int, total: int, note: str = "") -> list[str]:
    """The per-scenario table folded away, its ``kept`` rows of ``total`` counted in its title,
    and the ``note`` on the rows left out under it."""
    shown = f"{total} rows" if kept == total else f"{kept} of {total} rows"
    return [
        f"<details><summary>Per scenario ({shown})</summary>",
        "",
        *table,
        "",
        "</details>",
        *(["", note] if note else []),
    ]


def _fitted(
    lines: Sequence[str],
    groups: Sequence[GroupMetrics],
    room: int,
    elsewhere: Sequence[Path],
    prefix: str,
) -> str:
    """The summary whose per-scenario table did not fit in its limit: its failing rows first (a
    scenario some run of which failed), then the passing ones, each in the table's order, as many
    as fit in the ``room`` the rest of the summary left beside the table's frame and the line
    that counts the rows left out. The frame is measured with counts at least as long as those
    it ends up with, so the rows kept never take the summary past its limit (nor does anything,
    unless the rest alone does)."""
    total = len(groups)
    ordered = sorted(groups, key=lambda group: group.passed == group.runs)
    note = _left_out(total, elsewhere, prefix)
    room -= _size(_joined(_scenarios(_groups("scenario", []), total - 1, total, note)))
    kept = 0
    for group in ordered:
        room -= _size(_joined(_groups("scenario", [group])[2:]))
        if room < 0:
            break
        kept += 1
    table = _groups("scenario", ordered[:kept])
    note = _left_out(total - kept, elsewhere, prefix)
    return _joined([*lines, *_scenarios(table, kept, total, note)])


def _left_out(count: int, elsewhere: Sequence[Path], prefix: str) -> str:
    """How many scenario rows the summary left out, and where they all are."""
    where = (
        f"every row is in {' and '.join(_code(str(path)) for path in elsewhere)}"
        if elsewhere
        else f"write the {_code(prefix + 'html')} or {_code(prefix + 'json')} report to keep "
        "every row"
    )
    return (
        f"**{count} scenario rows left out** (the failing ones are shown first) to keep this "
        f"summary within GitHub's {SUMMARY_LIMIT // 1024 // 1024} MiB limit for a step summary; "
        f"{where}."
    )
