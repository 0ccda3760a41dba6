"""The agent-facing contract says what went wrong: an invalid stop code names the valid
ones; tool arguments that are not a JSON object get a 400 answer, counted as a tool call."""

from __future__ import annotations

import json

import pytest

import unsolvable
from tests import _builders as b
from unsolvable import Ceilings, Code, Stop
from unsolvable.adapters.base import interpret_plain

VALID = ", ".join(code.value for code in Code)


@pytest.mark.parametrize(
    "make", [lambda: Stop(code="DONE"), lambda: interpret_plain({"code": "DONE"})]
)
def test_an_invalid_code_names_the_valid_ones(make: object) -> None:
    with pytest.raises(
        ValueError, match=f"Stop\\(code='DONE'\\): not a termination code; use one of {VALID}"
    ):
        make()  # type: ignore[operator]


def test_a_code_given_as_null_names_the_valid_ones_as_any_invalid_code() -> None:
    """JSON's null leaves the other keys out; left out, the code made a TypeError naming
    ``Stop.__init__``, which tells an agent's author nothing of what to write."""
    with pytest.raises(
        ValueError, match=f"Stop\\(code=None\\): not a termination code; use one of {VALID}"
    ):
        interpret_plain({"code": None, "reason": "stuck"})


def test_a_dict_with_an_invalid_code_is_recorded_crashed_with_that_message() -> None:
    record = unsolvable.run(lambda session: {"code": "DONE"}, b.scenario())
    assert record.outcome is unsolvable.Outcome.CRASHED
    assert "not a termination code; use one of COMPLETED" in (record.observed.error or "")


@pytest.mark.parametrize("arguments", ["{not json", "[1, 2]", "3"])
def test_arguments_that_are_not_an_object_get_a_400_the_agent_sees(arguments: str) -> None:
    scenario = b.scenario()
    session = unsolvable.Session(scenario, scenario.build(0), seed=0, ceilings=Ceilings())
    answer = json.loads(session.call_tool("search", arguments))
    assert answer["error"]["status"] == 400
    assert answer["error"]["message"].startswith("arguments are not a JSON object: ")
    assert session.finish().tool_calls == 1
