"""Consumes the records of a run and where its reports go, produces the reports (JSON, Markdown,
HTML, OTLP spans, ATIF trajectories), the baseline gate or a new baseline, and the lines to print
about them.

The one place both faces (``unsolvable run`` and the pytest plugin) call, so the two write the
same files and apply the same gate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from unsolvable._errors import BaselineError, OutputError, ShardError
from unsolvable._numbers import counted
from unsolvable._record import TerminationRecord
from unsolvable._shard import ShardTag
from unsolvable._writable import check_writable, check_writable_dir
from unsolvable.reports._atif import TRAJECTORY_DEPTH
from unsolvable.reports._baseline import GateResult, Margins, gate
from unsolvable.reports._blessed import CLI_FLAGS, Baseline, BaselineFlags, write_baseline
from unsolvable.reports._cells import report_json
from unsolvable.reports._files import stream_path, write_file
from unsolvable.reports._html import to_html
from unsolvable.reports._markdown import to_markdown
from unsolvable.reports._metrics import Metrics, measure
from unsolvable.reports._otel import to_otlp_json
from unsolvable.reports._table import part_of_a_run
from unsolvable.reports._trace_dir import Traced, write_traces

__all__ = [
    "Published",
    "ReportOptions",
    "check_baseline",
    "check_outputs",
    "publish",
    "unpublished",
]

STREAM_NAME = "json's record stream"
"""How an error names the ``.jsonl`` file the records stream to, after the face's prefix."""


@dataclass(frozen=True, kw_only=True)
class ReportOptions:
    """Where reports go, and how the baseline is used; every path is optional."""

    json: Path | None = None
    """Records and metrics (stable bytes unless ``volatile``)."""
    markdown: Path | None = None
    html: Path | None = None
    otel: Path | None = None
    """OpenTelemetry GenAI spans, OTLP JSON (stable bytes unless ``volatile``)."""
    trace_dir: Path | None = None
    """One ATIF trajectory file per run under this folder."""
    baseline: Path | None = None
    """Gate against this file, or (with ``update_baseline``) rewrite it."""
    update_baseline: bool = False
    margins: Margins = field(default_factory=Margins)
    allow_empty_gate: bool = False
    """A gate that compares no group passes instead of failing."""
    volatile: bool = False
    """Keep wall times in the JSON."""
    flags: BaselineFlags = CLI_FLAGS
    """The face's names of ``baseline`` and ``update_baseline``, for its messages."""
    shard: ShardTag | None = None
    """This run is one shard of a whole: its ``--json`` says where (`ShardTag`)."""

    def __post_init__(self) -> None:
        if self.update_baseline and self.baseline is None:
            raise BaselineError(
                f"{self.flags.update} needs the file to write: add {self.flags.baseline} PATH"
            )
        if self.shard is not None and self.baseline is not None:
            raise ShardError(
                f"{self.flags.baseline} with a shard would gate (or write) a part of each group; "
                "gate on the whole run where the shards are merged: unsolvable merge PARTS... "
                "--baseline PATH"
            )


@dataclass(frozen=True, kw_only=True)
class Published:
    """What `publish` did."""

    metrics: Metrics
    gate: GateResult | None
    """``None`` unless a baseline was read."""
    notes: tuple[str, ...]
    """One line per file written, then the gate's lines."""

    @property
    def passed(self) -> bool:
        """False only when the gate found a regression."""
        return self.gate is None or self.gate.passed


def check_baseline(options: ReportOptions) -> Baseline | None:
    """The baseline to gate on, read now, before anything runs, and only now: a typo in a path
    should not cost a whole run, and a file edited or removed while the run goes on changes
    nothing. A `BaselineError` when it cannot be read; ``None`` when there is no gate."""
    if options.baseline is not None and not options.update_baseline:
        return Baseline.load(options.baseline, flags=options.flags)
    return None


def check_outputs(
    options: ReportOptions, *, inputs: Sequence[Path] = (), streamed: bool = False
) -> None:
    """Raises `OutputError` now, before anything runs, for a report (or a baseline to rewrite)
    that could not be written at the end: a directory, a read-only place, /sys/...; or that
    would replace one of the ``inputs`` the command reads (``unsolvable report``'s records), or,
    when the records are ``streamed`` (`RecordStream`), the stream, which is removed at the end."""
    outputs = _report_files(options)
    if options.update_baseline:
        outputs["baseline"] = options.baseline
    for name, path in outputs.items():
        if path is not None:
            check_writable(path, flag=f"{options.flags.prefix}{name}")
    _check_distinct(options, outputs, inputs, streamed=streamed)
    if options.trace_dir is not None:
        check_writable_dir(options.trace_dir, flag=f"{options.flags.prefix}trace-dir")


