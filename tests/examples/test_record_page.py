"""The record page, generated from the record's types when the site is built: a reader learns
there which figures of a lost run are unknown, field by field."""

from __future__ import annotations

import dataclasses
import enum
import importlib.util
import re
from types import ModuleType

import unsolvable._record
import unsolvable._subtasks
from tests._docs import ROOT
from tests.reports._records import library_records
from unsolvable import Observed, TerminationRecord, scenarios
from unsolvable._batch import Job, run_jobs
from unsolvable._spent import OVERSHOOT_TOLERANCE
from unsolvable._text import ERROR_CUT, MISSING_CUT, REASON_CUT
from unsolvable._traceback import TRACEBACK_CUT
from unsolvable.plugin.snapshot import behaviour
from unsolvable.reports._metrics import measure


def _generated() -> ModuleType:
    """The site's extension that writes the page (`docs/_ext/generated.py`)."""
    spec = importlib.util.spec_from_file_location("generated", ROOT / "docs/_ext/generated.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rows(page: str, section: str) -> dict[str, str]:
    """The page's row for each field of the type ``section``, by field name."""
    text = page.split(f"## `{section}`", 1)[1].split("\n## ", 1)[0]
    return {row.split("`", 2)[1]: row for row in text.splitlines() if row.startswith("| `")}


def _lost_and_stopped() -> list[TerminationRecord]:
    """A run whose worker exits, and one the contract stops."""
    jobs = [
        Job(agent="tests.cli.faulty_agents:exits", scenario="constant-return/repeat", seed=0),
        Job(agent="contract", scenario="constant-return/repeat", seed=0),
    ]
    return list(run_jobs(jobs, lookup=scenarios.get).records)


def test_the_record_page_says_each_figure_a_lost_run_leaves_unknown() -> None:
    lost, _ = _lost_and_stopped()
    unknown = [
        field.name
        for field in dataclasses.fields(Observed)
        if getattr(lost.observed, field.name) is None
    ]
    rows = _rows(_generated().record_markdown(), "Observed")
    assert [name for name in unknown if "lost run" not in rows[name]] == []


def test_the_record_page_lists_every_key_the_json_holds_and_says_which_are_volatile() -> None:
    page = _generated().record_markdown()
    for record in _lost_and_stopped():
        stable, volatile = record.to_dict(), record.to_dict(volatile=True)
        assert sorted(volatile) == sorted(_rows(page, "TerminationRecord"))
        assert sorted(volatile["observed"]) == sorted(_rows(page, "Observed"))
        for key in volatile.keys() - stable.keys():
            assert "--volatile" in _rows(page, "TerminationRecord")[key]


def test_the_record_page_names_every_field_a_snapshot_leaves_out() -> None:
    intro = _generated().record_markdown().split("\n## ", 1)[0]
    for record in _lost_and_stopped():
        data, kept = record.to_dict(), behaviour(record)
        observed = kept["observed"]
        assert isinstance(observed, dict)
        left_out = [*(data.keys() - kept.keys()), *(data["observed"].keys() - observed.keys())]
        assert [key for key in left_out if f"`{key}`" not in intro] == []


def test_every_type_a_field_of_the_record_page_holds_has_its_own_section() -> None:
    page = _generated().record_markdown()
    sections = set(re.findall(r"^## `(\w+)`", page, re.M))
    rows = [row.split("`") for row in page.splitlines() if row.startswith("| `")]
    types = {cells[3] for cells in rows if len(cells) > 4}  # a field's row: name, then type
    named = {name for text in types for name in re.findall(r"\b[A-Z]\w+", text)}
    modules = (vars(unsolvable._record), vars(unsolvable._subtasks))
    described = {
        name
        for name in named
        for module in modules
        if name in module
        and (dataclasses.is_dataclass(module[name]) or isinstance(module[name], enum.EnumMeta))
    }
    assert described - sections == set()


def test_the_record_page_gives_its_limits_as_numbers_and_names_no_private_module() -> None:
    """A reader of the page cannot look up a private module: each limit a field is cut at is
    written out, and it is the one the code cuts at."""
    page = _generated().record_markdown()
    assert re.findall(r"unsolvable(?:\.\w+)*\._\w+", page) == []
    limits = {
        ("Stop", "reason"): f"{REASON_CUT:,} characters",
        ("Stop", "missing"): f"at most {MISSING_CUT} of them",
        ("Observed", "error"): f"{ERROR_CUT:,} characters",
        ("Observed", "traceback"): f"last {TRACEBACK_CUT:,} characters",
    }
    for (section, name), limit in limits.items():
        assert limit in _rows(page, section)[name], (section, name, limit)
    assert f"{OVERSHOOT_TOLERANCE:.0%}" in _rows(page, "Rule")["past_budget"]


def test_the_record_page_gives_every_key_of_the_json_metrics_a_meaning() -> None:
    """The metrics beside the records in ``--json`` are what a tool reads of a run: every key of
    a group, of its calibrated step cap and of its distributions has a row that says what it
    is, and the keys above the groups are named."""
    page = _generated().record_markdown()
    metrics = measure(library_records()).to_dict()
    group = next(group for group in metrics["agents"] if group["step_cap"] is not None)
    sections = {
        "GroupMetrics": group,
        "StepCap": group["step_cap"],
        "Distribution": group["lag_steps"],
    }
    for section, data in sections.items():
        rows = _rows(page, section)
        assert sorted(rows) == sorted(data), section
        assert [name for name, row in rows.items() if row.endswith("|  |")] == [], section
    lead = page.split("## `GroupMetrics`", 1)[0].rsplit("\n## ", 1)[1]
    assert [key for key in metrics if f"`{key}`" not in lead] == []
