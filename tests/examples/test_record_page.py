"""The record page, generated from the record's types when the site is built: a reader learns
there which figures of a lost run are unknown, field by field."""

from __future__ import annotations

import dataclasses
import importlib.util
from types import ModuleType

from tests._docs import ROOT
from unsolvable import Observed, scenarios
from unsolvable._batch import Job, run_jobs


def _generated() -> ModuleType:
    """The site's extension that writes the page (`docs/_ext/generated.py`)."""
    spec = importlib.util.spec_from_file_location("generated", ROOT / "docs/_ext/generated.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _observed_rows(page: str) -> dict[str, str]:
    """The page's row for each field of `Observed`, by field name."""
    section = page.split("## `Observed`", 1)[1].split("\n## ", 1)[0]
    return {row.split("`", 2)[1]: row for row in section.splitlines() if row.startswith("| `")}


def test_the_record_page_says_each_figure_a_lost_run_leaves_unknown() -> None:
    dies = Job(agent="tests.cli.faulty_agents:exits", scenario="constant-return/repeat", seed=0)
    (lost,) = run_jobs([dies], lookup=scenarios.get).records
    unknown = [
        field.name
        for field in dataclasses.fields(Observed)
        if getattr(lost.observed, field.name) is None
    ]
    rows = _observed_rows(_generated().record_markdown())
    assert [name for name in unknown if "lost run" not in rows[name]] == []
