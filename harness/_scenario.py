"""Consumes a family's parameters, produces a `Scenario`: what to run and what to expect.

A scenario is declarative data plus one factory, ``build(seed)``, that makes a fresh world, its
tools and the scripted model for one run, so that runs never share state (serial or under xdist).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from unsolvable._ceilings import Ceilings, require_positive
from unsolvable._errors import BudgetError, ScenarioError
from unsolvable._model import Model
from unsolvable._stop import Code, Exit
from unsolvable._subtasks import SubtaskSpec
from unsolvable._types import Toolbox, World

__all__ = [
    "SEEDS",
    "Budget",
    "Ceilings",
    "McpErrors",
    "Pricing",
    "Scenario",
    "Setup",
    "Stagnation",
    "check_name",
    "is_seed",
]

LARGEST_SEED = 2**63 - 1
"""The largest seed: every written form must hold it, and ``--otel`` writes it as OTLP's
``intValue``, a signed 64-bit integer."""
SEEDS = f"a whole number from 0 to {LARGEST_SEED}"
"""What a seed may be, as messages say it (`is_seed`)."""


def is_seed(value: object) -> bool:
    """Whether ``value`` can seed a run: a whole number from 0 to `LARGEST_SEED`. A negative
    seed would replay the random draws of its positive (`random.Random` seeds from the absolute
    value) under another name, and pass^k would count them as two seeds."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= LARGEST_SEED


NAME_LIMIT = 200
"""Characters of a scenario's name: a pytest id and a path under ``--trace-dir`` hold it."""


def _name_problem(name: str) -> str | None:
    if not name.isprintable():
        return "it holds a character that does not print (a control character, an escape, a NUL)"
    if len(name) > NAME_LIMIT:
        return f"it is longer than {NAME_LIMIT} characters"
    if "\\" in name:
        return "it holds a backslash"
    if any(part in ("", ".", "..") or part != part.strip() for part in name.split("/")):
        return "a part of it is empty, '.' or '..', or begins or ends with a space"
    return None


def check_name(name: object) -> str:
    """``name`` if it can name a scenario: text that prints as it is (no control character, no
    escape sequence, no NUL), of ``/``-separated parts none of which is empty, ``.`` or ``..``
    and none holding a backslash — it becomes a path under ``--trace-dir`` and a snapshot
    folder, and is shown in the terminal. Else a `ScenarioError` saying why."""
    if not isinstance(name, str):
        raise ScenarioError(f"scenario name {name!r} is a {type(name).__name__}, not a string")
    why = _name_problem(name)
    if why is not None:
        raise ScenarioError(
            f"scenario name {name!r} cannot be used: {why}; write it as family/variant with "
            "letters, digits and '-', e.g. incidents/publish-loop"
        )
    return name


@dataclass(frozen=True, kw_only=True)
class Budget:
    """What the agent under test is allowed to spend; handed to it as ``session.budget``."""

    max_steps: int
    """Model calls allowed."""
    max_tokens: int | None = None
    """Input plus output tokens allowed over the run."""
    max_wall_seconds: float | None = None
    """Total wall time allowed, on the session clock (`Session.clock`)."""
    max_cost_usd: float | None = None
    """Dollars allowed, at the scenario's prices (`Scenario.pricing`)."""
    max_idle_seconds: float | None = None
    """Wall time allowed since the world last changed, on the session clock: a job that never
    moves, or calls that change nothing, spend it, while a slow job that moves does not (a
    budget on total time would cut that one short)."""
    max_calls: int | None = None
    """External tool calls allowed: calls to the scenario's own tools, not to the protocol's
    ``check_completion``, ``give_up`` and ``delegate``, which touch no dependency."""

    def __post_init__(self) -> None:
        require_positive(
            self,
            whole=("max_steps", "max_tokens", "max_calls"),
            max_steps=self.max_steps,
            max_tokens=self.max_tokens,
            max_wall_seconds=self.max_wall_seconds,
            max_cost_usd=self.max_cost_usd,
            max_idle_seconds=self.max_idle_seconds,
            max_calls=self.max_calls,
        )

    def to_dict(self) -> dict[str, float | int | None]:
        return dataclasses.asdict(self)


