"""Consumes pytest's command line, ini files and `unsolvable` markers, produces frozen settings.

Option names are constants that tests reuse. Values stay strings and numbers (agent specs are
resolved only when a run starts), so they pickle to xdist workers.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest

from unsolvable._ceilings import Ceilings
from unsolvable._errors import docs_page
from unsolvable.reports._flags import REPORT_FLAGS, number_problem

if TYPE_CHECKING:
    from unsolvable._loading import AgentLike
    from unsolvable._shard import Shard
    from unsolvable.imports._library import ScenarioLibrary
    from unsolvable.reports._baseline import Baseline
    from unsolvable.reports._publish import ReportOptions

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
    "MarkerOptions",
    "Settings",
    "addoption",
    "check_names",
    "check_reports",
    "marker_line",
    "resolve",
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
        help="run the generated suite (every scenario × seed) on this agent: naive, contract, "
        "package.module:attribute or 'exec:COMMAND ARGS'; repeatable",
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


@dataclass(frozen=True, kw_only=True)
class Settings:
    """The session's options, command line over ini over defaults."""

    agents: tuple[str, ...] = ()
    """Agent specs the generated suite runs on; empty means no generated suite."""
    agents_from_command_line: bool = False
    scenarios: tuple[str, ...] = ()
    families: tuple[str, ...] = ()
    strict: bool = False
    step_bound: int | None = None
    max_steps: int | None = None
    ceiling_steps: int | None = None
    ceiling_tool_calls: int | None = None
    ceiling_seconds: float | None = None
    """The harness ceilings the options set; each one unset is the agent's (`ceilings_for`)."""
    snapshot_dir: str = DEFAULT_SNAPSHOT_DIR
    snapshot: bool = True
    reports: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    """The values of `REPORT_FLAGS` that were given, by `ReportFlag.key`."""
    isolate_network: bool = False
    """Run ``exec:`` agents with loopback only."""
    scenario_files: tuple[str, ...] = ()
    """Scenario files and folders of them, joined to the built-in library."""
    shard: Shard | None = None
    """Run only this shard of the generated suite."""

    def library(self) -> ScenarioLibrary:
        """The built-in scenarios and those of `scenario_files` (read once per process)."""
        from unsolvable.imports._library import ScenarioLibrary

        return ScenarioLibrary.of(self.scenario_files)

    @property
    def overrides(self) -> dict[str, int]:
        """What `unsolvable.run` replaces in every scenario."""
        pairs = {"step_bound": self.step_bound, "max_steps": self.max_steps}
        return {key: value for key, value in pairs.items() if value is not None}

    def should_generate(self, *, explicit_paths: bool) -> bool:
        """An agent named on the command line always gets its suite; one named in an ini file
        only when pytest collects its default paths, so ``pytest tests/test_x.py`` stays small."""
        return bool(self.agents) and (self.agents_from_command_line or not explicit_paths)

    @property
    def has_filters(self) -> bool:
        return bool(self.scenarios or self.families)

    @property
    def has_reports(self) -> bool:
        """Whether the session ends by writing a report or using a baseline."""
        return any(value for value in self.reports.values())

    @property
    def json_path(self) -> str | None:
        path = self.reports.get("json")
        return None if path is None else str(path)

    def report_options(self) -> ReportOptions:
        """The reports and the gate as `unsolvable.reports.publish` takes them. Paths stay as
        given, so messages show them so: relative ones are from where pytest was started, the
        working directory when options are read and again when the session finishes."""
        from unsolvable.reports._flags import report_options

        options = report_options(self.reports, prefix=PREFIX)
        if self.shard is None:
            return options
        from unsolvable._shard import ShardTag

        # The tag's place in the whole run is known at the end (`RunLedger.report`); given now,
        # it is checked against the baseline flags before anything runs.
        return dataclasses.replace(
            options, shard=ShardTag(shard=self.shard, complete=False, order=())
        )


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


def resolve(config: pytest.Config) -> Settings:
    """Reads every option once; a bad value is a `pytest.UsageError` naming its flag."""
    values = {flag: _value(config, option) for flag, option in _BY_FLAG.items()}
    for flag in _BY_FLAG:
        _positive(flag, values[flag])
    settings = Settings(
        agents=tuple(values[AGENT_OPTION] or ()),
        agents_from_command_line=config.getoption(_BY_FLAG[AGENT_OPTION].name) is not None,
        scenarios=tuple(values[SCENARIO_OPTION] or ()),
        families=tuple(values[FAMILY_OPTION] or ()),
        strict=bool(values[STRICT_OPTION]),
        step_bound=values[STEP_BOUND_OPTION],
        max_steps=values[MAX_STEPS_OPTION],
        ceiling_steps=values[CEILING_STEPS_OPTION],
        ceiling_tool_calls=values[CEILING_TOOL_CALLS_OPTION],
        ceiling_seconds=values[CEILING_SECONDS_OPTION],
        snapshot_dir=values[SNAPSHOT_DIR_OPTION] or DEFAULT_SNAPSHOT_DIR,
        snapshot=values[NO_SNAPSHOT_OPTION] is not False,
        isolate_network=bool(values[ISOLATE_NETWORK_OPTION]),
        scenario_files=_scenario_files(config, values),
        shard=_shard(values[SHARD_OPTION]),
        reports={
            flag.key: values[f"{PREFIX}{flag.name}"]
            for flag in REPORT_FLAGS
            if values[f"{PREFIX}{flag.name}"] is not None
        },
    )
    _check_snapshot_dir(config, settings)
    _check_snapshot_plugin(config, settings)
    return settings


