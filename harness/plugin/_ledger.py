"""Consumes the termination records of a pytest session, produces its summary, its reports and
the baseline gate's verdict.

Under xdist each worker publishes its records as compact JSON on ``config.workeroutput``; the
controller rebuilds them (`TerminationRecord.from_dict`) in ``pytest_testnodedown`` and alone
prints the summary, writes the reports and gates on the baseline, so no two processes ever write
the same file.
"""

from __future__ import annotations

import dataclasses
import gc
import json
from collections.abc import Callable, Mapping, MutableMapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from unsolvable._record import TerminationRecord
from unsolvable._text import printable
from unsolvable.reports._cells import metrics_lines
from unsolvable.reports._files import RecordStream
from unsolvable.reports._table import INTERRUPTED, format_table, summary_line

if TYPE_CHECKING:
    from unsolvable._shard import Key, ShardTag
    from unsolvable.reports._blessed import Baseline
    from unsolvable.reports._publish import ReportOptions

__all__ = ["PAYLOAD_KEY", "RunLedger"]

PAYLOAD_KEY = "unsolvable_records"
"""The key of a worker's records in ``config.workeroutput``."""


class RunLedger:
    """Every record of the session, in one place (held in ``config.stash``)."""

    def __init__(self, *, stream_to: Path | None = None) -> None:
        self.records: list[TerminationRecord] = []
        self.stream = RecordStream(stream_to)
        """Each record on disk as it arrives (``--unsolvable-json``'s ``.jsonl``), on the
        controller or in a serial run."""
        self.held: list[TerminationRecord] = []
        """The running test's records, kept (`settle`) once its outcome is final."""
        self.sent = 0
        """On a worker: how many records have left with a test's report."""
        self.snapshots_missing = 0
        """Tests whose verdict passed but whose record had no snapshot yet (a first run)."""
        self.snapshots_changed = 0
        """Tests whose verdict passed but whose record differs from its snapshot."""
        self.silent_workers: list[str] = []
        """Workers that went down during the session, the records they had not sent with a test's
        report lost."""
        self.notes: list[str] = []
        """What `report` did: files written, the gate's verdict, a baseline left alone."""

    def note_snapshot(self, kind: str) -> None:
        """A test failed on its snapshot alone: ``missing`` or ``changed``."""
        if kind == "missing":
            self.snapshots_missing += 1
        else:
            self.snapshots_changed += 1

    def hold(self, record: TerminationRecord) -> None:
        """A record the running test made, kept or dropped with the attempt (`settle`)."""
        self.held.append(record)

    def settle(self, *, rerun: bool, ended: bool) -> None:
        """As each of a test's reports is logged: the records of an attempt that is run again
        (``rerun``, pytest-rerunfailures) are dropped, for the next attempt's; those of one
        that ``ended`` are kept."""
        if rerun:
            self.held.clear()
        if ended:
            for record in self.held:
                self.add(record)
            self.held.clear()

    def add(self, record: TerminationRecord) -> None:
        self.records.append(record)
        self.stream.add(record)

    def drain(self) -> str:
        """On a worker: the records not yet sent, as the JSON the controller rebuilds."""
        fresh, self.sent = self.records[self.sent :], len(self.records)
        if not fresh:
            return ""
        data = [r.to_dict(volatile=True) for r in fresh]
        return json.dumps(data, separators=(",", ":"), allow_nan=False)

    def merge_payload(self, payload: str) -> None:
        """On the controller: records a worker sent. The cyclic collector waits meanwhile:
        every object made here is kept, so each collection would only walk the records merged
        so far again, and a large payload would cost more per record than a small one."""
        enabled = gc.isenabled()
        gc.disable()
        try:
            for data in json.loads(payload):
                self.add(TerminationRecord.from_dict(data))
        finally:
            if enabled:
                gc.enable()

    def publish(self, workeroutput: MutableMapping[str, Any]) -> None:
        """On a worker at its end: any record no test report carried."""
        if payload := self.drain():
            workeroutput[PAYLOAD_KEY] = payload

    def merge(self, worker: str, workeroutput: Mapping[str, Any] | None, *, crashed: bool) -> None:
        """On the controller: one worker's records; a crashed worker is remembered."""
        if crashed:
            self.silent_workers.append(worker)
        payload = (workeroutput or {}).get(PAYLOAD_KEY)
        if payload:
            self.merge_payload(payload)

    def sorted_records(self) -> list[TerminationRecord]:
        """Agent, then library order, then seed: the same order serial or under xdist."""
        from unsolvable._shard import in_order

        order = _order()
        return in_order((order(record), record) for record in self.records)

    def _shard_tag(
        self, options: ReportOptions, *, whole: bool, plan: str | None
    ) -> ShardTag | None:
        """A shard's place in the whole run (`ShardTag`): each record's sort key, which
        ``unsolvable merge`` sorts the parts' records by into this order, and the ``plan`` of
        the whole session it was cut from."""
        if options.shard is None:
            return None
        from unsolvable._shard import ShardTag

        complete = whole and not self.silent_workers
        order = tuple(map(_order(), self.sorted_records()))
        return ShardTag(shard=options.shard.shard, complete=complete, order=order, plan=plan)

    def summary(self) -> list[str]:
        """A table per agent with its totals, then the totals of all agents and any warning."""
        records = self.sorted_records()
        agents = sorted({record.agent for record in records})
        lines: list[str] = []
        for agent in agents:
            mine = [record for record in records if record.agent == agent]
            lines += ["", f"agent {printable(agent)}", format_table(mine), summary_line(mine)]
        if len(agents) > 1:
            lines += ["", summary_line(records).replace("unsolvable:", "unsolvable: all agents:")]
        return lines[1:] + self.warnings()  # the blank line before the first table

    def warnings(self) -> list[str]:
        if not self.silent_workers:
            return []
        return [
            f"unsolvable: warning: worker(s) {', '.join(self.silent_workers)} went down during "
            "the session: the runs of the test each was running, which had not ended, and any "
            "runs no test's report had carried yet are missing from this summary, the reports "
            "and the baseline gate"
        ]

    def terminal_summary(self, *, has_agents: bool) -> list[str]:
        """What the plugin prints once at the end: `summary`, the metrics table per family,
        then `notes`; nothing for a session that ran no agent and has nothing to say."""
        records = self.sorted_records()
        if not (records or has_agents or self.notes):
            return []
        return [
            *self.summary(),
            *metrics_lines(records),
            *self.notes,
            *self._snapshot_only(),
        ]

    def _snapshot_only(self) -> list[str]:
        """The tests that failed on their snapshot alone, counted apart from the failed verdicts
        above, so the two add up to pytest's count of failed tests (in the generated suite, a
        test is a run): for want of a snapshot, or because the stop behaviour changed."""
        lines = []
        if self.snapshots_changed:
            lines.append(
                f"unsolvable: {self.snapshots_changed} test(s) failed on their snapshot alone: "
                "the verdict passed, but the record differs from its snapshot (each failure "
                "says what changed); accept the changes with --snapshot-update"
            )
        if self.snapshots_missing:
            lines.append(
                f"unsolvable: {self.snapshots_missing} verdict(s) passed but their snapshots are "
                "not recorded yet; record them with the same command plus --snapshot-update"
            )
        return lines

    def report(
        self,
        options: ReportOptions,
        *,
        baseline: Baseline | None = None,
        whole: bool,
        interrupted: bool = False,
        plan: str | None = None,
    ) -> bool:
        """After the last record (on the controller, or in a serial run): the reports and the
        baseline gate, or a new baseline, exactly as ``unsolvable run`` makes them
        (`unsolvable.reports._publish.publish`). False when the gate found a regression.

        The baseline is rewritten only from a whole session: never from one that stopped early
        (``whole`` is False), lost a worker's records or made none; nor do its reports replace
        larger files. A session that made no record skips the gate rather than failing it as a
        gate that compares nothing: it ran no agent (a baseline in the ini file, a session of
        other tests), and gating it would fail every such run of pytest; one that runs no test
        at all (``--collect-only``) never comes here. An ``interrupted`` session writes what
        finished, marked so, and skips the gate. The gate reads ``baseline``, as it was read
        when the session started. A report that cannot be written is one line, and the record
        stream is kept.
        """
        from unsolvable._errors import OutputError
        from unsolvable.reports._publish import publish

        records = self.sorted_records()
        tag = self._shard_tag(options, whole=whole and not interrupted, plan=plan)
        options = dataclasses.replace(options, shard=tag)
        why = self._partial(records, whole=whole)
        if interrupted:
            self.notes.append(f"unsolvable: {INTERRUPTED}")
        elif options.update_baseline and why:
            self.notes.append(f"unsolvable: warning: {options.baseline} not rewritten: {why}")
            options = dataclasses.replace(options, baseline=None, update_baseline=False)
        elif options.baseline is not None and not records:
            self.notes.append(
                f"unsolvable: baseline gate skipped: the session ran no agent, so it has nothing "
                f"to compare with {options.baseline}"
            )
            options = dataclasses.replace(options, baseline=None)
        try:
            published = publish(
                records, options, baseline=baseline, interrupted=interrupted, whole=why is None
            )
        except OutputError as error:
            kept = f"; the records streamed to {self.stream.path} are kept"
            self.notes.append(f"unsolvable: error: {error}{kept if self.stream.written else ''}")
            return False
        self.stream.close(keep=False)
        self.notes.extend(published.notes)
        return published.passed

    def _partial(self, records: Sequence[TerminationRecord], *, whole: bool) -> str | None:
        """Why these records are not the whole session, or ``None``."""
        if self.silent_workers:
            return f"worker(s) {', '.join(self.silent_workers)} sent no records"
        if not records:
            return "the session made no termination records"
        return None if whole else "the session stopped early"


def _order() -> Callable[[TerminationRecord], Key]:
    """The summary's and the JSON's order, as a key: agent, library order, scenario, seed."""
    from unsolvable.scenarios import SCENARIOS

    place = {scenario.name: index for index, scenario in enumerate(SCENARIOS)}
    return lambda r: (r.agent, place.get(r.scenario, len(place)), r.scenario, r.seed)
