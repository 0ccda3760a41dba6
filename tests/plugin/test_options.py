"""Marker keywords and settings in-process: validated at the edge, with messages that help."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from unsolvable.plugin._fixture import make_cases
from unsolvable.plugin._marker import MarkerOptions, marker_line
from unsolvable.plugin._options import MARKER
from unsolvable.plugin._settings import Settings
from unsolvable.reports._baseline import Margins
from unsolvable.reports._blessed import BaselineFlags
from unsolvable.reports._publish import ReportOptions


def test_marker_keywords_are_normalised() -> None:
    options = MarkerOptions.from_kwargs({"scenarios": "constant-return", "seeds": 2})
    assert (options.scenarios, options.seeds) == (("constant-return",), (2,))
    options = MarkerOptions.from_kwargs({"max_steps": 20, "ceiling_seconds": 2.5})
    assert options.overrides == {"max_steps": 20}
    assert (options.ceiling_seconds, options.ceiling_steps) == (2.5, None)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_step": 3}, "unknown keyword; did you mean max_steps=?"),
        ({"scenarios": 3}, "scenarios=3): expected a str or a list of strs, got int"),
        ({"seeds": ["0"]}, "seeds=['0']): expected a int or a list of ints, got list"),
        ({"seeds": [0, -3]}, "seeds=[0, -3]): expected seeds, each a whole number from 0 to"),
        ({"seeds": 2**63}, f"seeds={2**63}): expected seeds, each a whole number from 0 to"),
        ({"strict": "yes"}, "strict='yes'): expected True or False"),
        ({"step_bound": 0}, "step_bound=0): expected a positive whole number, got int"),
        ({"max_cost_usd": True}, "max_cost_usd=True): expected a positive number, got bool"),
        ({"max_steps": 2.5}, "max_steps=2.5): expected a positive whole number, got float"),
        ({"ceiling_steps": 1e3}, "ceiling_steps=1000.0): expected a positive whole number, got"),
        ({"step_bound": 12.0}, "step_bound=12.0): expected a positive whole number, got float"),
        (
            {"ceiling_seconds": float("inf")},
            "ceiling_seconds=inf): expected a positive, finite number, got float",
        ),
    ],
)
def test_bad_marker_keywords_are_type_errors_that_say_why(
    kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(TypeError, match=re.escape(message)):
        MarkerOptions.from_kwargs(kwargs)


def test_the_marker_line_carries_every_keyword() -> None:
    line = marker_line()
    assert line.startswith(f"{MARKER}(*, agent=None, ")
    assert all(f"{f.name}=None" in line for f in dataclasses.fields(MarkerOptions))


@pytest.mark.parametrize(
    ("settings", "explicit_paths", "generated"),
    [
        (Settings(), False, False),
        (Settings(agents=("contract",)), False, True),
        (Settings(agents=("contract",)), True, False),
        (Settings(agents=("contract",), agents_from_command_line=True), True, True),
    ],
)
def test_an_ini_agent_gets_its_suite_only_on_the_default_paths(
    settings: Settings, explicit_paths: bool, generated: bool
) -> None:
    assert settings.should_generate(explicit_paths=explicit_paths) is generated


def test_report_settings_become_the_clis_report_options() -> None:
    assert not Settings().has_reports
    settings = Settings(
        reports={
            "json": "out/records.json",
            "baseline": "ci/baseline.json",
            "update_baseline": True,
            "baseline_margin": 2,
            "baseline_false_stop_margin": 0.05,
        }
    )
    assert settings.has_reports
    assert settings.report_options() == ReportOptions(
        json=Path("out/records.json"),
        baseline=Path("ci/baseline.json"),
        update_baseline=True,
        margins=Margins(lag_steps=2, false_stop_rate=0.05),
        flags=BaselineFlags(prefix="--unsolvable-"),
    )


def test_a_seed_given_twice_in_the_marker_is_one_case() -> None:
    """As under unsolvable run: a seed run twice would count twice in its scenario's pass^k."""
    marker = MarkerOptions.from_kwargs({"scenarios": "constant-return/repeat", "seeds": [0, 0, 2]})
    assert [case.id for case in make_cases(Settings(), marker)] == [
        "constant-return/repeat-seed0",
        "constant-return/repeat-seed2",
    ]
