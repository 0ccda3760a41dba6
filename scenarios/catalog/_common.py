"""Consumes a family's world, tools and script, produces the `Setup` of one run.

Every built-in scenario offers `CHECK`, the tool that re-reads the system of record, so that an
agent *can* verify a completion claim instead of trusting the model's word.
"""

from __future__ import annotations

from collections.abc import Sequence

from fake_tools import FakeWorld, Tool, ToolRouter, check_tool
from harness import Budget, Script, ScriptedModel, Setup, ToolSpec

__all__ = ["CHECK", "budget", "setup"]

CHECK = ToolSpec(
    name="check_completion",
    description="Re-read the system of record: is the task complete, and what still fails?",
)


def budget(steps: int) -> Budget:
    """The budgets of the built-in scenarios: ``steps`` model calls and a token allowance that a
    run of that many steps fits in with room to spare (so steps, not tokens, bind first)."""
    tokens_per_step = 2_000
    return Budget(max_steps=steps, max_tokens=steps * tokens_per_step, max_wall_seconds=5.0)


def setup(
    world: FakeWorld,
    tools: Sequence[Tool],
    script: Script,
    *,
    seed: int,
) -> Setup:
    """World, tools (with `CHECK` added) and the scripted model for one run."""
    router = ToolRouter(world, [*tools, check_tool(CHECK)])
    return Setup(world=world, toolbox=router, model=ScriptedModel(script, seed=seed))
