"""Consumes changes of a setting, produces a world that flips between states, none of them right.

Each value answers with its own symptom, so every flip looks like news the first time and the
world only ever revisits states it has already been in: a setting counts by the test result it
gives, so a made-up value, answered with a symptom already seen, is no new state.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from unsolvable import ToolResult, ToolSpec
from unsolvable.fake_tools._router import Tool
from unsolvable.fake_tools._world import FakeWorld, normalise_text
from unsolvable.fake_tools.tools._respond import respond

__all__ = ["setting_tool"]


def setting_tool(spec: ToolSpec, *, key: str, field: str, symptoms: Mapping[str, str]) -> Tool:
    """Stores ``arguments[field]`` under ``key`` and answers the symptom of that value (values are
    compared without case or spacing; an unknown value gets the first symptom). The symptom is
    what the world's check says of the value, so it is what the world is judged by; the value
    applied is said back to the agent, not taken for news."""
    normalised = {normalise_text(value): symptom for value, symptom in symptoms.items()}
    default = next(iter(symptoms.values()))

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        value = str(arguments.get(field, ""))
        symptom = normalised.get(normalise_text(value), default)
        world.put(key, value, judged_as=symptom)
        applied = {"applied": {key: normalise_text(value)}}
        return respond(world, {"test_run": symptom}, echoed=applied)

    return Tool(spec=spec, handler=handle)
