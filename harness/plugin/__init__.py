"""Consumes pytest's hooks, produces unsolvable scenarios as tests: the pytest11 entry point.

Inert until used: without ``--unsolvable-agent`` (or its ini key), the fixtures or the marker,
every hook returns at once. Only stdlib, pytest, the option definitions and the suite's collector
are imported here; the runner, the ledger, the reports, scenarios, syrupy and the agents load
when something uses them.
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from unsolvable._lazy import lazy_getattr
from unsolvable.plugin._marker import MarkerOptions, marker_line
from unsolvable.plugin._options import addoption
from unsolvable.plugin._settings import Settings, check_names, check_reports, resolve
from unsolvable.plugin._suite import (
    CASE,
    UnsolvableSuite,
    claim_node_ids,
    shard_out,
    shard_plan,
    suites,
)

if TYPE_CHECKING:
    from unsolvable._batch import WorkerPool
    from unsolvable._interrupts import InterruptCatcher
    from unsolvable._record import TerminationRecord
    from unsolvable.plugin._fixture import Case, SnapshotChanged, SnapshotMissing, UnsolvableRunner
    from unsolvable.plugin._ledger import RunLedger
    from unsolvable.reports._blessed import Baseline

__all__ = ["Case", "SnapshotChanged", "SnapshotMissing", "UnsolvableRunner", "UnsolvableSuite"]


# ``Case``, the snapshot failures and ``UnsolvableRunner``, for type hints and ``except``
# clauses, without importing them up front.
__getattr__ = lazy_getattr(
    globals(),
    dict.fromkeys(
        ("Case", "SnapshotChanged", "SnapshotMissing", "UnsolvableRunner"),
        "unsolvable.plugin._fixture",
    ),
)


SETTINGS = pytest.StashKey[Settings]()
LEDGER = pytest.StashKey["RunLedger"]()
BASELINE: pytest.StashKey[Baseline | None] = pytest.StashKey()
"""The baseline to gate on, read once, at configuration (`check_reports`)."""
POOL = pytest.StashKey["WorkerPool"]()
CATCHER: pytest.StashKey[InterruptCatcher] = pytest.StashKey()
PLAN = pytest.StashKey[str]()
"""The whole session's tests, hashed (`shard_plan`), in a shard: what ``unsolvable merge`` checks
its parts were cut from."""
PLAN_KEY = "unsolvable_plan"
"""Where the plan rides from an xdist worker, which collects, to the controller, which does not."""
PAYLOAD_ATTRIBUTE = "unsolvable_records"
"""Where a test's records ride on its report from an xdist worker to the controller."""
SNAPSHOT_ATTRIBUTE = "unsolvable_snapshot"
"""Marks the report of a test whose verdict passed but that failed on its snapshot alone: one
not recorded yet (``missing``) or one the record differs from (``changed``)."""
RERUN = "rerun"
"""The outcome pytest-rerunfailures gives the reports of an attempt it runs again."""
WHOLE = (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)
"""Exit statuses of a session that ran to its end: only such a session may rewrite a baseline."""


def _session_ledger(config: pytest.Config) -> RunLedger:
    """The session's ledger, made on first use so that an unused plugin never imports it."""
    if LEDGER not in config.stash:
        from unsolvable.plugin._ledger import RunLedger

        settings, worker = config.stash[SETTINGS], hasattr(config, "workerinput")
        stream_to = None if worker or settings.json_path is None else Path(settings.json_path)
        config.stash[LEDGER] = RunLedger(stream_to=stream_to)
    return config.stash[LEDGER]


def _worker_pool(config: pytest.Config) -> WorkerPool:
    """The session's worker process for the generated suite, started on first use: never a
    copy of this pytest process, whose capture of warnings and logs it would keep from the
    records, so that a serial session's are an xdist session's."""
    if POOL not in config.stash:
        from unsolvable._batch import WorkerPool

        config.stash[POOL] = WorkerPool(config.stash[SETTINGS].library(), fresh=True)
    return config.stash[POOL]


def _open_stream(config: pytest.Config) -> None:
    """Makes the record stream of ``--unsolvable-json`` now, before any test: one left by
    another session is a usage error, never truncated (`RecordStream.open`)."""
    from unsolvable._errors import OutputError
    from unsolvable.plugin._options import JSON_OPTION

    try:
        _session_ledger(config).stream.open(flag=JSON_OPTION)
    except OutputError as error:
        raise pytest.UsageError(str(error)) from None