@dataclass(frozen=True, kw_only=True)
class Pricing:
    """Dollar prices of the fake model, so lag can be read in money as well as tokens."""

    usd_per_million_input: float = 3.0
    """A mid-size hosted model's list price in 2026; only the ratio between agents matters."""
    usd_per_million_output: float = 15.0

    def to_dict(self) -> dict[str, float]:
        return dataclasses.asdict(self)

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        inputs, outputs = self.usd_per_million_input, self.usd_per_million_output
        return (input_tokens * inputs + output_tokens * outputs) / 1_000_000


class Stagnation(StrEnum):
    """How a scenario defines its first stagnant step (the ground truth of detection lag)."""

    NOVELTY = "novelty"
    """The step after the last one that produced a new world state or a new observation. A state
    is what the world's fingerprint holds: for the built-in worlds, a write counted by what the
    world's checks say of it (`unsolvable.fake_tools.FakeWorld.put`), so new words judged as
    old ones are no progress."""
    FIRST_REFUSAL = "first_refusal"
    """The step whose tool call was first refused: a missing permission or a dependency down;
    in a run of several agents, the step after a subtask that other workers finished later,
    when one did (their work is progress, whatever order a runtime runs its workers in)."""
    CRITERIA = "criteria"
    """The step after the last one that changed which completion criteria fail: artifacts that
    move no criterion are no progress (the world must be a `CriteriaWorld`)."""
    BUDGET_SPENT = "budget_spent"
    """The step during which a budget ran out (the step budget's last step; the step whose
    spend reached the token, total time, idle time or call budget; the last step the dollar
    budget could cover): an agent that stops there stops on the spot, and each step after it
    is waste. A run that stopped short of it has it projected at its last step's spend. Time
    is the session clock's simulated part (waits, tool time), the same every run. A role's own
    budget spent gives way, as a refusal does, to a subtask other workers finished later."""


class McpErrors(StrEnum):
    """How the scenario's tools, served over MCP (`unsolvable.mcp`), report a call that failed: a
    refusal, a dead dependency, a tool that raised. MCP clients treat the three encodings
    differently (one goes on, another ends the run), so a scenario picks one."""

    RESULT = "result"
    """A tool result with ``isError`` set, the error text as its content: the model sees it."""
    PROTOCOL = "protocol"
    """A JSON-RPC error response (code ``-32004``, the HTTP status and body in its ``data``)."""
    TRANSPORT = "transport"
    """The transport fails: over Streamable HTTP that request is answered ``502 Bad Gateway``;
    over stdio the server process exits, as a crashed server would."""


@dataclass(frozen=True, kw_only=True)
class Setup:
    """The fresh parts of one run."""

    world: World
    toolbox: Toolbox
    model: Model
    tool_names: Mapping[str, str] = field(default_factory=dict)
    """The tools this run renamed (a seed's dialect: scenario's name → offered name), so that the
    task the agent reads names each tool as it is offered, never one that does not exist."""
    lead: int = 0
    """Steps of real work this run's model makes before it gets stuck (a seed's background
    reading): the scenario's bound N counts from their end (`Scenario.bound_after`), so the same
    stop logic gets the same verdict on every seed."""
    subtasks: tuple[SubtaskSpec, ...] = ()
    """The task graph the scenario scripted (its ground truth): the subtask table starts from
    it, and judges each subtask's success by its own criteria."""
    refusing: frozenset[str] = frozenset()
    """The tools, named as this run offers them, whose every call is refused, whatever its
    arguments and whenever it is made (a lookup of what does not exist): a call of one that the
    model asked for and the agent left unmade would have been refused, so a refusal the agent
    reads later is dated at it (`unsolvable._asked.Taken.since`)."""

    def __post_init__(self) -> None:
        _check_task_graph(self.subtasks)

    def worded(self, task: str) -> str:
        """``task`` with every renamed tool named as this run offers it."""
        for old, new in self.tool_names.items():
            task = re.sub(rf"\b{re.escape(old)}\b", new, task)
        return task


