"""Consumes pytest's command line and ini files, produces the session's frozen `Settings`, each
value checked; and, before anything runs, checks the agents, scenarios and reports they name.

Values stay strings and numbers (agent specs are resolved only when a run starts), so they pickle
to xdist workers.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest

from unsolvable.plugin._options import (
    AGENT_OPTION,
    BASELINE_OPTION,
    CEILING_SECONDS_OPTION,
    CEILING_STEPS_OPTION,
    CEILING_TOOL_CALLS_OPTION,
    DEFAULT_SNAPSHOT_DIR,
    DOCS,
    FAMILY_OPTION,
    ISOLATE_NETWORK_OPTION,
    MAX_STEPS_OPTION,
    NO_SNAPSHOT_OPTION,
    PREFIX,
    SCENARIO_DIR_OPTION,
    SCENARIO_FILE_OPTION,
    SCENARIO_OPTION,
    SHARD_OPTION,
    SNAPSHOT_DIR_OPTION,
    STEP_BOUND_OPTION,
    STRICT_OPTION,
    is_given,
    read_values,
)
from unsolvable.reports._flags import GATE_FLAGS, REPORT_FLAGS

if TYPE_CHECKING:
    from unsolvable._shard import Shard
    from unsolvable.imports._library import ScenarioLibrary
    from unsolvable.reports._blessed import Baseline
    from unsolvable.reports._publish import ReportOptions

__all__ = ["SNAPSHOT_PLUGIN", "Settings", "check_names", "check_reports", "resolve"]


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
        """Whether the session ends by writing a report or using a baseline; a path given empty
        counts, so that the check refuses it rather than the session ignoring it."""
        return any(value or isinstance(value, str) for value in self.reports.values())

    @property
    def json_path(self) -> str | None:
        path = self.reports.get("json")
        return None if path is None else str(path)

    def report_options(self) -> ReportOptions:
        """The reports and the gate as `unsolvable.reports.publish` takes them. Paths stay as
        given, so messages show them so: relative ones are from where pytest was started (an ini
        file's made so, `_from_rootdir`), the working directory when options are read and again
        when the session finishes."""
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


def resolve(config: pytest.Config) -> Settings:
    """Reads every option once; a bad value is a `pytest.UsageError` naming its flag."""
    values = read_values(config)
    settings = Settings(
        agents=tuple(values[AGENT_OPTION] or ()),
        agents_from_command_line=is_given(config, AGENT_OPTION),
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
        reports=_reports(config, values),
    )
    _check_gate_flags(config, settings)
    _check_snapshot_dir(config, settings)
    _check_snapshot_plugin(config, settings)
    return settings


def _reports(config: pytest.Config, values: Mapping[str, Any]) -> dict[str, Any]:
    """The report flags given, by `ReportFlag.key`; a path from the ini file is relative to the
    rootdir, as the scenario and snapshot folders are, whichever folder pytest starts in."""
    reports = {}
    for flag in REPORT_FLAGS:
        name = f"{PREFIX}{flag.name}"
        value = values[name]
        if value is None:
            continue
        from_ini = flag.takes_path and not is_given(config, name)
        reports[flag.key] = _from_rootdir(config, value) if from_ini else value
    return reports


def _from_rootdir(config: pytest.Config, path: str) -> str:
    """``path``, relative to the rootdir, as a path from where pytest started: what files are
    written to and messages show (the same path, when pytest starts in the rootdir). A
    final ``/`` is kept, for the check that refuses a folder where a file is wanted."""
    if not path or os.path.isabs(path):
        return path
    relative = os.path.relpath(config.rootpath / path, config.invocation_params.dir)
    return relative + "/" if path.endswith("/") else relative


def _check_gate_flags(config: pytest.Config, settings: Settings) -> None:
    """A flag that tunes the gate, given on the command line with no baseline, is a usage
    error: the session would go ungated with it said. Ini keys may set margins for every
    session, gated or not."""
    if "baseline" in settings.reports:
        return
    for flag in GATE_FLAGS:
        if is_given(config, f"{PREFIX}{flag.name}"):
            raise pytest.UsageError(
                f"{PREFIX}{flag.name} tunes a baseline gate: add {BASELINE_OPTION} PATH ({DOCS})"
            )


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
        given = is_given(config, SCENARIO_DIR_OPTION)
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
    from unsolvable._loading import load_agents

    try:
        library = settings.library()
        library.from_files  # noqa: B018 - read and check every file now
    except UnsolvableError as error:
        raise pytest.UsageError(f"{SCENARIO_FILE_OPTION}/{SCENARIO_DIR_OPTION}: {error}") from None
    try:
        load_agents(settings.agents, flag=AGENT_OPTION, isolate_network=settings.isolate_network)
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
        check_outputs(options, streamed=True)
    except (BaselineError, OutputError, ShardError) as error:
        raise pytest.UsageError(f"{error} ({DOCS})") from None
    try:
        return check_baseline(options)
    except BaselineError as error:
        raise pytest.UsageError(f"{BASELINE_OPTION}: {error}") from None
