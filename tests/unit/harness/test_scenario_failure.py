"""A scenario whose model or tool raises is the harness's failure, not the agent's: the agent is
handed the exception as any, and whatever it does with it, even swallow it and stop in good
order, the run is recorded crashed with a `HarnessFailure` naming what raised, never judged."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

import unsolvable
from unsolvable import Code, Outcome, Scenario, Session, Stop, scenarios
from unsolvable.fake_tools import Tool, ToolRouter


class _BrokenModel:
    """A scenario's model with a bug: it raises on its second request."""

    def __init__(self) -> None:
        self.requests = 0

    def respond(self, request: object) -> Any:
        self.requests += 1
        if self.requests == 2:
            raise KeyError("reply")
        return scenarios.get("constant-return/repeat").build(0).model.respond(request)


def _with(name: str, **changed: Any) -> Scenario:
    scenario = scenarios.get(name)

    def build(seed: int) -> Any:
        setup = scenario.build(seed)
        fields = {key: make(setup) for key, make in changed.items()}
        return dataclasses.replace(setup, **fields)

    return dataclasses.replace(scenario, build=build)


def _broken_tools(setup: Any) -> ToolRouter:
    def broken(world: object, arguments: object) -> Any:
        raise ZeroDivisionError("division by zero in the tool")

    spec = setup.toolbox.specs[0]
    return ToolRouter(setup.world, [Tool(spec=spec, handler=broken)])


def swallowing(session: Session) -> Stop:
    """Catches whatever a call raises and stops in good order, as a careful agent does."""
    messages: list[Any] = [{"role": "user", "content": session.task}]
    for _ in range(3):
        try:
            reply = session.call_model(messages, session.tools)
            messages.append({k: v for k, v in reply.items() if k != "usage"})
            for call in reply.get("tool_calls") or []:
                function = call["function"]
                text = session.call_tool(function["name"], function["arguments"])
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": text})
        except Exception:
            return Stop(code=Code.NO_PROGRESS, reason="the model keeps failing")
    return Stop(code=Code.NO_PROGRESS, reason="nothing new")


def test_a_model_that_raises_crashes_the_run_naming_it_whatever_the_agent_did() -> None:
    scenario = _with("constant-return/repeat", model=lambda setup: _BrokenModel())
    record = unsolvable.run(swallowing, scenario)
    assert record.outcome is Outcome.CRASHED
    assert record.observed.error == (
        "HarnessFailure: unsolvable: the scenario's model, answering step 2, raised "
        "KeyError: 'reply', so what the agent did after it answered no scenario; fix the "
        "scenario (the traceback shows where)"
    )
    assert 'raise KeyError("reply")' in str(record.observed.traceback)
    assert not record.verdict.passed


def test_a_tool_that_raises_crashes_the_run_naming_it() -> None:
    scenario = _with("constant-return/repeat", toolbox=_broken_tools)
    record = unsolvable.run(swallowing, scenario)
    assert record.outcome is Outcome.CRASHED
    error = str(record.observed.error)
    assert error.startswith("HarnessFailure: unsolvable: the scenario's tool 'search_invoices'")
    assert "raised ZeroDivisionError: division by zero in the tool" in error
    assert "ZeroDivisionError" in str(record.observed.traceback)


class _MalformedModel:
    """A scenario's model with a bug: it returns ``reply`` rather than a `ModelResponse`."""

    def __init__(self, reply: object) -> None:
        self.reply = reply

    def respond(self, request: object) -> Any:
        return self.reply


@pytest.mark.parametrize("reply", [None, "search again", {"content": "search again"}])
def test_a_model_that_returns_no_model_response_crashes_the_run_naming_it(reply: object) -> None:
    """Not the agent's crash on ``'NoneType' object has no attribute 'content'``: the scenario's
    model is named, with what it returned."""
    scenario = _with("constant-return/repeat", model=lambda setup: _MalformedModel(reply))
    record = unsolvable.run(swallowing, scenario)
    assert record.outcome is Outcome.CRASHED
    assert record.observed.error == (
        "HarnessFailure: unsolvable: the scenario's model, answering step 1, raised TypeError: "
        f"respond() returned {type(reply).__name__} ({reply!r}), not a ModelResponse, so what "
        "the agent did after it answered no scenario; fix the scenario (the traceback shows "
        "where)"
    )


def test_a_tools_deliberate_error_is_the_agents_to_handle() -> None:
    """A tool that raises by design (a permission error, as some runtimes report one) is part
    of the scenario: the agent's stop on it is judged."""
    record = unsolvable.run(swallowing, scenarios.get("missing-permission/retry-raises"))
    assert (record.outcome, record.code) == (Outcome.STOPPED, Code.NO_PROGRESS)


@pytest.mark.parametrize("answer", [None, "42 invoices", {"text": "42 invoices"}])
def test_a_tool_that_returns_no_tool_result_crashes_the_run_saying_what_to_return(
    answer: object,
) -> None:
    """Not ``'NoneType' object has no attribute 'text'``: the scenario's tool is named, with what
    it returned and what it should have."""

    def malformed(setup: Any) -> ToolRouter:
        spec = setup.toolbox.specs[0]
        return ToolRouter(setup.world, [Tool(spec=spec, handler=lambda world, arguments: answer)])

    record = unsolvable.run(swallowing, _with("constant-return/repeat", toolbox=malformed))
    assert record.outcome is Outcome.CRASHED
    assert (
        "the scenario's tool 'search_invoices' raised TypeError: its handler returned "
        f"{type(answer).__name__} ({answer!r}), not a ToolResult: return respond(world, body) "
        "or error_result(message), from unsolvable.fake_tools"
    ) in str(record.observed.error)