def _catch_interrupts(config: pytest.Config) -> None:
    """SIGTERM (a CI job cancelled) and SIGHUP (a terminal closed) end the session as Ctrl-C
    does, its reports written with the records it finished, rather than the process killed with
    none written; on an xdist worker too, which a signal sent to the process group reaches."""
    from unsolvable._interrupts import InterruptCatcher

    config.stash[CATCHER] = InterruptCatcher().__enter__()


def pytest_unconfigure(config: pytest.Config) -> None:
    """Stops the generated suite's worker process, if one was started, and closes the record
    stream (kept on disk if the final file was never written); the signals are as they were."""
    if (catcher := config.stash.get(CATCHER, None)) is not None:
        catcher.__exit__()
    pool, ledger = config.stash.get(POOL, None), config.stash.get(LEDGER, None)
    if pool is not None:
        pool.close()
    if ledger is not None:
        ledger.stream.close(keep=True)


def pytest_addoption(parser: pytest.Parser) -> None:
    """https://docs.pytest.org/en/stable/reference/reference.html#pytest.hookspec.pytest_addoption"""
    addoption(parser)


def pytest_configure(config: pytest.Config) -> None:
    """Registers the marker, reads the options once, and fails early on an unusable name or,
    on the controller, an unusable baseline."""
    config.addinivalue_line("markers", marker_line())
    config.stash[SETTINGS] = settings = resolve(config)
    if settings.agents or settings.has_filters or settings.scenario_files:
        check_names(settings)
    if settings.agents:
        claim_node_ids(config, settings)
    if settings.has_reports:
        _catch_interrupts(config)
    if settings.has_reports and not hasattr(config, "workerinput"):
        config.stash[BASELINE] = check_reports(settings)
        if _runs_nothing(config) is None:
            _open_stream(config)
    config.pluginmanager.register(_Attempts(config), "unsolvable-attempts")
    if settings.agents and config.getoption("lf", False):
        config.pluginmanager.register(_LastFailed(), "unsolvable-last-failed")
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_XdistHooks(config), "unsolvable-xdist")


class _Attempts:
    """Where a test runs (serially, or on an xdist worker): its records are kept once its last
    report is logged, those of an attempt pytest-rerunfailures runs again (``rerun``) dropped,
    so that a rerun counts once, as pytest counts it."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    @pytest.hookimpl(tryfirst=True)  # on a worker, before xdist sends the report on
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """https://docs.pytest.org/en/stable/reference/reference.html#pytest.hookspec.pytest_runtest_logreport"""
        ledger = self.config.stash.get(LEDGER, None)
        if ledger is None or getattr(report, "node", None) is not None:
            return  # unused, or a worker's report on the controller (`_XdistHooks`)
        ledger.settle(rerun=_is_rerun(report), ended=report.when == "teardown")
        if not hasattr(self.config, "workerinput"):
            if (kind := getattr(report, SNAPSHOT_ATTRIBUTE, None)) and not _is_rerun(report):
                ledger.note_snapshot(kind)
        elif report.when == "teardown" and (payload := ledger.drain()):
            setattr(report, PAYLOAD_ATTRIBUTE, payload)


LAST_FAILED_SKIPPER = "lfplugin-collskip"
"""The name under which pytest's ``--lf`` registers, once it has collected a file with a known
failure, the plugin that skips every file whose path on disk holds none."""


class _LastFailed:
    """Registered under ``--lf`` with a generated suite: the suite is a file whose path, its
    agent's snapshot folder, need not exist (no snapshots, or none recorded yet), which ``--lf``
    would skip as a file with no known failure once another file had one, its failures never
    run again. It collects the suite with every other hook, as ``--lf`` collects a file that
    has a known failure; ``--lf`` keeps the failed tests alone afterwards."""

    @pytest.hookimpl(tryfirst=True)
    def pytest_make_collect_report(
        self, collector: pytest.Collector
    ) -> pytest.CollectReport | None:
        """https://docs.pytest.org/en/stable/reference/reference.html#pytest.hookspec.pytest_make_collect_report"""
        plugins = collector.config.pluginmanager
        skipper = plugins.get_plugin(LAST_FAILED_SKIPPER)
        if skipper is None or not isinstance(collector, UnsolvableSuite):
            return None
        others = plugins.subset_hook_caller(
            "pytest_make_collect_report", remove_plugins=[self, skipper]
        )
        report: pytest.CollectReport = others(collector=collector)
        return report


