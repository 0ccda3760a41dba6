"""Consumes termination records, produces syrupy snapshots: stable JSON, one file per record.

Keys are sorted, wall times and the verdict are left out (`behaviour`) and memory addresses in
reprs are masked, so the same stop always gives the same bytes. In the generated suite each
record lives at ``<snapshot dir>/<agent>/<family>/<variant>-seed<N>.json``; in your own tests
syrupy's usual place applies (``__snapshots__/<test file>/<test>.json``). Usage::

    from unsolvable.snapshot import TerminationRecordExtension

    def test_record(unsolvable, snapshot):
        record = unsolvable.run("constant-return/repeat", agent="contract")
        assert snapshot(extension_class=TerminationRecordExtension) == record
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import TYPE_CHECKING

from syrupy.data import Snapshot, SnapshotCollection, SnapshotCollections
from syrupy.extensions.json import JSONSnapshotExtension
from syrupy.matchers import compose_matchers

from unsolvable import _redact
from unsolvable._record import TerminationRecord
from unsolvable.plugin._suite import CASE, SUITE_MODULE, SUITE_TEST

if TYPE_CHECKING:
    from syrupy.location import PyTestLocation
    from syrupy.types import (
        PropertyFilter,
        PropertyMatcher,
        PropertyPath,
        SerializableData,
        SerializedData,
        SnapshotIndex,
    )

__all__ = ["TerminationRecordExtension", "behaviour", "mask_addresses"]

_CASE_STEM = re.compile(r".+-seed[0-9]+")
"""The name of a case's snapshot file in its family folder, ``<variant>-seed<N>``
(`unsolvable.plugin._fixture.Case.id`): a file of another name or depth in the agent's folder is
the user's, which `--snapshot-update` must never delete as an unused snapshot."""


def mask_addresses(*, data: SerializableData, path: PropertyPath) -> SerializableData:
    """A syrupy matcher that replaces memory addresses in strings with ``0x…``: records are
    masked when made (`unsolvable._redact`); this masks whatever else a test snapshots with them."""
    return _redact.mask_addresses(data) if isinstance(data, str) else data


def behaviour(record: TerminationRecord) -> dict[str, object]:
    """What a snapshot keeps: what the agent did and what the harness observed — the stable
    record without its verdict. The verdict is judged afresh on every run, under the strictness
    the test asks for, so switching ``--unsolvable-strict`` or a verdict rule changes no snapshot;
    the test fails on the verdict itself instead. The whole trajectory stays out
    too: the tail shows the reviewer how the run ended, and a snapshot stays a page long. So
    does a crash's traceback, whose file names depend on the folder the run was made from: a
    bless from the agent's folder must match a run from the repository's root (the crash's
    ``error`` stays)."""
    data = record.to_dict()
    del data["verdict"]
    del data["observed"]["trajectory"]
    del data["observed"]["traceback"]
    return data


def _is_suite(test_location: PyTestLocation) -> bool:
    """Generated-suite items are recognised by their function's module, which survives xdist."""
    return test_location.modulename == SUITE_MODULE


def _case_id(test_location: PyTestLocation) -> str:
    """``test_unsolvable[constant-return/repeat-seed0]`` → ``constant-return/repeat-seed0``:
    the case's own id, not the test's, which a plugin that parametrizes every test lengthens
    (pytest-repeat's ``--count 2``: ``…-seed0-1-2``) and which then names no snapshot."""
    params = getattr(getattr(test_location.item, "callspec", None), "params", {})
    case = params.get(CASE)
    return str(case.id) if case is not None else test_location.testname[len(SUITE_TEST) + 1 : -1]


class TerminationRecordExtension(JSONSnapshotExtension):
    """syrupy's JSON extension for `TerminationRecord`: sorted keys, no volatile fields."""

    def serialize(
        self,
        data: SerializableData,
        *,
        exclude: PropertyFilter | None = None,
        include: PropertyFilter | None = None,
        matcher: PropertyMatcher | None = None,
    ) -> SerializedData:
        if isinstance(data, TerminationRecord):
            data = behaviour(data)
        matcher = compose_matchers(mask_addresses, matcher) if matcher else mask_addresses
        return super().serialize(data, exclude=exclude, include=include, matcher=matcher)

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        """The suite's virtual module path *is* the agent's snapshot folder."""
        if _is_suite(test_location):
            return test_location.filepath
        return super().dirname(test_location=test_location)

    @classmethod
    def discovery_dirname(cls, *, test_location: PyTestLocation) -> str:
        if _is_suite(test_location):
            return test_location.filepath
        return super().discovery_dirname(test_location=test_location)

    @classmethod
    def get_snapshot_name(cls, *, test_location: PyTestLocation, index: SnapshotIndex = 0) -> str:
        if _is_suite(test_location):
            return f"{SUITE_TEST}[{_case_id(test_location)}]"
        return super().get_snapshot_name(test_location=test_location, index=index)

    @classmethod
    def get_file_basename(cls, *, test_location: PyTestLocation, index: SnapshotIndex) -> str:
        if _is_suite(test_location):
            return _case_id(test_location)
        return super().get_file_basename(test_location=test_location, index=index)

    @classmethod
    def matches_test_location(
        cls, *, test_location: PyTestLocation, snapshot_location: str
    ) -> bool:
        if _is_suite(test_location):
            return Path(snapshot_location) == Path(
                cls.get_location(test_location=test_location, index=0)
            )
        if super().matches_test_location(
            test_location=test_location, snapshot_location=snapshot_location
        ):
            return True
        # syrupy names the file after the test id with what a path cannot hold left out (the
        # "/" of every `unsolvable_case` id), then looks for the id as it was in that name: it
        # warns that it cannot relate the file to the test, which fails a `-W error` session's
        # `--snapshot-update`. The name it gave the file is looked for instead.
        location = Path(snapshot_location)
        named = cls.get_file_basename(test_location=test_location, index=0)
        within = (
            location.parent.resolve() == Path(cls.dirname(test_location=test_location)).resolve()
        )
        return within and (
            location.stem == named or location.stem.startswith((f"{named}.", f"{named}["))
        )

    def discover_snapshots(
        self, *, test_location: PyTestLocation, ignore_extensions: list[str] | None = None
    ) -> SnapshotCollections:
        """In the suite, each ``<family>/<variant>-seed<N>.json`` under the agent's folder is
        the snapshot of one case."""
        if not _is_suite(test_location):
            return super().discover_snapshots(
                test_location=test_location, ignore_extensions=ignore_extensions
            )
        root = Path(self.dirname(test_location=test_location))
        discovered = SnapshotCollections()
        for path in sorted(root.glob(f"*/*.{self.file_extension}")):
            if not _CASE_STEM.fullmatch(path.stem):
                continue
            case = path.relative_to(root).with_suffix("").as_posix()
            collection = SnapshotCollection(location=str(path))
            collection.add(Snapshot(name=f"{SUITE_TEST}[{case}]"))
            discovered.add(collection)
        return discovered

    def delete_snapshots(self, *, snapshot_location: str, snapshot_names: set[str]) -> None:
        """Deletes the file, and its family folder once that is empty."""
        super().delete_snapshots(snapshot_location=snapshot_location, snapshot_names=snapshot_names)
        with contextlib.suppress(OSError):
            Path(snapshot_location).parent.rmdir()
