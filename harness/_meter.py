"""Consumes a run's steps, tool calls, waits and token spend, produces its counts and enforces the
harness's ceilings on them.

The session owns one `Meter` and calls it under its lock; the meter itself takes none.
"""

from __future__ import annotations

import time

from unsolvable._ceilings import Ceilings
from unsolvable._errors import CeilingHit
from unsolvable._seen import Counts, Seen
from unsolvable._types import PROTOCOL_TOOLS, ToolResult

__all__ = ["Meter"]


class Meter:
    """Steps (in all and per agent), tool calls, transport attempts, tokens and the session
    clock of one run, against its `Ceilings`."""

    def __init__(self, ceilings: Ceilings, *, seen: Seen | None = None) -> None:
        self.ceilings = ceilings
        self.seen = seen
        """Where a worker process shows the harness the counts as they grow (`Seen`)."""
        self.started = time.monotonic()
        self.ceiling: str | None = None
        """The ceiling that ended the run, once one was hit."""
        self.steps = 0
        self.agent_steps: dict[str, int] = {}
        self.tool_calls = 0
        self.transport_attempts = 0
        self.final_answer_calls = 0
        """Steps that offered the model no tool: a final answer asked for."""
        self.input_tokens = 0
        self.output_tokens = 0
        self.uncharged_tokens = 0
        """Input tokens of each agent's fixed prompt (`overhead`), not charged to the task."""
        self.overhead: dict[str, int] = {}
        """Each agent's fixed input per call, measured on its first call."""
        self.slept = 0.0
        self.tool_seconds = 0.0
        """Seconds the tools took on the session clock (`ToolResult.seconds`)."""
        self.external_calls = 0
        """Calls to the scenario's own tools, the protocol's left out (`Budget.max_calls`)."""
        self.irreversible_calls = 0

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    @property
    def clock(self) -> float:
        """Seconds on the session clock: real time since the run began plus the time slept
        and the time the tools took."""
        return self.elapsed + self.simulated

    @property
    def simulated(self) -> float:
        """The session clock's simulated part: what the ground truth reads, the same every
        run (real time is microseconds of harness and agent, and varies)."""
        return self.slept + self.tool_seconds

    @property
    def sent(self) -> int:
        """Every token sent and received so far."""
        return self.input_tokens + self.output_tokens

    @property
    def charged(self) -> int:
        """The tokens counted against the scenario's budget: `sent` but the agents' prompts."""
        return self.sent - self.uncharged_tokens

    def hit(self, which: str) -> None:
        """Marks the run as ended by the ceiling ``which``; the first one hit is kept."""
        self.ceiling = self.ceiling or which

    def admit_step(self, agent: str, *, offered: bool) -> tuple[int, int]:
        """Counts a model call and returns its number in the run and among ``agent``'s own;
        raises `CeilingHit` instead once a ceiling is reached. ``offered``: whether any tool
        was offered."""
        self._check(self.steps >= self.ceilings.max_steps, "steps")
        self.steps += 1
        self.agent_steps[agent] = self.agent_steps.get(agent, 0) + 1
        self.final_answer_calls += not offered
        self._show()
        return self.steps, self.agent_steps[agent]

    def check(self) -> None:
        """Raises `CeilingHit` once a ceiling is reached, the wall's included, counting nothing:
        for a call that is neither a step nor a tool call (a token count)."""
        if self.elapsed > self.ceilings.max_wall_seconds:
            self.hit("wall_seconds")
        if self.ceiling is not None:
            raise CeilingHit(f"unsolvable: harness ceiling {self.ceiling} reached")

    def admit_tool_call(self) -> None:
        """Counts a tool call; raises `CeilingHit` instead once a ceiling is reached."""
        self._check(self.tool_calls >= self.ceilings.max_tool_calls, "tool_calls")
        self.tool_calls += 1
        self._show()

    def _show(self) -> None:
        if self.seen is not None:
            counts = (self.steps, self.tool_calls, self.input_tokens, self.output_tokens)
            self.seen.saw(Counts(*counts, uncharged_tokens=self.uncharged_tokens))

    def charge(self, agent: str, *, sent: int, said: int, prompt: int, credit: int) -> None:
        """Adds a step's input (``sent``) and output (``said``) tokens. ``prompt``: the tokens
        of the agent's fixed prompt as its first call sent it, its overhead; ``credit``: what
        of the agent's prompt this call sent again, charged to no budget (`Accounts`), which may
        make up for its first call's."""
        self.overhead.setdefault(agent, prompt)
        self.uncharged_tokens += credit
        self.input_tokens += sent
        self.output_tokens += said
        self._show()

    def tool_done(self, name: str, result: ToolResult) -> None:
        """Adds what a tool call took: its time on the session clock, whether it reached a
        dependency (the termination contract's own tools do not), whether it was irreversible."""
        self.tool_seconds += result.seconds
        self.external_calls += name not in PROTOCOL_TOOLS
        self.irreversible_calls += result.irreversible

    def sleep(self, seconds: float) -> None:
        self.slept += max(0.0, float(seconds))

    def _check(self, exceeded: bool, which: str) -> None:
        """`check`, the ceiling ``which`` first when ``exceeded`` (the first one hit is kept)."""
        if exceeded:
            self.hit(which)
        self.check()