def _shard(value: str | None) -> Shard | None:
    if value is None:
        return None
    from unsolvable._errors import ShardError
    from unsolvable._shard import Shard

    try:
        return Shard.parse(value)
    except ShardError as error:
        raise pytest.UsageError(f"{SHARD_OPTION}: {error} ({DOCS})") from None


def _scenario_files(config: pytest.Config, values: Mapping[str, Any]) -> tuple[str, ...]:
    """Files from the command line as given (relative to where pytest started); the folder, from
    the ini file, relative to the rootdir, from the command line as given."""
    files = list(values[SCENARIO_FILE_OPTION] or ())
    folder = values[SCENARIO_DIR_OPTION]
    if folder:
        given = config.getoption(_BY_FLAG[SCENARIO_DIR_OPTION].name) is not None
        files.append(folder if given else str(config.rootpath / folder))
    return tuple(files)


SNAPSHOT_PLUGIN = "syrupy"
"""The pytest plugin the suite's snapshots come from: an extra, so that installing this package
costs a pytest run that does not use it nothing."""


def _check_snapshot_plugin(config: pytest.Config, settings: Settings) -> None:
    """A suite that snapshots without syrupy is a usage error now, naming both ways out, rather
    than one ``fixture 'snapshot' not found`` per scenario."""
    if not (settings.agents and settings.snapshot):
        return
    if config.pluginmanager.has_plugin(SNAPSHOT_PLUGIN):
        return
    raise pytest.UsageError(
        "unsolvable: the generated suite snapshots its records with syrupy, whose pytest plugin "
        "is not loaded: pip install 'pytest-unsolvable[snapshot]' (or, with plugin autoloading "
        f"off, add -p {SNAPSHOT_PLUGIN}), or run the suite without snapshots: "
        f"{NO_SNAPSHOT_OPTION} (ini: unsolvable_snapshot = false) ({DOCS})"
    )


def _check_snapshot_dir(config: pytest.Config, settings: Settings) -> None:
    """``--snapshot-update`` into a folder that cannot be written is a usage error now, not one
    failed test per scenario."""
    if not (settings.agents and settings.snapshot and config.getoption("update_snapshots", False)):
        return
    from unsolvable._errors import OutputError
    from unsolvable._writable import check_writable_dir

    try:
        check_writable_dir(config.rootpath / settings.snapshot_dir, flag=SNAPSHOT_DIR_OPTION)
    except OutputError as error:
        raise pytest.UsageError(f"{error} ({DOCS})") from None


def check_names(settings: Settings) -> None:
    """A bad agent spec or scenario name is a usage error naming it, not a traceback per test."""
    from unsolvable._errors import UnsolvableError
    from unsolvable._loading import check_labels, load_agent

    try:
        library = settings.library()
        library.from_files  # noqa: B018 - read and check every file now
    except UnsolvableError as error:
        raise pytest.UsageError(f"{SCENARIO_FILE_OPTION}/{SCENARIO_DIR_OPTION}: {error}") from None
    try:
        for spec in settings.agents:
            load_agent(spec, isolate_network=settings.isolate_network)
        check_labels(settings.agents, flag=AGENT_OPTION, isolate_network=settings.isolate_network)
    except UnsolvableError as error:
        raise pytest.UsageError(f"{AGENT_OPTION}: {error}") from None
    try:
        library.select([*settings.scenarios, *settings.families])
    except UnsolvableError as error:
        raise pytest.UsageError(f"{SCENARIO_OPTION}/{FAMILY_OPTION}: {error}") from None


def check_reports(settings: Settings) -> Baseline | None:
    """On the controller, before anything runs: a baseline that cannot be read, an update with
    no file to write, or a report path that cannot be written is a usage error naming the flag,
    not a failure after the last test. Returns the baseline to gate on, read now and only now."""
    from unsolvable._errors import BaselineError, OutputError, ShardError
    from unsolvable.reports._publish import check_baseline, check_outputs

    try:
        options = settings.report_options()
        check_outputs(options)
    except (BaselineError, OutputError, ShardError) as error:
        raise pytest.UsageError(f"{error} ({DOCS})") from None
    try:
        return check_baseline(options)
    except BaselineError as error:
        raise pytest.UsageError(f"{BASELINE_OPTION}: {error}") from None


