"""The wall ceiling a run gets (given, else the adapter's own need, else the default) and what
the agent is told of arguments a tool cannot read — the exact words, and the call traced as sent."""

from __future__ import annotations

import json

import pytest

import unsolvable
from tests import _builders as b
from unsolvable import Ceilings
from unsolvable._dispatch import BAD_ARGUMENTS_STATUS, parse_arguments
from unsolvable._run import ceilings_for


class _SlowToStart:
    name = "slow-to-start"
    wall_seconds = 60.0


def test_a_given_wall_ceiling_wins_over_the_adapters_need() -> None:
    assert ceilings_for(_SlowToStart(), max_wall_seconds=5.0).max_wall_seconds == 5.0  # type: ignore[arg-type]


def test_without_one_the_adapters_need_is_the_wall_ceiling() -> None:
    assert ceilings_for(_SlowToStart()).max_wall_seconds == 60.0  # type: ignore[arg-type]


def test_an_adapter_that_declares_nothing_gets_the_default() -> None:
    adapter = unsolvable.adapters.base.as_adapter(b.steps_then(1))
    assert ceilings_for(adapter) == Ceilings()


def test_the_other_ceilings_are_passed_on() -> None:
    ceilings = ceilings_for(_SlowToStart(), max_steps=7, max_tool_calls=9)  # type: ignore[arg-type]
    assert (ceilings.max_steps, ceilings.max_tool_calls, ceilings.max_wall_seconds) == (7, 9, 60.0)


@pytest.mark.parametrize(("arguments", "kind"), [("[1]", "list"), ("3", "int"), ('"x"', "str")])
def test_arguments_that_are_json_but_no_object_name_what_they_are(
    arguments: str, kind: str
) -> None:
    with pytest.raises(ValueError) as raised:
        parse_arguments(arguments)
    assert str(raised.value) == f"arguments are not a JSON object: a {kind}: {arguments!r}"


def test_unreadable_arguments_are_traced_as_the_agent_sent_them() -> None:
    def agent(session: unsolvable.Session) -> unsolvable.Stop:
        session.call_model([{"role": "user", "content": session.task}], session.tools)
        session.call_tool("search", "{not json")
        return unsolvable.Stop(code=unsolvable.Code.NO_PROGRESS)

    record = unsolvable.run(agent, b.scenario())
    (tool,) = record.observed.trajectory[-1].tools
    assert tool.arguments == "{not json"
    assert json.loads(tool.result)["error"]["status"] == BAD_ARGUMENTS_STATUS
