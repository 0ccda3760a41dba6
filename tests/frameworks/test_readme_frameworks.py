"""The README's "Frameworks and the wire" examples, run exactly as written."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import typing
from typing import Any

import pytest

import unsolvable
from tests._docs import compiled, marked
from tests.frameworks._glue import reported
from unsolvable import Code, Exit, scenarios
from unsolvable.wire import Wire

SECTION = marked("frameworks")
BLOCKS = re.findall(r"```python\n(.*?)```", SECTION, re.S)


def _run(first_line: str) -> dict[str, Any]:
    (block,) = [b for b in BLOCKS if b.startswith(first_line)]
    namespace: dict[str, Any] = {"__name__": "readme_example"}
    exec(compiled(block), namespace)
    return namespace


def test_the_langgraph_example_is_exhausted_at_six_steps() -> None:
    pytest.importorskip("langchain")
    record = _run("from langchain.agents import create_agent")["record"]
    assert (record.exit, record.code, record.observed.steps) == (
        Exit.EXHAUSTED,
        Code.BUDGET_STEPS,
        6,
    )


def test_the_async_langgraph_example_is_exhausted_at_eight_steps() -> None:
    pytest.importorskip("langchain")
    record = _run("from langchain.agents import AgentState, create_agent")["record"]
    assert (record.exit, record.code, record.observed.steps) == (
        Exit.EXHAUSTED,
        Code.BUDGET_STEPS,
        8,
    )


def test_the_llamaindex_and_autogen_example_stops_each_at_ten_steps() -> None:
    pytest.importorskip("llama_index.core")
    pytest.importorskip("autogen_agentchat")
    records = _run("from autogen_agentchat.agents import AssistantAgent")["records"]
    assert {name: (r.exit, r.code, r.observed.steps) for name, r in records.items()} == {
        name: (Exit.EXHAUSTED, Code.BUDGET_STEPS, 10) for name in ("llamaindex", "autogen")
    }


def test_the_agents_as_shipped_example_needs_no_api_key(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each agent names a real model, as in production, and neither reads a key (pydantic-ai
    checks a model name's provider as the agent is built unless told to defer it); the lines it
    prints are the ones the page shows under it."""
    pytest.importorskip("agents")
    pytest.importorskip("pydantic_ai")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    first_line = "from agents import Agent\nfrom pydantic_ai import Agent as PydanticAgent"
    (block,) = [b for b in BLOCKS if b.startswith(first_line)]
    _run(first_line)
    shown = [line.removeprefix("# ") for line in block.splitlines() if line.startswith("# ")]
    assert capsys.readouterr().out.splitlines() == shown


def test_the_openai_sdk_example_stops_on_the_repeated_call() -> None:
    pytest.importorskip("openai")
    agent = _run("from openai import OpenAI")["my_openai_agent"]
    record = unsolvable.run(agent, scenarios.get("constant-return/repeat"), strict=True)
    assert record.code is Code.NO_PROGRESS and record.verdict.passed


def test_the_adapter_recipe_reads_its_frameworks_limit() -> None:
    adapter = _run("from unsolvable.adapters import")["adapter"]
    record = unsolvable.run(adapter, scenarios.get("constant-return/repeat"))
    assert (record.code, record.observed.steps) == (Code.BUDGET_STEPS, 12)
    assert record.verdict.passed and reported(record).partial["tool_results"] == 12


def test_the_per_agent_example_counts_the_lead_and_the_auditor_apart() -> None:
    pytest.importorskip("agents")
    record = _run("from agents import Agent\nfrom pydantic import BaseModel")["record"]
    assert record.observed.steps_by_agent == {"auditor": 24, "main": 2}
    assert record.verdict.broke(unsolvable.Rule.PAST_BOUND)


def test_the_page_names_every_client_the_wire_makes_and_each_takes_an_agent() -> None:
    """The page says every client the wire makes takes an agent's name, then lists them: a
    client of `Wire` left out of the list is one a newcomer does not know to bind."""
    listed = SECTION.partition("Every client the wire makes takes the name:")[2]
    listed = listed.partition("A client bound to no name")[0]
    named = set(re.findall(r"`wire\.(\w+_client)\(agent=", listed))
    made = {name for name in dir(Wire) if name.endswith("_client")}
    assert {name for name in made if "async" not in name} <= named  # async ones said in a word
    for name in made:
        assert "agent" in inspect.signature(getattr(Wire, name)).parameters, name


def test_every_adapter_that_takes_a_build_says_what_build_is_given() -> None:
    """``build`` is called with the framework's model and the scenario's tools in an order of
    each adapter's own, so a row that names no signature leaves the reader to guess it."""
    table = SECTION.partition("| framework (extra) |")[2].partition("\n\n")[0]
    rows = [row for row in table.splitlines() if "Adapter(build" in row]
    assert rows
    assert [row.split("|")[1] for row in rows if "`build(" not in row] == []


def test_each_coding_agent_adapter_takes_the_parameters_its_bullet_names() -> None:
    """The coding agents' bullets give each adapter's signature, less the options all four take,
    which one sentence names: together they are the adapter's parameters, none left out."""
    pytest.importorskip("claude_agent_sdk")
    shared = re.search(r"Each of the four adapters below also takes (.*?)\.\n", SECTION, re.S)
    assert shared is not None
    common = set(re.findall(r"`(\w+)`", re.sub(r"\(.*?\)", "", shared[1], flags=re.S)))
    bullets = re.findall(r"`unsolvable\.adapters\.(\w+)\.(\w+)\((.*?)\)`", SECTION, re.S)
    coding = [
        b for b in bullets if b[0] in ("claude_agent_sdk", "claude_code", "codex_cli", "gemini_cli")
    ]
    assert len(coding) == 4
    for module, name, shown in coding:
        adapter = getattr(importlib.import_module(f"unsolvable.adapters.{module}"), name)
        named = {part.split("=")[0].strip() for part in shown.split(",")} - {"*"}
        assert named | common == _parameters(adapter), name
        assert _defaults_shown(shown, adapter) == [], name


def _defaults_shown(shown: str, adapter: type) -> list[str]:
    """The parameters of ``adapter``'s own signature whose default ``shown`` gives otherwise: a
    value that is not its default, or none where it has one (so ``Adapter()`` reads as an error)."""
    has = inspect.signature(adapter).parameters
    wrong = []
    for part in (part.strip() for part in shown.split(",")):
        name, equals, default = (piece.strip() for piece in part.partition("="))
        if name not in has:
            continue  # "*", or one of its **options, whose defaults its TypedDict does not hold
        if has[name].default is inspect.Parameter.empty:
            given = not equals
        else:
            given = bool(equals) and ast.literal_eval(default) == has[name].default
        if not given:
            wrong.append(part)
    return wrong


def _parameters(adapter: type) -> set[str]:
    """The names ``adapter`` takes, its ``**options`` spelled out from their `TypedDict`."""
    names = set()
    for parameter in inspect.signature(adapter).parameters.values():
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            (options,) = typing.get_args(typing.get_type_hints(adapter.__init__)[parameter.name])
            names |= set(typing.get_type_hints(options))
        else:
            names.add(parameter.name)
    return names