def _is_rerun(report: pytest.TestReport) -> bool:
    """Whether pytest-rerunfailures runs the report's attempt again (`RERUN`), an outcome
    pytest's own types do not know."""
    outcome: str = report.outcome
    return outcome == RERUN


class _XdistHooks:
    """Registered only under pytest-xdist: pluggy rejects hooks it does not know."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """On the controller: the records that came with a worker's report, as they come."""
        if hasattr(self.config, "workerinput") or getattr(report, "node", None) is None:
            return  # not a worker's report (xdist sets ``node``): counted where it was made
        ledger = _session_ledger(self.config)
        if payload := getattr(report, PAYLOAD_ATTRIBUTE, None):
            ledger.merge_payload(payload)
        if (kind := getattr(report, SNAPSHOT_ATTRIBUTE, None)) and not _is_rerun(report):
            ledger.note_snapshot(kind)

    def pytest_testnodedown(self, node: Any, error: object) -> None:
        """Merges a worker's records on the controller (pytest-xdist's hook)."""
        output = getattr(node, "workeroutput", None)
        if output is not None and error is not None:
            # xdist reports a worker that finished on a KeyboardInterrupt down a second time, as
            # crashed, with the output already merged: it sent its records, and only once.
            return
        from unsolvable.plugin._ledger import PAYLOAD_KEY

        if output and PLAN_KEY in output:
            self.config.stash[PLAN] = output[PLAN_KEY]

        if error is not None or (output and PAYLOAD_KEY in output):
            worker = getattr(getattr(node, "gateway", None), "id", "?")
            _session_ledger(self.config).merge(worker, output, crashed=error is not None)


