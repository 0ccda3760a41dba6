"""Runs an SDK agent (in-process, over the loopback server, or as a child process) as a harness
agent: the only code between the scenario and the unmodified agent; and marks the tests of a
coding-agent CLI to skip where it is not installed, with the prompt the concepts page says it
sends."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from tests._docs import TEXTS
from unsolvable import (
    Ceilings,
    Model,
    ModelRequest,
    ModelResponse,
    Scenario,
    Session,
    Setup,
    Stop,
    TerminationRecord,
    run,
    scenarios,
)
from unsolvable.adapters.process import ProcessAdapter
from unsolvable.wire import Wire

ROOT = Path(__file__).parents[2]
CHILD_SECONDS = 60
"""A child agent answers in about a second; the cap only stops a hung child from hanging CI."""
CHILD_CEILINGS = Ceilings(max_wall_seconds=CHILD_SECONDS)
"""A run of a `child_agent`: the child's interpreter starts and imports its SDK inside the run,
seconds on a loaded machine, so the default 10 s wall ceiling would time the machine, not the
agent."""


def needs_cli(command: str, npm: str) -> pytest.MarkDecorator:
    """Skips a test when ``command`` is not on PATH, naming the npm package that installs it
    (.ci/run installs it, and under CI a skip fails)."""
    return pytest.mark.skipif(
        shutil.which(command) is None, reason=f"{command} is not on PATH (npm i {npm})"
    )


def node_modules_of(package: str) -> Path | None:
    """The ``node_modules`` folder that holds the npm ``package``: the one whose ``.bin`` is on
    PATH, as the coding-agent CLIs are found (an SDK has no command of its own)."""
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        folder = Path(entry)
        if folder.name == ".bin" and (folder.parent / package / "package.json").is_file():
            return folder.parent
    return None


def node_project(folder: Path, script: Path, node_modules: Path) -> Path:
    """``script`` copied into ``folder`` beside a link to ``node_modules``, and its new path: Node
    resolves an ES module's imports from its file's folder up, never from ``NODE_PATH``."""
    (folder / "node_modules").symlink_to(node_modules)
    shutil.copy(script, folder / script.name)
    return folder / script.name


def run_counted(
    command: list[str], name: str, capsys: pytest.CaptureFixture[str], **wire: Any
) -> tuple[TerminationRecord, dict[str, int]]:
    """The record of a run of ``name`` by the ``exec:`` agent ``command``, loopback only, and the
    counts it wrote as its last stderr line (``{"steps", "tool_calls", "tokens"}``)."""
    adapter = ProcessAdapter(command, isolate_network=True, wire=wire)
    record = run(adapter, scenarios.get(name), ceilings=CHILD_CEILINGS)
    said = capsys.readouterr().err.strip().splitlines()
    return record, json.loads(said[-1]) if said and said[-1].startswith("{") else {}


def counted_alike(own: dict[str, int], record: TerminationRecord) -> None:
    """The agent's own steps, tool calls and tokens are the harness's."""
    observed = record.observed
    tokens = observed.input_tokens + observed.output_tokens
    assert own == {"steps": observed.steps, "tool_calls": observed.tool_calls, "tokens": tokens}


def prompt_tokens_shown(cli: str) -> int:
    """The tokens of system prompt and tools the concepts page says ``cli`` sends every call
    (the record's ``overhead_tokens``)."""
    shown = re.search(rf"{cli} about ([\d,]+)", TEXTS[ROOT / "docs" / "concepts.md"])
    assert shown is not None, f"the concepts page gives no prompt size for {cli}"
    return int(shown[1].replace(",", ""))


def child_agent(module: str, *args: str) -> Callable[[Session], Any]:
    """A harness agent that serves the wire on loopback and runs ``python -m module`` against
    it, the SDK configured only by environment variables; the child's stdout is its stop."""

    def agent(session: Session) -> Mapping[str, Any]:
        with Wire(session) as wire, wire.serve() as server:
            env = {**os.environ, **server.environ(), "PYTHONPATH": str(ROOT)}
            tools = json.dumps(session.openai_tools)
            child = subprocess.run(
                [sys.executable, "-m", module, session.task, tools, *args],
                env=env,
                capture_output=True,
                text=True,
                timeout=CHILD_SECONDS,
                check=True,
            )
        return dict(json.loads(child.stdout))

    return agent


def environ_given(adapter: Callable[[list[str]], Any], folder: Path) -> set[str]:
    """The names in the environment a protocol ``adapter`` starts its agent with: the agent, a
    Python one-liner, writes them and exits (the run's record does not matter here)."""
    seen = folder / "environ.json"
    lists = f"import json, os; open({str(seen)!r}, 'w').write(json.dumps(sorted(os.environ)))"
    agent = adapter([sys.executable, "-c", lists])
    run(agent, scenarios.get("constant-return/repeat"), ceilings=CHILD_CEILINGS)
    return set(json.loads(seen.read_text()))


def account(record: TerminationRecord) -> str:
    """How a run ended, for a failed assertion: a run that ends otherwise than expected says
    why, where only its exit would show."""
    observed, output = record.observed, (record.output or "")[-2000:]
    return (
        f"{record.outcome.value}, ceiling {observed.ceiling}, {observed.steps} steps, "
        f"{record.wall_seconds} s, error {observed.error!r}, output {output!r}"
    )


def reported(record: TerminationRecord) -> Stop:
    """The agent's reported stop, which these tests expect to exist."""
    assert record.reported is not None, f"no reported stop: {record.outcome}"
    return record.reported


class _RecordingModel:
    """The scenario's model, noting every request it is asked and every answer it gives."""

    def __init__(self, model: Model, log: list[tuple[ModelRequest, ModelResponse]]) -> None:
        self.model, self.log, self.name = model, log, model.name

    def respond(self, request: ModelRequest) -> ModelResponse:
        response = self.model.respond(request)
        self.log.append((request, response))
        return response


def recording(name: str) -> tuple[Scenario, list[tuple[ModelRequest, ModelResponse]]]:
    """The library scenario ``name``, and the list its model fills with each model call of the
    run — request and answer — whatever face carries it."""
    scenario, log = scenarios.get(name), []

    def build(seed: int) -> Setup:
        setup = scenario.build(seed)
        return dataclasses.replace(setup, model=_RecordingModel(setup.model, log))

    return dataclasses.replace(scenario, build=build), log


def tool_call_ids(log: list[tuple[ModelRequest, ModelResponse]]) -> list[str]:
    return [call.id for _, response in log for call in response.tool_calls]


def model_calls(log: list[tuple[ModelRequest, ModelResponse]]) -> list[tuple[Any, ...]]:
    """Each model call as the tools offered and the calls answered: what two runs of the same
    script must share to be the same run."""
    return [
        (
            tuple(sorted(request.tools)),
            tuple((c.name, str(c.arguments)) for c in response.tool_calls),
        )
        for request, response in log
    ]
