"""Consumes one case of the generated suite, produces its test: the verdict, then the snapshot.

pytest collects this module through `unsolvable.plugin.UnsolvableSuite`, once per agent named by
``--unsolvable-agent``; it has no pytest import of its own, so it stays cheap and layered.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from unsolvable.plugin._fixture import Case, UnsolvableRunner

__all__ = ["test_unsolvable"]


def test_unsolvable(unsolvable: UnsolvableRunner, unsolvable_case: Case) -> None:
    """One scenario × seed on the agent of this suite: does its stop logic end the run honestly?"""
    __tracebackhide__ = True
    record = unsolvable.run_isolated(unsolvable_case)
    snapshot = unsolvable.snapshot if unsolvable.settings.snapshot else None
    unsolvable.assert_passed(record, snapshot=snapshot)
