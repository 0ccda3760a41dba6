"""The wire page names the families whose scripted replies hold several tool calls, which come
whole whatever the request asks (``parallel_tool_calls: false``): the list is the library's."""

from __future__ import annotations

import re

import unsolvable
from tests._docs import marked
from unsolvable import scenarios


def test_the_families_said_to_reply_with_several_calls_are_those_that_do() -> None:
    named = set(re.findall(r"`([a-z-]+)`", marked("whole-replies")))
    several = {
        scenario.family
        for scenario in scenarios.select(())
        if any(
            len(step.calls) > 1 for step in unsolvable.run("contract", scenario).observed.trajectory
        )
    }
    assert named == several
