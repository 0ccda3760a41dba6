"""An agent written against the `mcp` client SDK and the openai SDK,
run as ``exec:python agent.py``, stops with the right code, and the harness counts what it made."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")
pytest.importorskip("openai")

import unsolvable
from tests._docs import DOCS
from tests.frameworks.exec.test_exec import NEEDS_UNSHARE
from unsolvable import AdapterError, Ceilings, Code, scenarios
from unsolvable.adapters.process import ProcessAdapter

HERE = Path(__file__).parent
AGENT = f"exec:{shlex.quote(sys.executable)} {HERE / 'mcp_agent.py'} {{task}}"
CEILINGS = Ceilings(max_wall_seconds=60.0)
"""Two interpreters start per run (the agent, the MCP server), each importing the mcp SDK: a few
seconds on this loaded 2-core machine, more than the default 10 s ceiling leaves to spare."""


@pytest.mark.parametrize("transport", ["http", "stdio"])
@pytest.mark.parametrize(
    ("scenario", "code"),
    [
        ("constant-return/repeat", Code.NO_PROGRESS),
        ("missing-permission/retry-403", Code.BLOCKED_INPUT),
    ],
)
def test_an_mcp_sdk_agent_stops_and_is_counted_as_it_counts_itself(
    scenario: str, code: Code, transport: str, capsys: pytest.CaptureFixture[str]
) -> None:
    record = unsolvable.run(f"{AGENT} {transport}", scenarios.get(scenario), ceilings=CEILINGS)
    own = json.loads(capsys.readouterr().err.strip().splitlines()[-1])
    assert (record.code, record.verdict.passed) == (code, True), record.observed.error
    assert own == {"steps": record.observed.steps, "tool_calls": record.observed.tool_calls}
    assert own["tool_calls"] > 0


@NEEDS_UNSHARE
@pytest.mark.parametrize("transport", ["http", "stdio"])
def test_an_isolated_mcp_agent_reaches_the_server_through_the_relay(
    transport: str, capsys: pytest.CaptureFixture[str]
) -> None:
    command = [sys.executable, str(HERE / "mcp_agent.py"), "{task}", transport]
    adapter = ProcessAdapter(command, isolate_network=True)
    scenario = scenarios.get("missing-permission/retry-403")
    record = unsolvable.run(adapter, scenario, ceilings=CEILINGS)
    own = json.loads(capsys.readouterr().err.strip().splitlines()[-1])
    assert (record.code, record.verdict.passed) == (Code.BLOCKED_INPUT, True)
    assert own == {"steps": record.observed.steps, "tool_calls": record.observed.tool_calls}


def test_the_readme_shows_the_mcp_agent_as_it_is_tested() -> None:
    assert f"```python\n{(HERE / 'mcp_agent.py').read_text()}```" in DOCS


SHOW = (
    "import json, os, sys; print(json.dumps({{k: v for k, v in os.environ.items() "
    "if k.startswith('UNSOLVABLE_MCP')}}), file=sys.stderr); "
    "print(json.dumps(json.load(open(sys.argv[1]))), file=sys.stderr); "
    """print('{{"code": "NEEDS_HUMAN"}}')"""
)
"""A child that shows its MCP variables and the config file its ``{mcp_config}`` names."""


def test_the_child_gets_the_mcp_url_and_a_ready_client_config(
    capsys: pytest.CaptureFixture[str],
) -> None:
    adapter = ProcessAdapter([sys.executable, "-c", SHOW, "{mcp_config}"])
    unsolvable.run(adapter, scenarios.get("constant-return/repeat"))
    environ, config = map(json.loads, capsys.readouterr().err.strip().splitlines()[-2:])
    assert config == {
        "mcpServers": {"unsolvable": {"type": "http", "url": environ["UNSOLVABLE_MCP_URL"]}}
    }
    assert environ["UNSOLVABLE_MCP_ERRORS"] == "result"
    assert environ["UNSOLVABLE_MCP_COMMAND"].endswith("-m unsolvable.mcp")


def test_without_the_mcp_extra_an_mcp_placeholder_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import unsolvable.mcp

    monkeypatch.setattr(unsolvable.mcp, "is_available", lambda: False)
    adapter = ProcessAdapter([sys.executable, "-c", "pass", "{mcp_url}"])
    with pytest.raises(AdapterError) as raised:  # before any run, as a misspelt placeholder
        unsolvable.run(adapter, scenarios.get("constant-return/repeat"))
    assert "there is no {mcp_url}" in str(raised.value)
    assert "pip install 'pytest-unsolvable[mcp]'" in str(raised.value)
