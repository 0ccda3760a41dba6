"""The agents in Node the exec face is tested with, each on an SDK users build agents on: where
its packages are found (.ci/run installs them with npm, their ``node_modules/.bin`` on PATH), the
faces it runs on, and how a test runs one. `test_node_agents.py` checks what every one of them
must do alike; each SDK's own module what is its alone."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.frameworks._glue import node_modules_of, node_project, run_counted
from unsolvable import TerminationRecord

__all__ = ["AGENTS", "NodeAgent"]

HERE = Path(__file__).parent


@dataclass(frozen=True, kw_only=True)
class NodeAgent:
    """An ``agent.mjs`` on an SDK, run as ``node agent.mjs FACE…``."""

    sdk: str
    """Its test id."""
    script: Path
    packages: tuple[str, ...]
    """The npm packages it imports, each pinned in .ci/run."""
    install: str
    """The npm command that installs them, for the skip's message."""
    faces: tuple[tuple[str, ...], ...]
    """The arguments of each way it talks to the model (an API, streamed or not)."""

    def node_modules(self) -> Path | None:
        """The ``node_modules`` that holds every package, if node and it are found."""
        found = node_modules_of(self.packages[0])
        if shutil.which("node") is None or found is None:
            return None
        return found if all((found / p / "package.json").is_file() for p in self.packages) else None

    def skip_if_missing(self) -> Path:
        """Its ``node_modules``, or a skip naming what to install (a failure under CI)."""
        found = self.node_modules()
        if found is None:
            pytest.skip(f"node, or {self.sdk}'s npm packages beside a node_modules/.bin on PATH, "
                        f"are missing ({self.install})")  # fmt: skip
        return found

    def project(self, folder: Path) -> Path:
        """The agent laid in ``folder`` beside its packages, ready to run."""
        return node_project(folder, self.script, self.skip_if_missing())

    def run(
        self,
        agent: Path,
        face: tuple[str, ...],
        name: str,
        capsys: pytest.CaptureFixture[str],
        **wire: Any,
    ) -> tuple[TerminationRecord, dict[str, int]]:
        """The record of a run of ``name`` by ``agent`` (`project`) on ``face``, and the counts
        the agent kept itself."""
        return run_counted(["node", str(agent), *face], name, capsys, **wire)


AGENTS = (
    NodeAgent(
        sdk="openai",
        script=HERE / "openai_node" / "agent.mjs",
        packages=("openai",),
        install="npm i openai@7.60.0",
        faces=(("chat",), ("stream",), ("responses",)),
    ),
    NodeAgent(
        sdk="ai-sdk",
        script=HERE / "ai_sdk" / "agent.mjs",
        packages=("ai", "@ai-sdk/openai", "@ai-sdk/anthropic"),
        install="npm i ai@7.0.185 @ai-sdk/openai@4.0.126 @ai-sdk/anthropic@4.0.112",
        faces=tuple(
            (model, delivery)
            for model in ("responses", "chat", "anthropic")
            for delivery in ("whole", "stream")
        ),
    ),
    NodeAgent(
        sdk="openai-agents-js",
        script=HERE / "openai_agents_js" / "agent.mjs",
        packages=("@openai/agents", "zod"),
        install="npm i @openai/agents@0.20.0 zod@4.6.7",
        faces=tuple(
            (api, delivery) for api in ("responses", "chat") for delivery in ("whole", "stream")
        ),
    ),
)
"""The openai SDK (Chat Completions, streamed, the Responses API); the Vercel AI SDK (each
provider's model, by ``generateText`` and ``streamText``); the OpenAI Agents SDK for TypeScript
(its default model, the Responses API, and Chat Completions, whole and streamed)."""
