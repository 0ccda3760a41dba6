"""A tool called over MCP after the run ended — by work the agent left running, or once the
harness stopped serving the tools — is refused as the session refuses it: a JSON-RPC error
(`ENDED`) carrying the session's own message, whatever the scenario's `McpErrors`, with the
server still up (``tools/list`` answered) and no traceback on its stderr."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any, TextIO

import pytest

pytest.importorskip("mcp")

from mcp import Client, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client

import unsolvable
from tests.frameworks.mcp._clients import served, stdio
from unsolvable import Ceilings, McpErrors, Session, scenarios
from unsolvable._errors import run_ended
from unsolvable.mcp._calls import ENDED, THIS_RUN
from unsolvable.wire import Wire

NAME = "constant-return/repeat"
RUN = f"{NAME} (seed 0)"
CALL = ("search_invoices", {"query": "x"})


def start(errors: str = "result") -> Session:
    """A session as `unsolvable.run` hands it to an agent; the MCP server's start-up (seconds on
    a loaded machine) is inside its wall ceiling."""
    scenario = dataclasses.replace(scenarios.get(NAME), mcp_errors=McpErrors(errors))
    return unsolvable.Session(
        scenario, scenario.build(0), seed=0, ceilings=Ceilings(max_wall_seconds=60.0)
    )


def stdio_target(environ: dict[str, str], errlog: TextIO) -> Any:
    """The stdio server as a client starts it, its stderr written to ``errlog``."""
    command, args = stdio()
    return stdio_client(StdioServerParameters(command=command, args=args, env=environ), errlog)


async def refused(client: Client, calls: int = 2) -> list[MCPError]:
    """What ``calls`` calls of the tool raise: each raises, and the server answers the next."""
    errors = []
    for _ in range(calls):
        with pytest.raises(MCPError) as raised:
            await client.call_tool(*CALL)
        errors.append(raised.value)
    return errors


@pytest.mark.parametrize("errors", ["result", "protocol", "transport"])
@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_call_after_the_run_ended_is_refused_with_the_sessions_message(
    transport: str, errors: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = start(errors)

    async def use(target: Any, wire: Wire) -> list[MCPError]:
        async with Client(target) as client:  # its exit ends the stdio server
            assert not (await client.call_tool(*CALL)).is_error
            session.returned()
            late = await refused(client)
            wire.close()  # the harness stops serving the tools once the run is over
            assert CALL[0] in {t.name for t in (await client.list_tools()).tools}
            return late + await refused(client, 1)

    with (tmp_path / "stderr").open("w+") as errlog:
        with served(session) as (wire, mcp, environ):  # its exit ends the HTTP server
            target = mcp.url if transport == "http" else stdio_target(environ, errlog)
            late = asyncio.run(use(target, wire))
        errlog.seek(0)
        said = errlog.read() + capsys.readouterr().err
    assert [e.code for e in late] == [ENDED] * 3
    assert [e.message for e in late[:2]] == [run_ended(RUN)] * 2, "the session's own words"
    assert late[2].message.startswith(run_ended(THIS_RUN)), "the harness gone, the same words"
    assert "Traceback" not in said
    assert session.finish().tool_calls == 1
