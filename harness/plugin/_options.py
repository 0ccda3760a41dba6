"""Consumes pytest's command line and ini files, produces each option's value by its flag: the one
table that declares every flag and its ini key.

Option names are constants that tests reuse.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from unsolvable._ceilings import Ceilings
from unsolvable._errors import docs_page
from unsolvable._specs import AGENT_SPECS
from unsolvable.reports._flags import REPORT_FLAGS, number_problem

__all__ = [
    "AGENT_OPTION",
    "BASELINE_COST_MARGIN_OPTION",
    "BASELINE_FALSE_STOP_MARGIN_OPTION",
    "BASELINE_MARGIN_OPTION",
    "BASELINE_OPTION",
    "CEILING_SECONDS_OPTION",
    "CEILING_STEPS_OPTION",
    "CEILING_TOOL_CALLS_OPTION",
    "DEFAULT_SNAPSHOT_DIR",
    "DOCS",
    "FAMILY_OPTION",
    "HTML_OPTION",
    "ISOLATE_NETWORK_OPTION",
    "JSON_OPTION",
    "LENIENT_OPTION",
    "MARKDOWN_OPTION",
    "MARKER",
    "MAX_STEPS_OPTION",
    "NO_SNAPSHOT_OPTION",
    "SCENARIO_DIR_OPTION",
    "SCENARIO_FILE_OPTION",
    "SCENARIO_OPTION",
    "SHARD_OPTION",
    "SNAPSHOT_DIR_OPTION",
    "STEP_BOUND_OPTION",
    "STRICT_OPTION",
    "UPDATE_BASELINE_OPTION",
    "addoption",
    "is_given",
    "read_values",
]

DOCS = docs_page("pytest")
MARKER = "unsolvable"
DEFAULT_SNAPSHOT_DIR = "__unsolvable__"
"""Under the rootdir; a dunder name like syrupy's ``__snapshots__``, but never mistaken for it."""

AGENT_OPTION = "--unsolvable-agent"
SCENARIO_OPTION = "--unsolvable-scenario"
FAMILY_OPTION = "--unsolvable-family"
SCENARIO_FILE_OPTION = "--unsolvable-scenario-file"
SCENARIO_DIR_OPTION = "--unsolvable-scenario-dir"
STRICT_OPTION = "--unsolvable-strict"
LENIENT_OPTION = "--unsolvable-lenient"
STEP_BOUND_OPTION = "--unsolvable-step-bound"
MAX_STEPS_OPTION = "--unsolvable-max-steps"
CEILING_STEPS_OPTION = "--unsolvable-ceiling-steps"
CEILING_TOOL_CALLS_OPTION = "--unsolvable-ceiling-tool-calls"
CEILING_SECONDS_OPTION = "--unsolvable-ceiling-seconds"
SNAPSHOT_DIR_OPTION = "--unsolvable-snapshot-dir"
NO_SNAPSHOT_OPTION = "--unsolvable-no-snapshot"
ISOLATE_NETWORK_OPTION = "--unsolvable-isolate-network"
SHARD_OPTION = "--unsolvable-shard"
PREFIX = "--unsolvable-"
"""How this face spells the report flags that `unsolvable.reports.REPORT_FLAGS` declares."""
JSON_OPTION = f"{PREFIX}json"
MARKDOWN_OPTION = f"{PREFIX}markdown"
HTML_OPTION = f"{PREFIX}html"
BASELINE_OPTION = f"{PREFIX}baseline"
UPDATE_BASELINE_OPTION = f"{PREFIX}update-baseline"
BASELINE_MARGIN_OPTION = f"{PREFIX}baseline-margin"
BASELINE_FALSE_STOP_MARGIN_OPTION = f"{PREFIX}baseline-false-stop-margin"
BASELINE_COST_MARGIN_OPTION = f"{PREFIX}baseline-cost-margin"


@dataclass(frozen=True, kw_only=True)
class _Option:
    """One command-line flag and the ini key of the same name (``unsolvable_*``)."""

    flag: str
    help: str
    parse: Callable[[str], Any] = str
    repeat: bool = False
    switch: bool | None = None
    """For on/off flags: the value the flag stores."""
    key: str = ""
    """The ``dest`` and ini key; derived from the flag unless given."""
    metavar: str = "N"
    ini_help: str = ""
    """The ini key's help, when the flag's does not fit it."""
    may_be_zero: bool = False
    """For numbers: 0 is allowed (a margin), not only positive values (a bound)."""
    most: float | None = None
    """For numbers: the largest that means something (`ReportFlag.most`)."""

    @property
    def name(self) -> str:
        return self.key or self.flag.lstrip("-").replace("-", "_")

    def add_to(self, group: pytest.OptionGroup) -> None:
        if self.switch is not None:
            kwargs: dict[str, Any] = {"action": "store_const", "const": self.switch}
        else:
            action = "append" if self.repeat else "store"
            kwargs = {"action": action, "type": self.parse, "metavar": self.metavar}
        group.addoption(self.flag, dest=self.name, default=None, help=self.help, **kwargs)

    @property
    def ini_type(self) -> str:
        return "linelist" if self.repeat else "bool" if self.switch is not None else "string"


