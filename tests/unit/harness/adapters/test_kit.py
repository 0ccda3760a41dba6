"""The adapter kit: one import gives an adapter author everything, and costs no framework."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import unsolvable.adapters
from tests.unit.harness.wire.conftest import start
from unsolvable import Code, Stop
from unsolvable.adapters import as_mapping, bind_tool, reply_usage

KIT = (
    "Adapter",
    "PlainAdapter",
    "as_adapter",
    "interpret_plain",
    "reply_usage",
    "reply_to_calls",
    "bind_tool",
    "partial_from_messages",
    "missing_extra",
    "as_mapping",
)
HEAVY = ("langgraph", "langchain_core", "agents", "pydantic_ai", "smolagents", "openai", "httpx")


def test_the_kit_is_importable_from_harness_adapters() -> None:
    assert all(hasattr(unsolvable.adapters, name) for name in KIT)
    assert set(KIT) <= set(unsolvable.adapters.__all__)


def test_importing_the_kit_imports_no_framework_nor_the_wire() -> None:
    code = "import sys, json, unsolvable.adapters; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    loaded = set(json.loads(out.stdout))
    assert not sorted(m for m in loaded if m.split(".")[0] in HEAVY or m == "unsolvable.wire._wire")


def test_reply_usage_reads_the_sessions_chat_completions_names() -> None:
    usage = reply_usage({"usage": {"prompt_tokens": 7, "completion_tokens": 2}})
    assert (usage.input_tokens, usage.output_tokens) == (7, 2)
    assert reply_usage({}).to_openai()["total_tokens"] == 0


def test_a_bound_tool_is_a_step_of_the_session() -> None:
    session = start()
    name = session.tools[0].name
    text = bind_tool(session, name)(query="x")
    assert isinstance(text, str) and session.finish().tool_calls == 1


def test_a_tool_bound_to_a_sub_agent_feeds_that_agents_next_model_call() -> None:
    session = start()
    bind_tool(session, session.tools[0].name, agent="worker-1")(customer="ACME-0")
    session.call_model([{"role": "user", "content": "go"}], session.tools)
    assert session._setup.model.last_request.results == ()  # type: ignore[attr-defined]
    session.call_model([{"role": "user", "content": "go"}], session.tools, agent="worker-1")
    assert len(session._setup.model.last_request.results) == 1  # type: ignore[attr-defined]


def test_as_mapping_reads_structured_outputs() -> None:
    @dataclasses.dataclass
    class Out:
        code: str

    assert as_mapping(Out(code="no_progress")) == {"code": "no_progress"}
    stop = Stop(code=Code.NO_PROGRESS, reason="r")
    assert as_mapping(stop) is stop and as_mapping("text") == "text"
