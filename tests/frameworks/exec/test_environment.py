"""What an ``exec:`` agent is given of the harness's environment: what a program needs and the
run's variables, never a CI's credentials unless asked for by name."""

from __future__ import annotations

import shlex
import sys

import pytest

import unsolvable
from unsolvable import Outcome, scenarios
from unsolvable.adapters.process import ProcessAdapter

SHOWN = ("GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "PATH", "UNSOLVABLE_TASK", "LC_ALL", "MY_TOOL")
LISTS = (
    f"import json, os; names = sorted(n for n in os.environ if n in {SHOWN!r}); "
    "print(json.dumps(dict(code='NO_PROGRESS', partial=names)))"
)
"""An agent that stops at once, naming which of `SHOWN` its environment holds."""
AGENT = f"exec:{shlex.quote(sys.executable)} -c {shlex.quote(LISTS)}"


@pytest.fixture(autouse=True)
def ci_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_" + "x" * 36)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "a" * 40)
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    monkeypatch.setenv("MY_TOOL", "on")
    monkeypatch.delenv("UNSOLVABLE_PASS_ENV", raising=False)


def _seen(agent: object) -> list[str]:
    record = unsolvable.run(agent, scenarios.get("constant-return/repeat"))  # type: ignore[arg-type]
    assert record.outcome is Outcome.STOPPED and record.reported is not None
    return record.reported.partial  # type: ignore[no-any-return]


def test_an_exec_agent_gets_no_credential_of_the_harness() -> None:
    assert _seen(AGENT) == ["LC_ALL", "PATH", "UNSOLVABLE_TASK"]


def test_more_is_passed_by_name_or_pattern(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UNSOLVABLE_PASS_ENV", "MY_*, GITHUB_TOKEN")
    assert _seen(AGENT) == ["GITHUB_TOKEN", "LC_ALL", "MY_TOOL", "PATH", "UNSOLVABLE_TASK"]


def test_an_adapter_passes_what_it_is_told_to() -> None:
    command = [sys.executable, "-c", LISTS]
    adapter = ProcessAdapter(command, pass_env=("AWS_SECRET_ACCESS_KEY",))
    assert _seen(adapter) == ["AWS_SECRET_ACCESS_KEY", "LC_ALL", "PATH", "UNSOLVABLE_TASK"]


TELLS = (
    "import json, os; names = ('OPENAI_AGENTS_DISABLE_TRACING', 'CREWAI_DISABLE_TELEMETRY'); "
    "print(json.dumps(dict(code='NO_PROGRESS', partial=[os.environ.get(n) for n in names])))"
)
"""An agent that stops at once, naming the values of the frameworks' switches it was given."""


def test_the_frameworks_exports_of_a_run_are_off_unless_the_user_passes_their_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The Agents SDK (Python and TypeScript) posts its traces to OpenAI's own address, which no
    base URL moves; a user who wants them passes the switch by name."""
    command = [sys.executable, "-c", TELLS]
    assert _seen(ProcessAdapter(command)) == ["1", "true"]
    monkeypatch.setenv("OPENAI_AGENTS_DISABLE_TRACING", "0")
    assert _seen(ProcessAdapter(command, pass_env=("OPENAI_AGENTS_DISABLE_TRACING",))) == [
        "0",
        "true",
    ]
