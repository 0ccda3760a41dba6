"""Sphinx extension: the pages generated from the code itself, so they cannot go stale — the
scenario catalogue (from the library) and the record schema (from the record's types and their
attribute docstrings). Their files in ``docs/`` are stubs whose text is replaced as it is read."""

from __future__ import annotations

import ast
import dataclasses
import enum
import inspect
from typing import TYPE_CHECKING, Any

import unsolvable
from unsolvable import _observed, _record, _rules, _stop, _subtasks, scenarios
from unsolvable.reports._catalogue import catalogue_markdown
from unsolvable.reports._distribution import Distribution
from unsolvable.reports._metrics import GroupMetrics
from unsolvable.reports._step_cap import StepCap

if TYPE_CHECKING:  # the tests read the pages it makes where Sphinx is not installed
    from sphinx.application import Sphinx

RECORD_TYPES = (
    _record.TerminationRecord,
    _stop.Stop,
    _record.Ending,
    _observed.Observed,
    _observed.TraceStep,
    _observed.ToolTrace,
    _observed.AgentTally,
    _subtasks.Subtask,
    _subtasks.Dispatch,
    _subtasks.Transition,
    _rules.Verdict,
    _rules.Failure,
)
"""The record's types, outermost first, as the JSON nests them."""
RECORD_ENUMS = (_stop.Exit, _stop.Code, _stop.Outcome, _subtasks.SubtaskState, _rules.Rule)
METRICS_TYPES = (GroupMetrics, StepCap, Distribution)
"""The types of the ``metrics`` object ``--json`` writes beside the records, outermost first."""
METRICS_LEAD = (
    "## The `metrics` beside the records",
    "",
    "`--json` (and `unsolvable report` and `merge`, which read records and write them again) "
    "writes a `metrics` object beside the `records`, computed from them alone, as every report "
    "is ([how each figure counts](metrics.md)): `agents` (each agent over all its runs, its "
    "`name` `all`), `families` and `scenarios`, each a list of groups in the order the records "
    "first show them, and `runs`, how many records there are. A figure that does not apply to "
    "a group is `null`: a lag on a group of controls, a false-stop rate with no control.",
    "",
)


def _attribute_docs(cls: type) -> dict[str, str]:
    """Each field's docstring: the string literal right after its annotation in the class body."""
    body = ast.parse(inspect.getsource(cls)).body[0]
    assert isinstance(body, ast.ClassDef)
    docs: dict[str, str] = {}
    for node, after in zip(body.body, body.body[1:], strict=False):
        is_doc = isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
        if isinstance(node, ast.AnnAssign | ast.Assign) and is_doc:
            target = node.target if isinstance(node, ast.AnnAssign) else node.targets[0]
            if isinstance(target, ast.Name):
                docs[target.id] = " ".join(str(after.value.value).split())  # type: ignore[union-attr]
    return docs


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _type(field: dataclasses.Field[Any]) -> str:
    return str(field.type).replace("unsolvable._record.", "")


def _dataclass_section(cls: type) -> list[str]:
    docs = _attribute_docs(cls)
    lines = [f"## `{cls.__name__}`", "", " ".join((cls.__doc__ or "").split()), ""]
    lines += ["| field | type | meaning |", "|---|---|---|"]
    lines += [
        f"| `{f.name}` | `{_cell(_type(f))}` | {_cell(docs.get(f.name, ''))} |"
        for f in dataclasses.fields(cls)
    ]
    lines += [_derived_row(cls, name) for name in getattr(cls, "DERIVED", ())]
    return [*lines, ""]


def _derived_row(cls: type, name: str) -> str:
    """A property the JSON carries beside the fields (``DERIVED``), typed by its annotation."""
    getter = getattr(cls, name).fget
    returns = str(getter.__annotations__["return"])
    doc = " ".join((getter.__doc__ or "").split())
    meaning = f"{doc} Derived from the fields; `from_dict` ignores it."
    return f"| `{name}` | `{_cell(returns)}` | {_cell(meaning)} |"


def _enum_section(cls: type[enum.Enum]) -> list[str]:
    docs = _attribute_docs(cls)
    lines = [f"## `{cls.__name__}`", "", " ".join((cls.__doc__ or "").split()), ""]
    lines += ["| value | meaning |", "|---|---|"]
    lines += [f"| `{m.value}` | {_cell(docs.get(m.name, ''))} |" for m in cls]
    return [*lines, ""]


def record_markdown() -> str:
    lines = [
        "# The termination record",
        "",
        f"Schema version {unsolvable.SCHEMA_VERSION}, generated from the record's types. "
        "`record.to_json()` and `--json` write these fields (snapshots leave out the `verdict`, "
        "the full `trajectory` and a crash's `traceback`; `Ending` is no part of a record, but "
        "what `judge` reads); `TerminationRecord.from_dict` reads them back.",
        "",
    ]
    for cls in RECORD_TYPES:
        lines += _dataclass_section(cls)
    for enum_cls in RECORD_ENUMS:
        lines += _enum_section(enum_cls)
    lines += METRICS_LEAD
    for cls in METRICS_TYPES:
        lines += _dataclass_section(cls)
    return "\n".join(lines).rstrip() + "\n"


GENERATED = {
    "catalogue": lambda: catalogue_markdown(scenarios.SCENARIOS),
    "record": record_markdown,
}
"""The generated pages by document name."""


def _fill(app: Sphinx, docname: str, source: list[str]) -> None:
    """Replaces a generated page's stub with its text."""
    if docname in GENERATED:
        source[0] = GENERATED[docname]()


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("source-read", _fill)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
