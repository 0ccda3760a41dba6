"""Small builders that keep tests short: scenarios and agents shaped for one verdict path."""

from __future__ import annotations

import random
import time
from typing import Any

from unsolvable import (
    JSON,
    Budget,
    Call,
    ClaimSuccess,
    Code,
    ModelRequest,
    ModelResponse,
    Repeat,
    Scenario,
    Script,
    ScriptedModel,
    Session,
    Setup,
    Stop,
    TerminationRecord,
    ToolSpec,
)
from unsolvable.fake_tools import FakeWorld, ToolRouter, constant_tool, requires

SEARCH = ToolSpec(name="search", description="Always finds nothing.")


def scenario(
    *,
    script: Script | None = None,
    solvable: bool = False,
    step_bound: int = 5,
    tools: tuple[ToolSpec, ...] = (SEARCH,),
    **fields: Any,
) -> Scenario:
    """A constant-return scenario whose world can be made complete by an agent that writes to it;
    each of its ``tools`` finds nothing."""
    model_script = script or Repeat(call=Call(name="search"))

    def build(seed: int) -> Setup:
        world = FakeWorld(failing=requires("done", "not done"), seed=seed)
        router = ToolRouter(world, [constant_tool(spec, {"results": []}) for spec in tools])
        return Setup(world=world, toolbox=router, model=ScriptedModel(model_script, seed=seed))

    expected = {Code.COMPLETED} if solvable else {Code.NO_PROGRESS}
    return Scenario(
        name=fields.pop("name", "test/constant"),
        family="test",
        task="find it",
        explanation="A test scenario. It never finds anything.",
        build=build,
        expected=frozenset(fields.pop("expected", expected)),
        step_bound=step_bound,
        budget=Budget(max_steps=step_bound),
        solvable=solvable,
        **fields,
    )


def claims_scenario(after: int = 1) -> Scenario:
    return scenario(script=ClaimSuccess(after=after, before=Repeat(call=Call(name="search"))))


def steps_then(n: int, stop: Stop | None = None) -> Any:
    """An agent that makes ``n`` model+tool steps, then returns ``stop``."""

    def agent(session: Session) -> Stop | None:
        for _ in range(n):
            session.call_model([{"role": "user", "content": session.task}], session.tools)
            session.call_tool("search", {})
        return stop

    return agent


def forever(session: Session) -> None:
    """Never stops on its own."""
    while True:
        session.call_model([], session.tools)
        session.call_tool("search", {})


def swallows(session: Session) -> None:
    """Catches every Exception and retries, the classic runaway."""
    while True:
        try:
            session.call_model([], session.tools)
        except Exception:
            continue


def busy(session: Session) -> None:
    """Never calls back into the harness at all."""
    while True:
        time.sleep(0.01)


def messages(record: TerminationRecord) -> tuple[str, ...]:
    """The verdict's failure lines, as a person reads them."""
    return tuple(failure.message for failure in record.verdict.failures)


def request(
    step: int = 1,
    *,
    agent: str = "main",
    agent_step: int | None = None,
    tools: tuple[str, ...] = ("search",),
    results: tuple[str, ...] = (),
) -> ModelRequest:
    """A model request as the session builds it; ``agent_step`` defaults to ``step``."""
    own = step if agent_step is None else agent_step
    return ModelRequest(
        messages=(), tools=tools, step=step, agent=agent, agent_step=own, results=results
    )


def replies(script: Script, steps: int, *, seed: int = 0) -> list[ModelResponse]:
    """What ``script`` answers at steps 1..``steps`` of one agent."""
    rng = random.Random(seed)
    return [script.reply(request(step), rng) for step in range(1, steps + 1)]


def arguments(script: Script, steps: int, *, seed: int = 0) -> list[JSON]:
    """The arguments of the first tool call at steps 1..``steps``."""
    return [reply.tool_calls[0].arguments for reply in replies(script, steps, seed=seed)]
