"""A run's label: ``NAME=SPEC``'s name, else the agent's own ``name``, else the spec as given;
and two agents of one run never share one."""

from __future__ import annotations

import concurrent.futures
import importlib.util
import signal
import sys
from pathlib import Path

import pytest

import unsolvable
from tests._hanging_import import HANGS_AT_IMPORT
from unsolvable import AdapterError, Code, Stop, _loading, scenarios
from unsolvable._loading import load_agent, load_agents, split_spec

HERE = __name__


def nameless(session: unsolvable.Session) -> Stop:
    return Stop(code=Code.NO_PROGRESS, reason="nothing new")


def named(session: unsolvable.Session) -> Stop:
    return Stop(code=Code.NO_PROGRESS, reason="nothing new")


named.name = "my-agent"  # type: ignore[attr-defined]


def team_dot(session: unsolvable.Session) -> None:
    return None


def team_slash(session: unsolvable.Session) -> None:
    return None


team_dot.name, team_slash.name = "team.agent", "team/agent"  # type: ignore[attr-defined]


class _Framework:
    """An adapter with a framework's default label, as the built-in adapters have."""

    name = "my-framework"

    def run(self, session: unsolvable.Session) -> object:
        return Stop(code=Code.NO_PROGRESS, reason="nothing new")

    def interpret(self, returned: object, error: BaseException | None) -> Stop | None:
        return returned if isinstance(returned, Stop) else None


budgeted, default = _Framework(), _Framework()


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("my=pkg.agents:agent", ("my", "pkg.agents:agent")),
        ("my-agent.v2=exec:node agent.js {task}", ("my-agent.v2", "exec:node agent.js {task}")),
        ("pkg.agents:agent", (None, "pkg.agents:agent")),
        ("exec:env MODE=fast node agent.js", (None, "exec:env MODE=fast node agent.js")),
        ("contract", (None, "contract")),
        ("=contract", (None, "=contract")),
    ],
)
def test_a_name_is_given_before_the_spec(text: str, parts: tuple[str | None, str]) -> None:
    assert split_spec(text) == parts


@pytest.mark.parametrize(
    ("spec", "label"),
    [
        (f"{HERE}:nameless", f"{HERE}:nameless"),
        (f"{HERE}:named", "my-agent"),
        (f"{HERE}:budgeted", "my-framework"),
        ("unsolvable.agents:contract", "contract"),
        ("contract", "contract"),
        (f"mine={HERE}:nameless", "mine"),
        (f"mine={HERE}:named", "mine"),
        (f"mine={HERE}:budgeted", "mine"),
    ],
)
def test_the_label_is_the_given_name_the_agents_own_or_the_spec(spec: str, label: str) -> None:
    assert load_agent(spec).name == label


def test_a_named_run_is_recorded_under_its_name_and_leaves_the_adapter_alone() -> None:
    record = unsolvable.run(f"mine={HERE}:budgeted", scenarios.get("oscillation/a-b"))
    assert record.agent == "mine" and record.code is Code.NO_PROGRESS
    assert budgeted.name == "my-framework"


def test_two_adapters_of_one_framework_are_refused_naming_both() -> None:
    with pytest.raises(AdapterError) as raised:
        load_agents([f"{HERE}:budgeted", f"{HERE}:default"], flag="--agent")
    assert str(raised.value).startswith(
        f"agents '{HERE}:budgeted' and '{HERE}:default' would both be labelled 'my-framework'"
    )
    assert f"--agent first={HERE}:budgeted --agent second={HERE}:default" in str(raised.value)
    load_agents([f"budgeted={HERE}:budgeted", f"default={HERE}:default"], flag="--agent")


@pytest.mark.parametrize(
    "specs",
    [
        ["contract", "unsolvable.agents:contract"],
        [f"{HERE}:team_dot", f"{HERE}:team_slash"],
        [f"x={HERE}:nameless", f"x={HERE}:named"],
    ],
)
def test_two_agents_sharing_a_label_or_its_folder_are_refused(specs: list[str]) -> None:
    with pytest.raises(AdapterError, match="would both be labelled"):
        load_agents(specs, flag="--agent")


def test_the_same_agent_given_twice_is_refused() -> None:
    with pytest.raises(AdapterError, match="'contract' is given twice; give it once"):
        load_agents(["contract", "naive", "contract"], flag="--agent")


