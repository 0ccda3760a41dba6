"""The reports layer: metrics over judged records, the baseline gate, and what people read
(terminal tables, Markdown, HTML, JSON). It knows no face: the CLI and the pytest plugin both call
`publish` with `ReportOptions` built from one flag table (`REPORT_FLAGS`).

Names load on first use, so a face that only declares its flags imports none of the renderers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from unsolvable._lazy import lazy_getattr

if TYPE_CHECKING:
    from unsolvable._errors import BaselineError
    from unsolvable.reports._baseline import GateResult, LostLag, Margins, Regression, gate
    from unsolvable.reports._blessed import Baseline
    from unsolvable.reports._distribution import Distribution
    from unsolvable.reports._flags import REPORT_FLAGS, ReportFlag, report_options
    from unsolvable.reports._metrics import GroupMetrics, Metrics, RunId, measure
    from unsolvable.reports._publish import Published, ReportOptions, check_baseline, publish
    from unsolvable.reports._table import explain, format_table, summary_line

_HOMES = {
    "BaselineError": "unsolvable._errors",
    "Baseline": "unsolvable.reports._blessed",
    "GateResult": "unsolvable.reports._baseline",
    "LostLag": "unsolvable.reports._baseline",
    "Margins": "unsolvable.reports._baseline",
    "Regression": "unsolvable.reports._baseline",
    "gate": "unsolvable.reports._baseline",
    "REPORT_FLAGS": "unsolvable.reports._flags",
    "ReportFlag": "unsolvable.reports._flags",
    "report_options": "unsolvable.reports._flags",
    "Distribution": "unsolvable.reports._distribution",
    "GroupMetrics": "unsolvable.reports._metrics",
    "Metrics": "unsolvable.reports._metrics",
    "RunId": "unsolvable.reports._metrics",
    "measure": "unsolvable.reports._metrics",
    "Published": "unsolvable.reports._publish",
    "ReportOptions": "unsolvable.reports._publish",
    "check_baseline": "unsolvable.reports._publish",
    "publish": "unsolvable.reports._publish",
    "explain": "unsolvable.reports._table",
    "format_table": "unsolvable.reports._table",
    "summary_line": "unsolvable.reports._table",
}

__all__ = [
    "REPORT_FLAGS",
    "Baseline",
    "BaselineError",
    "Distribution",
    "GateResult",
    "GroupMetrics",
    "LostLag",
    "Margins",
    "Metrics",
    "Published",
    "Regression",
    "ReportFlag",
    "ReportOptions",
    "RunId",
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