@dataclass(frozen=True, kw_only=True)
class MarkerOptions:
    """The keywords of ``@pytest.mark.unsolvable``; the closest marker wins, keyword by keyword."""

    agent: AgentLike | None = None
    """A spec string (``pkg.module:attr``, ``naive``, ``contract``), a callable or an Adapter."""
    scenarios: tuple[str, ...] | None = None
    """Scenario or family names `unsolvable_case` is parametrized over (default: all)."""
    seeds: tuple[int, ...] | None = None
    """Seeds per scenario (default: each scenario's own)."""
    strict: bool | None = None
    step_bound: int | None = None
    max_steps: int | None = None
    max_tokens: int | None = None
    max_wall_seconds: float | None = None
    max_cost_usd: float | None = None
    ceiling_steps: int | None = None
    ceiling_tool_calls: int | None = None
    ceiling_seconds: float | None = None

    @classmethod
    def from_node(cls, node: pytest.Item | pytest.Collector | Any) -> MarkerOptions:
        """Merges every ``unsolvable`` marker from the farthest to the closest."""
        __tracebackhide__ = True
        merged: dict[str, Any] = {}
        for mark in reversed(list(node.iter_markers(MARKER))):
            if mark.args:
                raise TypeError(
                    f"@pytest.mark.unsolvable{mark.args!r}: takes keywords only, e.g. "
                    f"@pytest.mark.unsolvable(scenarios=[...]); see {DOCS}"
                )
            merged.update(mark.kwargs)
        return cls.from_kwargs(merged)

    @classmethod
    def from_kwargs(cls, kwargs: Mapping[str, Any]) -> MarkerOptions:
        __tracebackhide__ = True
        known = [field.name for field in dataclasses.fields(cls)]
        for name in kwargs:
            if name not in known:
                close = difflib.get_close_matches(name, known, n=1)
                hint = f"did you mean {close[0]}=? " if close else ""
                raise TypeError(
                    f"@pytest.mark.unsolvable({name}=...): unknown keyword; {hint}"
                    f"it accepts {', '.join(known)} ({DOCS})"
                )
        return cls(**{name: _check(name, value) for name, value in kwargs.items()})

    @property
    def overrides(self) -> dict[str, int | float]:
        """Step bound and budget fields, as `unsolvable.run` takes them."""
        names = ("step_bound", "max_steps", "max_tokens", "max_wall_seconds", "max_cost_usd")
        return {name: getattr(self, name) for name in names if getattr(self, name) is not None}


def _names(name: str, value: Any, kind: type) -> tuple[Any, ...]:
    __tracebackhide__ = True
    items = (value,) if isinstance(value, kind) else value
    if not isinstance(items, Iterable) or isinstance(items, str | bytes):
        items = None
    elif all(isinstance(item, kind) and not isinstance(item, bool) for item in items):
        return tuple(items)
    raise TypeError(
        f"@pytest.mark.unsolvable({name}={value!r}): expected a {kind.__name__} or a list of "
        f"{kind.__name__}s, got {type(value).__name__}"
    )


def _check(name: str, value: Any) -> Any:
    """Validates one marker keyword: the accepted types, and numbers above zero."""
    __tracebackhide__ = True
    if value is None or name == "agent":
        return value
    if name == "scenarios":
        return _names(name, value, str)
    if name == "seeds":
        from unsolvable._scenario import SEEDS, is_seed

        seeds = _names(name, value, int)
        if not all(is_seed(seed) for seed in seeds):
            raise TypeError(
                f"@pytest.mark.unsolvable(seeds={value!r}): expected seeds, each {SEEDS}, "
                "e.g. seeds=[0, 1]"
            )
        return seeds
    if name == "strict":
        if not isinstance(value, bool):
            raise TypeError(f"@pytest.mark.unsolvable(strict={value!r}): expected True or False")
        return value
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise TypeError(
            f"@pytest.mark.unsolvable({name}={value!r}): expected a positive number, "
            f"got {type(value).__name__}"
        )
    if not math.isfinite(value):  # an endless ceiling or budget is none: the run could hang
        raise TypeError(
            f"@pytest.mark.unsolvable({name}={value!r}): expected a positive, finite number, "
            f"got {type(value).__name__}"
        )
    return value


def marker_line() -> str:
    """The ``markers`` ini line: the full keyword signature, so --strict-markers and
    ``pytest --markers`` show it."""
    keywords = ", ".join(f"{field.name}=None" for field in dataclasses.fields(MarkerOptions))
    return (
        f"{MARKER}(*, {keywords}): run this test's agent on unsolvable scenarios with these "
        f"settings; the closest marker wins, keyword by keyword. See {DOCS}"
    )