def _snapshot_only(call: pytest.CallInfo[None]) -> str | None:
    """``missing`` or ``changed`` when the test failed on its snapshot alone, its verdict
    having passed; ``None`` otherwise."""
    if call.when != "call" or call.excinfo is None:
        return None
    from unsolvable.plugin._fixture import SnapshotChanged, SnapshotMissing

    error = call.excinfo.value
    return (
        "missing"
        if isinstance(error, SnapshotMissing)
        else ("changed" if isinstance(error, SnapshotChanged) else None)
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any, Any]:
    """Marks the report of a passed verdict that failed on its snapshot alone, which the
    summary counts apart from failed verdicts once the report is logged (`_Attempts`; on the
    controller under xdist, `_XdistHooks`)."""
    report = yield
    if item.config.stash.get(LEDGER, None) is not None and (kind := _snapshot_only(call)):
        setattr(report, SNAPSHOT_ATTRIBUTE, kind)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    """Adds one `UnsolvableSuite` per agent to what the session collects."""
    report = yield
    if isinstance(collector, pytest.Session) and report.passed:
        report.result.extend(suites(collector, collector.config.stash[SETTINGS]))
    return report


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrizes ``unsolvable_case`` over the scenarios of the marker (or all of them)."""
    if CASE not in metafunc.fixturenames:
        return
    from unsolvable.plugin._fixture import make_cases

    parent = metafunc.definition.parent
    agents = [parent.agent] if isinstance(parent, UnsolvableSuite) else None
    try:
        marker = MarkerOptions.from_node(metafunc.definition)
        cases = make_cases(metafunc.config.stash[SETTINGS], marker, agents=agents)
    except (TypeError, ValueError) as error:  # our errors subclass these (unsolvable._errors)
        message = f"{metafunc.definition.nodeid}: {type(error).__name__}: {error}"
        raise pytest.Collector.CollectError(message) from None
    metafunc.parametrize(CASE, cases, ids=[case.id for case in cases])


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Applies ``--unsolvable-scenario``/``--unsolvable-family``, then ``--unsolvable-shard``,
    by deselecting after syrupy has seen every item, as ``-k`` does, so it never takes
    filtered-out snapshots for unused."""
    settings = config.stash[SETTINGS]
    if not (settings.has_filters or settings.shard):
        return
    from unsolvable.plugin._fixture import is_selected

    params = {item: getattr(getattr(item, "callspec", None), "params", {}) for item in items}
    dropped = [item for item in items if CASE in params[item]]
    dropped = [item for item in dropped if not is_selected(params[item][CASE], settings)]
    if settings.shard is not None:
        kept = [item for item in items if item not in dropped]
        config.stash[PLAN] = shard_plan(kept)
        dropped += shard_out(kept, settings.shard)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [item for item in items if item not in dropped]


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Workers publish their records. The controller (or a serial run), every record in, writes
    the reports and gates on the baseline; a signal as it writes them ends the session as
    ``unsolvable run`` ends, interrupted, saying which records the stream keeps."""
    config = session.config
    workeroutput = getattr(config, "workeroutput", None)
    if LEDGER in config.stash:  # the runs of a test an interrupt cut short, its reports unlogged
        config.stash[LEDGER].settle(rerun=False, ended=True)
    if PLAN in config.stash and workeroutput is not None:
        workeroutput[PLAN_KEY] = config.stash[PLAN]
    if LEDGER in config.stash and workeroutput is not None:
        config.stash[LEDGER].publish(workeroutput)
    elif workeroutput is None and config.stash[SETTINGS].has_reports:
        try:
            _write_reports(session)
        except KeyboardInterrupt as interrupt:  # SIGTERM and SIGHUP among them (`Interrupted`)
            ledger = _session_ledger(config)
            ledger.notes.append(ledger.stream.interrupted_writing(interrupt))
            session.exitstatus = pytest.ExitCode.INTERRUPTED


def _runs_nothing(config: pytest.Config) -> str | None:
    """The option of a session that runs no test (``--collect-only``; ``--setup-plan``, which
    sets up no fixture either), which has no run for a report to hold; ``None`` otherwise."""
    if config.getoption("collectonly", False):
        return "--collect-only"
    return "--setup-plan" if config.getoption("setupplan", False) else None


def _write_reports(session: pytest.Session) -> None:
    """The reports and the baseline gate, every record in: a regression fails a session that
    passed. A session that runs no test writes none: a report of no run would stand for the
    suite's, or sit beside a real one as its ``.partial`` copy."""
    config = session.config
    options = config.stash[SETTINGS].report_options()
    if (option := _runs_nothing(config)) is not None:
        from unsolvable.reports._publish import unpublished

        _session_ledger(config).notes.extend(
            unpublished(options, f"the session ran no test ({option})")
        )
        return
    whole = session.exitstatus in WHOLE and not (session.shouldfail or session.shouldstop)
    interrupted = session.exitstatus == pytest.ExitCode.INTERRUPTED
    baseline = config.stash.get(BASELINE, None)
    ledger = _session_ledger(config)
    plan = config.stash.get(PLAN, None)
    passed = ledger.report(
        options, baseline=baseline, whole=whole, interrupted=interrupted, plan=plan
    )
    if not passed and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """Tables, totals, metrics and what the reports and gate did, printed once (never by a
    worker)."""
    ledger, settings = config.stash.get(LEDGER, None), config.stash[SETTINGS]
    if ledger is None or hasattr(config, "workerinput"):
        return
    lines = ledger.terminal_summary(has_agents=bool(settings.agents))
    if lines:
        terminalreporter.write_sep("=", "unsolvable")
    for line in lines:
        terminalreporter.write_line(line)


@pytest.fixture
def unsolvable(request: pytest.FixtureRequest) -> UnsolvableRunner:
    """Runs agents on scenarios with this test's settings: marker over options over ini."""
    __tracebackhide__ = True
    from unsolvable.plugin._fixture import UnsolvableRunner

    config = request.config
    return UnsolvableRunner(
        request,
        settings=config.stash[SETTINGS],
        ledger=_session_ledger(config),
        pool=lambda: _worker_pool(config),
    )


@pytest.fixture
def unsolvable_case(request: pytest.FixtureRequest) -> Case:
    """One scenario × seed of the library; tests that ask for it are parametrized over them."""
    case = getattr(request, "param", None)
    if case is None:
        raise LookupError("unsolvable_case is parametrized at collection; request it by name")
    return case  # type: ignore[no-any-return]


@pytest.fixture
def unsolvable_record(unsolvable: UnsolvableRunner, unsolvable_case: Case) -> TerminationRecord:
    """The judged record of this test's agent on ``unsolvable_case``."""
    __tracebackhide__ = True
    return unsolvable.run(unsolvable_case)


@pytest.fixture
def unsolvable_snapshot(unsolvable: UnsolvableRunner) -> Any:
    """syrupy's ``snapshot``, bound to `unsolvable.plugin.snapshot.TerminationRecordExtension`."""
    return unsolvable.snapshot