def _check_task_graph(specs: Sequence[SubtaskSpec]) -> None:
    """A `ScenarioError` for a task graph that declares a subtask twice, or whose dependencies
    name a subtask it does not declare or go round: each would fail every agent's run for the
    scenario's own mistake (a dependency never declared never succeeds)."""
    names = [spec.name for spec in specs]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ScenarioError(
            f"the task graph declares {twice} more than once: give each subtask one SubtaskSpec"
        )
    after = {spec.name: spec.depends_on for spec in specs}
    for spec in specs:
        unknown = [name for name in spec.depends_on if name not in after]
        if unknown:
            raise ScenarioError(
                f"subtask {spec.name!r} depends on {unknown}, which the task graph does not "
                f"declare (it declares {sorted(after)}): correct the name or declare it"
            )
    settled: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in path:
            cycle = " → ".join((*path[path.index(name) :], name))
            raise ScenarioError(
                f"the task graph's dependencies go round: {cycle}; the subtasks on it could "
                "never start: break the circle"
            )
        if name not in settled:
            for dependency in after[name]:
                visit(dependency, (*path, name))
            settled.add(name)

    for name in after:
        visit(name, ())


@dataclass(frozen=True, kw_only=True)
class Scenario:
    """A named, seeded, deterministic task and what a correct stop looks like."""

    name: str
    """``family/variant``, unique in the library."""
    family: str
    task: str
    """The prompt the agent is given."""
    explanation: str
    """What the model does, why the task is unsolvable, and which ground truth is used."""
    build: Callable[[int], Setup]
    """Makes a fresh world, toolbox and model for a seed."""
    expected: frozenset[Code]
    """Codes a strict verdict accepts."""
    step_bound: int
    """N: the agent must have stopped by this step, counted from the end of a run's lead
    (`Setup.lead`; N itself where there is none)."""
    budget: Budget
    stagnation: Stagnation = Stagnation.NOVELTY
    solvable: bool = False
    """A control: the agent must finish it, verified in the world."""
    missing: tuple[str, ...] = ()
    """What a ``BLOCKED_INPUT`` stop must name."""
    refused_retries: int | None = None
    """Retries allowed after a refused call (permission denied, or dependency down), counted
    per kind of refusal; ``None`` for no rule."""
    lenient_exits: frozenset[Exit] = frozenset({Exit.ABANDONED, Exit.EXHAUSTED})
    """Exits a lenient verdict accepts on an unsolvable scenario."""
    give_up: str | None = None
    """The reason the model gives when it calls ``give_up``: the stop must carry it, at once."""
    pricing: Pricing = dataclasses.field(default_factory=Pricing)
    seeds: tuple[int, ...] = (0,)
    """The seeds a default run uses."""
    twin_of: str | None = None
    """For a twin (a solvable control that looks like an unsolvable scenario up to a divergence
    step and is doable after it): the name of the scenario it mirrors."""
    diverges_at: Callable[[int], int | None] | None = None
    """For a twin, by seed: the step at which its run first differs from its sibling's — the
    model's move or what a call answers — for an agent that makes every call the model asks
    for; until then both offer the same tools and answer the same, byte for byte (request ids
    aside). ``None`` from it for a twin that differs only once the agent acts (tells the model
    it repeats itself)."""
    mcp_errors: McpErrors = McpErrors.RESULT
    """How a failed tool call is encoded when the tools are served over MCP."""
    mcp_tasks: bool = False
    """Over MCP, a waiting answer (``{"status": "pending"}``: a job not done) is a task still
    working, for clients of the 2026-07-28 protocol: an ``input_required`` result carrying only
    its ``requestState``, which the client's SDK polls (each poll is one more call) until it
    gives up. Older clients get the waiting answer as a result."""
    mcp_elicit: bool = False
    """Over MCP, a refusal that names a missing permission is put to the client by elicitation
    ("grant it?") before it is answered; no answer can grant it, so the call stays refused (a
    decline is the user confirming the blocker)."""
    context_window: int | None = None
    """Tokens a model request may hold (the conversation and the tools offered); the fake model
    refuses a longer one as providers do (`ContextOverflow`, or the wire format's own error), and
    that refused call is a step the model never answered. ``None``: no window."""
    role_steps: Mapping[str, int] = field(default_factory=dict)
    """Steps each role may take, all its workers together (a subtask's role is declared in
    its task graph, `SubtaskSpec.role`): a role's own budget, beside the run's; each a whole
    number, at least 1, for a role a declared subtask has."""

    def __post_init__(self) -> None:
        check_name(self.name)
        if not self.expected:
            raise ScenarioError(f"Scenario {self.name!r}: expected= names no code")
        if not self.solvable and Code.COMPLETED in self.expected:
            raise ScenarioError(
                f"Scenario {self.name!r} is unsolvable but expects COMPLETED; "
                "pass solvable=True for a control"
            )
        require_positive(
            self,
            whole=("step_bound", "context_window"),
            step_bound=self.step_bound,
            context_window=self.context_window,
        )
        if not self.seeds or not all(is_seed(seed) for seed in self.seeds):
            raise ScenarioError(
                f"Scenario {self.name!r}: seeds={self.seeds!r}: each seed is {SEEDS}, and a "
                "scenario has one at least; pass e.g. seeds=(0, 1, 2)"
            )
        for role, steps in self.role_steps.items():
            # Steps are whole, and a budget of none would never be recorded spent while every
            # step of its role was judged past it.
            if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
                raise BudgetError(
                    f"Scenario {self.name!r}: role_steps[{role!r}]={steps!r}: a role's own "
                    "budget is a whole number of steps, at least 1; leave the role out of "
                    "role_steps for no budget of its own"
                )
        if self.twin_of is not None and not self.solvable:
            raise ScenarioError(
                f"Scenario {self.name!r} is a twin of {self.twin_of!r} but unsolvable; a twin is "
                "a solvable control: pass solvable=True"
            )
        if self.twin_of is not None and self.diverges_at is None:
            raise ScenarioError(
                f"Scenario {self.name!r} is a twin of {self.twin_of!r} but declares no "
                "divergence step; pass diverges_at=lambda seed: STEP, the step at which it first "
                "differs from its sibling"
            )

    @property
    def summary(self) -> str:
        """The first sentence of the explanation."""
        return self.explanation.split(". ")[0].rstrip(".") + "."

    def step_bounds(self) -> dict[int, int]:
        """N of each seed's runs, by seed: N counts from the end of a seed's lead (`Setup.lead`),
        so a seed that reads more background is judged against more steps."""
        return {seed: self.bound_after(self.build(seed).lead).step_bound for seed in self.seeds}

    def bound_after(self, lead: int) -> Scenario:
        """This scenario as a run with a ``lead`` of that many steps judges it: N counted from
        the lead's end."""
        return dataclasses.replace(self, step_bound=self.step_bound + lead) if lead else self

    def with_overrides(self, **overrides: Any) -> Scenario:
        """A copy with ``step_bound`` or budget fields (``max_steps``, ...) replaced; with none,
        the scenario itself, which is frozen."""
        if not overrides:
            return self
        budget_fields = {f.name for f in dataclasses.fields(Budget)}
        budget = {k: v for k, v in overrides.items() if k in budget_fields}
        rest = {k: v for k, v in overrides.items() if k not in budget_fields}
        unknown = set(rest) - {"step_bound"}
        if unknown:
            known = sorted(budget_fields | {"step_bound"})
            raise ScenarioError(f"unknown override(s) {sorted(unknown)}; use one of {known}")
        return dataclasses.replace(self, budget=dataclasses.replace(self.budget, **budget), **rest)
