"""The reports layer: metrics over judged records, the baseline gate, and what people read
(terminal tables, Markdown, HTML, JSON). It knows no face: the CLI and the pytest plugin both call
`publish` with `ReportOptions` built from one flag table (`REPORT_FLAGS`).

Names load on first use, so a face that only declares its flags imports none of the renderers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness._lazy import lazy_getattr

if TYPE_CHECKING:
    from harness._errors import BaselineError
    from harness.reports._baseline import Baseline, GateResult, Margins, Regression, gate
    from harness.reports._flags import REPORT_FLAGS, ReportFlag, report_options
    from harness.reports._metrics import Distribution, GroupMetrics, Metrics, measure
    from harness.reports._publish import Published, ReportOptions, check_baseline, publish
    from harness.reports._table import explain, format_table, summary_line

_HOMES = {
    "BaselineError": "harness._errors",
    "Baseline": "harness.reports._baseline",
    "GateResult": "harness.reports._baseline",
    "Margins": "harness.reports._baseline",
    "Regression": "harness.reports._baseline",
    "gate": "harness.reports._baseline",
    "REPORT_FLAGS": "harness.reports._flags",
    "ReportFlag": "harness.reports._flags",
    "report_options": "harness.reports._flags",
    "Distribution": "harness.reports._metrics",
    "GroupMetrics": "harness.reports._metrics",
    "Metrics": "harness.reports._metrics",
    "measure": "harness.reports._metrics",
    "Published": "harness.reports._publish",
    "ReportOptions": "harness.reports._publish",
    "check_baseline": "harness.reports._publish",
    "publish": "harness.reports._publish",
    "explain": "harness.reports._table",
    "format_table": "harness.reports._table",
    "summary_line": "harness.reports._table",
}

__all__ = [
    "REPORT_FLAGS",
    "Baseline",
    "BaselineError",
    "Distribution",
    "GateResult",
    "GroupMetrics",
    "Margins",
    "Metrics",
    "Published",
    "Regression",
    "ReportFlag",
    "ReportOptions",
    "check_baseline",
    "explain",
    "format_table",
    "gate",
    "measure",
    "publish",
    "report_options",
    "summary_line",
]

__getattr__ = lazy_getattr(globals(), _HOMES)
