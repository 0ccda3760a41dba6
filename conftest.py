"""What the whole test tree shares: pytest's ``pytester`` (the plugin's tests run pytest in
scratch projects) and the hypothesis profiles — ``dev`` is quick; the built-in ``ci`` profile
(derandomised, no database) loads by itself when CI is set.

The plugin under test is not registered here: the installed ``pytest11`` entry point loads it,
as it does for users.
"""

from __future__ import annotations

import os
from collections.abc import Generator

import pytest
from hypothesis import settings

pytest_plugins = ["pytester"]

settings.register_profile("dev", max_examples=25, deadline=None)  # no timing in tests
if not os.environ.get("CI"):
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


def _skip_is_a_failure(report: pytest.CollectReport | pytest.TestReport) -> None:
    """Under CI, everything the tests need is installed (the test extra, and chromium and the
    coding-agent CLIs by ``.ci/run``): a test that skips there hides a broken install, so it
    fails, saying why it would have skipped."""
    if os.environ.get("CI") and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[-1] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"skipped under CI, where it must run: {reason}"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport() -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    _skip_is_a_failure(report)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report() -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    report = yield
    _skip_is_a_failure(report)
    return report