_OPTIONS = (
    _Option(
        flag=AGENT_OPTION,
        repeat=True,
        metavar="SPEC",
        help=f"run the generated suite (every scenario × seed) on this agent: {AGENT_SPECS}; "
        "repeatable",
    ),
    _Option(
        flag=SCENARIO_OPTION,
        repeat=True,
        metavar="NAME",
        help="run only these scenarios (family/variant) or families; repeatable",
    ),
    _Option(
        flag=FAMILY_OPTION,
        repeat=True,
        metavar="NAME",
        help="run only these families or scenarios; repeatable",
    ),
    _Option(
        flag=SCENARIO_FILE_OPTION,
        repeat=True,
        metavar="FILE",
        help="add the scenario of this file (written by unsolvable import) to the library and "
        "the generated suite; repeatable",
    ),
    _Option(
        flag=SCENARIO_DIR_OPTION,
        metavar="PATH",
        help="add every scenario file (.json, .toml) of this folder; as an ini key "
        "(unsolvable_scenario_dir), relative to the rootdir",
    ),
    _Option(
        flag=STRICT_OPTION,
        switch=True,
        help="strict verdicts: only the scenario's expected codes pass",
    ),
    _Option(flag=STEP_BOUND_OPTION, parse=int, help="override every scenario's step bound N"),
    _Option(flag=MAX_STEPS_OPTION, parse=int, help="override the step budget given to the agent"),
    _Option(
        flag=CEILING_STEPS_OPTION,
        parse=int,
        help=f"harness ceiling of model calls per run (default {Ceilings.max_steps}); "
        "hitting it records did_not_stop",
    ),
    _Option(
        flag=CEILING_TOOL_CALLS_OPTION,
        parse=int,
        help=f"harness ceiling of tool calls per run (default {Ceilings.max_tool_calls})",
    ),
    _Option(
        flag=CEILING_SECONDS_OPTION,
        parse=float,
        metavar="S",
        help="harness wall-clock ceiling per run, in seconds "
        f"(default {Ceilings.max_wall_seconds:g}; an adapter may need more: the coding agents "
        "get 60)",
    ),
    _Option(
        flag=SNAPSHOT_DIR_OPTION,
        metavar="PATH",
        help="where the generated suite keeps its snapshots, relative to the rootdir "
        f"(default {DEFAULT_SNAPSHOT_DIR})",
    ),
    _Option(
        flag=NO_SNAPSHOT_OPTION,
        switch=False,
        key="unsolvable_snapshot",
        help="do not snapshot the generated suite's records (ini: unsolvable_snapshot = false)",
        ini_help="snapshot the generated suite's records (default true)",
    ),
    _Option(
        flag=SHARD_OPTION,
        metavar="K/N",
        help="run only shard K of N of the generated suite (a CI matrix job), balanced by the "
        "scenarios' step bounds; other tests run in shard 1; unsolvable merge makes the whole "
        "run's reports from the shards' --unsolvable-json",
    ),
    _Option(
        flag=ISOLATE_NETWORK_OPTION,
        switch=True,
        help="run exec: and acp: agents with loopback only (Linux network namespaces): every "
        "address but the harness's fails at once",
    ),
    *(
        _Option(
            flag=f"{PREFIX}{flag.name}",
            help=flag.help,
            parse=flag.parse,
            switch=True if flag.switch else None,
            metavar=flag.metavar,
            may_be_zero=flag.may_be_zero,
            most=flag.most,
        )
        for flag in REPORT_FLAGS
    ),
)
_BY_FLAG = {option.flag: option for option in _OPTIONS}
_LENIENT = _Option(
    flag=LENIENT_OPTION,
    switch=False,
    key="unsolvable_strict",
    help="lenient verdicts (the default): any honest non-complete stop passes",
)


def addoption(parser: pytest.Parser) -> None:
    """Declares every flag in the ``unsolvable`` group, and its ini key."""
    group = parser.getgroup("unsolvable", "unsolvable: unsolvable tasks for an agent's stop logic")
    for option in _OPTIONS:
        option.add_to(group)
        if option.flag == STRICT_OPTION:
            _LENIENT.add_to(group)
        help = option.ini_help or option.help
        parser.addini(option.name, help, type=option.ini_type, default=None)  # type: ignore[arg-type]


def _value(config: pytest.Config, option: _Option) -> Any:
    """The command line's value, else the ini key's, parsed; ``None`` when neither is set."""
    given = config.getoption(option.name)
    if given is not None:
        return given
    try:
        raw = config.getini(option.name)
    except pytest.UsageError as error:  # pytest's words for a bad switch do not name the key
        fix = f"; write {option.name} = true or false" if option.switch is not None else ""
        raise pytest.UsageError(f"ini {option.name}: {error}{fix} ({DOCS})") from None
    if option.switch is not None or raw is None:
        return raw
    if option.repeat:
        return list(raw) or None
    if not raw:
        return None
    try:
        return option.parse(raw)
    except ValueError:
        kind = "whole number" if option.parse is int else "number"
        raise pytest.UsageError(
            f"ini {option.name} = {raw!r} is not a {kind}; write e.g. {option.name} = 10, "
            f"or pass {option.flag} on the command line ({DOCS})"
        ) from None


def _positive(flag: str, value: object) -> None:
    """A number must be finite (an endless ceiling is no ceiling), above 0 (or 0, for a margin)
    and no more than its `_Option.most`, as the CLI reads its own flags."""
    option = _BY_FLAG[flag]
    if not isinstance(value, int | float) or isinstance(value, bool):
        return
    if problem := number_problem(value, may_be_zero=option.may_be_zero, most=option.most):
        raise pytest.UsageError(
            f"{flag}={value!r}: {problem} (also as ini {option.name}); see {DOCS}"
        )


def read_values(config: pytest.Config) -> dict[str, Any]:
    """Every option's value by its flag, the command line's over the ini key's; a number out of its
    range is a `pytest.UsageError` naming its flag."""
    values = {flag: _value(config, option) for flag, option in _BY_FLAG.items()}
    for flag in _BY_FLAG:
        _positive(flag, values[flag])
    return values


def is_given(config: pytest.Config, flag: str) -> bool:
    """Whether the command line gave ``flag``, rather than an ini file or nothing."""
    return config.getoption(_BY_FLAG[flag].name) is not None