@pytest.mark.parametrize("prefix", ["exec:", "acp:"])
def test_a_command_line_with_an_open_quote_is_refused_naming_the_fix(prefix: str) -> None:
    with pytest.raises(AdapterError, match=r"cannot be split .*; close the quote"):
        load_agent(f"{prefix}python 'agent.py")


@pytest.mark.skipif(importlib.util.find_spec("crewai") is not None, reason="CrewAI is installed")
def test_a_registered_name_whose_extra_is_missing_names_the_extra_not_a_spelling_mistake() -> None:
    with pytest.raises(AdapterError) as refused:
        load_agent("crewai")
    message = str(refused.value)
    assert message.startswith("agent 'crewai' (registered as 'unsolvable.adapters.crewai:adapter')")
    assert "pip install 'pytest-unsolvable[crewai]'" in message
    assert "check the spelling" not in message


@pytest.mark.skipif(importlib.util.find_spec("crewai") is not None, reason="CrewAI is installed")
def test_a_registered_name_whose_extra_is_missing_leaves_opentelemetry_recording() -> None:
    """The CrewAI adapter switches CrewAI's telemetry off before importing it; the OpenTelemetry
    SDK's own switch would turn every tracer provider of the process off, the user's own, even
    where the import then fails."""
    sdk = pytest.importorskip("opentelemetry.sdk.trace")
    with pytest.raises(AdapterError):
        load_agent("crewai")
    assert sdk.TracerProvider().get_tracer(__name__).start_span("the user's own").is_recording()


@pytest.fixture
def beside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The current directory, where an agent's module is imported from; ``sys.path`` as it was
    after the test, which the import puts the directory on."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    return tmp_path


def test_a_load_that_hangs_is_an_error_naming_it_once_its_allowance_is_spent(
    beside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (beside / "hangs_at_import.py").write_text(HANGS_AT_IMPORT, encoding="utf-8")
    monkeypatch.setattr(_loading, "LOAD_SECONDS", 0.5)
    handler = signal.getsignal(signal.SIGALRM)
    with pytest.raises(AdapterError) as raised:
        load_agents(["contract", "hangs_at_import:agent"], flag="--agent")
    assert str(raised.value).startswith(
        "agent 'hangs_at_import:agent' was not loaded within 0.5 s: importing its module or "
        "its adapter's preflight waits on something that does not answer"
    )
    assert "hangs_at_import" not in sys.modules
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) is handler


def test_a_timer_already_set_is_left_to_its_owner() -> None:
    """pytest-timeout's signal method keeps time with the same timer: loading neither resets
    it nor takes its signal."""
    fired: list[int] = []

    def owner(signum: int, frame: object) -> None:
        fired.append(signum)

    previous = signal.signal(signal.SIGALRM, owner)
    signal.setitimer(signal.ITIMER_REAL, 3600.0)
    try:
        assert [adapter.name for adapter in load_agents(["naive"], flag="--agent")] == ["naive"]
        remaining, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 3000.0 < remaining <= 3600.0
        assert signal.getsignal(signal.SIGALRM) is owner
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert fired == []


def test_a_load_off_the_main_thread_runs_without_the_alarm_only_the_main_thread_may_set(
    beside: Path,
) -> None:
    (beside / "loads_on_a_thread.py").write_text(
        "def agent(session):\n    return None\n", encoding="utf-8"
    )
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        loaded = pool.submit(load_agents, ["loads_on_a_thread:agent"], flag="--agent").result()
    assert [adapter.name for adapter in loaded] == ["loads_on_a_thread:agent"]


@pytest.mark.parametrize(
    ("spec", "hint"),
    [
        (
            "agents/myagent.py",
            "; a file is named by its module and the agent it defines, e.g. myagent:my_agent, "
            "run from the folder that holds myagent.py (a spec imports from there first)",
        ),
        ("contarct", "; did you mean contract?"),
        ("myagent", "; write it as e.g. mypkg.agents:my_agent"),
    ],
)
def test_a_spec_that_is_none_says_how_to_write_what_was_meant(spec: str, hint: str) -> None:
    """A file's path is what a newcomer tries first, and a misspelt name is no module."""
    with pytest.raises(AdapterError) as raised:
        load_agent(spec)
    assert str(raised.value).endswith("nor a 'module:attribute' path" + hint)