def _report_files(options: ReportOptions) -> dict[str, Path | None]:
    """Each report file asked for (or ``None``), by its flag's name without the face's prefix."""
    return {
        "json": options.json,
        "markdown": options.markdown,
        "html": options.html,
        "otel": options.otel,
    }


def _check_distinct(
    options: ReportOptions,
    outputs: dict[str, Path | None],
    inputs: Sequence[Path],
    *,
    streamed: bool,
) -> None:
    """Two reports given one path would leave only the one written last, a report written over
    the baseline it is gated against, or over the records it is made from, would replace them,
    and one written over the records' stream would be removed with it: `OutputError` names both
    flags, or the flag and the file read."""
    named = dict(outputs)
    if streamed and options.json is not None:
        named[STREAM_NAME] = stream_path(options.json)
    if options.baseline is not None and not options.update_baseline:
        named["baseline"] = options.baseline  # read, and to be kept
    seen: dict[Path, str] = {}
    for name, path in named.items():
        if path is None:
            continue
        where = path.resolve()
        if where in seen:
            prefix = options.flags.prefix
            raise OutputError(
                f"{prefix}{seen[where]} and {prefix}{name} both name {str(path)!r}: each would "
                "replace the other; give each its own file"
            )
        seen[where] = name
    if options.trace_dir is not None:
        _check_trace_dir(options.trace_dir, named, prefix=options.flags.prefix)
    for path in inputs:
        flag = seen.get(path.resolve())
        read_only = flag == "baseline" and not options.update_baseline
        if flag is not None and not read_only:
            flag = f"{options.flags.prefix}{flag}"
            raise OutputError(
                f"{flag} names {str(path)!r}, a file this command reads: writing there would "
                f"replace it; give {flag} a file of its own"
            )


def _check_trace_dir(folder: Path, named: dict[str, Path | None], *, prefix: str) -> None:
    """The trace folder at a report's path, or below it, leaves the report no file to be written
    to, and a report where a trajectory goes (``DIR/AGENT/FAMILY/NAME.json``) is replaced by it:
    `OutputError` names both. Checked before the folder is made."""
    trace_dir = folder.resolve()
    for name, path in named.items():
        if path is None:
            continue
        where = path.resolve()
        below = where.relative_to(trace_dir).parts if where.is_relative_to(trace_dir) else ()
        if trace_dir.is_relative_to(where) or (
            len(below) == TRAJECTORY_DEPTH and where.suffix == ".json"
        ):
            raise OutputError(
                f"{prefix}{name} {str(path)!r} and {prefix}trace-dir {str(folder)!r} overlap: "
                f"the trajectories, written to {str(folder / 'AGENT/FAMILY/NAME.json')!r}, would "
                "replace the file or leave it no place; give each a path of its own"
            )


def _gate(
    metrics: Metrics, options: ReportOptions, baseline: Baseline | None
) -> tuple[GateResult | None, list[str]]:
    """The gate's result and lines, or the baseline rewritten from ``metrics``: never from no
    runs, as a baseline of no group would replace a good one and leave every later gate
    nothing to compare."""
    if options.baseline is None:
        return None, []
    if options.update_baseline:
        if not metrics.runs:
            return None, _skipped_gate(options, "no termination records to make it from")
        written = write_baseline(metrics, options.baseline)
        count = len(written.entries)
        return None, [
            f"unsolvable: wrote baseline of {counted(count, 'group')} to {options.baseline}"
        ]
    if baseline is None:
        raise BaselineError(f"the baseline {options.baseline} was not read before the run")
    result = gate(metrics, baseline, options.margins, allow_empty=options.allow_empty_gate)
    return result, result.lines(options.flags)


def _skipped_gate(options: ReportOptions, why: str) -> list[str]:
    if options.baseline is None:
        return []
    what = "baseline not rewritten" if options.update_baseline else "baseline gate skipped"
    return [f"unsolvable: {what}: {why}"]


