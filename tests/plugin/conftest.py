"""Fixtures for the plugin's tests: each run is a pytest subprocess in a scratch project that
only has the package installed, as its users run it (entry point, xdist workers, start-up cost)."""

from __future__ import annotations

import pytest

from tests.plugin._helpers import PYTEST_SECONDS, QUIET, XDIST_ENVIRONMENT, Run, agent_module


@pytest.fixture
def run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Run:
    """``pytest`` in a subprocess of the scratch project, with the agents of `agent_module`.

    The xdist variables of our own worker are removed: syrupy reads them to decide whether it
    is a worker, and would stay silent in a serial run started from one."""
    agent_module(pytester)
    for name in XDIST_ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)

    def _run(*args: str) -> pytest.RunResult:
        return pytester.runpytest_subprocess(*QUIET, *args, timeout=PYTEST_SECONDS)

    return _run


@pytest.fixture(params=[pytest.param((), id="serial"), pytest.param(("-n", "2"), id="xdist")])
def xdist_args(request: pytest.FixtureRequest) -> tuple[str, ...]:
    """The same run serially and on two xdist workers: the results must not differ."""
    return tuple(request.param)
