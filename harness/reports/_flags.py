"""Consumes the values a face read for its report flags, produces `ReportOptions`; and declares
those flags once, for both faces to render.

``unsolvable run --markdown`` and ``pytest --unsolvable-markdown`` are one flag under two prefixes:
a gated metric or a new report is added here, and both faces gain it with the same help text.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from unsolvable.reports._publish import ReportOptions

__all__ = ["GATE_FLAGS", "REPORT_FLAGS", "ReportFlag", "number_problem", "report_options"]


@dataclass(frozen=True, kw_only=True)
class ReportFlag:
    """One report or baseline flag, without its face's prefix."""

    name: str
    """``baseline-margin``: ``--baseline-margin`` in the CLI, ``--unsolvable-baseline-margin`` in
    pytest."""
    help: str
    parse: Callable[[str], Any] = str
    """How a value given on the command line or in an ini file is read; unused by switches. A
    path stays as given, so `report_options` still sees a trailing ``/`` that `Path` drops."""
    metavar: str = "PATH"
    switch: bool = False
    """An on/off flag that takes no value."""
    may_be_zero: bool = False
    """For numbers: 0 is allowed (a margin), not only positive values."""
    most: float | None = None
    """For numbers: the largest that means something (a rate's margin is at most 1: above it,
    any rate would pass)."""
    tunes_gate: bool = False
    """Only tunes a baseline gate: given on a command line without ``baseline``, the run would
    go ungated with it said (`GATE_FLAGS`)."""

    @property
    def takes_path(self) -> bool:
        """Its value is a file or folder (the reports, the traces, the baseline)."""
        return not self.switch and self.parse is str

    @property
    def key(self) -> str:
        """The name in the values a face passes to `report_options` (``baseline_margin``)."""
        return self.name.replace("-", "_")


REPORT_FLAGS = (
    ReportFlag(
        name="json",
        help="write every termination record and its metrics to this path "
        "(what unsolvable report reads)",
    ),
    ReportFlag(name="markdown", help="write a Markdown report (a CI job summary)"),
    ReportFlag(name="html", help="write a self-contained HTML report"),
    ReportFlag(
        name="otel",
        help="write OpenTelemetry GenAI spans as OTLP JSON, one trace per run "
        "(its whole trajectory)",
    ),
    ReportFlag(
        name="trace-dir",
        metavar="DIR",
        help="write each run's whole trajectory as ATIF-v1.7 JSON, "
        "DIR/<agent>/<family>/<variant>-seed<N>.json",
    ),
    ReportFlag(
        name="baseline",
        help="fail when lag p95 (in steps or dollars) or the false-stop rate got worse than this "
        "baseline file by more than the margins",
    ),
    ReportFlag(
        name="update-baseline",
        switch=True,
        help="rewrite the baseline file from this run instead of gating on it",
    ),
    ReportFlag(
        name="allow-empty-gate",
        tunes_gate=True,
        switch=True,
        help="let a baseline gate that compares no group (other agents, other scenarios) pass",
    ),
    ReportFlag(
        name="baseline-margin",
        tunes_gate=True,
        parse=int,
        metavar="STEPS",
        may_be_zero=True,
        help="steps of lag p95 above the baseline that still pass (default 0)",
    ),
    ReportFlag(
        name="baseline-false-stop-margin",
        tunes_gate=True,
        parse=float,
        metavar="RATE",
        may_be_zero=True,
        most=1.0,
        help="false-stop rate above the baseline that still passes, e.g. 0.05 (default 0)",
    ),
    ReportFlag(
        name="baseline-cost-margin",
        tunes_gate=True,
        parse=float,
        metavar="USD",
        may_be_zero=True,
        help="dollars of lag p95 above the baseline that still pass, e.g. 0.01 (default 0)",
    ),
)


GATE_FLAGS = tuple(flag for flag in REPORT_FLAGS if flag.tunes_gate)
"""The flags that only tune a baseline gate (`ReportFlag.tunes_gate`)."""


def number_problem(value: float, *, may_be_zero: bool = False, most: float | None = None) -> str:
    """What keeps ``value`` from being a number flag's, as both faces say it after the flag, or
    ``""``: it must be finite (an endless ceiling is no ceiling), above 0 (or 0, for a margin:
    `ReportFlag.may_be_zero`) and no more than `ReportFlag.most`."""
    if not math.isfinite(value):
        return "must be a finite number"
    if not (value > 0 or (may_be_zero and value == 0)):
        return "must be 0 or more" if may_be_zero else "must be a positive number"
    if most is not None and value > most:
        return f"must be {most:g} at most, or any rate would pass"
    return ""


def report_options(
    values: Mapping[str, Any], *, prefix: str = "--", volatile: bool = False
) -> ReportOptions:
    """The reports and the gate from the values of `REPORT_FLAGS` (by `ReportFlag.key`; a
    missing or ``None`` value is the default). ``prefix`` is how the face spells its flags, so
    messages name what its users type."""
    from unsolvable._writable import file_path, folder_path
    from unsolvable.reports._baseline import Margins
    from unsolvable.reports._blessed import BaselineFlags
    from unsolvable.reports._publish import ReportOptions

    def path(key: str, example: str) -> Path | None:
        value = values.get(key)
        if value is None:
            return None
        return file_path(str(value), flag=f"{prefix}{key}", example=example)

    trace_dir = values.get("trace_dir")
    return ReportOptions(
        json=path("json", "records.json"),
        markdown=path("markdown", "report.md"),
        html=path("html", "report.html"),
        otel=path("otel", "spans.json"),
        trace_dir=None
        if trace_dir is None
        else folder_path(str(trace_dir), flag=f"{prefix}trace-dir", example="traces"),
        baseline=path("baseline", "baseline.json"),
        update_baseline=bool(values.get("update_baseline")),
        allow_empty_gate=bool(values.get("allow_empty_gate")),
        margins=Margins(
            lag_steps=values.get("baseline_margin") or 0,
            false_stop_rate=values.get("baseline_false_stop_margin") or 0.0,
            lag_cost_usd=values.get("baseline_cost_margin") or 0.0,
        ),
        volatile=volatile,
        flags=BaselineFlags(prefix=prefix),
    )