def unpublished(options: ReportOptions, why: str) -> tuple[str, ...]:
    """The lines of a session that writes none of its reports and leaves its baseline as it was,
    for ``why``: which flags' files were not written, and the gate skipped (or the baseline not
    rewritten)."""
    names = [name for name, path in _report_files(options).items() if path is not None]
    names += ["trace-dir"] if options.trace_dir is not None else []
    flags = ", ".join(f"{options.flags.prefix}{name}" for name in names)
    written = [f"unsolvable: no report written ({flags}): {why}"] if names else []
    return (*written, *_skipped_gate(options, why))


def _exports(
    records: Sequence[TerminationRecord],
    options: ReportOptions,
    *,
    partial: bool,
    interrupted: bool,
) -> list[str]:
    """The files other tools read: OTLP spans, ATIF trajectories."""
    notes = []
    if options.otel:
        text = to_otlp_json(records, volatile=options.volatile, interrupted=interrupted)
        written = write_file(options.otel, text, partial=partial)
        notes.append(f"unsolvable: wrote OpenTelemetry spans to {written}")
    if options.trace_dir:
        shard = options.shard is not None
        traced = write_traces(records, options.trace_dir, partial=partial, shard=shard)
        notes.append(_traced_note(traced, options.trace_dir))
    return notes


def _traced_note(traced: Traced, asked: Path) -> str:
    """What `write_traces` did, in a line: where, how many, and what of an earlier run's went.
    With no run, no folder is named as written to: none was made, and it may not exist."""
    if traced.written:
        said = f"wrote ATIF trajectories of {counted(traced.written, 'run')} to {traced.folder}"
    else:
        said = "wrote no ATIF trajectory: there was no run"
    if traced.kept_larger:
        said = f"kept the larger {asked}; {said}"
    if traced.removed:
        said += f", removing {counted(traced.removed, 'file')} of an earlier run"
        said += "" if traced.written else f" from {traced.folder}"
    return f"unsolvable: {said}"


def publish(
    records: Sequence[TerminationRecord],
    options: ReportOptions,
    *,
    baseline: Baseline | None = None,
    interrupted: bool = False,
    whole: bool = True,
) -> Published:
    """Measures ``records``, gates on ``baseline`` (what `check_baseline` read) or rewrites it,
    then writes each report asked for (the reports show the gate's result). An ``interrupted``
    session skips the gate and the baseline and marks every report; a session that made no
    record (every test errored, a records file of none) leaves the baseline as it was. None of
    them, nor one that is not ``whole`` (it stopped early, or lost records), replaces a larger
    file (`write_file`). A report that cannot be written is an `OutputError`."""
    metrics = measure(records)
    if interrupted:
        result, gate_lines = None, _skipped_gate(options, "the session was interrupted")
    else:
        result, gate_lines = _gate(metrics, options, baseline)
    partial = interrupted or not whole or not records
    shard = None if options.shard is None else options.shard.shard
    notes = []
    full: list[Path] = []  # reports that hold every row, which a summary too large names
    if options.json:
        text = report_json(
            records,
            metrics,
            volatile=options.volatile,
            interrupted=interrupted,
            shard=options.shard,
        )
        written = write_file(options.json, text, partial=partial)
        notes.append(
            f"unsolvable: wrote {counted(len(records), 'record')} to {written}"
            if written == options.json
            else f"unsolvable: kept the larger {options.json}; wrote {written}"
        )
        full.append(written)
    html_note = []
    if options.html:  # before the Markdown, which names where it went
        text = to_html(records, metrics, result, interrupted=interrupted, shard=shard)
        written = write_file(options.html, text, partial=partial)
        html_note.append(f"unsolvable: wrote HTML report to {written}")
        full.insert(0, written)
    if options.markdown:
        text = to_markdown(
            records,
            metrics,
            result,
            interrupted=interrupted,
            shard=shard,
            elsewhere=full,
            prefix=options.flags.prefix,
        )
        written = write_file(options.markdown, text, partial=partial)
        notes.append(f"unsolvable: wrote Markdown report to {written}")
    notes.extend(html_note)
    notes.extend(_exports(records, options, partial=partial, interrupted=interrupted))
    if shard is not None:
        notes.append(f"unsolvable: {part_of_a_run(shard)}")
    return Published(metrics=metrics, gate=result, notes=(*notes, *gate_lines))
